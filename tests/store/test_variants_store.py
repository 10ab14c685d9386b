"""The variants in the store (issue 9): a recorded match keeps its variant keys, stakes and
fields; it replays, exports and re-replays identically, the digest chain covers them, and the
library flow takes stakes and refuses a hand after a bust."""

from __future__ import annotations

import json
import sqlite3
from pathlib import Path
from typing import Any

import pytest
from hypothesis import given
from hypothesis import strategies as st

from mjledger import LogError, MjledgerError, SelfDrawn, replay
from mjledger.fold.replay import hand_to_json
from mjledger.store.application import Ledger

from ..backends import check_chain as _check_chain
from ..conftest import DATA
from ..strategies import log_text
from ..variant_strategies import variant_logs

Line = dict[str, Any]

VARIANTS = DATA / "variants"
MATCH_LOGS = [
    log for log in sorted(VARIANTS.glob("*.jsonl")) if '"match_started"' in log.read_text()
]
P = ["ana", "bo", "cy", "di"]


# --- the store ------------------------------------------------------------------------------


@pytest.mark.parametrize("log", MATCH_LOGS, ids=lambda p: p.stem)
def test_a_variant_match_records_exports_and_re_replays_identically(
    ledger: Ledger, store: Path, log: Path
) -> None:
    text = log.read_text(encoding="utf-8")
    expected = replay(text).to_json()
    result = ledger.record_log(text)
    exported = ledger.export(result.match)
    assert replay(exported).to_json() == expected
    assert ledger.replay_match(result.match).to_json() == expected
    assert ledger.replay_all()[result.match].to_json() == expected
    for n, hand in enumerate(expected["hands"], 1):
        assert hand_to_json(ledger.settlement(result.match, n)) == hand
    assert ledger.record_log(exported).status == "unchanged"
    assert ledger.export(result.match) == exported
    # the export keeps every variant key, field and event of the log
    first = json.loads(text.splitlines()[0])
    exported_first = json.loads(exported.splitlines()[0])
    assert exported_first.get("stakes") == first.get("stakes")
    assert {**exported_first["rules"], **first.get("rules", {})} == exported_first["rules"]
    for key in ("first_turn", "liable", "false_win"):
        assert text.count(key) == exported.count(key)
    _check_chain(store, result.match)


@pytest.mark.parametrize(
    ("log", "kind", "edit"),
    [
        (
            "sichuan-stakes",
            "match_started",
            lambda row: {**row, "stakes": {**row["stakes"], "ana": 6}},
        ),
        (
            "hongkong-half-gun",
            "match_started",
            lambda row: {**row, "rules": {**row["rules"], "discard_pays": "double"}},
        ),
        ("hongkong-liability", "self_drawn", lambda row: {**row, "liable": "cy"}),
        ("hongkong-false-win", "false_win", lambda row: {**row, "player": "bo"}),
        (
            "sichuan-stakes",
            "hand_started",
            lambda row: {**row, "stakes": {**row["stakes"], "ana": 1}},
        ),
        ("sichuan-stakes", "hand_closed", lambda row: {**row, "bust": []}),
    ],
)
def test_the_digest_chain_covers_the_variants(
    ledger: Ledger, store: Path, log: str, kind: str, edit: Any
) -> None:
    result = ledger.record_log((VARIANTS / f"{log}.jsonl").read_text(encoding="utf-8"))
    _check_chain(store, result.match)
    with sqlite3.connect(store) as db:
        rowid, state = next(
            (r, s)
            for r, s in db.execute("SELECT rowid, state FROM stored_events ORDER BY rowid")
            if json.loads(s)["type"] == kind
        )
        db.execute(
            "UPDATE stored_events SET state = ? WHERE rowid = ?",
            (json.dumps(edit(json.loads(state))), rowid),
        )
    with pytest.raises(AssertionError):
        _check_chain(store, result.match)


def test_the_library_takes_stakes_and_ends_the_match_at_a_bust(ledger: Ledger) -> None:
    """variants.md: "ana owes 9 but holds 5, so ana pays 5 and is bust … the match ends with
    this hand"; through start_match, start_hand, record and settlement."""
    match = ledger.start_match("sichuan", P, stakes={"ana": 5, "bo": 100, "cy": 100, "di": 100})
    number = ledger.start_hand(match)
    ledger.record(match, number, SelfDrawn(player="cy", fan=3))
    hand = hand_to_json(ledger.settlement(match, number))
    assert hand["balances"] == {"ana": 0, "bo": 91, "cy": 123, "di": 91}
    assert ledger.replay_match(match).to_json()["stakes"] == {
        "ana": 5,
        "bo": 100,
        "cy": 100,
        "di": 100,
    }


def test_a_hand_after_a_bust_is_refused_and_nothing_written(ledger: Ledger) -> None:
    text = (VARIANTS / "hongkong-stakes.jsonl").read_text(encoding="utf-8")
    result = ledger.record_log(text)
    with pytest.raises(MjledgerError):
        ledger.start_hand(result.match)
    with pytest.raises(LogError) as caught:
        ledger.record_log(text.replace("hk-stakes", "hk-stakes-2") + '{"type": "hand_started"}\n')
    assert caught.value.line == len(text.splitlines()) + 1
    assert "hk-stakes-2" not in ledger.matches()


@pytest.mark.parametrize(
    "stakes",
    [{"ana": 5, "bo": 1, "cy": 1}, {"ana": 0, "bo": 1, "cy": 1, "di": 1}],
    ids=["missing", "zero"],
)
def test_start_match_refuses_bad_stakes(ledger: Ledger, stakes: dict[str, int]) -> None:
    with pytest.raises(MjledgerError):
        ledger.start_match("sichuan", P, stakes=stakes)
    assert ledger.matches() == []


# --- random matches with variants -----------------------------------------------------------

variant_matches = variant_logs(max_hands=4).filter(
    lambda lines: lines[0]["type"] == "match_started"
)


@given(variant_matches, st.data())
def test_a_random_variant_match_records_exports_and_re_replays_identically(
    lines: list[Line], data: st.DataObject
) -> None:
    """Issue 9, "Done when": each variant "replays, records, exports and re-replays
    identically" — also recorded in two steps, and in the read models."""
    head = {**lines[0], "match": "variants"}
    lines = [head, *lines[1:]]
    text = log_text(lines)
    expected = replay(text).to_json()
    cut = data.draw(st.integers(1, len(lines)), label="cut")
    ledger = Ledger(persistence="memory")
    try:
        ledger.record_log(log_text(lines[:cut]))
        ledger.record_log(text)
        exported = ledger.export("variants")
        assert replay(exported).to_json() == expected
        assert ledger.replay_all()["variants"].to_json() == expected
        for n, hand in enumerate(expected["hands"], 1):
            assert hand_to_json(ledger.settlement("variants", n)) == hand
        history = [e.to_json() for e in ledger.views.history("variants")]
        assert [h.get("balances") for h in history] == [
            h.get("balances") for h in expected["hands"]
        ]
        assert ledger.record_log(exported).status == "unchanged"
    finally:
        ledger.close()


def test_balances_above_the_opening_range_carry_into_the_next_hand(ledger: Ledger) -> None:
    """Stakes open at most at 10^12, but a balance may grow past it; the store keeps it."""
    stakes = {"ana": 10**12, "bo": 50, "cy": 50, "di": 50}
    match = ledger.start_match("hongkong", P, stakes=stakes)
    number = ledger.start_hand(match)
    ledger.record(match, number, SelfDrawn(player="ana", fan=3))
    number = ledger.start_hand(match)
    ledger.record(match, number, SelfDrawn(player="ana", fan=3))
    balances = hand_to_json(ledger.settlement(match, number))["balances"]
    assert balances == {"ana": 10**12 + 48, "bo": 34, "cy": 34, "di": 34}
    assert ledger.replay_match(match).to_json()["hands"][-1]["balances"] == balances


def test_the_read_models_keep_balances_on_every_backend(any_store: str) -> None:
    """The views of a match with stakes, on SQLite and PostgreSQL alike (balances above 2^31
    too: a PostgreSQL INTEGER would overflow)."""
    ledger = Ledger(any_store)
    try:
        for name in ("sichuan-stakes", "hongkong-stakes"):
            ledger.record_log((VARIANTS / f"{name}.jsonl").read_text(encoding="utf-8"))
        big = {"ana": 10**12, "bo": 50, "cy": 50, "di": 50}
        match = ledger.start_match("hongkong", P, match_id="big", stakes=big)
        ledger.record(match, ledger.start_hand(match), SelfDrawn(player="ana", fan=3))
        views = ledger.views
        assert [e.to_json()["balances"] for e in views.history("hk-stakes")] == [
            {"ana": 92, "bo": 1024, "cy": 992, "di": 992},
            {"ana": 0, "bo": 1055, "cy": 1023, "di": 1022},
        ]
        assert views.stakes_by_match() == {
            "sc-stakes": {"balances": {"ana": 4, "bo": 87, "cy": 123, "di": 91}, "bust": ["ana"]},
            "hk-stakes": {
                "balances": {"ana": 0, "bo": 1055, "cy": 1023, "di": 1022},
                "bust": ["ana"],
            },
            "big": {"balances": {"ana": 10**12 + 24, "bo": 42, "cy": 42, "di": 42}, "bust": []},
        }
        assert views.rebuild() > 0
        assert views.history("big")[0].balances == {
            "ana": 10**12 + 24,
            "bo": 42,
            "cy": 42,
            "di": 42,
        }
    finally:
        ledger.close()
