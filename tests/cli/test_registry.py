"""Rule sets come from a registry: a toy rule set registered in process (or found through the
``mjledger.rulesets`` entry points) replays through the unchanged folds, CLI and store, and an
unknown name is a typed error from every entry point. The toy is written twice: on the base
rule set, and against the 0.1 protocol (still accepted, with a DeprecationWarning)."""

from __future__ import annotations

import importlib
import json
import warnings
from collections.abc import Iterator
from contextlib import AbstractContextManager, nullcontext
from importlib.metadata import EntryPoint
from pathlib import Path
from typing import Any

import pytest
from click.testing import CliRunner

from mjledger import FormatError, Ledger, MjledgerError, UnknownRulesetError, replay
from mjledger.cli import main
from mjledger.rules import find_ruleset, registered, ruleset_names
from mjledger.rules import registry as registry_module
from tests import toy_ruleset_legacy
from tests.toy_ruleset import FLAT

TOYS = ("tests.toy_ruleset", "tests.toy_ruleset_legacy")

TOY_LOG = "\n".join(
    [
        '{"type": "match_started", "ruleset": "flat", "players": ["ana", "bo", "cy", "di"],'
        ' "match": "toy-1", "rules": {"stake": 3}}',
        '{"type": "hand_started"}',
        '{"type": "discarded", "player": "ana"}',
        '{"type": "won_on_discard", "player": "cy", "from": "ana"}',
        '{"type": "hand_started"}',
        '{"type": "self_drawn", "player": "bo",'
        ' "tiles": "123m456m789m123p5p", "winning_tile": "5p"}',
        '{"type": "hand_started"}',
        '{"type": "wall_exhausted"}',
    ]
)
EXPECTED_TOTALS = {"ana": -6, "bo": 9, "cy": 0, "di": -3}


def _warned(module: str) -> AbstractContextManager[Any]:
    """What registering the toy of ``module`` warns: the 0.1 protocol's deprecation."""
    if module.endswith("_legacy"):
        return pytest.warns(DeprecationWarning, match=r"subclass mjledger\.rules\.BaseRuleset")
    return nullcontext()


@pytest.fixture(params=TOYS)
def flat(request: pytest.FixtureRequest) -> Iterator[None]:
    toy = importlib.import_module(request.param).FLAT
    with _warned(request.param):
        context = registered(toy)
        context.__enter__()
    try:
        yield
    finally:
        context.__exit__(None, None, None)


@pytest.mark.usefixtures("flat")
def test_a_toy_rule_set_replays_through_the_folds() -> None:
    result = replay(TOY_LOG)
    assert result.totals() == EXPECTED_TOTALS
    assert [h.dealer for h in result.hands] == ["ana", "bo", "cy"]
    assert result.to_json()["rules"] == {"stake": 3}


@pytest.mark.usefixtures("flat")
def test_a_toy_rule_set_replays_through_the_cli(tmp_path: Path) -> None:
    log = tmp_path / "toy.jsonl"
    log.write_text(TOY_LOG + "\n", encoding="utf-8")
    out = CliRunner().invoke(main, ["replay", str(log), "--json"])
    assert out.exit_code == 0, out.output
    assert json.loads(out.output)["totals"] == EXPECTED_TOTALS
    schema = CliRunner().invoke(main, ["schema"])
    assert '"flat"' in schema.output


@pytest.mark.usefixtures("flat")
def test_a_toy_rule_set_is_recorded_exported_and_projected_by_the_store(tmp_path: Path) -> None:
    ledger = Ledger(tmp_path / "store.sqlite")
    try:
        ledger.record_log(TOY_LOG)
        assert replay(ledger.export("toy-1")).totals() == EXPECTED_TOTALS
        assert ledger.replay_match("toy-1").totals() == EXPECTED_TOTALS
        ledger.views.catch_up()
        assert ledger.views.scores_by_match()["toy-1"] == EXPECTED_TOTALS
    finally:
        ledger.close()


@pytest.mark.parametrize("module", TOYS)
def test_a_plugin_rule_set_is_found_through_its_entry_point(
    monkeypatch: pytest.MonkeyPatch, module: str
) -> None:
    point = EntryPoint(name="flat", value=f"{module}:FLAT", group="mjledger.rulesets")
    monkeypatch.setattr(registry_module, "entry_points", lambda group: [point])
    monkeypatch.setattr(registry_module, "_registry", {})
    monkeypatch.setattr(registry_module, "_by_rules_class", {})
    monkeypatch.setattr(registry_module, "_loaded", False)
    with _warned(module):
        assert ruleset_names() == ("hongkong", "sichuan", "flat")
    toy = importlib.import_module(module).FLAT
    found = find_ruleset("flat")
    assert found is toy or getattr(found, "legacy", None) is toy
    assert replay(TOY_LOG).totals() == EXPECTED_TOTALS


def test_a_rule_set_of_the_old_protocol_is_bound_like_a_new_one() -> None:
    """The 0.1 toy, bound: each hook gets the house rules again, and a kong or an empty wall
    as the log event it was written for; its own attributes are still reached."""
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", DeprecationWarning)
        context = registered(toy_ruleset_legacy.FLAT)
        context.__enter__()
    try:
        table = find_ruleset("flat").bind(toy_ruleset_legacy.FlatRules(stake=3), ("a", "b"))
        assert table.minimum_fan() == 0
        assert table.claimed_fan(None, False, has_tiles=False) == (0, False)
        assert table.shapes() == toy_ruleset_legacy.FOUR_SETS_AND_A_PAIR
        assert table.quick_hands() is None
        assert table.simulated_play is None
        with pytest.raises(MjledgerError, match="carries no 'remaining'"):
            table.settle_wall(None, {}, 3)  # type: ignore[arg-type]
    finally:
        context.__exit__(None, None, None)


def test_unregistered_rule_sets_are_gone_after_the_block() -> None:
    with registered(FLAT):
        assert "flat" in ruleset_names()
    assert "flat" not in ruleset_names()
    with pytest.raises(FormatError, match="ruleset"):
        replay(TOY_LOG)


def test_an_unknown_rule_set_is_a_typed_error_everywhere(tmp_path: Path) -> None:
    with pytest.raises(UnknownRulesetError, match="riichi"):
        find_ruleset("riichi")
    ledger = Ledger(tmp_path / "store.sqlite")
    try:
        with pytest.raises(MjledgerError, match="riichi"):
            ledger.start_match("riichi", ["ana", "bo", "cy", "di"])
        with pytest.raises(MjledgerError, match="riichi"):
            ledger.open_table("t1", "riichi", ["ana", "bo", "cy", "di"])
    finally:
        ledger.close()
    with pytest.raises(FormatError) as caught:
        replay('{"type": "match_started", "ruleset": "riichi", "players": ["a", "b", "c", "d"]}')
    assert caught.value.line == 1
    out = CliRunner().invoke(main, ["evaluate", "123m", "--ruleset", "riichi"])
    assert out.exit_code == 2
    assert "riichi" in out.output
