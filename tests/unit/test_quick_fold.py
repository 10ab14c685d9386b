"""Sichuan's quick fold (``mjledger.rules.sichuan.quick``, what ``replay --json`` settles
plain hands with) against the general fold: the same output bytes or the same error, on the
benchmark's logs of asserted facts under every house rule, on those logs with lines dropped,
repeated, swapped or changed, and on the logs of the other strategies. And it is no fall back
in disguise: hands of asserted facts are decided by it, not left to the general fold."""

from __future__ import annotations

import json
import random
from collections.abc import Iterator
from typing import Any
from unittest import mock

import pytest
from hypothesis import given
from hypothesis import strategies as st

from mjledger.fold.stream import SettledHands
from mjledger.rules.sichuan import scoring
from mjledger.rules.sichuan.options import SichuanRules
from mjledger.rules.sichuan.quick import QuickSichuan
from mjledger.rules.sichuan.ruleset import SICHUAN
from tests.strategies import corrupted_log_texts, legal_log_text, sichuan_rules
from tests.unit.test_benchmark_logs import bench_replay
from tests.unit.test_fast_path import fast_output, strict_output
from tests.variant_strategies import variant_logs

BENCH = bench_replay()


def bench_lines(seed: int, hands: int, rules: dict[str, Any]) -> list[str]:
    """The benchmark's Sichuan match of asserted facts (kongs, runs of wins on one discard,
    robbed kongs, flower pigs, refunds), under ``rules``."""
    text = BENCH.sichuan_log(random.Random(seed), hands)
    lines = text.splitlines()
    first = json.loads(lines[0])
    first["rules"] = rules
    return [json.dumps(first), *lines[1:]]


def fallbacks(data: bytes) -> tuple[Any, int]:
    """``replay --json``'s output of ``data`` and how many times a hand (or the rest of the log)
    was left to the general fold."""
    calls = 0
    replayed = SettledHands._replayed

    def counted(*args: Any) -> Any:
        nonlocal calls
        calls += 1
        return replayed(*args)

    with mock.patch.object(SettledHands, "_replayed", staticmethod(counted)):
        out = fast_output(data)
    return out, calls


TABLES = [
    {"base": 1, "fan_cap": 4},
    {"base": 3, "fan_cap": 3, "self_draw_bonus": "fan", "kong_passing_split": "each_full"},
    {"fan_cap": 6, "self_draw_bonus": "none", "kong_passing_split": "none"},
    {"base": 2, "kong_money_passing": False},
]


@pytest.mark.parametrize(("seed", "rules"), [(s, r) for s in (1, 2) for r in TABLES])
def test_the_benchmark_logs_are_decided_by_the_quick_fold(seed: int, rules: dict[str, Any]) -> None:
    data = "\n".join(bench_lines(seed, 300, rules)).encode()
    out, calls = fallbacks(data)
    assert calls == 0
    assert out == strict_output(data)
    assert isinstance(out, bytes)


@given(st.integers(0, 10_000), sichuan_rules(), st.sampled_from(("split", "none", "each_full")))
def test_every_house_rule_same_output(seed: int, rules: dict[str, Any], split: str) -> None:
    data = "\n".join(bench_lines(seed, 12, {**rules, "kong_passing_split": split})).encode()
    out, calls = fallbacks(data)
    assert calls == 0
    assert out == strict_output(data)


@st.composite
def damaged_bench_logs(draw: st.DrawFn) -> bytes:
    """A benchmark log with lines dropped, repeated, swapped, or given another player,
    discarder, fan or kind, or a first turn: refusals and fall backs at every place."""
    seed, hands = draw(st.integers(0, 10_000)), draw(st.integers(1, 6))
    lines = bench_lines(seed, hands, draw(sichuan_rules()))
    for _ in range(draw(st.integers(1, 3))):
        i = draw(st.integers(0, len(lines) - 1))
        how = draw(st.sampled_from(("drop", "repeat", "swap", "change")))
        if how == "drop":
            del lines[i]
        elif how == "repeat":
            lines.insert(i, lines[i])
        elif how == "swap" and i + 1 < len(lines):
            lines[i], lines[i + 1] = lines[i + 1], lines[i]
        elif how == "change":
            line = json.loads(lines[i])
            key = draw(st.sampled_from(("player", "from", "fan", "kind", "first_turn", "dealer")))
            line[key] = draw(
                {
                    "fan": st.integers(0, 9),
                    "kind": st.sampled_from(("exposed", "added", "concealed")),
                    "first_turn": st.just(True),
                }.get(key, st.sampled_from(("ana", "bo", "cy", "di", "eve")))
            )
            lines[i] = json.dumps(line)
        if not lines:
            lines = ['{"type": "hand_started"}']
    return "\n".join(lines).encode()


@given(damaged_bench_logs())
def test_damaged_logs_same_output_or_same_error(data: bytes) -> None:
    assert fast_output(data) == strict_output(data)


@given(legal_log_text(ruleset="sichuan", max_hands=4))
def test_legal_sichuan_logs_same_output(text: str) -> None:
    data = text.encode()
    assert fast_output(data) == strict_output(data)


@given(corrupted_log_texts(ruleset="sichuan"))
def test_mutated_sichuan_logs_same_output_or_same_error(text: str) -> None:
    data = text.encode("utf-8", "surrogatepass")
    assert fast_output(data) == strict_output(data)


@given(variant_logs(max_hands=3))
def test_variant_logs_same_output(lines: list[dict[str, Any]]) -> None:
    data = "\n".join(json.dumps(line) for line in lines).encode()
    assert fast_output(data) == strict_output(data)


@given(sichuan_rules(), st.integers(0, 12))
def test_the_amounts_are_the_scoring_functions(rules: dict[str, Any], fan: int) -> None:
    """What the quick fold's tables say a win, a self-draw, a kong and a pig cost."""
    house = SichuanRules(**rules)
    quick = QuickSichuan.at(SICHUAN.bind(house, ("a", "b", "c", "d")))
    assert quick is not None
    hand = quick.fold(1, "a", 0, iter(_one_of_each(fan)), [])
    paid = {(t["reason"], t["from"]): t["amount"] for t in hand.transfers}
    assert paid[("kong_concealed", "b")] == scoring.sichuan_kong_amount(house, "concealed")
    assert paid[("kong_added", "a")] == scoring.sichuan_kong_amount(house, "added")
    assert paid[("won_on_discard", "d")] == scoring.sichuan_win_amount(house, fan)
    assert paid[("self_drawn", "a")] == scoring.sichuan_self_draw_amount(house, fan)
    assert paid[("flower_pig", "d")] == scoring.sichuan_flower_pig_amount(house)
    assert paid[("not_ready", "d")] == scoring.sichuan_not_ready_amount(house, fan)


def _one_of_each(fan: int) -> Iterator[tuple[int, Any]]:
    from mjledger.log.codec import decode_line

    lines = [
        {"type": "kong_declared", "player": "a", "kind": "concealed", "tile": "1m"},
        {"type": "kong_declared", "player": "b", "kind": "added", "tile": "2m"},
        {"type": "won_on_discard", "player": "c", "from": "d", "fan": fan},
        {"type": "self_drawn", "player": "b", "fan": fan},
        {
            "type": "wall_exhausted",
            "remaining": {"a": {"ready": True, "best_fan": fan}, "d": {"flower_pig": True}},
        },
    ]
    for number, line in enumerate(lines, 3):
        yield number, decode_line(json.dumps(line), number)


def test_a_table_variant_leaves_the_table_to_the_general_fold() -> None:
    players = ("a", "b", "c", "d")
    assert QuickSichuan.at(SICHUAN.bind(SichuanRules(), players)) is not None
    assert QuickSichuan.at(SICHUAN.bind(SichuanRules(blood_flow=True), players)) is not None
    flow_wall = SichuanRules(blood_flow=True, blood_flow_wall="exempt_winners")
    assert QuickSichuan.at(SICHUAN.bind(flow_wall, players)) is None
    assert QuickSichuan.at(SICHUAN.bind(SichuanRules(pig_pays="still_in"), players)) is None


OPENING = [
    {"type": "match_started", "ruleset": "sichuan", "players": ["a", "b", "c", "d"]},
    {"type": "hand_started"},
    *({"type": "void_suit_chosen", "player": p, "suit": "p"} for p in "abcd"),
]


@pytest.mark.parametrize(
    "lines",
    [
        # A wall entry with tiles: ready on 1-4s and 2-5s (the general fold derives it).
        [
            {"type": "discarded", "player": "a", "tile": "1p"},
            {
                "type": "wall_exhausted",
                "remaining": {
                    "a": {"ready": False},
                    "b": {"tiles": "1m2m3m4m5m6m7m8m9m2s3s4s5s"},
                    "c": {"flower_pig": True},
                    "d": {"ready": True, "best_fan": 1},
                },
            },
        ],
        # A first-turn claim the log contradicts (a discard before it): refused.
        [
            {"type": "discarded", "player": "a", "tile": "1p"},
            {"type": "discarded", "player": "b", "tile": "1p"},
            {"type": "self_drawn", "player": "c", "fan": 2, "first_turn": True},
        ],
        # A first-turn claim that holds (a win on the dealer's first discard).
        [
            {"type": "discarded", "player": "a", "tile": "1p"},
            {"type": "won_on_discard", "player": "b", "from": "a", "fan": 1, "first_turn": True},
        ],
        # Two winners on one discard after the discarder's kong, each given all its money.
        [
            {"type": "kong_declared", "player": "a", "kind": "concealed", "tile": "1s"},
            {"type": "discarded", "player": "a", "tile": "1p"},
            {"type": "won_on_discard", "player": "b", "from": "a", "fan": 1},
            {"type": "won_on_discard", "player": "c", "from": "a", "fan": 0},
        ],
    ],
)
@pytest.mark.parametrize("split", ["split", "each_full", "none"])
def test_hands_the_quick_fold_leaves_or_settles(lines: list[dict[str, Any]], split: str) -> None:
    opening = [{**OPENING[0], "rules": {"kong_passing_split": split}}, *OPENING[1:]]
    data = "\n".join(json.dumps(line) for line in [*opening, *lines]).encode()
    assert fast_output(data) == strict_output(data)


HAND = [
    {"type": "hand_started"},
    *({"type": "void_suit_chosen", "player": p, "suit": "p"} for p in "abcd"),
    {"type": "discarded", "player": "a", "tile": "1p"},
    {"type": "won_on_discard", "player": "b", "from": "a", "fan": 1},
    {"type": "self_drawn", "player": "c", "fan": 0},
    {"type": "won_on_discard", "player": "d", "from": "a", "fan": 2},
]


@pytest.mark.parametrize(
    "between",
    [
        [{"type": "hand_started", "dealer": "c"}, *HAND[1:]],  # the rotation gives "b"
        [{"type": "hand_started", "dealer": "b"}, *HAND[1:]],  # as the rotation has it
        [{"type": "hand_started", "format": 1}, *HAND[1:]],
        [{"type": "hand_started", "players": ["a", "b", "c", "d"]}, *HAND[1:]],
        [{"type": "match_started", "ruleset": "sichuan", "players": ["a", "b", "c", "d"]}],
        [{"type": "discarded", "player": "a", "tile": "1p"}],
        [{"type": "wall_exhausted", "remaining": {}}],
        [{"type": "hand_started"}, {"type": "hand_started"}],  # the hand has not ended
        [{"type": "hand_started"}],  # the log ends as the hand starts
        [{"type": "hand_started"}, {"type": "discarded", "player": "b", "tile": "1p"}],
        [],
    ],
)
@pytest.mark.parametrize("first_dealer", [None, "b", "eve"])
def test_what_comes_between_hands(between: list[dict[str, Any]], first_dealer: str | None) -> None:
    """A second hand's start as the rotation has it, or refused the way the general fold
    refuses it; the first hand's dealer given, or not at the table."""
    first = HAND[0] if first_dealer is None else {**HAND[0], "dealer": first_dealer}
    lines = [OPENING[0], first, *HAND[1:], *between]
    data = "\n".join(json.dumps(line) for line in lines).encode()
    assert fast_output(data) == strict_output(data)


# A hand the quick fold leaves to the general fold (a first-turn win) that the general fold
# settles to its end, then a line no hand holds: refused as the general fold refuses it (the
# lines the general fold drew are replayed with the hand's first ones). Found by
# test_damaged_logs_same_output_or_same_error.
LEFT_THEN_REFUSED = [
    '{"type": "match_started", "match": "bench-sichuan", "ruleset": "sichuan", '
    '"players": ["ana", "bo", "cy", "di"], "rules": {}}',
    '{"type": "hand_started", "dealer": "ana"}',
    '{"type": "void_suit_chosen", "player": "ana", "suit": "s"}',
    '{"type": "void_suit_chosen", "player": "bo", "suit": "p"}',
    '{"type": "void_suit_chosen", "player": "cy", "suit": "p"}',
    '{"type": "void_suit_chosen", "player": "di", "suit": "p"}',
    '{"type": "discarded", "player": "ana", "tile": "4p"}',
    '{"type": "won_on_discard", "player": "di", "fan": 4, "from": "bo"}',
    '{"type": "discarded", "player": "cy", "tile": "5p"}',
    '{"type": "discarded", "player": "ana", "tile": "8s"}',
    '{"type": "discarded", "player": "bo", "tile": "7s"}',
    '{"type": "self_drawn", "player": "cy", "fan": 0}',
    '{"type": "discarded", "player": "ana", "tile": "1p"}',
    '{"type": "discarded", "player": "bo", "tile": "4m"}',
    '{"type": "won_on_discard", "player": "bo", "fan": 1, "from": "ana"}',
    '{"type": "hand_started"}',
    '{"type": "void_suit_chosen", "player": "ana", "suit": "m"}',
    '{"type": "void_suit_chosen", "player": "bo", "suit": "m"}',
    '{"type": "void_suit_chosen", "player": "cy", "suit": "m"}',
    '{"type": "void_suit_chosen", "player": "di", "suit": "p"}',
    '{"type": "won_on_discard", "player": "bo", "fan": 3, "from": "di", "first_turn": true}',
    '{"type": "discarded", "player": "ana", "tile": "3m"}',
    '{"type": "kong_declared", "player": "cy", "kind": "concealed", "tile": "3m"}',
    '{"type": "discarded", "player": "cy", "tile": "9p"}',
    '{"type": "discarded", "player": "di", "tile": "5p"}',
    '{"type": "discarded", "player": "ana", "tile": "2p"}',
    '{"type": "kong_declared", "player": "cy", "kind": "concealed", "tile": "5p"}',
    '{"type": "kong_declared", "player": "cy", "kind": "added", "tile": "7m"}',
    '{"type": "discarded", "player": "cy", "tile": "7p"}',
    '{"type": "won_on_discard", "player": "ana", "fan": 2, "from": "di"}',
    '{"type": "self_drawn", "player": "di", "fan": 0}',
    '{"type": "discarded", "player": "cy", "tile": "8p"}',
]


def test_a_hand_left_to_the_general_fold_then_a_refused_line() -> None:
    data = "\n".join(LEFT_THEN_REFUSED).encode()
    refused = strict_output(data)
    assert not isinstance(refused, bytes)
    assert fast_output(data) == refused
