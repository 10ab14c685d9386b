"""The writer connection a ledger keeps from one ``record_log`` to the next (issue 25): the
head it remembers is only a guess, so another writer moving the head in between, another
thread recording through the same ledger, or a lost race must leave the same rows and the
head the formula gives, exactly as a writer opened afresh each time."""

from __future__ import annotations

import sqlite3
import threading
from pathlib import Path

from mjledger.ledger import Ledger
from mjledger.store.head import fold_head
from tests.store_logs import sichuan_match


def _head(store: Path) -> tuple[tuple[int, int, str], tuple[int, int, str]]:
    """The stored head row (rows, notification, digest) and the one folded from the rows."""
    with sqlite3.connect(store) as db:
        stored = db.execute("SELECT rows, notification, digest FROM ledger_head").fetchone()
        rows = db.execute(
            "SELECT rowid, originator_id, originator_version, topic, state "
            "FROM stored_events ORDER BY rowid"
        ).fetchall()
    return tuple(stored), fold_head(rows)


def test_another_writer_between_two_logs(store: Path) -> None:
    first, other = Ledger(store), Ledger(store)
    try:
        first.record_log(sichuan_match(3, seed=1, match_id="a"))
        other.record_log(sichuan_match(2, seed=2, match_id="b"))  # moves the head
        first.record_log(sichuan_match(4, seed=3, match_id="c"))  # its kept head is stale
        other.record_log(sichuan_match(1, seed=4, match_id="d"))
    finally:
        first.close()
        other.close()
    stored, folded = _head(store)
    assert stored == folded
    assert stored[0] == folded[0] > 0


def test_a_thread_of_its_own_and_the_same_rows(tmp_path: Path) -> None:
    logs = [sichuan_match(2, seed=s, match_id=f"t{s}") for s in range(4)]
    shared, fresh = tmp_path / "shared.sqlite", tmp_path / "fresh.sqlite"
    ledger = Ledger(shared)
    try:
        ledger.record_log(logs[0])
        worker = threading.Thread(target=ledger.record_log, args=(logs[1],))
        worker.start()
        worker.join()
        ledger.record_log(logs[2])
        assert ledger.record_log(logs[2]).status == "unchanged"  # refused first insert
        ledger.record_log(logs[3])
    finally:
        ledger.close()
    for log in logs:  # each log through a ledger of its own
        one = Ledger(fresh)
        one.record_log(log)
        one.close()
    stored, folded = _head(shared)
    assert stored == folded
    assert _head(fresh)[0][0] == stored[0]
    with sqlite3.connect(shared) as a, sqlite3.connect(fresh) as b:
        query = "SELECT originator_id, originator_version, topic FROM stored_events ORDER BY rowid"
        assert a.execute(query).fetchall() == b.execute(query).fetchall()
