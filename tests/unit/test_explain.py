"""``mjledger.explain``: every step's arithmetic gives exactly the settlement's transfers.

Issue 13: the explanation shows, for every event of a hand, the rule, the operands, the
result and the money, and its money per player equals the hand's ``net``. The money of a step
is claimed from the settlement; the arithmetic is rebuilt from the rule tables, so equality
of the two is the check that the explanation tells the truth.
"""

from __future__ import annotations

from collections import Counter

import pytest
from hypothesis import given

from mjledger import MjledgerError, replay
from mjledger.explain import explain_log, money_by_player, select_hand
from tests.conftest import EXAMPLES
from tests.helpers import ANA, BO, CY, DI, discard, hand_start, jsonl, kong, self_drawn, won
from tests.strategies import legal_log_text


def check_explanation(text: str) -> None:
    settled = replay(text).to_json()["hands"]
    hands = explain_log(text)
    assert [h.number for h in hands] == [h["number"] for h in settled]
    for hand, expected in zip(hands, settled, strict=True):
        # the arithmetic's results are the amounts, payment by payment
        for step in hand.steps:
            assert step.computed == step.money, (step.line, step.reason, step.operands)
        # the money per player is the hand's net, and the running net ends there
        assert money_by_player(hand) == expected["net"] == hand.net
        assert hand.steps[-1].net_after == expected["net"]
        # every transfer explained once (lines compared where a step owns them)
        mine = Counter((p.payer, p.payee, p.amount, s.reason) for s in hand.steps for p in s.money)
        theirs = Counter(
            (t["from"], t["to"], t["amount"], t["reason"]) for t in expected["transfers"]
        )
        assert mine == theirs
        for step in hand.steps:
            if step.reason not in (None, "kong_money_passed"):
                lines = {t["line"] for t in expected["transfers"] if t["reason"] == step.reason}
                assert step.line in lines


@given(legal_log_text())
def test_explanation_money_equals_transfers_for_random_logs(text: str) -> None:
    check_explanation(text)


@pytest.mark.parametrize("name", ["disputed-hand", "sichuan-match", "hongkong-match"])
def test_examples_are_explained_exactly(name: str) -> None:
    check_explanation((EXAMPLES / f"{name}.jsonl").read_text(encoding="utf-8"))


RULES_PASSING = jsonl(
    {"type": "hand_started", "ruleset": "sichuan", "players": [ANA, BO, CY, DI], "dealer": ANA},
    discard(ANA, "7p"),
    {"type": "kong_declared", "player": BO, "kind": "exposed", "from": ANA, "tile": "3s"},
    {"type": "kong_declared", "player": BO, "kind": "added", "tile": "8s"},
    won(DI, BO, 1),
    won(CY, BO, 2),
    discard(ANA, "2p"),
    {
        "type": "wall_exhausted",
        "remaining": {ANA: {"ready": True, "best_fan": 1}, BO: {"ready": False}},
    },
)


def test_rules_md_passing_example_step_by_step() -> None:
    """rules.md, "Kong money passing": the worked example, line by line."""
    (hand,) = explain_log(RULES_PASSING)
    money = [
        (s.line, s.reason, [(p.payer, p.payee, p.amount) for p in s.money])
        for s in hand.steps
        if s.money
    ]
    assert money == [
        (3, "kong_exposed", [(ANA, BO, 2)]),
        (4, "kong_added", [(ANA, BO, 1), (CY, BO, 1), (DI, BO, 1)]),
        (5, "won_on_discard", [(BO, DI, 2)]),
        (6, "won_on_discard", [(BO, CY, 4)]),
        (5, "kong_money_passed", [(BO, DI, 2), (BO, CY, 3)]),
        (8, "not_ready", [(BO, ANA, 2)]),
    ]
    passing = next(s for s in hand.steps if s.reason == "kong_money_passed")
    assert passing.operands["kong_lines"] == [3, 4]
    assert passing.operands["total"] == 5
    assert (passing.operands["part"], passing.operands["remainder"]) == (2, 1)
    assert passing.operands["first"] == CY
    assert hand.net == {ANA: -1, BO: -8, CY: 6, DI: 3}
    assert hand.steps[-1].net_after == hand.net


def test_hongkong_discard_arithmetic() -> None:
    text = jsonl(
        {
            "type": "hand_started",
            "ruleset": "hongkong",
            "players": [ANA, BO, CY, DI],
            "dealer": ANA,
            "rules": {"table": "spicy", "discard_pays": "all", "points_per_unit": 2},
        },
        won(CY, BO, 6),
    )
    (hand,) = explain_log(text)
    step = hand.steps[-1]
    assert step.operands["units"] == 64
    assert step.operands["share"] == 128
    assert step.operands["shares"] == 3
    assert step.operands["amount"] == 384
    assert [s.id for s in step.sentences] == ["won_on_discard.hongkong", "worth.hongkong"]


def test_refund_and_pig_steps() -> None:
    """rules.md, "When the wall runs out": the base-2 worked example."""
    text = jsonl(
        hand_start("sichuan", rules={"base": 2}),
        kong(CY, "concealed"),
        discard(CY),
        self_drawn(DI, 1),
        discard(ANA),
        {
            "type": "wall_exhausted",
            "remaining": {
                ANA: {"flower_pig": True},
                BO: {"ready": True, "best_fan": 5},
                CY: {"ready": False},
            },
        },
    )
    (hand,) = explain_log(text)
    reasons = [s.reason for s in hand.steps if s.money]
    assert reasons == [
        "kong_concealed",
        "self_drawn",
        "flower_pig",
        "not_ready",
        "kong_refund",
    ]
    assert hand.net == {ANA: -134, BO: 90, CY: -6, DI: 50}


def test_select_hand_names_what_exists() -> None:
    hands = explain_log((EXAMPLES / "sichuan-match.jsonl").read_text(encoding="utf-8"))
    assert select_hand(hands, 3).number == 3
    with pytest.raises(MjledgerError, match="no hand 99"):
        select_hand(hands, 99)


def test_fan_derived_from_tiles_is_the_operand() -> None:
    """tests/test_tile_logs.py: d's seven pairs in one suit are 4 fan, from the tiles."""
    from tests.unit.test_tile_logs import sichuan_hand

    (with_tiles,) = explain_log(sichuan_hand(tiles=True))
    (asserted,) = explain_log(sichuan_hand(tiles=False))
    win = next(s for s in with_tiles.steps if s.line == 9)
    assert win.operands["fan"] == 4
    assert win.operands["fan_from_tiles"] is True
    assert win.operands["amount"] == 16
    assert [s.money for s in with_tiles.steps] == [s.money for s in asserted.steps]
    check_explanation(sichuan_hand(tiles=True))
