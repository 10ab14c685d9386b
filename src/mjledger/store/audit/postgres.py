"""The audit's rows from a PostgreSQL store (:class:`mjledger.store.audit.rows.AuditRows`).

One direct connection (not the ledger's pool: the audit opens no ``Ledger``), one transaction
``REPEATABLE READ READ ONLY`` for the whole audit, so it reads one snapshot while others go
on recording, and can write nothing. Everything is streamed: the long reads (every row in
commit order, the first rows of matches and tables, a match's read-model rows) through
server-side cursors, each stream in keyset pages, so memory does not grow with the store.

The streams already audited are remembered in a temporary table (created before the snapshot
begins: a read-only transaction may write temporary tables, not create them), in batches, for
the stray-row check.
"""

from __future__ import annotations

import itertools
from collections.abc import Iterator
from typing import Any, Final
from uuid import UUID

import psycopg
from psycopg import sql
from psycopg.rows import tuple_row

from mjledger.errors import StoreConnectionError, StoreError
from mjledger.store.audit.rows import (
    MARK_BATCH,
    STRAYS_SHOWN,
    VIEW_TABLES,
    StoreRow,
    StrayStream,
    StreamRow,
)
from mjledger.store.head import HEAD_TABLE
from mjledger.store.location import PostgresStore
from mjledger.store.postgres import EVENTS_TABLE, VIEWS_TRACKING

PAGE: Final = 1000  # rows per keyset page of a stream, and per server-side fetch


class PostgresRows:
    """The rows of a PostgreSQL store's schema, read-only, in one snapshot."""

    failures: tuple[type[BaseException], ...] = (psycopg.Error,)

    def __init__(self, store: PostgresStore) -> None:
        self.store = store
        self.name = str(store)
        self.views_status = "absent"
        self.views_problem: str | None = None
        self._cursors = itertools.count()
        self._marks: list[UUID] = []
        schema = sql.Identifier(store.schema)
        self._events = sql.SQL("{}.{}").format(schema, sql.Identifier(EVENTS_TABLE))
        self._head = sql.SQL("{}.{}").format(schema, sql.Identifier(HEAD_TABLE))
        self._tables = {
            name: sql.SQL("{}.{}").format(
                schema, sql.Identifier(VIEWS_TRACKING if name == "tracking" else name)
            )
            for name in VIEW_TABLES
        }
        try:
            self.conn = psycopg.connect(
                **store.conninfo(), connect_timeout=store.timeout, row_factory=tuple_row
            )
        except psycopg.Error as exc:
            reason = " ".join(str(exc).split())
            raise StoreConnectionError(
                f"cannot open the store {store}: {store.scrub(reason)}"
            ) from None
        try:
            self.conn.execute("CREATE TEMP TABLE mjledger_audited (stream uuid PRIMARY KEY)")
            self.conn.commit()
            # Every read from here on runs in this one snapshot, which can write nothing but
            # the temporary table.
            self.conn.isolation_level = psycopg.IsolationLevel.REPEATABLE_READ
            self.conn.read_only = True
            if self._regclass(EVENTS_TABLE) is None:
                self.conn.close()
                raise StoreError(
                    f"no store at {store} (no {store.schema}.{EVENTS_TABLE})",
                    code="store_unavailable",
                )
        except psycopg.Error as exc:
            self.conn.close()
            raise self.failure(exc) from None

    def _regclass(self, table: str) -> Any:
        row = self.conn.execute(
            "SELECT to_regclass(%s)", (f'"{self.store.schema}"."{table}"',)
        ).fetchone()
        return row[0] if row else None

    def open_views(self) -> None:
        """The read models live beside the events: none of their tables is "absent", some
        of them is a finding."""
        names = [VIEWS_TRACKING if n == "tracking" else n for n in VIEW_TABLES]
        present = {n for n in names if self._regclass(n) is not None}
        if present and len(present) < len(names):
            self.views_status = "unreadable"
            missing = sorted(
                n for n, table in zip(VIEW_TABLES, names, strict=True) if table not in present
            )
            self.views_problem = f"the read models lack {', '.join(missing)}"
        elif present:
            self.views_status = "compared"

    def failure(self, error: BaseException) -> StoreError:
        reason = " ".join(str(error).split())
        return StoreError(
            f"cannot read the store {self.store}: {self.store.scrub(reason)}",
            code="store_unavailable",
        )

    # --- helpers ------------------------------------------------------------------------------

    def _server_side(self, query: sql.Composed, params: tuple[Any, ...] = ()) -> Iterator[Any]:
        """A query's rows through a server-side cursor, :data:`PAGE` at a time."""
        with self.conn.cursor(name=f"mjledger_audit_{next(self._cursors)}") as cursor:
            cursor.itersize = PAGE
            cursor.execute(query, params)
            yield from cursor

    def _flush_marks(self) -> None:
        if self._marks:
            with self.conn.cursor() as cursor:
                cursor.executemany(
                    "INSERT INTO mjledger_audited VALUES (%s) ON CONFLICT DO NOTHING",
                    [(m,) for m in self._marks],
                )
            self._marks.clear()

    # --- the events ---------------------------------------------------------------------------

    def last_notification(self) -> int:
        row = self.conn.execute(
            sql.SQL("SELECT MAX(notification_id) FROM {}").format(self._events)
        ).fetchone()
        return int(row[0] or 0) if row else 0

    def starting(self, topic: str) -> Iterator[str]:
        query = sql.SQL(
            "SELECT originator_id FROM {} WHERE originator_version = 1 AND topic = %s "
            "ORDER BY notification_id"
        ).format(self._events)
        for (stream,) in self._server_side(query, (topic,)):
            yield stream.hex

    def stream(self, stream: str) -> Iterator[StreamRow]:
        self._marks.append(UUID(stream))
        if len(self._marks) >= MARK_BATCH:
            self._flush_marks()
        return self._pages(UUID(stream))

    def stream_rows(self, stream: str) -> list[StreamRow]:
        return list(self.stream(stream))

    def _pages(self, stream: UUID) -> Iterator[StreamRow]:
        query = sql.SQL(
            "SELECT notification_id, originator_version, topic, state FROM {} "
            "WHERE originator_id = %s AND originator_version > %s "
            "ORDER BY originator_version LIMIT %s"
        ).format(self._events)
        after = 0
        while True:
            page = self.conn.execute(query, (stream, after, PAGE)).fetchall()
            for notification, version, topic, state in page:
                yield notification, version, topic, bytes(state)
            if len(page) < PAGE:
                return
            after = page[-1][1]

    def states(self, stream: str) -> list[Any]:
        query = sql.SQL(
            "SELECT state FROM {} WHERE originator_id = %s ORDER BY originator_version"
        ).format(self._events)
        return [bytes(state) for (state,) in self.conn.execute(query, (UUID(stream),))]

    def state_at(self, stream: str, version: int) -> Any | None:
        query = sql.SQL(
            "SELECT state FROM {} WHERE originator_id = %s AND originator_version = %s"
        ).format(self._events)
        row = self.conn.execute(query, (UUID(stream), version)).fetchone()
        return bytes(row[0]) if row else None

    def has_stream(self, stream: str) -> bool:
        query = sql.SQL("SELECT 1 FROM {} WHERE originator_id = %s LIMIT 1").format(self._events)
        return self.conn.execute(query, (UUID(stream),)).fetchone() is not None

    def strays(self) -> Iterator[StrayStream]:
        self._flush_marks()
        query = sql.SQL(
            "SELECT s.originator_id, COUNT(*), MIN(s.originator_version), MIN(s.topic) "
            "FROM {} s LEFT JOIN mjledger_audited a ON a.stream = s.originator_id "
            "WHERE a.stream IS NULL GROUP BY s.originator_id "
            "ORDER BY MIN(s.notification_id) LIMIT {}"
        ).format(self._events, sql.Literal(STRAYS_SHOWN))
        for stream, count, version, topic in self.conn.execute(query):
            yield stream.hex, count, version, topic

    def all_rows(self, after: int = 0) -> Iterator[StoreRow]:
        query = sql.SQL(
            "SELECT notification_id, originator_id, originator_version, topic, state "
            "FROM {} WHERE notification_id > %s ORDER BY notification_id"
        ).format(self._events)
        for notification, stream, version, topic, state in self._server_side(query, (after,)):
            yield notification, stream.hex, version, topic, bytes(state)

    def rows_through(self, notification: int) -> int:
        query = sql.SQL("SELECT COUNT(*) FROM {} WHERE notification_id <= %s").format(self._events)
        row = self.conn.execute(query, (notification,)).fetchone()
        return int(row[0]) if row else 0

    def stored_head(self) -> tuple[int, int, str, str | None] | None:
        if self._regclass(HEAD_TABLE) is None:
            return None
        query = sql.SQL("SELECT rows, notification, digest, signature FROM {} WHERE id = 1").format(
            self._head
        )
        row = self.conn.execute(query).fetchone()
        return (int(row[0]), int(row[1]), row[2], row[3]) if row else None

    # --- the read models ----------------------------------------------------------------------

    def view_position(self) -> int:
        query = sql.SQL(
            "SELECT MAX(notification_id) FROM {} WHERE application_name = 'mjledger'"
        ).format(self._tables["tracking"])
        row = self.conn.execute(query).fetchone()
        return int(row[0] or 0) if row else 0

    def view_match(self, match: str | None) -> tuple[Any, ...] | None:
        query = sql.SQL(
            "SELECT seq, stream, ruleset, players, rules FROM {} WHERE match = %s"
        ).format(self._tables["view_matches"])
        row: tuple[Any, ...] | None = self.conn.execute(query, (match,)).fetchone()
        return row

    def view_hands(self, match: str | None) -> Iterator[tuple[Any, ...]]:
        query = sql.SQL(
            "SELECT number, ruleset, dealer, dealer_streak, round_wind, outcome, winners, "
            "next_dealer FROM {} WHERE match = %s ORDER BY number"
        ).format(self._tables["view_hands"])
        return self._server_side(query, (match,))

    def view_nets(self, match: str | None) -> Iterator[tuple[Any, ...]]:
        query = sql.SQL(
            "SELECT number, player, ruleset, amount FROM {} WHERE match = %s "
            'ORDER BY number, player COLLATE "C"'
        ).format(self._tables["view_hand_net"])
        return self._server_side(query, (match,))

    def view_count(self, table: str) -> int:
        row = self.conn.execute(
            sql.SQL("SELECT COUNT(*) FROM {}").format(self._tables[table])
        ).fetchone()
        return int(row[0]) if row else 0

    def close(self) -> None:
        self.conn.close()
