"""Recording a checked log into a ledger: compare it with what is stored of its match, write
what is missing a hand a transaction, and count what was written.

Another writer may be recording the same match at the same moment: each append that loses a
race re-reads what is stored and goes on from there, so both end with the whole match stored
once, and a writer that found everything there says so. The ledger is reached through
:class:`mjledger.store.reads.LogTarget` (this module never imports the application).
"""

from __future__ import annotations

import operator
import uuid
from collections.abc import Callable, Iterable, Iterator, Sequence
from typing import Any, Final, cast

from eventsourcing.persistence import IntegrityError

from mjledger.errors import ConcurrencyError, StoreError
from mjledger.store.hand_forms import comparable
from mjledger.store.head import table_rows
from mjledger.store.importer import (
    HAND_CLOSED,
    HAND_STARTED,
    MATCH_STARTED,
    CheckedLog,
    RecordResult,
)
from mjledger.store.reads import LogTarget
from mjledger.store.records import Recorded, TableRow
from mjledger.store.streams import hand_stream, match_stream

Progress = Callable[[int, int], None]
Stored = dict[uuid.UUID, list[dict[str, Any]]]  # each stream's stored forms, by version
_TOPIC: Final = operator.itemgetter(2)  # a row's topic, in the table's form


def write_log(ledger: LogTarget, log: CheckedLog, progress: Progress | None) -> RecordResult:
    """Record ``log`` (see :meth:`mjledger.store.application.Ledger.record_checked`)."""
    written = _Written()
    # First as if nothing of the match were stored (a new match, the common case): were its
    # start stored, inserting the first row would lose as a race does, writing nothing, and
    # the match is then read and compared. A query a log fewer (a log of a few hands).
    stored: Stored | None = None
    for attempt in range(log.hands + 4):
        if attempt:
            stored = _stored_records(ledger, log.match)
        try:
            _write_missing(ledger, log, stored, written, progress)
        except ConcurrencyError:
            continue  # another writer appended first: compare with what it stored
        break
    else:  # pragma: no cover - every lost race means the other writer got further
        raise ConcurrencyError(f"match {log.match!r} kept changing while it was recorded")
    return RecordResult(
        match=log.match,
        status=("recorded" if written.started else "resumed" if written.batches else "unchanged"),
        hands=written.hands,
        events=written.events,
        id_assigned=log.id_assigned,
    )


def _stored_records(ledger: LogTarget, match_id: str) -> Stored | None:
    if not ledger.has_match(match_id):
        return None
    streams = [match_stream(match_id)] + [
        hand_stream(match_id, n) for n in range(1, ledger.hands_in(match_id) + 1)
    ]
    return {
        s: [
            comparable(cast(Recorded, ledger.mapper.to_domain_event(e)))
            for e in ledger.recorder.select_events(s)
        ]
        for s in streams
    }


def _missing_batches(log: CheckedLog, stored: Stored) -> int:
    """How many of the log's transactions are not all stored (none: it is there already),
    refusing a log that differs from the stored match or holds less than it."""
    seen = total = 0
    for batch, lines in log.batches():
        missing = False
        for r, line in zip(batch, lines, strict=True):
            kept = stored.get(r.originator_id, [])
            if r.originator_version > len(kept):
                missing = True
            elif kept[r.originator_version - 1] != comparable(r):
                raise StoreError(
                    f"match {log.match!r} is already recorded with different events: "
                    f"line {line} ({type(r.event).TYPE}) differs from the stored match",
                    code="log_conflict",
                    line=line,
                )
            else:
                seen += 1
        total += missing
    if seen != sum(len(rows) for rows in stored.values()):
        raise StoreError(
            f"match {log.match!r} is already recorded with more events than this log holds",
            code="log_conflict",
        )
    return total


def _write_missing(
    ledger: LogTarget,
    log: CheckedLog,
    stored: Stored | None,
    written: _Written,
    progress: Progress | None,
) -> None:
    """Compare the log with what is stored of its match (one pass, writing nothing), then
    write what is missing (a second pass): memory holds one hand of the log, not all."""
    if stored is None:
        # Nothing of the match stored yet: every row, from the spool (decoded and folded
        # once, by check_log), the match's start in its first hand's transaction.
        batches: Iterable[list[TableRow]] = _start_with_first_hand(log.rows())
        total = max(log.hands, 1)
    else:
        total = _missing_batches(log, stored)
        if not total:
            return
        batches = _rows_missing(ledger, log, {s: len(rows) for s, rows in stored.items()})
    done = 0
    with ledger._writer() as insert:
        for rows in batches:
            if not rows:
                continue
            insert(rows)
            written.add(list(map(_TOPIC, rows)))
            done += 1
            if progress is not None:
                progress(done, total)


def _start_with_first_hand(batches: Iterator[list[TableRow]]) -> Iterator[list[TableRow]]:
    """A new match's transactions with its start committed together with its first hand:
    the same rows in the same order (ids and head alike), one commit a log fewer (a log of
    ten hands made eleven). A crash still leaves whole hands only: now never a match
    without its first hand."""
    start = next(batches)
    first = next(batches, None)
    yield start if first is None else start + first
    yield from batches


def _rows_missing(
    ledger: LogTarget, log: CheckedLog, have: dict[uuid.UUID, int]
) -> Iterator[list[TableRow]]:
    """The rows of each transaction not stored yet, the log decoded again."""
    for batch, _ in log.batches():
        yield table_rows(
            [
                ledger.mapper.to_stored_event(r)
                for r in batch
                if r.originator_version > have.get(r.originator_id, 0)
            ]
        )


class _Written:
    """What one ``record`` wrote, counted as it goes (the records themselves are not kept)."""

    def __init__(self) -> None:
        self.started = False
        self.batches = self.hands = self.events = 0

    def add(self, topics: list[str]) -> None:
        """Count one written batch, by its rows' topics (counted in C: a hand has many)."""
        self.batches += 1
        self.started |= MATCH_STARTED in topics
        self.hands += topics.count(HAND_STARTED)
        self.events += len(topics) - topics.count(HAND_CLOSED)


def lost_race() -> ConcurrencyError:
    return ConcurrencyError("another writer appended to the same stream first: reload and retry")


def raced(write: Callable[[Sequence[TableRow]], object]) -> Callable[[Sequence[TableRow]], None]:
    """``write`` with a lost race (a row another writer inserted first) a ConcurrencyError."""

    def insert(rows: Sequence[TableRow]) -> None:
        try:
            write(rows)
        except IntegrityError:
            raise lost_race() from None

    return insert
