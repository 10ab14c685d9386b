"""The store head, kept in the same transaction as the rows it covers (and signatures).

(This module holds the SQLite recorder and what both backends share; the PostgreSQL recorder,
:class:`mjledger.store.postgres.LedgerRecorder`, keeps the same head by the same formula.)

No digest chain can show rows removed from the *end* of a stream: the last hand of a match,
the last events of an open hand. So every recording transaction also updates one row of a small
table, ``ledger_head``, with the head digest over every stored row in commit order
(:func:`mjledger.store.integrity.head_step`) and how many rows it covers. The row is written by the
event recorder itself, inside the transaction that inserts the events, so a crash leaves the
events and their head together or neither.

With a signer, the recorder also signs each ``hand_closed`` row's digest (stored in the row as
``"signature"``, a metadata key outside the chain) and the new head.
"""

from __future__ import annotations

import json
import sqlite3
import threading
from collections.abc import Callable, Iterable, Iterator, Sequence
from contextlib import contextmanager
from functools import cache
from itertools import chain
from typing import Any, Final
from uuid import UUID

from eventsourcing.persistence import InterfaceError, StoredEvent
from eventsourcing.sqlite import (
    SQLITE3_DEFAULT_LOCK_TIMEOUT,
    SQLiteApplicationRecorder,
    SQLiteConnection,
    SQLiteCursor,
    SQLiteTransaction,
)

from mjledger.errors import StoreError
from mjledger.store.events import HandClosed, HandCorrected, HandVoided
from mjledger.store.integrity import (
    HEAD_GENESIS,
    hand_message,
    head_after,
    head_message,
    head_step,
)
from mjledger.store.records import TableRow, topic_of
from mjledger.store.signing import Signer

HEAD_TABLE: Final = "ledger_head"
CREATE_HEAD: Final = (
    f"CREATE TABLE IF NOT EXISTS {HEAD_TABLE} (id INTEGER PRIMARY KEY CHECK (id = 1), "
    "rows INTEGER NOT NULL, notification INTEGER NOT NULL, digest TEXT NOT NULL, signature TEXT)"
)
SELECT_HEAD: Final = f"SELECT rows, notification, digest, signature FROM {HEAD_TABLE} WHERE id = 1"
# The head and, on SQLite, the rowid of the connection's last insert (the newest row's id).
SELECT_HEAD_AND_LAST: Final = SELECT_HEAD.replace(
    "signature FROM", "signature, last_insert_rowid() FROM", 1
)
# The head moved over a writer's rows from the head it left, if the head row still says so.
MOVE_KNOWN_HEAD: Final = (
    f"UPDATE {HEAD_TABLE} SET rows = ?, notification = last_insert_rowid(), digest = ?, "
    "signature = ? WHERE id = 1 AND rows = ? AND digest = ?"
)
# Held while a recorder's kept writer connection is handed over (see HeadRecorder.writer).
_KEEPING: Final = threading.Lock()
# Rows one INSERT statement takes at most (see insert_rows): a transaction of more runs more.
# Four parameters a row: 256, under even an old SQLite's limit of 999 a statement.
ROWS_A_STATEMENT: Final = 64
# Statements a writer's own connection keeps compiled: an INSERT of each row count up to
# ROWS_A_STATEMENT, and a transaction's others (BEGIN, the head's, COMMIT).
_STATEMENTS_KEPT: Final = ROWS_A_STATEMENT + 8
HEAD_ROW_MISSING: Final = (
    "the store's head row is missing (ledger_head): nothing recorded; "
    "audit the store (mjledger audit)"
)
# The rows that close a hand's record, signed when a signer is set: closings and corrections.
_SIGNED: Final = frozenset(topic_of(cls) for cls in (HandClosed, HandCorrected, HandVoided))


def _hex(originator_id: UUID | str) -> str:
    return originator_id.hex if isinstance(originator_id, UUID) else originator_id


def fold_head(rows: Iterable[Any], digest: str = HEAD_GENESIS) -> tuple[int, int, str]:
    """How many rows, the last rowid and the head after ``(rowid, id, version, topic, state)``
    rows in rowid order."""
    count = last = 0
    for rowid, stream, version, topic, state in rows:
        digest = head_of_row(digest, stream, version, topic, state)
        count += 1
        last = rowid
    return count, last, digest


def head_of_row(digest: str, stream: str, version: int, topic: str, state: Any) -> str:
    """The head after one more row as the table gives it (a state stored as text is hashed
    as its UTF-8): :func:`fold_head`'s step, and the audit's as it reads each stream."""
    if isinstance(state, str):
        state = state.encode("utf-8")
    return head_step(digest, stream, version, topic, state)


def signed_events(
    stored_events: Sequence[StoredEvent], signer: Signer | None
) -> Sequence[StoredEvent]:
    """The rows to insert: with a signer, each closing row carries its signature."""
    if signer is None:
        return stored_events
    return [
        s
        if s.topic not in _SIGNED
        else StoredEvent(s.originator_id, s.originator_version, s.topic, _signed(s.state, signer))
        for s in stored_events
    ]


def signed_rows(rows: Sequence[TableRow], signer: Signer | None) -> Sequence[TableRow]:
    """:func:`signed_events` of rows in the table's form."""
    if signer is None:
        return rows
    return [r if r[2] not in _SIGNED else (r[0], r[1], r[2], _signed(r[3], signer)) for r in rows]


def insert_rows(c: sqlite3.Cursor, table: str, rows: Sequence[TableRow]) -> None:
    """Insert ``rows`` (in the table's form) into the events ``table`` in order, up to
    :data:`ROWS_A_STATEMENT` a statement.

    One ``INSERT … VALUES (…), (…)`` binds and steps once for all its rows, where
    ``executemany`` binds, steps and resets once a row: a hand's 19 rows cost SQLite about a
    tenth less CPU (docs/performance.md, "Recording, seventh round"). The rows, their order and
    their rowids are those of inserting them one at a time, and a row already there fails the
    statement as it would fail its own insert."""
    for start in range(0, len(rows), ROWS_A_STATEMENT):
        some = rows[start : start + ROWS_A_STATEMENT]
        c.execute(_insert_statement(table, len(some)), list(chain.from_iterable(some)))


@cache
def _insert_statement(table: str, rows: int) -> str:
    return f"INSERT INTO {table} VALUES " + ",".join(("(?,?,?,?)",) * rows)


def stored_events(rows: Sequence[TableRow]) -> list[StoredEvent]:
    """Rows in the table's form as eventsourcing's recorders take them."""
    return [StoredEvent(UUID(r[0]), r[1], r[2], r[3]) for r in rows]


def next_head(
    rows: int, digest: str, stored_events: Sequence[StoredEvent], signer: Signer | None
) -> tuple[int, str, str | None]:
    """The head row after inserting ``stored_events`` (in order) after a head of ``rows`` rows
    and ``digest``: rows, digest and (with a signer) signature. Both backends' recorders."""
    return _moved(rows, digest, table_rows(stored_events), signer)


def table_rows(stored_events: Sequence[StoredEvent]) -> list[TableRow]:
    """The rows as the events table holds them. A transaction's rows come a stream at a time,
    so each stream id is spelled in hex once (``UUID.hex`` is Python code, and a hand's rows
    would each pay for it)."""
    out: list[TableRow] = []
    stream: UUID | str | None = None
    spelled = ""
    for s in stored_events:
        if s.originator_id is not stream:
            stream = s.originator_id
            spelled = _hex(stream)
        out.append((spelled, s.originator_version, s.topic, s.state))
    return out


def _moved(
    rows: int, digest: str, added: Sequence[TableRow], signer: Signer | None
) -> tuple[int, str, str | None]:
    """:func:`next_head` over rows already in the table's form."""
    digest = head_after(digest, added)
    rows += len(added)
    signature = signer.sign(head_message(rows, digest)) if signer is not None else None
    return rows, digest, signature


class HeadRecorder(SQLiteApplicationRecorder):
    """eventsourcing's SQLite recorder, plus the store head (and signatures) per transaction."""

    signer: Signer | None = None
    _kept: _KeptWriter | None = None  # the last writer's connection (see writer())
    _released = False  # closing: no connection is kept any more

    def construct_create_table_statements(self) -> list[str]:
        return [*super().construct_create_table_statements(), CREATE_HEAD]

    def _create_table(self, c: SQLiteCursor) -> None:
        c.execute("SELECT 1 FROM sqlite_master WHERE type = 'table' AND name = ?", (HEAD_TABLE,))
        adopt = c.fetchone() is None
        super()._create_table(c)
        if adopt:
            # A new store, or one written before the head existed: the head starts from the
            # rows there now (it vouches for what is recorded from here on). A head *row*
            # missing from an existing table is not re-created: that is for an audit to see.
            c.execute(
                f"SELECT rowid, originator_id, originator_version, topic, state "
                f"FROM {self.events_table_name} ORDER BY rowid"
            )
            rows, last, digest = fold_head(c.sqlite_cursor)
            signature = self.signer.sign(head_message(rows, digest)) if self.signer else None
            c.execute(
                f"INSERT OR IGNORE INTO {HEAD_TABLE} VALUES (1, ?, ?, ?, ?)",
                (rows, last, digest, signature),
            )

    @contextmanager
    def writer(self) -> Iterator[Callable[[Sequence[TableRow]], Sequence[int] | None]]:
        """Insert many transactions in a row (a long log, a hand each): ``insert(rows)``
        commits one, exactly as :meth:`insert_events` does, through one connection kept for
        them all, rows in the table's form. eventsourcing's pooled connections keep one
        compiled statement, so each of a transaction's five statements was compiled again
        every time, and every transaction took a connection from the pool and put it back.
        An in-memory database has no second connection: there, the pool's is used.

        The connection stays open for the next writer, of any thread, one at a time
        (:meth:`release_writer` closes it, as ``Ledger.close`` does): opening one, reading
        the schema, compiling the statements and reading the head again cost about 140 µs
        of CPU a log (a log of ten hands takes about 2 ms)."""
        pool = self.datastore.pool
        if pool.is_sqlite_memory_mode:

            def pooled(rows: Sequence[TableRow]) -> Sequence[int] | None:
                with self.datastore.transaction(commit=True) as c:
                    return self._insert_rows(c, rows)

            yield pooled
            return
        kept = self._kept_writer()
        own = kept if kept is not None else _KeptWriter(self._connect(pool))

        def insert(rows: Sequence[TableRow]) -> Sequence[int] | None:
            # eventsourcing's transaction: BEGIN, COMMIT or ROLLBACK, its errors for sqlite3's.
            with SQLiteTransaction(own.connection, commit=True) as c:
                ids, moved = self._insert_after(c.sqlite_cursor, rows, own.known)
            own.known = moved
            return ids

        try:
            yield insert
        finally:
            if not self._keep(own):
                own.connection.close()

    def _kept_writer(self) -> _KeptWriter | None:
        """The connection kept from the last writer, now in use again, or None (none kept,
        or it is in use: by another thread, or by an enclosing writer)."""
        with _KEEPING:
            kept = self._kept
            if kept is None or kept.busy:
                return None
            kept.busy = True
            return kept

    def _keep(self, own: _KeptWriter) -> bool:
        """Whether ``own``, done with, stays kept for the next writer: unless another is
        kept already (another thread's) or the ledger is closing."""
        with _KEEPING:
            own.busy = False
            if self._kept is None and not self._released:
                self._kept = own
            return self._kept is own

    def release_writer(self) -> None:
        """Close the writer's kept connection, and keep none from now on (the ledger is
        closing); one in use is closed by its writer when it is done."""
        with _KEEPING:
            kept, self._kept, self._released = self._kept, None, True
            if kept is None or kept.busy:
                return
        kept.connection.close()

    @staticmethod
    def _connect(pool: Any) -> SQLiteConnection:
        try:
            own = sqlite3.connect(
                pool.db_name,
                uri=True,
                isolation_level=None,  # transactions begun and committed explicitly
                cached_statements=_STATEMENTS_KEPT,
                # Kept for whichever thread writes next, one writer at a time (``busy``),
                # and closed by whichever thread closes the ledger.
                check_same_thread=False,
                timeout=pool.lock_timeout or SQLITE3_DEFAULT_LOCK_TIMEOUT,
            )
        except sqlite3.Error as error:  # as eventsourcing's pool words it
            raise InterfaceError(error) from error
        return SQLiteConnection(own, max_age=None)

    def _insert_events(
        self, c: SQLiteCursor, stored_events: Sequence[StoredEvent], **_: Any
    ) -> Sequence[int] | None:
        return self._insert_rows(c, table_rows(stored_events))

    def _insert_after(
        self, c: sqlite3.Cursor, rows: Sequence[TableRow], known: tuple[int, str] | None
    ) -> tuple[list[int], tuple[int, str]]:
        """Insert one transaction's rows by :func:`insert_rows` (eventsourcing's SQLite
        recorder runs a statement per row, to collect each row's id) and move the head over
        them: the rows' ids and the head after them. A writer that knows the head it left
        (``known``) moves it from there by one ``UPDATE`` that applies only while the head
        row still says so (compare and set: one statement a transaction fewer); otherwise, or
        when it does not apply (another writer moved the head, or it was changed or
        removed), the head is read and moved (:meth:`_move_head`)."""
        signer = self.signer
        added = signed_rows(rows, signer)
        insert_rows(c, self.events_table_name, added)
        moved = False
        if known is not None and added:
            count, digest, signature = _moved(known[0], known[1], added, signer)
            c.execute(MOVE_KNOWN_HEAD, (count, digest, signature, known[0], known[1]))
            moved = c.rowcount == 1
            # An UPDATE inserts nothing: the last rowid is still the last row's.
            last = c.lastrowid
        if not moved:  # not the head this writer left: read and moved as every writer does
            count, digest, signature, last = self._move_head(c, added, signer)
        assert last is not None
        # SQLite numbers new rows one past the largest rowid, and the write lock held since
        # the first insert keeps them consecutive: these are the rows' notification ids.
        return list(range(last - len(added) + 1, last + 1)), (count, digest)

    def _insert_rows(self, c: SQLiteCursor, rows: Sequence[TableRow]) -> Sequence[int] | None:
        """The transaction's rows inserted by :func:`insert_rows` (eventsourcing's SQLite
        recorder runs a statement per row, to collect each row's id), then the head moved
        over them."""
        return self._insert_after(c.sqlite_cursor, rows, None)[0]

    def _move_head(
        self, c: sqlite3.Cursor, added: Sequence[TableRow], signer: Signer | None
    ) -> tuple[int, str, str | None, int]:
        """Read the head and move it over ``added``, just inserted: its rows, digest,
        signature and last rowid after them."""
        # The inserts hold the write lock, so the head read here is the latest one; the
        # last rowid is that of the last row inserted on this connection.
        c.execute(SELECT_HEAD_AND_LAST)
        head = c.fetchone()
        if head is None:
            raise StoreError(HEAD_ROW_MISSING, code="store_damaged")
        count, digest, signature = _moved(head[0], head[2], added, signer)
        last: int = head[4] if added else head[1]
        c.execute(
            f"UPDATE {HEAD_TABLE} SET rows = ?, notification = ?, digest = ?, signature = ? "
            "WHERE id = 1",
            (count, last, digest, signature),
        )
        return count, digest, signature, last


class _KeptWriter:
    """A writer's own connection, whether a writer is using it (one at a time, whatever its
    thread), and the head (rows, digest) its last transaction left: while no other writer
    has moved the head since, the next transaction moves it without reading it first."""

    __slots__ = ("busy", "connection", "known")

    def __init__(self, connection: SQLiteConnection) -> None:
        self.connection = connection
        self.busy = True
        self.known: tuple[int, str] | None = None


def _signed(state: bytes, signer: Signer) -> bytes:
    """A ``hand_closed`` (or ``hand_corrected``/``hand_voided``) row's state with the
    signature of its digest added."""
    digest = json.loads(state)["digest"]
    signature = signer.sign(hand_message(digest))
    return state[:-1] + f',"signature":"{signature}"}}'.encode("ascii")
