"""A recording transaction's rows go in by multi-row INSERTs (``head.insert_rows``, issue 25):
the table, the rows' ids and the head are those of inserting the same rows one at a time
(``executemany``, the independent model here), whatever a transaction's size against
``ROWS_A_STATEMENT``; and a row already stored fails the whole transaction, leaving the table
and the head as they were, wherever in its statements the row falls."""

from __future__ import annotations

import sqlite3
import tempfile
import uuid
from pathlib import Path

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from mjledger.errors import ConcurrencyError
from mjledger.ledger import Ledger
from mjledger.store.head import ROWS_A_STATEMENT, HeadRecorder, fold_head
from mjledger.store.recording import raced
from mjledger.store.records import TableRow

SIZES = [0, 1, ROWS_A_STATEMENT - 1, ROWS_A_STATEMENT, ROWS_A_STATEMENT + 1]
SIZES += [2 * ROWS_A_STATEMENT + 5]


def transactions(sizes: list[int]) -> list[list[TableRow]]:
    """Transactions of the given sizes, each a stream of its own, rows told apart by bytes."""
    out = []
    for n, size in enumerate(sizes):
        stream = uuid.uuid5(uuid.NAMESPACE_URL, f"t{n}").hex
        out.append(
            [(stream, v, f"topic:{v % 3}", b'{"n":%d,"v":%d}' % (n, v)) for v in range(1, size + 1)]
        )
    return out


def table(path: Path) -> tuple[list[tuple[object, ...]], tuple[object, ...] | None]:
    """Every row with its id, in id order, and the head row (rows, notification, digest)."""
    db = sqlite3.connect(path)
    try:
        rows = db.execute("SELECT rowid, * FROM stored_events ORDER BY rowid").fetchall()
        head = db.execute("SELECT rows, notification, digest FROM ledger_head").fetchone()
        return rows, head
    finally:
        db.close()


def one_at_a_time(path: Path, batches: list[list[TableRow]]) -> list[tuple[object, ...]]:
    """The model: the same rows by ``executemany``, a transaction a batch, into a table of
    the store's schema."""
    db = sqlite3.connect(path, isolation_level=None)
    try:
        db.execute(
            "CREATE TABLE stored_events (originator_id TEXT, originator_version INTEGER, "
            "topic TEXT, state BLOB, PRIMARY KEY (originator_id, originator_version))"
        )
        for batch in batches:
            db.execute("BEGIN")
            db.executemany("INSERT INTO stored_events VALUES (?, ?, ?, ?)", batch)
            db.execute("COMMIT")
        return db.execute("SELECT rowid, * FROM stored_events ORDER BY rowid").fetchall()
    finally:
        db.close()


def written(path: Path, batches: list[list[TableRow]]) -> list[object]:
    """``batches`` through the recorder's writer, one transaction each: the ids it gave."""
    ledger = Ledger(path)
    try:
        recorder = ledger.recorder
        assert isinstance(recorder, HeadRecorder)
        with recorder.writer() as insert:
            return [insert(batch) for batch in batches]
    finally:
        ledger.close()


@settings(max_examples=25, deadline=None)
@given(st.lists(st.sampled_from(SIZES) | st.integers(0, 3 * ROWS_A_STATEMENT), max_size=6))
def test_rows_ids_and_head_are_those_of_one_insert_a_row(sizes: list[int]) -> None:
    batches = transactions(sizes)
    with tempfile.TemporaryDirectory() as name:  # pytest's tmp_path is one a test, not one
        tmp = Path(name)  # an example
        ids = written(tmp / "ledger.sqlite", batches)
        rows, head = table(tmp / "ledger.sqlite")
        assert rows == one_at_a_time(tmp / "model.sqlite", batches)
    assert [list(i or ()) for i in ids] == [
        list(range(sum(sizes[:n]) + 1, sum(sizes[: n + 1]) + 1)) for n in range(len(sizes))
    ]
    assert head is not None
    assert head[0] == len(rows) == sum(sizes)
    assert (head[0], head[1], head[2]) == fold_head(rows)


@pytest.mark.parametrize("at", [0, ROWS_A_STATEMENT - 1, ROWS_A_STATEMENT, 2 * ROWS_A_STATEMENT])
def test_a_row_already_stored_fails_the_whole_transaction(tmp_path: Path, at: int) -> None:
    first, second = transactions([3, 2 * ROWS_A_STATEMENT + 5])
    clash = (first[1][0], first[1][1], "topic:x", b"{}")  # the same stream and version
    second[at] = clash
    ledger = Ledger(tmp_path / "ledger.sqlite")
    try:
        recorder = ledger.recorder
        assert isinstance(recorder, HeadRecorder)
        with recorder.writer() as write:
            insert = raced(write)
            insert(first)
            before = table(tmp_path / "ledger.sqlite")
            with pytest.raises(ConcurrencyError):
                insert(second)
        assert table(tmp_path / "ledger.sqlite") == before
        assert before[0] == [(i + 1, *row) for i, row in enumerate(first)]
    finally:
        ledger.close()
