"""Where the audit reads its rows: the small interface between the audit's checks and a backend.

The audit's passes (:mod:`mjledger.store.audit`) check rows; they do not care whether the rows
come from a SQLite file or a PostgreSQL schema. A :class:`AuditRows` gives them, in one
read-only snapshot, the handful of reads they make — streams in version order, the first rows
of matches and tables in commit order, every row in commit order for the head, the head row,
and the read models' rows — each streamed, so the audit's memory does not grow with the
store. This module holds the interface and the SQLite source; the PostgreSQL one is
:class:`mjledger.store.audit.postgres.PostgresRows`;
:func:`mjledger.store.audit.sources.open_rows` picks one by the store's location.

Rows come as the audit needs them: a stream's ``(notification, version, topic, state)``, every
row's ``(notification, stream, version, topic, state)``, with ``stream`` as 32 hex digits and
``state`` as the stored bytes (``notification``: SQLite's rowid, PostgreSQL's
``notification_id``: the commit order).
"""

from __future__ import annotations

import sqlite3
from collections.abc import Iterator
from pathlib import Path
from typing import Any, Final, Protocol

from mjledger.errors import StoreError
from mjledger.store.files import read_only_uri
from mjledger.store.head import SELECT_HEAD
from mjledger.store.views import views_path

StreamRow = tuple[int, int, str, Any]
StoreRow = tuple[int, str, int, str, Any]
StrayStream = tuple[str, int, int, str]
# The read-model tables the audit compares (``tracking``: the views' tracking table).
VIEW_TABLES: Final = ("tracking", "view_matches", "view_hand_ids", "view_hands", "view_hand_net")
STRAYS_SHOWN: Final = 1000
MARK_BATCH: Final = 500  # audited streams remembered per insert into the temporary table
_STREAM: Final = (
    "SELECT rowid, originator_version, topic, state FROM stored_events "
    "WHERE originator_id = ? ORDER BY originator_version"
)
# The same query under another text, for the streams read whole (:meth:`SqliteRows.
# stream_rows`): the sqlite3 module keeps one prepared statement per text, and while a match's
# stream is still being read its statement is in use, so a hand's stream under the same text
# would be prepared anew each time (parsed and planned: most of a stream query's cost).
_STREAM_WHOLE: Final = _STREAM + " -- read whole"


class AuditRows(Protocol):
    """One read-only snapshot of a store, as the audit reads it."""

    name: str  # the store as the audit's summary and errors name it (no password)
    failures: tuple[type[BaseException], ...]  # the backend's errors: the store is unreadable
    views_status: str  # "compared", "absent" or "unreadable"
    views_problem: str | None  # why the read models cannot be compared (a finding)

    def open_views(self) -> None:
        """Open the read models (setting :attr:`views_status` and :attr:`views_problem`)."""

    def failure(self, error: BaseException) -> StoreError:
        """``error`` (one of :attr:`failures`) as the one-line error the audit raises."""

    def last_notification(self) -> int:
        """The notification (commit position) of the last row, 0 for an empty store."""

    def starting(self, topic: str) -> Iterator[str]:
        """The streams whose first row (version 1) is stored under ``topic``, in commit order."""

    def stream(self, stream: str) -> Iterator[StreamRow]:
        """One stream's rows in version order; the stream counts as audited (not stray)."""

    def stream_rows(self, stream: str) -> list[StreamRow]:
        """:meth:`stream`'s rows all at once (a hand's, read whole while its match's stream
        is still being read)."""

    def states(self, stream: str) -> list[Any]:
        """One (short) stream's states in version order, without marking it audited."""

    def state_at(self, stream: str, version: int) -> Any | None:
        """The state of one row, None when there is none."""

    def has_stream(self, stream: str) -> bool: ...

    def strays(self) -> Iterator[StrayStream]:
        """Streams not audited so far: (stream, rows, first version, least topic), in commit
        order of their first row, at most :data:`STRAYS_SHOWN`."""

    def all_rows(self, after: int = 0) -> Iterator[StoreRow]:
        """Every row in commit order (those after notification ``after``)."""

    def rows_through(self, notification: int) -> int:
        """How many rows there are up to notification ``notification``, that one included."""

    def stored_head(self) -> tuple[int, int, str, str | None] | None:
        """The head row (rows, notification, digest, signature); None without a head table
        or row."""

    def view_position(self) -> int:
        """The read models' tracking position (0 when they have applied nothing)."""

    def view_match(self, match: str | None) -> tuple[Any, ...] | None:
        """``view_matches``' row of a match: (seq, stream, ruleset, players, rules)."""

    def view_hands(self, match: str | None) -> Iterator[tuple[Any, ...]]:
        """``view_hands``' rows of a match by number: (number, ruleset, dealer,
        dealer_streak, round_wind, outcome, winners, next_dealer)."""

    def view_nets(self, match: str | None) -> Iterator[tuple[Any, ...]]:
        """``view_hand_net``'s rows of a match by number and player: (number, player,
        ruleset, amount)."""

    def view_count(self, table: str) -> int: ...

    def close(self) -> None: ...


def _read_only(path: Path) -> sqlite3.Connection:
    """A read-only connection, immutable in a directory that cannot be written (as every
    reading command opens a store: :func:`mjledger.store.files.read_only_uri`)."""
    db = sqlite3.connect(read_only_uri(path), uri=True)
    db.isolation_level = None
    db.execute("BEGIN")  # one snapshot for the whole audit, even while others record
    return db


class SqliteRows:
    """The rows of a SQLite store file (and its views file beside it), read-only, one
    snapshot each."""

    failures: tuple[type[BaseException], ...] = (sqlite3.Error,)

    def __init__(self, path: Path) -> None:
        self.path = path
        self.name = str(path)
        if not path.is_file():
            raise StoreError(f"no store at {path}", code="store_unavailable")
        try:
            self.db = _read_only(path)
            self.db.execute("SELECT 1 FROM stored_events LIMIT 1").fetchall()
            self.db.execute("CREATE TEMP TABLE audited (stream TEXT PRIMARY KEY)")
        except sqlite3.Error as exc:
            raise self.failure(exc) from None
        self._marks: list[tuple[str]] = []  # audited streams not yet in temp.audited
        self.views: sqlite3.Connection | None = None
        self.views_status = "absent"
        self.views_problem: str | None = None

    def open_views(self) -> None:
        """Open the views file (once the audit wants it): a missing file is "absent", a
        damaged one "unreadable" with :attr:`views_problem` saying why."""
        path = views_path(self.path)
        if not path.is_file():
            return
        try:
            views = _read_only(path)
            tables = {name for (name,) in views.execute("SELECT name FROM sqlite_master")}
        except sqlite3.Error as exc:
            self.views_status = "unreadable"
            self.views_problem = f"the read models cannot be read: {exc}"
            return
        missing = sorted(set(VIEW_TABLES) - tables)
        if missing:
            self.views_status = "unreadable"
            self.views_problem = f"the read models lack {', '.join(missing)}"
            views.close()
            return
        self.views = views
        self.views_status = "compared"

    def failure(self, error: BaseException) -> StoreError:
        return StoreError(f"cannot read the store {self.path}: {error}", code="store_unavailable")

    def last_notification(self) -> int:
        found: int | None = self.db.execute("SELECT MAX(rowid) FROM stored_events").fetchone()[0]
        return found or 0

    def starting(self, topic: str) -> Iterator[str]:
        for (stream,) in self.db.execute(
            "SELECT originator_id FROM stored_events WHERE originator_version = 1 "
            "AND topic = ? ORDER BY rowid",
            (topic,),
        ):
            yield stream

    def stream(self, stream: str) -> Iterator[StreamRow]:
        self._mark(stream)
        return self.db.execute(_STREAM, (stream,))

    def stream_rows(self, stream: str) -> list[StreamRow]:
        self._mark(stream)
        rows: list[StreamRow] = self.db.execute(_STREAM_WHOLE, (stream,)).fetchall()
        return rows

    def _mark(self, stream: str) -> None:
        self._marks.append((stream,))
        if len(self._marks) >= MARK_BATCH:
            self._flush_marks()

    def states(self, stream: str) -> list[Any]:
        return [
            state
            for (state,) in self.db.execute(
                "SELECT state FROM stored_events WHERE originator_id = ? "
                "ORDER BY originator_version",
                (stream,),
            )
        ]

    def state_at(self, stream: str, version: int) -> Any | None:
        found = self.db.execute(
            "SELECT state FROM stored_events WHERE originator_id = ? AND originator_version = ?",
            (stream, version),
        ).fetchone()
        return found[0] if found else None

    def has_stream(self, stream: str) -> bool:
        return bool(
            self.db.execute(
                "SELECT 1 FROM stored_events WHERE originator_id = ? LIMIT 1", (stream,)
            ).fetchone()
        )

    def _flush_marks(self) -> None:
        self.db.executemany("INSERT OR IGNORE INTO temp.audited VALUES (?)", self._marks)
        self._marks.clear()

    def strays(self) -> Iterator[StrayStream]:
        self._flush_marks()
        if self._all_audited():
            return iter(())
        return self.db.execute(
            "SELECT s.originator_id, COUNT(*), MIN(s.originator_version), MIN(s.topic) "
            "FROM stored_events s LEFT JOIN temp.audited a ON a.stream = s.originator_id "
            f"WHERE a.stream IS NULL GROUP BY s.originator_id ORDER BY MIN(s.rowid) "
            f"LIMIT {STRAYS_SHOWN}"
        )

    def _all_audited(self) -> bool:
        """Whether every row is of an audited stream, so that :meth:`strays` has none to give:
        its rows counted by the audited streams' ids in the key's index, against all of
        them (cheaper than the grouped join, which looks up every row's stream)."""
        found = self.db.execute(
            "SELECT (SELECT COUNT(*) FROM stored_events WHERE originator_id IN "
            "(SELECT stream FROM temp.audited)) = (SELECT COUNT(*) FROM stored_events)"
        ).fetchone()
        return bool(found[0])

    def all_rows(self, after: int = 0) -> Iterator[StoreRow]:
        return self.db.execute(
            "SELECT rowid, originator_id, originator_version, topic, state "
            "FROM stored_events WHERE rowid > ? ORDER BY rowid",
            (after,),
        )

    def rows_through(self, notification: int) -> int:
        if notification >= self.last_notification():  # all of them: counted by the index
            found = self.db.execute("SELECT COUNT(*) FROM stored_events").fetchone()
        else:
            found = self.db.execute(
                "SELECT COUNT(*) FROM stored_events WHERE rowid <= ?", (notification,)
            ).fetchone()
        count: int = found[0]
        return count

    def stored_head(self) -> tuple[int, int, str, str | None] | None:
        try:
            found: tuple[int, int, str, str | None] | None = self.db.execute(SELECT_HEAD).fetchone()
        except sqlite3.OperationalError:  # no head table: a store from before the head
            return None
        return found

    def _views(self) -> sqlite3.Connection:
        assert self.views is not None
        return self.views

    def view_position(self) -> int:
        row = (
            self._views()
            .execute(
                "SELECT MAX(notification_id) FROM tracking WHERE application_name = 'mjledger'"
            )
            .fetchone()
        )
        return (row[0] or 0) if row else 0

    def view_match(self, match: str | None) -> tuple[Any, ...] | None:
        found: tuple[Any, ...] | None = (
            self._views()
            .execute(
                "SELECT seq, stream, ruleset, players, rules FROM view_matches WHERE match = ?",
                (match,),
            )
            .fetchone()
        )
        return found

    def view_hands(self, match: str | None) -> Iterator[tuple[Any, ...]]:
        return self._views().execute(
            "SELECT number, ruleset, dealer, dealer_streak, round_wind, outcome, winners, "
            "next_dealer FROM view_hands WHERE match = ? ORDER BY number",
            (match,),
        )

    def view_nets(self, match: str | None) -> Iterator[tuple[Any, ...]]:
        return self._views().execute(
            "SELECT number, player, ruleset, amount FROM view_hand_net WHERE match = ? "
            "ORDER BY number, player",
            (match,),
        )

    def view_count(self, table: str) -> int:
        assert table in VIEW_TABLES
        count: int = self._views().execute(f"SELECT COUNT(*) FROM {table}").fetchone()[0]
        return count

    def close(self) -> None:
        self.db.close()
        if self.views is not None:
            self.views.close()
