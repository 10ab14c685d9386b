"""The variants in the CLI (issue 9): the read models and every view show balances and bust
players where stakes are set, and the new reasons; ``mjledger schema`` knows every new key,
field and event; ``mjledger evaluate`` honours ``--first-turn``."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import jsonschema
import pytest
from click.testing import CliRunner

from mjledger.cli import main

from ..conftest import DATA

VARIANTS = DATA / "variants"
P = ["ana", "bo", "cy", "di"]


def invoke(*args: str) -> Any:
    return CliRunner().invoke(main, list(args), env={"COLUMNS": "120", "NO_COLOR": "1"})


def shows(text: str, needle: str) -> bool:
    """``needle`` in ``text``, whatever the terminal's wrapping and column padding."""
    return " ".join(needle.split()) in " ".join(text.split())


# --- read models and CLI views --------------------------------------------------------------


def test_views_show_balances_and_bust_players(tmp_path: Path) -> None:
    store = tmp_path / "store.sqlite"
    for name in ("sichuan-stakes", "hongkong-stakes", "hongkong-half-gun"):
        done = invoke("record", str(VARIANTS / f"{name}.jsonl"), "--store", str(store))
        assert done.exit_code == 0, done.output
    history = json.loads(invoke("history", "hk-stakes", "--json", "--store", str(store)).stdout)
    assert [h["balances"] for h in history] == [
        {"ana": 92, "bo": 1024, "cy": 992, "di": 992},
        {"ana": 0, "bo": 1055, "cy": 1023, "di": 1022},
    ]
    assert [h["bust"] for h in history] == [[], ["ana"]]
    plain = json.loads(invoke("history", "hk-half-gun", "--json", "--store", str(store)).stdout)
    assert all("balances" not in h and "bust" not in h for h in plain)
    scores = json.loads(invoke("scores", "--json", "--store", str(store)).stdout)
    assert scores["stakes"] == {
        "sc-stakes": {"balances": {"ana": 4, "bo": 87, "cy": 123, "di": 91}, "bust": ["ana"]},
        "hk-stakes": {"balances": {"ana": 0, "bo": 1055, "cy": 1023, "di": 1022}, "bust": ["ana"]},
    }
    text = invoke("history", "sc-stakes", "--store", str(store)).stdout
    assert shows(text, "balances")
    assert shows(text, "bust: ana")
    hand = invoke("hand", "sc-stakes", "1", "--store", str(store)).stdout
    assert shows(hand, "balances: ana 4 (bust)")


def test_replay_text_view_shows_stakes_balances_and_bust() -> None:
    out = invoke("replay", str(VARIANTS / "sichuan-stakes-wall.jsonl")).stdout
    assert shows(out, "stakes: ana 20  bo 100  cy 100  di 100")
    assert shows(out, "balances: ana 0 (bust)  bo 104  cy 118  di 98")
    assert shows(out, "the match ends: ana went bust")


def test_replay_text_view_names_the_new_reasons() -> None:
    liability = invoke("replay", str(VARIANTS / "hongkong-liability.jsonl")).stdout
    assert shows(liability, "liability (包)")
    false_win = invoke("replay", str(VARIANTS / "hongkong-false-win.jsonl")).stdout
    assert shows(false_win, "false win (詐糊)")
    assert shows(false_win, "no winner (false win by cy)")


# --- the schema -----------------------------------------------------------------------------


def test_the_schema_takes_every_variant_line_and_refuses_bad_ones() -> None:
    schema = json.loads(invoke("schema").stdout)
    validator = jsonschema.Draft202012Validator(schema)
    for log in sorted(VARIANTS.glob("*.jsonl")):
        for line in log.read_text(encoding="utf-8").splitlines():
            assert not list(validator.iter_errors(json.loads(line))), (log.name, line)
    bad = [
        {"type": "self_drawn", "player": "bo", "fan": 3, "liable": 3},
        {"type": "self_drawn", "player": "bo", "fan": 3, "first_turn": "yes"},
        {"type": "false_win", "player": "bo", "fan": 3},
        {"type": "false_win"},
        {"type": "match_started", "ruleset": "sichuan", "players": P, "stakes": {"ana": 0}},
        {"type": "match_started", "ruleset": "sichuan", "players": P, "stakes": {"ana": 1.5}},
        {
            "type": "match_started",
            "ruleset": "sichuan",
            "players": P,
            "rules": {"kong_passing_split": "each"},
        },
        {"type": "hand_started", "ruleset": "sichuan", "players": P, "dealer": "ana", "stakes": {}},
    ]
    for line in bad:
        assert list(validator.iter_errors(line)), line


# --- evaluate -------------------------------------------------------------------------------

COMMON = "123m456m789m123p5p"


def evaluate(*args: str) -> Any:
    return invoke("evaluate", *args)


def test_evaluate_first_turn_in_hong_kong() -> None:
    """variants.md: "Hong Kong scores both as limit hands"; without the flag the tiles are
    scored as they are (common hand, concealed, self-drawn: 3 faan)."""
    args = [COMMON, "--winning-tile", "5p", "--ruleset", "hongkong", "--self-drawn"]
    plain = json.loads(evaluate(*args, "--json").stdout)
    assert (plain["fan"], plain["limit"]) == (3, False)
    heavenly = json.loads(evaluate(*args, "--first-turn", "--json").stdout)
    assert heavenly["limit"] is True
    assert [p["code"] for p in heavenly["patterns"] if p["limit"]] == ["heavenly"]
    earthly = json.loads(evaluate(*args, "--first-turn", "--seat-wind", "south", "--json").stdout)
    assert [p["code"] for p in earthly["patterns"] if p["limit"]] == ["earthly"]


def test_evaluate_first_turn_in_sichuan_needs_the_house_rule() -> None:
    args = [COMMON, "--winning-tile", "5p", "--self-drawn", "--dealer", "--first-turn"]
    without = json.loads(evaluate(*args, "--json").stdout)
    assert without["fan"] == 0
    heavenly = json.loads(evaluate(*args, "--rule", "heavenly", "--json").stdout)
    assert heavenly["fan"] == 5
    assert "heavenly" in [p["code"] for p in heavenly["patterns"]]
    earthly = json.loads(
        evaluate(
            COMMON, "--winning-tile", "5p", "--first-turn", "--rule", "earthly", "--json"
        ).stdout
    )
    assert earthly["fan"] == 5


@pytest.mark.parametrize(
    ("args", "message"),
    [
        (
            ["456m789m123p5p", "--winning-tile", "5p", "--melds", "pung:111m", "--first-turn"],
            "mjledger: --first-turn: a first-turn win has no melds",
        ),
        (
            [COMMON, "--winning-tile", "5p", "--dealer", "--first-turn"],
            "mjledger: --first-turn: the dealer cannot win on a discard on the first turn",
        ),
    ],
)
def test_evaluate_refuses_a_first_turn_the_hand_contradicts(args: list[str], message: str) -> None:
    done = evaluate(*args)
    assert done.exit_code == 2
    assert done.stderr.strip() == message
