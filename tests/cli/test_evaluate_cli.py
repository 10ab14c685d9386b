"""``mjledger evaluate``: arrangements, fan breakdown, waits; errors exit 2 with one line."""

from __future__ import annotations

import json
from typing import Any

import pytest
from click.testing import CliRunner

from mjledger.cli.evaluate import evaluate, parse_melds
from mjledger.errors import TileError
from mjledger.tiles import Meld


def run(*args: str) -> tuple[int, str, str]:
    result = CliRunner().invoke(evaluate, list(args))
    return result.exit_code, result.stdout, result.stderr


def run_json(*args: str) -> dict[str, Any]:
    code, out, err = run(*args, "--json")
    assert code == 0, err
    report: dict[str, Any] = json.loads(out)
    return report


def test_a_win_prints_its_arrangements_and_fan_breakdown() -> None:
    code, out, _ = run("1112223334445m5m", "--void", "s")
    assert code == 0
    assert "111m 222m 333m 444m 55m" in out
    assert "123m 123m 123m 444m 55m" in out
    assert "all_pungs" in out
    assert "对对胡" in out
    assert "full_flush" in out


def test_a_win_as_json_names_codes_and_total() -> None:
    report = run_json("1112223334445m", "--winning-tile", "5m", "--void", "s")
    assert report["mode"] == "win"
    assert report["fan"] == 3
    assert [(p["code"], p["fan"]) for p in report["patterns"]] == [
        ("all_pungs", 1),
        ("full_flush", 2),
    ]
    assert len(report["arrangements"]) == 4
    assert report["arrangement"] == "111m 222m 333m 444m 55m"


def test_the_last_tile_written_is_the_winning_tile() -> None:
    report = run_json("5m1112223334445m")
    assert report["winning_tile"] == "5m"
    assert report["tiles"] == "1112223334445m"


def test_a_hand_one_short_prints_its_waits_and_each_waits_fan() -> None:
    report = run_json("1112223334445m", "--void", "p")
    assert report["mode"] == "waits"
    assert report["ready"] is True
    assert {w["tile"]: w["fan"] for w in report["waits"]} == {
        "2m": 3,
        "3m": 3,
        "4m": 3,
        "5m": 3,
        "6m": 2,
    }
    assert report["best_fan"] == 3
    code, out, _ = run("1112223334445m", "--void", "p")
    assert code == 0
    assert "Waits" in out
    assert "best hand" in out


def test_melds_and_situational_flags() -> None:
    report = run_json(
        "5p",
        "--winning-tile",
        "5p",
        "--melds",
        "kong:1111m,pung:222m,concealed-kong:3333p,pung:444p",
        "--kong-bloom",
    )
    assert {p["code"]: p["fan"] for p in report["patterns"]} == {
        "golden_hook": 2,
        "root": 2,
        "kong_bloom": 1,
    }
    assert report["melds"][2] == {"kind": "kong", "tiles": "3333p", "concealed": True}


def test_a_flower_pig_is_not_ready() -> None:
    report = run_json("123m456m789m234s5s", "--void", "s")
    assert report["flower_pig"] is True
    assert report["ready"] is False
    _, out, _ = run("123m456m789m234s5s", "--void", "s")
    assert "flower pig" in out


def test_hong_kong_with_winds_and_self_draw() -> None:
    report = run_json(
        "222z234m456m5s",
        "--winning-tile",
        "5s",
        "--melds",
        "chow:123p",
        "--ruleset",
        "hongkong",
        "--seat-wind",
        "south",
        "--round-wind",
        "south",
        "--self-drawn",
    )
    assert {p["code"] for p in report["patterns"]} == {"seat_wind", "round_wind", "self_drawn"}
    assert report["fan"] == 3


def test_hong_kong_limit_hand_and_thirteen_waits() -> None:
    report = run_json("19m19p19s1234567z", "--ruleset", "hongkong")
    assert len(report["waits"]) == 13
    assert all(w["limit"] for w in report["waits"])
    code, out, _ = run("19m19p19s12345677z", "--ruleset", "hongkong")
    assert code == 0
    assert "limit" in out


def test_house_rules_switch_on_optional_patterns() -> None:
    args = ("123m789m111p789p99p", "--void", "s")
    assert "terminals_in_all" not in {p["code"] for p in run_json(*args)["patterns"]}
    on = run_json(*args, "--rule", "terminals_in_all")
    assert "terminals_in_all" in {p["code"] for p in on["patterns"]}


@pytest.mark.parametrize(
    ("args", "message"),
    [
        (("12x",), "bad tile notation"),
        (("123m",), "expected 14"),
        (("123m456m789m234s55s", "--void", "s"), "void suit"),
        (("123m456m789m5p", "--melds", "chow:234p"), "no chows"),
        (("123m456m789m5p", "--melds", "pung555p"), "bad meld"),
        (("1112223334445m5m", "--rule", "flowers"), "unknown sichuan rule"),
        (("1112223334445m5m", "--ruleset", "hongkong", "--seat-wind", "red"), "unknown wind"),
    ],
)
def test_errors_print_one_line_on_stderr_and_exit_2(args: tuple[str, ...], message: str) -> None:
    code, out, err = run(*args)
    assert code == 2
    assert out == ""
    assert message in err
    assert err.count("\n") == 1


def test_parse_melds() -> None:
    assert parse_melds("pung:555p, concealed-kong:2222m") == (
        Meld.parse("pung", "555p"),
        Meld.parse("kong", "2222m", concealed=True),
    )
    assert parse_melds("") == ()
    with pytest.raises(TileError, match="unknown meld kind"):
        parse_melds("quad:5555p")
