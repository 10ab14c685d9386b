"""``explain LOG --hand N`` keeps only hand N, and says exactly what explaining every hand and
picking N said: the same explanation, or the same error (the whole log is still checked).

Random legal, variant, simulated (tiles) and mutated logs, every hand number they hold and
one past the last.
"""

from __future__ import annotations

from pathlib import Path

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from mjledger.cli.disputes import explain_file
from mjledger.errors import MjledgerError
from mjledger.explain.steps import explain_events, select_hand
from mjledger.log.codec import read_log_bytes
from mjledger.sim.run import simulate

from ..helpers import jsonl
from ..strategies import corrupted_log_texts, legal_log_text
from ..variant_strategies import variant_logs

pytestmark = pytest.mark.cli


def every_hand_then_pick(data: bytes, number: int) -> object:
    """What ``explain --hand N`` did before: explain every hand, then select hand N."""
    try:
        return select_hand(explain_events(read_log_bytes(data)), number)
    except MjledgerError as error:
        return (type(error), str(error), error.code, error.line)


def one_hand(path: Path, number: int) -> object:
    try:
        (hand,), single = explain_file(str(path), number)
    except MjledgerError as error:
        return (type(error), str(error), error.code, error.line)
    assert single
    return hand


def same_for_every_hand(tmp_path: Path, text: str) -> None:
    path = tmp_path / "log.jsonl"
    data = text.encode("utf-8")
    path.write_bytes(data)
    for number in range(1, text.count('"hand_started"') + 2):
        assert one_hand(path, number) == every_hand_then_pick(data, number)


SETTINGS = settings(
    max_examples=60,
    deadline=None,
    suppress_health_check=[HealthCheck.too_slow, HealthCheck.function_scoped_fixture],
)


@SETTINGS
@given(st.one_of(legal_log_text(), corrupted_log_texts()))
def test_legal_and_mutated_logs(tmp_path: Path, text: str) -> None:
    same_for_every_hand(tmp_path, text)


@SETTINGS
@given(variant_logs())
def test_variant_logs(tmp_path: Path, lines: list[dict[str, object]]) -> None:
    same_for_every_hand(tmp_path, jsonl(*lines))


@pytest.mark.parametrize("ruleset", ["sichuan", "hongkong"])
def test_simulated_tile_logs(tmp_path: Path, ruleset: str) -> None:
    (match,) = simulate(ruleset, hands=6, seed=7)
    same_for_every_hand(tmp_path, match.text())
