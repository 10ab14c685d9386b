"""rules.md "House rules" and log-format.md's option table: defaults, ranges, strict types.

"Unknown options and values out of range are errors", min_fan is "at most fan_limit", and
integers are "never true, never 3.0"; `rules` in the replay output has "every key present".
"""

from __future__ import annotations

from typing import Any

import pytest

from mjledger import FormatError, LogError, replay
from tests.helpers import (
    HK_DEFAULTS,
    NOT_READY,
    SC_DEFAULTS,
    hand_start,
    jsonl,
    match_start,
    new_hand,
    run,
    wall,
)

DEFAULTS = {"hongkong": HK_DEFAULTS, "sichuan": SC_DEFAULTS}

BAD: list[tuple[str, dict[str, Any]]] = [
    # unknown options (also another rule set's option)
    ("hongkong", {"fan_cap": 4}),
    ("hongkong", {"Table": "spicy"}),
    ("sichuan", {"table": "spicy"}),
    ("sichuan", {"min_fan": 1}),
    ("sichuan", {"surprise": True}),
    # out of range
    ("hongkong", {"table": "mild"}),
    ("hongkong", {"points_per_unit": 0}),
    ("hongkong", {"points_per_unit": -1}),
    ("hongkong", {"points_per_unit": 1_000_001}),
    ("hongkong", {"min_fan": -1}),
    ("hongkong", {"min_fan": 14}),
    ("hongkong", {"fan_limit": 4}),  # variants.md, second set: 5–13
    ("hongkong", {"fan_limit": 6, "min_fan": 7}),
    ("hongkong", {"fan_limit": 0}),
    ("hongkong", {"fan_limit": 14}),
    ("hongkong", {"discard_pays": "half"}),
    ("sichuan", {"base": 0}),
    ("sichuan", {"base": 1_000_001}),
    ("sichuan", {"fan_cap": 2}),
    ("sichuan", {"fan_cap": 7}),
    ("sichuan", {"self_draw_bonus": "double"}),
    ("sichuan", {"kong_money_passing": "yes"}),
    ("sichuan", {"kong_passing_split": "even"}),
    # min_fan > fan_limit
    ("hongkong", {"min_fan": 9, "fan_limit": 8}),
    ("hongkong", {"min_fan": 11}),
    ("hongkong", {"min_fan": 13, "fan_limit": 10}),
    # bool-as-int, float-as-int, string-as-int, int-as-bool, null
    ("hongkong", {"points_per_unit": True}),
    ("hongkong", {"min_fan": False}),
    ("hongkong", {"min_fan": 3.0}),
    ("hongkong", {"fan_limit": 10.0}),
    ("hongkong", {"fan_limit": "10"}),
    ("hongkong", {"min_fan": "3"}),
    ("hongkong", {"table": None}),
    ("sichuan", {"base": True}),
    ("sichuan", {"base": 1.0}),
    ("sichuan", {"fan_cap": True}),
    ("sichuan", {"fan_cap": 4.0}),
    ("sichuan", {"kong_money_passing": 1}),
    ("sichuan", {"kong_money_passing": 0}),
    ("sichuan", {"kong_money_passing": None}),
]


@pytest.mark.parametrize(("ruleset", "rules"), BAD, ids=lambda v: str(v))
@pytest.mark.parametrize("where", ["match_started", "hand_started"])
def test_bad_house_rules_are_rejected_on_their_line(ruleset: str, rules: dict, where: str) -> None:
    """rules.md: "Unknown options and values out of range are errors"; log-format.md: integers
    are "never `true`, never `3.0`"; min_fan is "at most fan_limit"."""
    first = (
        match_start(ruleset, rules)
        if where == "match_started"
        else hand_start(ruleset, rules=rules)
    )
    with pytest.raises(LogError) as err:
        replay(jsonl(first))
    assert err.value.line == 1
    assert err.value.event_type == where


@pytest.mark.parametrize("rules", ["half_spicy", [], 3, True])
def test_rules_must_be_an_object(rules: object) -> None:
    """log-format.md: `rules` holds house rules — an object of options."""
    with pytest.raises(FormatError) as err:
        replay(
            jsonl(
                {
                    "type": "match_started",
                    "ruleset": "hongkong",
                    "players": ["a", "b", "c", "d"],
                    "rules": rules,
                }
            )
        )
    assert err.value.line == 1


@pytest.mark.parametrize("ruleset", ["hongkong", "sichuan"])
def test_defaults_are_reported_in_full(ruleset: str) -> None:
    """log-format.md: "`rules` are the house rules in force, every key present"; defaults are
    the first value of each row of the option table."""
    assert run(match_start(ruleset)).to_json()["rules"] == DEFAULTS[ruleset]
    assert run(match_start(ruleset, {})).to_json()["rules"] == DEFAULTS[ruleset]
    assert run(hand_start(ruleset)).to_json()["rules"] == DEFAULTS[ruleset]


@pytest.mark.parametrize(
    ("ruleset", "given"),
    [
        ("hongkong", {"table": "spicy"}),
        ("hongkong", {"min_fan": 0, "fan_limit": 8}),
        ("hongkong", {"min_fan": 13, "fan_limit": 13}),
        ("hongkong", {"points_per_unit": 1_000_000, "discard_pays": "all"}),
        ("sichuan", {"fan_cap": 6}),
        ("sichuan", {"base": 1_000_000, "self_draw_bonus": "none"}),
        ("sichuan", {"kong_money_passing": False, "kong_passing_split": "none"}),
    ],
)
def test_omitted_keys_take_their_defaults(ruleset: str, given: dict) -> None:
    """log-format.md: "omitted keys take their defaults"."""
    assert run(match_start(ruleset, given)).to_json()["rules"] == {**DEFAULTS[ruleset], **given}


def test_rules_are_fixed_for_the_whole_match() -> None:
    """rules.md: "House rules are fixed for a whole match" — a hand_started in a match cannot
    carry rules."""
    with pytest.raises(LogError) as err:
        run(match_start("sichuan"), {"type": "hand_started", "rules": {"base": 2}})
    assert err.value.line == 2
    with pytest.raises(LogError):
        run(
            match_start("sichuan"),
            new_hand(),
            wall(ana=NOT_READY, bo=NOT_READY, cy=NOT_READY, di=NOT_READY),
            {"type": "hand_started", "ruleset": "sichuan", "rules": {"base": 2}},
        )
