"""The ledger on PostgreSQL: eventsourcing's postgres module, with mjledger's errors and views.

The events go through eventsourcing's PostgreSQL recorder unchanged (table
``{schema}.mjledger_events``, the same rows, topics and JSON as on SQLite, since the mapper
writes them). What this module adds:

* errors: a lost or refused connection becomes a :class:`StoreConnectionError` naming the store
  by its redacted URL, never a driver traceback and never the password;
* a first open that creates the schema and tables under an advisory lock, so backend processes
  starting together do not race on PostgreSQL's catalog;
* the read models in the same schema, beside the events, sharing the ledger's connection pool
  (one pool per ``Ledger``, not one per view), with eventsourcing's tracking table
  ``{schema}.mjledger_views_tracking``;
* waiting for writes by ``LISTEN``/``NOTIFY`` on the channel eventsourcing notifies on every
  insert, for ``mjledger project --follow``.
"""

from __future__ import annotations

import functools
import re
import threading
from collections.abc import Callable, Iterator, Sequence
from contextlib import contextmanager
from typing import Any, Final, TypeVar, cast

import psycopg
import psycopg.errors
from eventsourcing.persistence import (
    IntegrityError,
    PersistenceError,
    ProgrammingError,
    StoredEvent,
)
from eventsourcing.postgres import (
    PostgresApplicationRecorder,
    PostgresDatastore,
    PostgresTrackingRecorder,
)
from psycopg import sql
from psycopg.rows import tuple_row

from mjledger.errors import StoreConnectionError, StoreError
from mjledger.store.head import (
    CREATE_HEAD,
    HEAD_ROW_MISSING,
    HEAD_TABLE,
    SELECT_HEAD,
    fold_head,
    next_head,
    signed_events,
)
from mjledger.store.integrity import head_message
from mjledger.store.location import PostgresStore, redact
from mjledger.store.signing import Signer
from mjledger.store.views import LedgerSource, Overtaken, ViewsCore
from mjledger.store.views_sql import SQL, VIEW_TABLES

F = TypeVar("F", bound=Callable[..., Any])

EVENTS_TABLE: Final = "mjledger_events"  # eventsourcing's name: the application's, "_events"
VIEWS_TRACKING: Final = "mjledger_views_tracking"
_FIRST_OPEN_LOCK: Final = 0x6D6A6C6564676572  # "mjledger": one advisory lock per database


def describe(datastore: PostgresDatastore) -> str:
    """The store as errors name it: its URL without the password."""
    kw = cast(dict[str, Any], datastore.pool.kwargs)
    where = f"postgresql://{kw['user']}@{kw['host']}:{kw['port']}/{kw['dbname']}"
    return where + (f"?schema={datastore.schema}" if datastore.schema != "public" else "")


def connection_error(datastore: PostgresDatastore, error: BaseException) -> StoreConnectionError:
    """``error`` as mjledger reports it: the store's redacted URL and the server's reason."""
    kw = cast(dict[str, Any], datastore.pool.kwargs)
    reason = " ".join(str(error).split())
    if kw.get("password"):
        reason = reason.replace(str(kw["password"]), "***")
    return StoreConnectionError(f"the store {describe(datastore)} failed: {redact(reason)}")


def open_failure(store: PostgresStore, error: BaseException) -> StoreConnectionError:
    """Why a store could not be opened, in words: a pool only says it got no connection in
    time, so one direct attempt asks the server for the reason (a wrong password, no such
    database, nothing listening)."""
    reason = " ".join(str(error).split())
    try:
        psycopg.connect(**store.conninfo(), connect_timeout=store.timeout).close()
    except psycopg.Error as direct:
        reason = " ".join(str(direct).split())
    return StoreConnectionError(f"cannot open the store {store}: {store.scrub(reason)}")


def translated(method: F) -> F:
    """Database failures (after eventsourcing's own retries) as :class:`StoreConnectionError`;
    an ``IntegrityError`` (a lost race) passes through for the ledger to report."""

    @functools.wraps(method)
    def wrapper(self: Any, *args: Any, **kwargs: Any) -> Any:
        try:
            return method(self, *args, **kwargs)
        except IntegrityError:
            raise
        except (PersistenceError, psycopg.Error) as error:
            raise connection_error(self.datastore, error) from None

    return cast(F, wrapper)


class LedgerRecorder(PostgresApplicationRecorder):
    """eventsourcing's PostgreSQL recorder, reporting failures as mjledger's errors, plus the
    store head (and signatures) per transaction, as :class:`mjledger.store.head.HeadRecorder`
    keeps them on SQLite: the same table, the same formula over the same rows in commit
    (``notification_id``) order, so both backends give one head for one history."""

    signer: Signer | None = None

    def __init__(self, datastore: PostgresDatastore, **kwargs: Any) -> None:
        super().__init__(datastore, **kwargs)
        self.head_table = sql.SQL("{}.{}").format(
            sql.Identifier(datastore.schema), sql.Identifier(HEAD_TABLE)
        )
        self.events_table = sql.SQL("{}.{}").format(
            sql.Identifier(datastore.schema), sql.Identifier(self.events_table_name)
        )
        # docs/store.md's table, with PostgreSQL's 64-bit integers (SQLite's INTEGER is 64-bit)
        create = CREATE_HEAD.replace(HEAD_TABLE, "{}", 1).replace(
            " INTEGER NOT NULL", " BIGINT NOT NULL"
        )
        self.sql_create_statements.append(sql.Composed([sql.SQL(create).format(self.head_table)]))

    select_events = translated(PostgresApplicationRecorder.select_events)
    select_notifications = translated(PostgresApplicationRecorder.select_notifications)
    max_notification_id = translated(PostgresApplicationRecorder.max_notification_id)

    def create_table(self) -> None:
        with first_open(self.datastore):
            super().create_table()

    def _create_table(self, curs: Any) -> None:
        curs.execute("SELECT to_regclass(%s)", (f'"{self.datastore.schema}".{HEAD_TABLE}',))
        adopt = next(iter(curs.fetchone().values())) is None
        super()._create_table(curs)
        if adopt:
            # A new store, or one written before the head existed: the head starts from the
            # rows there now (as on SQLite). The events table is locked meanwhile, so no
            # writer of an older mjledger adds a row the head would miss.
            self._lock_table(curs)
            rows, last, digest = fold_head(self._all_rows(curs.connection))
            signature = self.signer.sign(head_message(rows, digest)) if self.signer else None
            curs.execute(
                sql.SQL("INSERT INTO {} VALUES (1, %s, %s, %s, %s) ON CONFLICT DO NOTHING").format(
                    self.head_table
                ),
                (rows, last, digest, signature),
            )

    def _all_rows(self, conn: Any) -> Iterator[tuple[int, str, int, str, bytes]]:
        """Every row in commit order, through a server-side cursor (constant memory)."""
        with conn.cursor(name="mjledger_head_rows", row_factory=tuple_row) as rows:
            rows.itersize = 2000
            rows.execute(
                sql.SQL(
                    "SELECT notification_id, originator_id, originator_version, topic, state "
                    "FROM {} ORDER BY notification_id"
                ).format(self.events_table)
            )
            for notification, stream, version, topic, state in rows:
                yield notification, stream.hex, version, topic, bytes(state)

    @translated
    def insert_events(
        self, stored_events: Sequence[StoredEvent], **kwargs: Any
    ) -> Sequence[int] | None:
        if self.datastore.enable_db_functions:
            raise StoreError(
                "POSTGRES_ENABLE_DB_FUNCTIONS bypasses the store head: mjledger does not use it",
                code="store_unavailable",
            )
        stored_events = signed_events(stored_events, self.signer)
        ids: Sequence[int] | None = PostgresApplicationRecorder.insert_events(
            self, stored_events, **kwargs
        )
        return ids

    def _insert_events(self, curs: Any, stored_events: Sequence[StoredEvent], **_: Any) -> None:
        """Before the rows go in (in the same transaction): take the events table's lock
        (which serializes writers, so the head read here is the latest) and move the head over
        the rows. An exception raised here rolls the whole transaction back."""
        if not stored_events:
            return
        self._lock_table(curs)
        curs.execute(sql.SQL(SELECT_HEAD.replace(HEAD_TABLE, "{}", 1)).format(self.head_table))
        head = curs.fetchone()
        if head is None:
            raise StoreError(HEAD_ROW_MISSING, code="store_damaged")
        rows, digest, signature = next_head(
            head["rows"], head["digest"], stored_events, self.signer
        )
        curs.execute(
            sql.SQL("UPDATE {} SET rows = %s, digest = %s, signature = %s WHERE id = 1").format(
                self.head_table
            ),
            (rows, digest, signature),
        )

    def _fetch_ids_after_insert_events(
        self, curs: Any, stored_events: Sequence[StoredEvent], **kwargs: Any
    ) -> Sequence[int] | None:
        ids = super()._fetch_ids_after_insert_events(curs, stored_events, **kwargs)
        if ids:
            curs.execute(
                sql.SQL("UPDATE {} SET notification = %s WHERE id = 1").format(self.head_table),
                (ids[-1],),
            )
        return ids


def require_store(store: PostgresStore) -> None:
    """Refuse a store that is not there (no events table in its schema), as a reading command
    refuses a missing SQLite file: reading never creates a schema, and a mistyped
    ``?schema=`` would otherwise show an empty store."""
    table = f'"{store.schema.replace(chr(34), chr(34) * 2)}".{EVENTS_TABLE}'
    try:
        with psycopg.connect(**store.conninfo(), connect_timeout=store.timeout) as conn:
            row = conn.execute("SELECT to_regclass(%s)", (table,)).fetchone()
    except psycopg.Error as error:
        raise open_failure(store, error) from None
    if row is None or row[0] is None:
        raise StoreError(
            f"no store at {store} (no mjledger tables in schema {store.schema!r}; "
            "record a log first, or check ?schema=)",
            code="store_unavailable",
        )


@contextmanager
def first_open(datastore: PostgresDatastore) -> Iterator[None]:
    """Create the schema (when missing) and hold the database's first-open lock meanwhile:
    ``CREATE … IF NOT EXISTS`` is not safe against itself in two sessions at once."""
    try:
        with datastore.get_connection() as conn:
            conn.execute("SELECT pg_advisory_lock(%s)", (_FIRST_OPEN_LOCK,))
            try:
                exists = conn.execute(
                    "SELECT 1 FROM pg_namespace WHERE nspname = %s", (datastore.schema,)
                ).fetchone()
                if not exists:
                    conn.execute(
                        sql.SQL("CREATE SCHEMA IF NOT EXISTS {}").format(
                            sql.Identifier(datastore.schema)
                        )
                    )
                yield
            finally:
                conn.execute("SELECT pg_advisory_unlock(%s)", (_FIRST_OPEN_LOCK,))
    except IntegrityError:
        raise
    except (PersistenceError, psycopg.Error) as error:
        raise connection_error(datastore, error) from None


def for_postgres(statement: str, schema: str) -> str:
    """One of the views' statements (``views.SQL``) as PostgreSQL takes it: ``%s``
    placeholders, names qualified with the store's schema, and text compared byte by byte
    (``COLLATE "C"``, as SQLite does), so both backends sort players and matches alike."""
    qualified = f'"{schema}".'
    statement = re.sub(r"\bview_(\w+)", lambda m: qualified + m.group(0), statement)
    statement = re.sub(r"\b(FROM|INTO) tracking\b", rf"\1 {qualified}{VIEWS_TRACKING}", statement)
    statement = statement.replace(" TEXT", ' TEXT COLLATE "C"')
    return statement.replace("?", "%s")


class PostgresLedgerViews(ViewsCore, PostgresTrackingRecorder):
    """The read models of a PostgreSQL store: tables ``view_*`` beside the events, in the
    store's schema, fed exactly once (view rows and tracking position in one transaction)."""

    def __init__(self, ledger: LedgerSource):
        self.ledger = ledger
        recorder = cast(PostgresApplicationRecorder, ledger.recorder)
        self.channel = recorder.channel_name
        schema = recorder.datastore.schema
        self.sql = {name: for_postgres(text, schema) for name, text in SQL.items()}
        # one row per application here (single-row tracking): lock it for the whole batch
        self.sql["lock_position"] = (
            f'SELECT notification_id FROM "{schema}".{VIEWS_TRACKING} '
            "WHERE application_name = %s FOR UPDATE"
        )
        self._catch_up_lock = threading.Lock()
        super().__init__(recorder.datastore, tracking_table_name=VIEWS_TRACKING)
        self.sql_create_statements.extend(sql.Composed([sql.SQL(self.sql[n])]) for n in VIEW_TABLES)
        if ledger.postgres is None or ledger.postgres.create:
            with first_open(self.datastore):
                PostgresTrackingRecorder.create_table(self)
        self._views_created()

    @contextmanager
    def _transaction(self, *, commit: bool) -> Iterator[Any]:
        try:
            with self.datastore.transaction(commit=commit) as c:
                c.row_factory = tuple_row  # type: ignore[assignment]
                yield c
        except IntegrityError:
            raise
        except PersistenceError as error:
            if self._contended(error):
                raise
            raise connection_error(self.datastore, error) from None

    def _contended(self, error: Exception) -> bool:
        # A lost race between two catch-ups: another one committed first (Overtaken, or the
        # tracking upsert refused a position already taken), or the server broke a deadlock.
        if isinstance(error, Overtaken | IntegrityError):
            return True
        return isinstance(error.__cause__, psycopg.errors.TransactionRollback)

    def max_tracking_id(self, application_name: str) -> int | None:
        try:
            found: int | None = PostgresTrackingRecorder.max_tracking_id(self, application_name)
            return found
        except ProgrammingError:  # no tracking table yet: eventsourcing's create_table asks
            raise
        except PersistenceError as error:
            raise connection_error(self.datastore, error) from None

    def _wait_for_writes(self, stop: threading.Event, interval: float) -> None:
        """Sleep until eventsourcing's ``NOTIFY`` for an insert (or ``interval`` s pass, or
        ``stop`` is set); a notification missed while reconnecting costs one interval."""
        try:
            with self.datastore.get_connection() as conn:
                conn.execute(sql.SQL("LISTEN {}").format(sql.Identifier(self.channel)))
                try:
                    waited = 0.0
                    while not stop.is_set() and waited < interval:
                        for _ in conn.notifies(timeout=0.1, stop_after=1):
                            return
                        waited += 0.1
                finally:
                    conn.execute(sql.SQL("UNLISTEN {}").format(sql.Identifier(self.channel)))
        except PersistenceError as error:
            raise connection_error(self.datastore, error) from None

    def close(self) -> None:
        """Nothing to close: the views share the ledger's pool, which the ledger closes."""
