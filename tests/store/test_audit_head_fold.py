"""The head the chains pass folds (:class:`mjledger.store.audit.run.HeadSoFar`) changes nothing
the audit reports.

The chains pass folds the store head over the rows as it reads them, while they come in
commit order, and the head pass reads only the rows after those (all of them where the fold
proves nothing). Every store here is audited twice — as the audit runs, and with that fold
off, so that the head pass folds every row itself as it always did — and the two must give
the same report (findings and summary), or fail with the same error. The stores hold one to
three matches, with or without a table and its streams; tampered with as
``tests/store/test_audit_quick.py`` tampers (rows edited, dropped, deleted, swapped,
duplicated), and in the ways that upset the commit order the fold relies on: a row moved to
the end of the table, a stray row put where a deleted one was (a row no stream leads to,
among the rows the fold covers), a stray row at the end, a state stored as text, a state
that is no bytes at all, the head row changed or removed.
"""

from __future__ import annotations

import json
import random
import sqlite3
import tempfile
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path
from typing import Any
from unittest import mock

from hypothesis import given
from hypothesis import strategies as st

from mjledger.ledger import Ledger
from mjledger.store.audit import Auditor
from mjledger.store.audit import run as run_module
from mjledger.store.audit.run import HeadSoFar
from tests.store.test_audit_decoders import _TMP
from tests.store.test_audit_quick import BENCH, _edit_rows

PLAYERS = ["ana", "bo", "cy", "di"]


def _match_text(seed: int, hands: int, match: str) -> str:
    return BENCH.sichuan_log(random.Random(seed), hands).replace(
        '"bench-sichuan"', json.dumps(match), 1
    )


@contextmanager
def store_of(seed: int, matches: int, hands: int, table: bool) -> Iterator[Path]:
    """A store of ``matches`` benchmark matches (the first opened at a table when ``table``),
    read models caught up."""
    with tempfile.TemporaryDirectory(prefix="mjledger-head-", dir=_TMP) as tmp:
        store = Path(tmp) / "store.sqlite"
        ledger = Ledger(store)
        if table:
            ledger.open_table("t1", "sichuan", PLAYERS, {"base": 1, "fan_cap": 4})
            match = ledger.start_match(table="t1", match_id="at-the-table")
            ledger.start_hand(match)
        for m in range(matches):
            ledger.record_log(_match_text(seed + m, hands, f"m{m}"))
        ledger.views.catch_up()
        ledger.close()
        yield store


def _outcome(store: Path, fold: bool) -> Any:
    """The report, or the findings streamed before the audit failed and its error."""
    patch = mock.patch.object(run_module, "FOLD_HEAD", fold)
    auditor = Auditor(store)
    findings = []
    with patch:
        try:
            findings.extend(auditor.run())
        except Exception as exc:  # the head pass's own failures: the same either way
            return tuple(findings), type(exc), str(exc)
    return tuple(findings), auditor.summary


def assert_same(store: Path) -> Any:
    folded = _outcome(store, True)
    assert folded == _outcome(store, False)
    return folded


def _tamper_order(store: Path, data: st.DataObject) -> None:
    """One to three changes that upset the commit order or the rows' bytes."""
    db = sqlite3.connect(store, isolation_level=None)
    rowids = [r for (r,) in db.execute("SELECT rowid FROM stored_events ORDER BY rowid")]
    for _ in range(data.draw(st.integers(1, 3), label="changes")):
        rowid = data.draw(st.sampled_from(rowids), label="rowid")
        how = data.draw(
            st.sampled_from(
                ("move", "stray in a gap", "stray at the end", "text", "no bytes", "head")
            ),
            label="how",
        )
        row = db.execute(
            "SELECT originator_id, originator_version, topic, state FROM stored_events "
            "WHERE rowid = ?",
            (rowid,),
        ).fetchone()
        if row is None:
            continue  # moved or replaced already
        _stream, _version, topic, state = row
        if how == "move":  # the same row, committed last
            db.execute("DELETE FROM stored_events WHERE rowid = ?", (rowid,))
            db.execute("INSERT INTO stored_events VALUES (?, ?, ?, ?)", row)
        elif how == "stray in a gap":  # a row of no stream where this one was
            db.execute("DELETE FROM stored_events WHERE rowid = ?", (rowid,))
            db.execute(
                "INSERT INTO stored_events (rowid, originator_id, originator_version, topic, "
                "state) VALUES (?, ?, ?, ?, ?)",
                (rowid, f"{rowid:032x}", 1, topic, state),
            )
        elif how == "stray at the end":
            db.execute(
                "INSERT OR IGNORE INTO stored_events VALUES (?, ?, ?, ?)",
                ("f" * 32, rowid, topic, state),
            )
        elif how == "text" and isinstance(state, bytes):
            db.execute(
                "UPDATE stored_events SET state = ? WHERE rowid = ?",
                (state.decode("utf-8"), rowid),
            )
        elif how == "no bytes":
            value = data.draw(st.sampled_from([None, 7]), label="state")
            db.execute("UPDATE stored_events SET state = ? WHERE rowid = ?", (value, rowid))
        elif how == "head":
            if data.draw(st.booleans(), label="delete the head row"):
                db.execute("DELETE FROM ledger_head")
            else:
                db.execute("UPDATE ledger_head SET rows = rows + 1")
    db.close()


stores = st.tuples(st.integers(0, 10_000), st.integers(1, 3), st.integers(1, 3), st.booleans())


def test_an_untouched_store_s_head_is_folded_by_the_chains_pass() -> None:
    """Not a vacuous comparison: a store recorded a match at a time is read in commit order,
    and the fold covers every row (the head pass reads none of them again)."""
    covered = []
    real = HeadSoFar.covered

    def counted(self: HeadSoFar, rows: Any) -> tuple[int, str, int]:
        covered.append(real(self, rows))
        return covered[-1]

    with store_of(5, 3, 3, False) as store, mock.patch.object(HeadSoFar, "covered", counted):
        findings, summary = assert_same(store)
        assert findings == ()
        assert covered[0][0] == summary.rows  # every row, from the chains pass
        assert covered[0][1] == summary.head


def test_a_store_with_a_table_audits_the_same() -> None:
    """A table's streams are read after the matches (out of commit order): the head pass
    folds the rows the chains pass did not prove."""
    with store_of(6, 2, 2, True) as store:
        findings, summary = assert_same(store)
        assert findings == ()
        assert summary.tables == 1


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


def test_some_matches_only_audit_the_same() -> None:
    """``audit --match``: the streams read are some of the store's, the fold a prefix of the
    commit order at best (the first match's), the head pass the rest."""
    with store_of(3, 3, 2, True) as store:
        for matches in (["m0"], ["m2"], ["m1", "m0"], ["at-the-table"], ["no-such-match"]):
            outcomes = []
            for fold in (True, False):  # off: nothing covered, the head pass reads every row
                with mock.patch.object(run_module, "FOLD_HEAD", fold):
                    try:
                        auditor = Auditor(store, matches=matches)
                        outcomes.append((tuple(auditor.run()), auditor.summary))
                    except Exception as exc:  # no such match: the same error either way
                        outcomes.append((type(exc), str(exc)))
            assert outcomes[0] == outcomes[1]
