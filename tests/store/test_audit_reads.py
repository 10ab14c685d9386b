"""How the audit reads a store's rows (its eighth round, issue 25) changes nothing it reports.

* A hand's stream is read whole, in one loop (:func:`mjledger.store.audit.chains.read_stream`),
  from rows fetched at once (``stream_rows``); a match's stream a row at a time
  (:func:`~mjledger.store.audit.chains.read_chain`). Every store here is audited as it is and
  with every stream read row by row through ``read_chain`` from ``stream`` (the reading
  before this round), and the two reports must be equal.
* The one-step reader finds a sealed row's metadata tail by one regex search
  (``canonical_rows._TAIL.search``) where it matched at the last ``,"recorded_at":"``: the two
  agree on any bytes.
* ``SqliteRows.strays`` is skipped when every row is of an audited stream (counted): audited
  with that count off, a store gives the same report.

The stores are benchmark matches (with a table, with a correction) tampered as
``tests/store/test_audit_quick.py`` and ``tests/store/test_audit_head_fold.py`` tamper them:
rows edited, dropped, deleted, swapped, duplicated; moved to the end, strays among and after
the rows, states as text or no bytes, the head row changed.
"""

from __future__ import annotations

import re
import sqlite3
from collections.abc import Iterator
from contextlib import ExitStack, contextmanager
from pathlib import Path
from typing import Any
from unittest import mock

from hypothesis import example, given
from hypothesis import strategies as st

from mjledger.ledger import Ledger
from mjledger.store import canonical_rows
from mjledger.store.audit import Auditor, chains, corrections, replays
from mjledger.store.audit.rows import SqliteRows
from mjledger.store.corrections import correct
from tests.store.test_audit_head_fold import _tamper_order, store_of
from tests.store.test_audit_quick import _edit_rows
from tests.store.test_corrections import FIXED, SC, SC_ID

_META = canonical_rows._META
_TAIL = canonical_rows._TAIL


def _row_by_row(run: Any, raw: Any, previous: str, stream: str, place: Any) -> list[Any]:
    """A stream read whole as before this round: row by row, through ``read_chain``."""
    return list(chains.read_chain(run, raw, previous, stream, place))


@contextmanager
def _as_before() -> Iterator[None]:
    """Every stream read row by row from ``stream``, and the strays always queried."""
    with ExitStack() as stack:
        for module in (replays, corrections):
            stack.enter_context(mock.patch.object(module, "read_stream", _row_by_row))
        stack.enter_context(
            mock.patch.object(SqliteRows, "stream_rows", lambda self, s: self.stream(s))
        )
        stack.enter_context(mock.patch.object(SqliteRows, "_all_audited", return_value=False))
        yield


def _outcome(store: Path, **options: Any) -> Any:
    """The report, or the findings streamed before the audit failed and its error."""
    auditor = Auditor(store, **options)
    findings = []
    try:
        findings.extend(auditor.run())
    except Exception as exc:  # a damaged store's own failures: the same either way
        return tuple(findings), type(exc), str(exc)
    return tuple(findings), auditor.summary


def assert_same(store: Path, **options: Any) -> Any:
    now = _outcome(store, **options)
    with _as_before():
        assert now == _outcome(store, **options)
    return now


stores = st.tuples(st.integers(0, 10_000), st.integers(1, 3), st.integers(1, 3), st.booleans())


def test_an_untouched_store_is_read_whole_and_counted_clean() -> None:
    """Not vacuous: the hands' streams are read by ``read_stream`` from ``stream_rows``, and
    the strays' query is skipped (every row is of an audited stream)."""
    whole, counted = [], []
    real_read, real_count = chains.read_stream, SqliteRows._all_audited

    def read(*args: Any) -> list[Any]:
        whole.append(len(rows := real_read(*args)))
        return rows

    def count(self: SqliteRows) -> bool:
        counted.append(real_count(self))
        return counted[-1]

    with (
        store_of(2, 2, 3, True) as store,
        mock.patch.object(replays, "read_stream", read),
        mock.patch.object(SqliteRows, "_all_audited", count),
    ):
        findings, summary = assert_same(store)
        assert findings == ()
        assert len([n for n in whole if n]) == summary.hands  # and each match's end: none
        assert counted == [True]


def test_a_stray_row_is_counted_and_queried() -> None:
    with store_of(3, 1, 2, False) as store:
        db = sqlite3.connect(store, isolation_level=None)
        db.execute(
            "INSERT INTO stored_events SELECT ?, 1, topic, state FROM stored_events "
            "WHERE rowid = 2",
            ("e" * 32,),
        )
        db.close()
        findings, _summary = assert_same(store)
        assert [f.code for f in findings if f.code == "stray_rows"] == ["stray_rows"]
        source = SqliteRows(store)
        try:
            assert not source._all_audited()  # nothing audited yet: every row a stray
        finally:
            source.close()


def test_a_corrected_match_audits_the_same(tmp_path: Path) -> None:
    """A correction's streams: the corrections stream row by row, the corrected hand whole."""
    store = tmp_path / "corrected.sqlite"
    ledger = Ledger(store)
    try:
        ledger.record_log(SC.read_text(encoding="utf-8"))
        correct(ledger, SC_ID, 3, FIXED, reason="fan miscounted", by="staff7")
        ledger.views.catch_up()
    finally:
        ledger.close()
    findings, summary = assert_same(store)
    assert findings == ()
    assert summary.hands > 3


@given(stores, st.data())
def test_rows_out_of_commit_order_give_the_same_report(
    store: tuple[int, int, int, bool], data: st.DataObject
) -> None:
    with store_of(*store) as path:
        _tamper_order(path, data)
        assert_same(path)


@given(stores, st.data())
def test_tampered_rows_give_the_same_report(
    store: tuple[int, int, int, bool], data: st.DataObject
) -> None:
    seed, _matches, hands, _table = store
    with store_of(seed, 1, hands, False) as path:  # _edit_rows: a store of one match's rows
        _edit_rows(path, data)
        if data.draw(st.booleans(), label="and out of order"):
            _tamper_order(path, data)
        assert_same(path)
        assert_same(path, matches=["m0"])


# Pieces of a row's end: the metadata as ``seal`` writes it, and what a tamperer might leave.
_PIECES = st.sampled_from(
    [
        _META,
        b'","digest":"',
        b'","signature":"',
        b'"}',
        b'"',
        b"}",
        b",",
        b":",
        b"recorded_at",
        b'":"',
        b"\\",
        b"0a9f",
        b"2026-12-03T09:52:58+00:00",
        b"\x7f",
        b"\n",
        "é".encode(),
    ]
)


@given(st.lists(_PIECES, max_size=14).map(b"".join))
@example(b'{"a":1' + _META + b'x","digest":"ab"}')
@example(b'{"a":1' + _META + b'x","digest":"ab","signature":"s"}')
@example(b'{"a":1' + _META + b'recorded_at","digest":"recorded_at"}')
@example(b"{" + _META + b"x" + _META + b'x","digest":"ab"}')
@example(b"{" + _META + b'x","digest":"' + _META + b'"}')
def test_the_tail_s_search_finds_what_a_match_at_the_last_meta_finds(state: bytes) -> None:
    searched = _TAIL.search(state)
    cut = state.rfind(_META)
    matched = _TAIL.match(state, cut) if cut >= 0 else None
    assert (searched is None) == (matched is None)
    if searched is not None and matched is not None:
        assert searched.start() == cut
        assert searched.groups() == matched.groups()


def test_the_tail_is_the_one_pattern() -> None:
    """The search is of the very pattern the reader's other users match (one statement)."""
    assert isinstance(_TAIL, re.Pattern)
    state = b'{"a":1' + _META + b'x","digest":"ab"}'
    tail = canonical_rows.sealed_tail(state)
    assert tail is not None
    assert canonical_rows.closed_before(state, tail.start()) == b'{"a":1}'
