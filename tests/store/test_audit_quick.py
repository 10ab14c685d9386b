"""The audit's replay by the quick fold (:meth:`mjledger.store.audit.replays.MatchAudit._quick`)
finds exactly what the replay by the general fold finds.

Every store here is audited twice — as it is, and with every hand left to the general fold
(``replays.QUICK`` off) — and the two reports must be equal, finding for finding, summary and
all. The stores are random legal Sichuan matches, matches with table variants, the
benchmark's matches under random house rules, and each of those tampered with: a hand's row
edited (its event's values changed, its chain recomputed or not, so that the replay reads
the edited event), deleted, swapped, duplicated onto its stream's end; a closing or a start
edited. A test also checks that an untouched store's hands are settled by the quick fold,
so that the comparison is not vacuous.
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

import pytest
from hypothesis import given
from hypothesis import strategies as st

from mjledger.ledger import Ledger
from mjledger.store.audit import AuditReport, audit, replays
from tests.store.test_audit_decoders import _body, _hand_rows, _sealed
from tests.strategies import legal_logs, log_text, sichuan_rules
from tests.unit.test_benchmark_logs import bench_replay
from tests.variant_strategies import variant_logs

_TMP = "/dev/shm" if Path("/dev/shm").is_dir() else None
BENCH = bench_replay()

sichuan_matches = legal_logs(ruleset="sichuan", max_hands=4).filter(
    lambda lines: lines[0]["type"] == "match_started"
)
variant_matches = variant_logs(ruleset="sichuan", max_hands=3).filter(
    lambda lines: lines[0]["type"] == "match_started"
)


def bench_text(seed: int, hands: int, rules: dict[str, Any]) -> str:
    """The benchmark's Sichuan match of asserted facts under ``rules``."""
    lines = BENCH.sichuan_log(random.Random(seed), hands).splitlines()
    first = json.loads(lines[0])
    first["rules"] = rules
    return "\n".join([json.dumps(first), *lines[1:]]) + "\n"


@contextmanager
def recorded(text: str) -> Iterator[Path]:
    with tempfile.TemporaryDirectory(prefix="mjledger-audit-", dir=_TMP) as tmp:
        store = Path(tmp) / "store.sqlite"
        ledger = Ledger(store)
        ledger.record_log(text)
        ledger.views.catch_up()
        ledger.close()
        yield store


def general_audit(store: Path) -> AuditReport:
    with mock.patch.object(replays, "QUICK", False):
        return audit(store)


def assert_same(store: Path) -> AuditReport:
    quick = audit(store)
    general = general_audit(store)
    assert quick.findings == general.findings
    assert quick.summary == general.summary
    return quick


def assert_same_outcome(store: Path) -> None:
    """Both audits give the same report, or fail with the same error."""
    outcomes = []
    for quick in (True, False):
        with mock.patch.object(replays, "QUICK", quick):
            try:
                report = audit(store)
            except Exception as exc:  # the general path's own faults: the same either way
                outcomes.append((type(exc), str(exc)))
            else:
                outcomes.append((report.findings, report.summary))
    assert outcomes[0] == outcomes[1]


def _values(draw: st.DrawFn, value: Any) -> Any:
    """A value to put in place of ``value``: near it, of another type, or one of the log's."""
    near: list[Any] = []
    if isinstance(value, bool):
        near = [not value]
    elif isinstance(value, int):
        near = [value + 1, value - 1, value + 7, 0, 12, 13]
    elif isinstance(value, str):
        near = [value + "x", ""]
    elif isinstance(value, (list, dict)):
        near = [value[::-1] if isinstance(value, list) else {}, None]
    return draw(
        st.sampled_from(near or [None])
        | st.sampled_from(["ana", "east", "b1", "c5", "d9", "exposed", "concealed", None, True])
        | st.integers(-2, 20),
        label="value",
    )


def _edit_rows(store: Path, data: st.DataObject) -> None:
    """Up to three of the store's rows after its match's first, tampered with."""
    rows = _hand_rows(store)  # as recorded: a row deleted before is updated in vain
    if not rows:
        return
    db = sqlite3.connect(store, isolation_level=None)
    for _ in range(data.draw(st.integers(1, 3), label="tampers")):
        rowid, previous, _topic, state = data.draw(st.sampled_from(rows), label="row")
        kind = data.draw(st.sampled_from(("edit", "drop", "delete", "swap", "duplicate")))
        if kind in ("edit", "drop"):
            row = json.loads(_body(state))
            keys = sorted(k for k in row if k != "type")
            if not keys:
                continue
            key = data.draw(st.sampled_from(keys), label="key")
            if kind == "drop":
                del row[key]
            else:
                row[key] = _values(data.draw, row[key])
            body = json.dumps(row, ensure_ascii=False, sort_keys=True, separators=(",", ":"))
            recompute = data.draw(st.booleans(), label="recompute the chain")
            sealed = _sealed(body, previous if recompute else "not the previous digest")
            db.execute("UPDATE stored_events SET state = ? WHERE rowid = ?", (sealed, rowid))
        elif kind == "delete":
            db.execute("DELETE FROM stored_events WHERE rowid = ?", (rowid,))
        elif kind == "swap":
            other = data.draw(st.sampled_from(rows), label="other")
            db.execute("UPDATE stored_events SET state = ? WHERE rowid = ?", (other[3], rowid))
            db.execute("UPDATE stored_events SET state = ? WHERE rowid = ?", (state, other[0]))
        else:
            db.execute(
                "INSERT INTO stored_events SELECT originator_id, "
                "(SELECT MAX(originator_version) + 1 FROM stored_events s "
                " WHERE s.originator_id = e.originator_id), topic, state "
                "FROM stored_events e WHERE rowid = ?",
                (rowid,),
            )
    db.close()


@given(sichuan_matches)
def test_legal_sichuan_matches_audit_the_same_both_ways(lines: list[dict[str, Any]]) -> None:
    with recorded(log_text(lines)) as store:
        assert assert_same(store).findings == ()


@given(variant_matches)
def test_matches_with_table_variants_audit_the_same_both_ways(
    lines: list[dict[str, Any]],
) -> None:
    with recorded(log_text(lines)) as store:
        assert_same(store)


@given(sichuan_matches, st.data())
def test_tampered_sichuan_stores_give_the_same_findings_both_ways(
    lines: list[dict[str, Any]], data: st.DataObject
) -> None:
    with recorded(log_text(lines)) as store:
        _edit_rows(store, data)
        assert_same(store)


@given(st.integers(0, 10_000), sichuan_rules(), st.data())
def test_tampered_benchmark_stores_give_the_same_findings_both_ways(
    seed: int, rules: dict[str, Any], data: st.DataObject
) -> None:
    with recorded(bench_text(seed, 3, rules)) as store:
        assert_same(store)
        _edit_rows(store, data)
        assert_same(store)


@given(variant_matches, st.data())
def test_tampered_variant_stores_give_the_same_findings_both_ways(
    lines: list[dict[str, Any]], data: st.DataObject
) -> None:
    with recorded(log_text(lines)) as store:
        _edit_rows(store, data)
        assert_same(store)


def _every_hand_row(store: Path) -> list[tuple[int, str, str, bytes]]:
    return [r for r in _hand_rows(store) if not r[2].endswith(":HandClosed")]


@pytest.mark.parametrize("seed", [1, 2])
def test_each_event_of_a_hand_edited_with_its_chain_recomputed(seed: int) -> None:
    """Every value of every event of a hand changed in turn, the row sealed again on its
    link: the replay reads the edited event, whichever fold replays it."""
    with recorded(bench_text(seed, 2, {})) as store:
        db = sqlite3.connect(store, isolation_level=None)
        rng = random.Random(seed)
        for rowid, previous, _topic, state in _every_hand_row(store):
            row = json.loads(_body(state))
            for key in sorted(k for k in row if k != "type"):
                value = row[key]
                for new in (
                    (value + rng.choice((-1, 1, 5)) if isinstance(value, int) else "ana"),
                    None,
                ):
                    body = json.dumps(
                        {**row, key: new}, ensure_ascii=False, sort_keys=True, separators=(",", ":")
                    )
                    sealed = _sealed(body, previous)
                    db.execute(
                        "UPDATE stored_events SET state = ? WHERE rowid = ?", (sealed, rowid)
                    )
                    assert_same(store)
            db.execute("UPDATE stored_events SET state = ? WHERE rowid = ?", (state, rowid))
        db.close()


def test_the_quick_fold_settles_an_untouched_store_s_hands() -> None:
    """Not a vacuous comparison: the benchmark's hands (and the legal ones that play asserted
    facts) are settled by the quick fold, none replayed by the general fold."""
    general = mock.patch.object(
        replays.MatchAudit, "_replay", autospec=True, side_effect=replays.MatchAudit._replay
    )
    with recorded(bench_text(3, 20, {})) as store, general as replayed:
        report = audit(store)
        assert report.findings == ()
        assert report.summary.hands == 20
        assert replayed.call_count == 0
    with recorded(bench_text(3, 20, {})) as store, general as replayed:
        with mock.patch.object(replays, "QUICK", False):
            audit(store)
        assert replayed.call_count == 20


@pytest.mark.parametrize(
    "rotation",
    [
        {"next_round_wind": "south"},
        {"match_over": True},
        {"next_dealer": "other"},  # another player of the table
        {"next_dealer": "nobody"},  # not at the table: the general path fails (a fault)
        {"next_dealer": None},  # the match not over: the general path fails (a fault)
        {"next_streak": 5},
        {"number": 0},
        {"next_round_wind": "south", "next_streak": 2},
    ],
)
def test_a_rotation_only_a_closing_gives(rotation: dict[str, Any]) -> None:
    """A hand that does not replay leaves the rotation to its hand_closed: whatever that
    (tampered) closing states, the hands after it are audited as the general fold audits
    them (a round wind, an end of the match, another dealer or streak). A dealer not at the
    table, or none, makes the general path fail (a fault of main's audit, not of this path:
    docs/performance.md, "Fifth round: the audit"): the quick path fails the same way."""
    with recorded(bench_text(4, 3, {})) as store:
        rows = sorted(_hand_rows(store))  # in the order recorded: hand 1's rows first
        hand = next(r for r in rows if r[2].endswith(":Discarded"))  # a discard in hand 1
        db = sqlite3.connect(store, isolation_level=None)
        row = json.loads(_body(hand[3]))
        body = json.dumps({**row, "player": "nobody"}, sort_keys=True, separators=(",", ":"))
        db.execute(
            "UPDATE stored_events SET state = ? WHERE rowid = ?", (_sealed(body, hand[1]), hand[0])
        )
        closing = next(r for r in rows if r[2].endswith(":HandClosed"))
        row = json.loads(_body(closing[3]))
        assert row["number"] == 1
        if rotation.get("next_dealer") == "other":
            rotation = {"next_dealer": next(p for p in ("ana", "bo") if p != row["next_dealer"])}
        body = json.dumps({**row, **rotation}, sort_keys=True, separators=(",", ":"))
        db.execute(
            "UPDATE stored_events SET state = ? WHERE rowid = ?",
            (_sealed(body, closing[1]), closing[0]),
        )
        db.close()
        if rotation.get("next_dealer", "") in ("nobody", None):
            assert_same_outcome(store)
            return
        report = assert_same(store)
        assert "replay_refused" in {f.code for f in report.findings}
