"""The kinds of storage a ledger runs on, one object each, chosen once by the store location.

As eventsourcing's persistence modules each provide one factory, each backend here provides
everything that differs between stores: eventsourcing's settings for its recorder (SQLite's
:class:`~mjledger.store.head.HeadRecorder`, PostgreSQL's
:class:`~mjledger.store.postgres.LedgerRecorder`, eventsourcing's in-memory one), the
writer a long log's transactions go through, the row reader of re-derivation
(:mod:`mjledger.store.rederive`) and of the audit (:mod:`mjledger.store.audit.rows`), the read
models' connection, and what a failed open says. The application (:class:`Ledger`) asks its
backend and never tests which one it is. A new backend is one class here, in
:data:`BACKENDS`, with a form of store string in :mod:`mjledger.store.location`.
"""

from __future__ import annotations

import os
from collections.abc import Callable, Iterator, Sequence
from contextlib import AbstractContextManager, contextmanager
from pathlib import Path
from typing import TYPE_CHECKING, Any, ClassVar, Final, Protocol, cast

from eventsourcing.persistence import PersistenceError
from eventsourcing.sqlite import SQLiteAggregateRecorder

from mjledger.errors import StoreError
from mjledger.store.files import read_only_uri
from mjledger.store.head import HeadRecorder, stored_events
from mjledger.store.location import PostgresStore, SqliteStore, StoreLocation, store_location
from mjledger.store.records import TableRow
from mjledger.store.rederive import Row
from mjledger.store.views import LedgerSource, ViewsCore, open_views

if TYPE_CHECKING:
    from mjledger.store.audit.rows import AuditRows

PAGE: Final = 2000  # rows per page of a re-derivation's read
# What inserts one transaction of rows, in the table's form.
Insert = Callable[[Sequence[TableRow]], object]


class Backend(Protocol):
    """One kind of storage, as the ledger, the re-derivation and the audit use it."""

    name: ClassVar[str]  # the ``persistence`` that names it (:data:`PERSISTENCE`)
    module: ClassVar[str]  # eventsourcing's persistence module (its PERSISTENCE_MODULE)
    keeps_head: ClassVar[bool]  # its recorder keeps the store head and signs

    @property
    def location(self) -> StoreLocation: ...

    @property
    def read_only(self) -> bool: ...

    def settings(self) -> dict[str, str]:
        """eventsourcing's settings for this store (its module, recorder, database)."""

    def adapt(self, factory: Any) -> None:
        """Adjust eventsourcing's infrastructure factory once it is built."""

    def open_failure(self, error: BaseException) -> BaseException | None:
        """Why opening failed, as mjledger says it (None: the error as it is)."""

    def writer(self, recorder: Any) -> AbstractContextManager[Insert]:
        """What inserts a long run of transactions (a log, a hand each)."""

    def rows(self, recorder: Any, topics: Sequence[str]) -> Iterator[Row]:
        """The rows of ``topics`` in commit order, a page at a time (re-derivation)."""

    def views(self, ledger: LedgerSource) -> ViewsCore:
        """The read models, on their own connection or the store's."""

    def audit_rows(self) -> AuditRows:
        """A read-only snapshot of the store's rows, as the audit reads them."""


def notification_rows(recorder: Any, topics: Sequence[str]) -> Iterator[Row]:
    """The rows of ``topics`` through the recorder's notifications (any recorder)."""
    start = 1
    while True:
        batch = recorder.select_notifications(start, PAGE, topics=topics)
        for n in batch:
            yield n.originator_id, n.originator_version, n.topic, n.state
        if len(batch) < PAGE:
            return
        start = batch[-1].id + 1


def sqlite_rows(recorder: SQLiteAggregateRecorder, topics: Sequence[str]) -> Iterator[Row]:
    """The rows of ``topics`` straight from a SQLite recorder's table, by rowid."""
    marks = ",".join("?" * len(topics))
    query = (
        "SELECT rowid, originator_id, originator_version, topic, state "
        f"FROM {recorder.events_table_name} WHERE rowid > ? AND topic IN ({marks}) "
        f"ORDER BY rowid LIMIT {PAGE}"
    )
    after = 0
    while True:
        with recorder.datastore.transaction(commit=False) as c:
            c.execute(query, (after, *topics))
            page = c.fetchall()
        for row in page:
            yield row[1], row[2], row[3], row[4]
        if len(page) < PAGE:
            return
        after = page[-1][0]


@contextmanager
def _recorder_writer(recorder: Any) -> Iterator[Insert]:
    yield lambda rows: recorder.insert_events(stored_events(rows))


class SqliteBackend:
    """A SQLite file: the head recorder (store head and signatures in each transaction), one
    connection kept for a long log, rows read straight from the table, the views beside it."""

    name: ClassVar[str] = "sqlite"
    module: ClassVar[str] = "eventsourcing.sqlite"
    keeps_head: ClassVar[bool] = True

    def __init__(self, location: SqliteStore, *, read_only: bool = False) -> None:
        self.location = location
        self.path: Path = location.path
        self.read_only = read_only

    def settings(self) -> dict[str, str]:
        dbname = read_only_uri(self.path) if self.read_only else str(self.path)
        settings = {
            "PERSISTENCE_MODULE": self.module,
            "SQLITE_DBNAME": dbname,
            "SQLITE_LOCK_TIMEOUT": "30",
            "APPLICATION_RECORDER_TOPIC": "mjledger.store.head:HeadRecorder",
        }
        if self.read_only:
            settings["CREATE_TABLE"] = "n"
        return settings

    def adapt(self, factory: Any) -> None:
        if self.read_only:
            # Reading never switches the journal mode (a read-only or immutable file cannot).
            factory.datastore.pool.is_journal_mode_wal = True

    def open_failure(self, error: BaseException) -> BaseException | None:
        return None

    def writer(self, recorder: Any) -> AbstractContextManager[Insert]:
        if isinstance(recorder, HeadRecorder):
            return cast(AbstractContextManager[Insert], recorder.writer())
        return _recorder_writer(recorder)  # a recorder topic given in the settings

    def rows(self, recorder: Any, topics: Sequence[str]) -> Iterator[Row]:
        if isinstance(recorder, SQLiteAggregateRecorder):
            return sqlite_rows(recorder, topics)
        return notification_rows(recorder, topics)

    def views(self, ledger: LedgerSource) -> ViewsCore:
        return open_views(ledger)

    def audit_rows(self) -> AuditRows:
        from mjledger.store.audit.rows import SqliteRows

        return SqliteRows(self.path)


class MemoryBackend(SqliteBackend):
    """eventsourcing's in-memory recorders: nothing written anywhere, no store head; the
    views in an in-memory SQLite database."""

    name: ClassVar[str] = "memory"
    module: ClassVar[str] = "eventsourcing.popo"
    keeps_head: ClassVar[bool] = False

    def __init__(self) -> None:
        super().__init__(SqliteStore(Path(":memory:")))

    def settings(self) -> dict[str, str]:
        return {"PERSISTENCE_MODULE": self.module}

    def audit_rows(self) -> AuditRows:
        raise StoreError("an in-memory store has no rows to audit", code="bad_parameter")


class PostgresBackend:
    """A PostgreSQL schema: the ledger's recorder (the same head, signatures), mjledger's
    errors for a failed open, the views in the store's schema on the ledger's pool, and the
    audit's own read-only connection."""

    name: ClassVar[str] = "postgres"
    module: ClassVar[str] = "eventsourcing.postgres"
    keeps_head: ClassVar[bool] = True
    read_only = False

    def __init__(self, location: PostgresStore) -> None:
        self.location = location

    def settings(self) -> dict[str, str]:
        return {
            **self.location.settings(),
            "APPLICATION_RECORDER_TOPIC": "mjledger.store.postgres:LedgerRecorder",
        }

    def adapt(self, factory: Any) -> None:
        return None

    def open_failure(self, error: BaseException) -> BaseException | None:
        if not isinstance(error, PersistenceError):
            return None
        from mjledger.store.postgres import open_failure

        return open_failure(self.location, error)

    def writer(self, recorder: Any) -> AbstractContextManager[Insert]:
        return _recorder_writer(recorder)

    def rows(self, recorder: Any, topics: Sequence[str]) -> Iterator[Row]:
        return notification_rows(recorder, topics)

    def views(self, ledger: LedgerSource) -> ViewsCore:
        from mjledger.store.postgres import PostgresLedgerViews

        return PostgresLedgerViews(ledger)

    def audit_rows(self) -> AuditRows:
        from mjledger.store.audit.postgres import PostgresRows

        return PostgresRows(self.location)


BACKENDS: Final[tuple[type[SqliteBackend] | type[PostgresBackend], ...]] = (
    SqliteBackend,
    MemoryBackend,
    PostgresBackend,
)
# Persistence modules a Ledger can run on, by name (eventsourcing's PERSISTENCE_MODULE).
PERSISTENCE: Final[dict[str, str]] = {b.name: b.module for b in BACKENDS}


def backend_for(
    store: str | os.PathLike[str] | StoreLocation | None = None,
    *,
    persistence: str = "sqlite",
    read_only: bool = False,
) -> Backend:
    """The backend of a store: by its location (a file, a ``postgresql://`` URL, else
    ``$MJLEDGER_STORE``), or in memory (``persistence="memory"``). ``read_only`` opens an
    existing SQLite store for reading only (the other backends ignore it)."""
    if persistence not in PERSISTENCE:
        raise StoreError(
            f"unknown persistence {persistence!r} (known: {', '.join(PERSISTENCE)})",
            code="bad_parameter",
        )
    if persistence == "memory":
        return MemoryBackend()
    location = store_location(store)
    if isinstance(location, PostgresStore):
        return PostgresBackend(location)
    if persistence == "postgres":
        raise StoreError(
            f"PostgreSQL needs a postgresql:// URL, not {location}", code="bad_parameter"
        )
    return SqliteBackend(location, read_only=read_only)
