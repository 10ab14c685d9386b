"""The public contract's examples (../shared/spec/examples): replay each, compare exactly."""

from __future__ import annotations

import json
from collections import Counter
from pathlib import Path

import pytest

from mjledger import replay

from .conftest import SPEC_EXAMPLES

LOGS = sorted(SPEC_EXAMPLES.glob("*.jsonl"))


def _comparable(out: dict) -> dict:
    """Transfers compare as a multiset within each hand (their order is not contractual)."""
    hands = []
    for hand in out["hands"]:
        hand = dict(hand)
        hand["transfers"] = Counter(json.dumps(t, sort_keys=True) for t in hand["transfers"])
        hands.append(hand)
    return {**out, "hands": hands}


def test_the_examples_are_there() -> None:
    assert len(LOGS) >= 3, f"expected the spec examples in {SPEC_EXAMPLES}"


@pytest.mark.parametrize("log", LOGS, ids=lambda p: p.stem)
def test_replay_matches_expected_output(log: Path) -> None:
    expected = json.loads(log.with_name(log.stem + ".expected.json").read_text())
    got = replay(log.read_text()).to_json()
    assert _comparable(got) == _comparable(expected)
