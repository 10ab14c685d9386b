"""The project's own contract examples: replay each log, compare with its expected output exactly.

`tests/data/contract/` holds small logs written for the contract's rules (the figures are worked
in tests/data/README.md); `tests/data/examples/` holds the expected output of every log in
`examples/`. A change that alters any of them changes the public contract.
"""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from mjledger import replay
from tests.conftest import CONTRACT, EXAMPLES, EXPECTED_EXAMPLES
from tests.helpers import comparable_output

CASES = [
    (log, log.with_name(log.stem + ".expected.json")) for log in sorted(CONTRACT.glob("*.jsonl"))
]
CASES += [
    (log, EXPECTED_EXAMPLES / (log.stem + ".expected.json"))
    for log in sorted(EXAMPLES.glob("*.jsonl"))
]


def test_every_example_has_its_expected_output() -> None:
    assert len(CASES) >= 6
    for log, expected in CASES:
        assert expected.is_file(), f"{log.name}: no expected output at {expected}"


@pytest.mark.parametrize(("log", "expected"), CASES, ids=lambda p: p.stem)
def test_replay_matches_expected_output(log: Path, expected: Path) -> None:
    want = json.loads(expected.read_text(encoding="utf-8"))
    got = replay(log.read_text(encoding="utf-8")).to_json()
    assert comparable_output(got) == comparable_output(want)


def test_hand_worked_figures() -> None:
    """tests/data/README.md, figure by figure (rules: HK pay-for-all, self-draw shares; Sichuan
    rain, capped self-draw with the fan bonus, not ready, refund, kong money split)."""
    hk = replay((CONTRACT / "hongkong-three-hands.jsonl").read_text()).to_json()
    # 4 fan half-spicy = 16 units x 2 points = 32 a share; pay for all: 3 shares from jun.
    assert hk["hands"][0]["net"] == {"mei": 0, "jun": -96, "wai": 96, "kit": 0}
    # 3 fan = 8 units x 2 = 16 from each of three.
    assert hk["hands"][1]["net"] == {"mei": -16, "jun": -16, "wai": -16, "kit": 48}
    assert hk["hands"][2]["outcome"] == "void"
    assert hk["hands"][2]["next_dealer"] == "wai"
    sc = replay((CONTRACT / "sichuan-wall-checks.jsonl").read_text()).to_json()
    # rain 2 x base 2 = 4 from three; 2 fan on discard 2 x 4 = 8; self-draw 2 + 1 fan capped
    # at 3: 2 x 8 = 16 from two; not ready to li (4 fan capped at 3) 16; refund 4 to each.
    assert sc["hands"][0]["net"] == {"li": 0, "wang": -32, "zhang": 24, "zhao": 8}
    split = replay((CONTRACT / "sichuan-kong-money-split.jsonl").read_text()).to_json()
    passed = [t for t in split["hands"][0]["transfers"] if t["reason"] == "kong_money_passed"]
    # the 6 the concealed kong collected, split equally between the two winners
    assert sorted((t["to"], t["amount"]) for t in passed) == [("wang", 3), ("zhang", 3)]


def test_the_repository_stands_alone() -> None:
    """No test, document or module reads the folder beside the repository (a clone has none)."""
    root = Path(__file__).resolve().parents[2]
    beside = "../" + "shared"
    files = [*root.glob("src/**/*.py"), *root.glob("tests/**/*.py"), *root.glob("docs/*.md")]
    files += [root / "README.md", root / "examples" / "README.md", root / "pyproject.toml"]
    readers = [str(f.relative_to(root)) for f in files if beside in f.read_text(encoding="utf-8")]
    assert readers == []
