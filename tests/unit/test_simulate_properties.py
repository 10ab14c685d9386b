"""Hypothesis over simulated logs (issue 14): the simulator as a source of legal logs.

The differential property: the fans and wall facts the tiles make, written back as asserted
facts with the tiles removed, replay to exactly the same money, winners and dealers — the
blood-flow variant included, where winners play on. (The store's property, record → export
→ replay, is in tests/store/test_simulate_store.py.)
"""

from __future__ import annotations

import json
from collections import Counter
from typing import Any

from hypothesis import given
from hypothesis import strategies as st

from mjledger import replay
from mjledger.fold.replay import Replay
from mjledger.sim.run import simulate
from tests.conftest import DATA
from tests.sim_facts import asserted_log
from tests.variant_strategies import PASSING_REFINEMENTS, variant_rules

RULES: dict[str, list[dict[str, Any]]] = {
    "sichuan": [
        {},
        {"fan_cap": 6, "self_draw_bonus": "fan"},
        {"kong_passing_split": "none", "base": 3},
        {"heavenly": True, "earthly": True, "all_258_pungs": True, "terminals_in_all": True},
        # Blood flow: winners stay in, win again and are checked at the wall.
        {"blood_flow": True},
        {"blood_flow": True, "kong_passing_split": "each_full", "kong_passing_scope": "last"},
        {"blood_flow": True, "claimed_kong_bloom": "feeder_pays", "exposed_kong_pays": "everyone"},
        {"blood_flow": True, "pig_pays": "still_in", "refund_to_winners": False, "fan_cap": 6},
        # Second set: winners left out at the wall; a flat false win (never simulated) allowed.
        {"blood_flow": True, "blood_flow_wall": "exempt_winners", "sichuan_false_win": "flat"},
    ],
    "hongkong": [
        {},
        {"seven_pairs": True, "min_fan": 1},
        {"table": "spicy", "discard_pays": "all", "fan_limit": 13},
        {"min_fan": 0, "fan_limit": 8},
        # Second set: any limit from 5 to 13.
        {"min_fan": 1, "fan_limit": 6},
        {"table": "spicy", "min_fan": 0, "fan_limit": 5},
    ],
}


@st.composite
def simulated_logs(draw: st.DrawFn) -> str:
    ruleset = draw(st.sampled_from(["sichuan", "hongkong"]))
    rules = draw(st.sampled_from(RULES[ruleset]))
    seed = draw(st.integers(min_value=0, max_value=2**32))
    hands = draw(st.integers(min_value=1, max_value=4))
    (match,) = simulate(ruleset, hands=hands, seed=seed, rules=rules)
    return match.text()


def money(result: Replay) -> list[tuple[Counter[tuple[str, str, int, str, int | None]], Any]]:
    """Each hand's transfers as a multiset (their order is not part of the contract) and the
    rest of its replay entry."""
    out = []
    for hand in result.to_json()["hands"]:
        transfers = Counter(
            (t["from"], t["to"], t["amount"], t["reason"], t["line"]) for t in hand["transfers"]
        )
        rest = {k: v for k, v in hand.items() if k != "transfers"}
        out.append((transfers, rest))
    return out


@given(simulated_logs())
def test_facts_derived_from_tiles_and_asserted_settle_identically(text: str) -> None:
    from_tiles = replay(text)
    asserted = asserted_log(text)
    assert '"tiles"' not in asserted
    from_facts = replay(asserted)
    assert money(from_facts) == money(from_tiles)
    assert from_facts.totals() == from_tiles.totals()


def _sheet_rules() -> list[tuple[str, dict[str, Any]]]:
    """The house rules of every variant sheet (tests/data/variants: one log per variant of
    variants.md), as its first line gives them."""
    sheets = []
    for path in sorted((DATA / "variants").glob("*.jsonl")):
        first = json.loads(path.read_text(encoding="utf-8").split("\n", 1)[0])
        rules = {k: v for k, v in (first.get("rules") or {}).items() if k != "stakes"}
        sheets.append((first["ruleset"], rules))
    return sheets


SHEETS = _sheet_rules()


@given(
    sheet=st.sampled_from(SHEETS),
    extra=st.data(),
    seed=st.integers(min_value=0, max_value=2**32),
    hands=st.integers(min_value=1, max_value=6),
)
def test_the_simulator_never_writes_a_log_the_fold_refuses(
    sheet: tuple[str, dict[str, Any]], extra: st.DataObject, seed: int, hands: int
) -> None:
    """issue 22: over many seeds, under every variant sheet's rules (and any other variants
    of its rule set on top), every simulated log replays; the simulator plays only what the
    rules allow (blood flow once built a win on waits a kong had taken away)."""
    ruleset, rules = sheet
    more = extra.draw(variant_rules(ruleset))
    table = {**more, **rules}
    if table.get("discard_pays") == "half" and table.get("points_per_unit", 1) % 2:
        table["points_per_unit"] = 2  # variants.md: "half" needs an even points_per_unit
    if ruleset == "hongkong" and table.get("min_fan", 3) > table.get("fan_limit", 10):
        table["min_fan"] = table.get("fan_limit", 10)  # rules.md: min_fan at most fan_limit
    if table.get("kong_money_passing") == "refund":
        # variants.md, second set: the refining keys at their defaults under "refund"
        if rules.get("kong_money_passing") == "refund":
            table = {k: v for k, v in table.items() if k not in PASSING_REFINEMENTS}
        elif any(k in rules for k in PASSING_REFINEMENTS):
            table["kong_money_passing"] = rules.get("kong_money_passing", True)
    (match,) = simulate(ruleset, hands=hands, seed=seed, rules=table)
    replay(match.text())


def test_blood_flow_after_a_kong_on_a_replacement_win_plays_a_legal_match() -> None:
    """The match that died before (seed 67: a win on a kong's replacement tile left the
    winner waiting on the tiles of the hand before the kong) now replays."""
    (match,) = simulate("sichuan", hands=30, seed=67, rules={"blood_flow": True})
    result = replay(match.text())
    assert len(result.hands) == 30
