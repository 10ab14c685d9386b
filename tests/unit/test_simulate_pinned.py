"""The simulator's output pinned: the same seed gives the same log on every machine, and on
every version unless its play is meant to change (docs/cli.md, ``simulate``). A refactoring of the
simulator (issue 21 split ``sim/engine``) must leave these digests alone; a change to how it
plays updates them in the same commit, with its CHANGELOG entry.

Each digest covers two matches' logs (their bytes) and what ``simulate --stats`` counts of
them (the win, wall and kong records), for the rule sets and the variants that change the
simulator's play: blood flow (winners stay in), its wall and false-win options, added kongs
from the hand, the optional Sichuan patterns and first-turn wins, a lower Hong Kong minimum."""

from __future__ import annotations

import hashlib
import json
from typing import Any

import pytest

from mjledger.sim.run import simulate

PINNED: list[tuple[str, int, int, dict[str, Any], str]] = [
    ("sichuan", 20, 1, {}, "c607e4fe29a6aa69c0bf3effdd750fcdc519a5d11226b96c0d0d0ebe4f683c8d"),
    ("hongkong", 20, 2, {}, "d3e5f0f6094b35b5124fca676371346b8931f3b37b8063d912f11f546ac2d05b"),
    (
        "sichuan",
        15,
        3,
        {
            "blood_flow": True,
            "blood_flow_wall": "exempt_winners",
            "sichuan_false_win": "flat",
            "added_kong_from_hand": "unpaid",
        },
        "40b4de944af287899d39c40d76fba6fe369c49c21077abb47aeaa3c7d1a8b280",
    ),
    (
        "sichuan",
        15,
        4,
        {"fan_cap": 6, "heavenly": True, "earthly": True, "all_258_pungs": True},
        "2330fa55eeae4be9d1a68e157e38e6783c1a0b61b76f0755e98b95e58bfc01ec",
    ),
    (
        "hongkong",
        15,
        5,
        {"min_fan": 1},
        "628b4d1f547bd3256b1ca69c3c50c410c90a9c53f0a4044c66e49849b13233e6",
    ),
]


def _digest(ruleset: str, hands: int, seed: int, rules: dict[str, Any]) -> str:
    digest = hashlib.sha256()
    for m in simulate(ruleset, hands=hands, seed=seed, matches=2, rules=rules):
        digest.update(m.text().encode())
        counted = (m.hands, m.wins, m.walls, m.kongs, m.void_hands, m.new_discard_wins)
        digest.update(repr(counted).encode())
    return digest.hexdigest()


@pytest.mark.parametrize(
    ("ruleset", "hands", "seed", "rules", "expected"),
    PINNED,
    ids=[f"{r}-{s}-{json.dumps(rules, sort_keys=True)}" for r, _, s, rules, _ in PINNED],
)
def test_the_simulator_plays_as_pinned(
    ruleset: str, hands: int, seed: int, rules: dict[str, Any], expected: str
) -> None:
    assert _digest(ruleset, hands, seed, rules) == expected


def test_the_digest_sees_a_changed_seed() -> None:
    """The pin is not vacuous: another seed of the same table digests differently."""
    ruleset, hands, seed, rules, expected = PINNED[0]
    assert _digest(ruleset, hands, seed + 1, rules) != expected
