"""Issue 23, part B, through the shell: the second set's examples (flat false win, winners
exempt at the wall, stakes leftover to the first seat, Hong Kong limit 6) record into a
store, audit clean with their digest chains, show in every view, export and re-replay
identically, explain in six languages and report; the simulator plays the new options."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import jsonschema
import pytest
from click.testing import CliRunner

from mjledger import replay
from mjledger.cli import main
from mjledger.explain.i18n import LANGUAGES

from ..backends import check_chain
from ..conftest import DATA

SECOND_SET = DATA / "variants-2"
MATCHES = {  # the example, its match id
    "sichuan-false-win": "sc-false-win-1",
    "sichuan-stakes-lowest-seat": "sc-stakes-2",
    "hongkong-limit-6": "hk-limit-6",
}


def invoke(*args: str) -> Any:
    return CliRunner().invoke(main, list(args), env={"COLUMNS": "120", "NO_COLOR": "1"})


def shows(text: str, needle: str) -> bool:
    return " ".join(needle.split()) in " ".join(text.split())


@pytest.fixture
def store(tmp_path: Path) -> Path:
    path = tmp_path / "store.sqlite"
    for name in MATCHES:
        done = invoke("record", str(SECOND_SET / f"{name}.jsonl"), "--store", str(path))
        assert done.exit_code == 0, done.output
    return path


@pytest.mark.parametrize("name", sorted(MATCHES))
def test_recorded_exported_re_replayed_and_audited(store: Path, tmp_path: Path, name: str) -> None:
    log = SECOND_SET / f"{name}.jsonl"
    expected = replay(log.read_text(encoding="utf-8")).to_json()
    exported = invoke("export", MATCHES[name], "--store", str(store))
    assert exported.exit_code == 0, exported.output
    assert replay(exported.stdout).to_json() == expected
    first = json.loads(exported.stdout.splitlines()[0])
    assert first["rules"] == expected["rules"]  # the new keys travel through the store
    again = tmp_path / "again.jsonl"
    again.write_text(exported.stdout, encoding="utf-8")
    assert invoke("record", str(again), "--store", str(store)).exit_code == 0  # unchanged
    audit = invoke("audit", "--store", str(store))
    assert audit.exit_code == 0, audit.output
    assert shows(audit.stdout, "no findings")
    assert check_chain(store, MATCHES[name]) == len(expected["hands"])


def test_every_view_shows_the_new_figures(store: Path) -> None:
    history = json.loads(
        invoke("history", "sc-false-win-1", "--json", "--store", str(store)).stdout
    )
    assert [h["net"] for h in history] == [{"ana": 3, "bo": 10, "cy": -14, "di": 1}]
    hand = invoke("hand", "sc-false-win-1", "1", "--store", str(store)).stdout
    assert shows(hand, "false win (詐糊)")
    assert shows(hand, "kong refund")
    staked = invoke("hand", "sc-stakes-2", "1", "--store", str(store)).stdout
    assert shows(staked, "balances: ana 101  bo 109  cy 0 (bust)  di 97")
    scores = json.loads(invoke("scores", "--json", "--store", str(store)).stdout)
    assert scores["stakes"]["sc-stakes-2"]["bust"] == ["cy"]
    text = invoke("replay", str(SECOND_SET / "sichuan-blood-flow-exempt.jsonl")).stdout
    assert shows(text, "blood_flow_wall")


@pytest.mark.parametrize("lang", LANGUAGES)
def test_explained_and_reported_in_each_language(store: Path, tmp_path: Path, lang: str) -> None:
    out = invoke("explain", "sc-false-win-1", "1", "--store", str(store), "--lang", lang)
    assert out.exit_code == 0, out.output
    assert "8 × 1 = 8" in out.stdout  # the flat false win's arithmetic
    capped = invoke("explain", "sc-stakes-2", "1", "--store", str(store), "--lang", lang)
    assert capped.exit_code == 0
    assert "ana 4" in capped.stdout
    exempt = invoke("explain", str(SECOND_SET / "sichuan-blood-flow-exempt.jsonl"), "--lang", lang)
    assert exempt.exit_code == 0
    assert "exempt_winners" in exempt.stdout
    page = tmp_path / f"report-{lang}.html"
    done = invoke(
        "report", "sc-false-win-1", "--store", str(store), "--html", str(page), "--lang", lang
    )
    assert done.exit_code == 0, done.output
    assert "sc-false-win-1" in page.read_text(encoding="utf-8")


@pytest.mark.parametrize(
    ("ruleset", "rules"),
    [
        ("sichuan", {"blood_flow": True, "blood_flow_wall": "exempt_winners"}),
        ("sichuan", {"sichuan_false_win": "flat"}),
        ("hongkong", {"fan_limit": 6, "min_fan": 1}),
    ],
)
def test_the_simulator_plays_the_new_options(
    tmp_path: Path, ruleset: str, rules: dict[str, Any]
) -> None:
    log = tmp_path / "sim.jsonl"
    done = invoke(
        "simulate",
        "--ruleset",
        ruleset,
        "--hands",
        "12",
        "--seed",
        "5",
        "--rules",
        json.dumps(rules),
        "-o",
        str(log),
    )
    assert done.exit_code == 0, done.output
    out = replay(log.read_text(encoding="utf-8")).to_json()
    assert {k: out["rules"][k] for k in rules} == rules
    if rules.get("blood_flow_wall") == "exempt_winners":
        # under blood flow every hand ends at the wall, so the k-th wall is the k-th hand's
        lines = [json.loads(x) for x in log.read_text(encoding="utf-8").splitlines()]
        walls = [e["remaining"] for e in lines if e["type"] == "wall_exhausted"]
        assert walls
        for remaining, hand in zip(walls, out["hands"], strict=False):
            assert set(remaining) == set(out["players"]) - set(hand["winners"])


def test_the_simulator_refuses_a_leftover_rule_without_stakes() -> None:
    """It plays no table stakes: ``stakes_leftover`` "must be "after_payer" in a log without
    stakes" — refused as the log would be, status 2, nothing written."""
    done = invoke("simulate", "--rules", '{"stakes_leftover": "lowest_seat"}')
    assert done.exit_code == 2
    assert "stakes_leftover" in done.output


def test_the_schema_knows_the_new_keys() -> None:
    """``mjledger schema``: every line of the examples is valid, and a value out of a new
    key's range is not."""
    validator = jsonschema.Draft202012Validator(json.loads(invoke("schema").stdout))
    for log in sorted(SECOND_SET.glob("*.jsonl")):
        for line in log.read_text(encoding="utf-8").splitlines():
            validator.validate(json.loads(line))
    head: dict[str, Any] = {"type": "match_started", "players": ["a", "b", "c", "d"]}
    for ruleset, rules in [
        ("hongkong", {"fan_limit": 4}),
        ("hongkong", {"fan_limit": 14}),
        ("sichuan", {"sichuan_false_win": "yes"}),
        ("sichuan", {"blood_flow_wall": "winners"}),
        ("sichuan", {"stakes_leftover": "first"}),
        ("hongkong", {"sichuan_false_win": "flat"}),
    ]:
        assert not validator.is_valid({**head, "ruleset": ruleset, "rules": rules}), rules
    for limit in range(5, 14):
        line = {**head, "ruleset": "hongkong", "rules": {"fan_limit": limit, "min_fan": 0}}
        validator.validate(line)
