"""Properties of the audit over random legal matches (issue 12, "Tests that must exist"):

* a match recorded by the ledger (and its read models caught up) audits clean;
* one random single-row corruption of its store — an edited value, a deleted row, two rows
  swapped, a row duplicated onto the end of its stream — always gives at least one finding.
"""

from __future__ import annotations

import json
import sqlite3
import tempfile
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path
from typing import Any

from hypothesis import assume, given
from hypothesis import strategies as st

from mjledger.ledger import Ledger
from mjledger.store.audit import audit
from tests.strategies import legal_logs, log_text

_TMP = "/dev/shm" if Path("/dev/shm").is_dir() else None

match_logs = legal_logs(max_hands=4).filter(lambda lines: lines[0]["type"] == "match_started")


@contextmanager
def recorded(lines: list[dict[str, Any]]) -> Iterator[Path]:
    with tempfile.TemporaryDirectory(prefix="mjledger-audit-", dir=_TMP) as tmp:
        store = Path(tmp) / "store.sqlite"
        ledger = Ledger(store)
        ledger.record_log(log_text(lines))
        ledger.views.catch_up()
        ledger.close()
        yield store


@given(match_logs)
def test_a_recorded_legal_match_audits_clean(lines: list[dict[str, Any]]) -> None:
    with recorded(lines) as store:
        report = audit(store)
        assert report.findings == (), [str(f) for f in report.findings]


def _edited(value: Any, draw: st.DrawFn) -> Any:
    if isinstance(value, bool):
        return not value
    if isinstance(value, int):
        return value + draw(st.sampled_from((-1, 1, 7)))
    if isinstance(value, str):
        return value + draw(st.sampled_from(("x", "0", " ")))
    if isinstance(value, list):
        return value[::-1] if len(value) > 1 and value != value[::-1] else [*value, value]
    if isinstance(value, dict):
        return {**value, "zz": 1} if value else {"zz": 1}
    return 0


@given(match_logs, st.data())
def test_any_single_row_corruption_is_found(
    lines: list[dict[str, Any]], data: st.DataObject
) -> None:
    with recorded(lines) as store:
        db = sqlite3.connect(store, isolation_level=None)
        rows = db.execute(
            "SELECT rowid, originator_id, originator_version, state FROM stored_events "
            "ORDER BY rowid"
        ).fetchall()
        kind = data.draw(st.sampled_from(("edit", "delete", "swap", "duplicate")), label="kind")
        rowid, stream, _version, state = data.draw(st.sampled_from(rows), label="row")
        if kind == "edit":
            row = json.loads(state)
            key = data.draw(st.sampled_from(sorted(row)), label="key")
            row[key] = _edited(row[key], data.draw)
            assume(json.loads(state) != row)
            db.execute(
                "UPDATE stored_events SET state = ? WHERE rowid = ?",
                (json.dumps(row, separators=(",", ":")).encode(), rowid),
            )
        elif kind == "delete":
            db.execute("DELETE FROM stored_events WHERE rowid = ?", (rowid,))
        elif kind == "swap":
            other = data.draw(st.sampled_from([r for r in rows if r[0] != rowid] or [None]))
            assume(other is not None)
            assert other is not None
            db.execute("UPDATE stored_events SET state = ? WHERE rowid = ?", (other[3], rowid))
            db.execute("UPDATE stored_events SET state = ? WHERE rowid = ?", (state, other[0]))
        else:
            last = db.execute(
                "SELECT MAX(originator_version) FROM stored_events WHERE originator_id = ?",
                (stream,),
            ).fetchone()[0]
            db.execute(
                "INSERT INTO stored_events SELECT originator_id, ?, topic, state "
                "FROM stored_events WHERE rowid = ?",
                (last + 1, rowid),
            )
        db.close()
        report = audit(store)
        assert report.findings, f"{kind} of row {rowid} went unnoticed"
