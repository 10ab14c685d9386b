"""A third rule set installed as a plugin is, through every command, what the built-in ones
are: found by its ``mjledger.rulesets`` entry point (a distribution's metadata on the path of
a separate process, never registered in this one), replayed, recorded, shown, exported,
audited, explained in six languages, reported, evaluated — and refused by ``simulate`` in one
line, since it offers no simulated play. Its minimum fan holds for a win that asserts its fan.
"""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

import pytest

from mjledger.explain.i18n import LANGUAGES

pytestmark = pytest.mark.slow

# Written only against docs/library.md's "Rule sets": the base rule set, a few dozen lines.
PLUGIN = '''"""A third rule set, "points": each fan is worth per_fan points; a table minimum."""

from attrs import field, frozen

from mjledger._checks import int_between
from mjledger.rules import BaseRuleset


@frozen
class PointsRules:
    per_fan: int = field(default=2, validator=int_between(1, 100, what="house rule "))
    min_fan: int = field(default=1, validator=int_between(0, 13, what="house rule "))


class Points(BaseRuleset):
    name = "points"
    rules_class = PointsRules

    def minimum_fan(self):
        return self.rules.min_fan

    def win_payments(self, hand, context, fan, limit):
        amount = self.rules.per_fan * (fan or 0)
        if context.discarder is not None:
            return ((context.discarder, amount),)
        return tuple((p, amount) for p in hand.still_in if p != context.winner)


POINTS = Points()
'''
PLAYERS = ["ana", "bo", "cy", "di"]
START = {"type": "match_started", "ruleset": "points", "players": PLAYERS, "match": "pts-1"}


def jsonl(*lines: dict[str, object]) -> str:
    return "".join(json.dumps(line) + "\n" for line in lines)


LOG = jsonl(
    {**START, "rules": {"per_fan": 3}},
    {"type": "hand_started"},
    {"type": "discarded", "player": "ana"},
    {"type": "won_on_discard", "player": "cy", "from": "ana", "fan": 2},
    {"type": "hand_started"},
    {"type": "kong_declared", "player": "di", "kind": "concealed"},
    {"type": "self_drawn", "player": "di", "fan": 1},
    {"type": "hand_started"},
    {"type": "wall_exhausted"},
)
# Hand 1: ana pays cy 2 fan × 3; hand 2: di's self-draw, 1 fan × 3 from each of the others.
TOTALS = {"ana": -9, "bo": -3, "cy": 3, "di": 9}


@pytest.fixture(scope="module")
def site(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """A directory holding the plugin package and its distribution's metadata, as pip would
    install them: put on a process's path, its entry point is found there."""
    where = tmp_path_factory.mktemp("site")
    (where / "mjledger_points").mkdir()
    (where / "mjledger_points" / "__init__.py").write_text(PLUGIN, encoding="utf-8")
    info = where / "mjledger_points-0.1.dist-info"
    info.mkdir()
    (info / "METADATA").write_text(
        "Metadata-Version: 2.1\nName: mjledger-points\nVersion: 0.1\n", encoding="utf-8"
    )
    (info / "entry_points.txt").write_text(
        "[mjledger.rulesets]\npoints = mjledger_points:POINTS\n", encoding="utf-8"
    )
    return where


def run(
    site: Path, cwd: Path, *args: str, stdin: str | None = None
) -> subprocess.CompletedProcess[str]:
    """``mjledger *args`` in a process of its own, the plugin on its path."""
    path = os.pathsep.join(p for p in (str(site), os.environ.get("PYTHONPATH")) if p)
    env = {**os.environ, "PYTHONPATH": path, "COLUMNS": "120"}
    env.pop("MJLEDGER_STORE", None)
    return subprocess.run(
        [sys.executable, "-m", "mjledger", *args],
        cwd=cwd,
        env=env,
        input=stdin,
        capture_output=True,
        text=True,
        timeout=300,
        check=False,
    )


def ok(done: subprocess.CompletedProcess[str]) -> str:
    assert done.returncode == 0, done.stderr
    assert "Traceback" not in done.stderr
    return done.stdout


@pytest.fixture(scope="module")
def table(site: Path, tmp_path_factory: pytest.TempPathFactory) -> Path:
    """A directory with the plugin's log and a store holding it, recorded by the CLI."""
    where = tmp_path_factory.mktemp("points")
    (where / "points.jsonl").write_text(LOG, encoding="utf-8")
    ok(run(site, where, "record", "points.jsonl", "--store", "s.sqlite"))
    return where


def test_the_entry_point_is_found_by_the_codec_and_the_schema(site: Path, table: Path) -> None:
    assert '"points"' in ok(run(site, table, "schema"))
    done = run(site, table, "replay", "points.jsonl", "--json")
    assert json.loads(ok(done))["totals"] == TOTALS


def test_the_store_shows_exports_and_audits_it(site: Path, table: Path) -> None:
    store = ("--store", "s.sqlite")
    scores = json.loads(ok(run(site, table, "scores", *store, "--json")))
    assert scores["matches"]["pts-1"] == TOTALS
    history = ok(run(site, table, "history", "pts-1", *store))
    assert "won (cy)" in history
    assert "no winner" in history  # a hand nobody won (not "void": a suit, an annulment)
    hand = ok(run(site, table, "hand", "pts-1", "2", *store, "--json"))
    assert json.loads(hand)["net"] == {"ana": -3, "bo": -3, "cy": -3, "di": 9}
    exported = ok(run(site, table, "export", "pts-1", *store))
    assert (
        json.loads(ok(run(site, table, "replay", "-", "--json", stdin=exported)))["totals"]
        == TOTALS
    )
    assert "no findings" in ok(run(site, table, "audit", *store))


@pytest.mark.parametrize("lang", LANGUAGES)
def test_it_is_explained_in_every_language(site: Path, table: Path, lang: str) -> None:
    from_log = ok(run(site, table, "explain", "points.jsonl", "--hand", "2", "--lang", lang))
    stored = ok(run(site, table, "explain", "pts-1", "2", "--store", "s.sqlite", "--lang", lang))
    assert from_log == stored
    assert "9" in from_log  # di's net for the hand, in the language's digits


def test_its_report_is_written(site: Path, table: Path) -> None:
    for lang in ("en", "zh"):
        page = table / f"report-{lang}.html"
        ok(run(site, table, "report", "points.jsonl", "--html", str(page), "--lang", lang))
        text = page.read_text(encoding="utf-8")
        assert "Points" in text
        assert "pts-1" in text


def test_evaluate_scores_its_hands(site: Path, table: Path) -> None:
    done = run(site, table, "evaluate", "--ruleset", "points", "123m456m789m123p5p", "--json")
    assert [w["tile"] for w in json.loads(ok(done))["waits"]] == ["5p"]


def test_simulate_refuses_it_in_one_line(site: Path, table: Path) -> None:
    done = run(site, table, "simulate", "--ruleset", "points", "-o", "sim.jsonl")
    assert done.returncode == 2
    assert done.stderr.count("\n") == 1, done.stderr
    assert "'points'" in done.stderr
    assert not (table / "sim.jsonl").exists()


@pytest.mark.parametrize(
    "win",
    [
        {"type": "won_on_discard", "player": "cy", "from": "ana", "fan": 0},
        {"type": "self_drawn", "player": "cy", "tiles": "123m456m789m123p5p", "winning_tile": "5p"},
    ],
    ids=["asserted", "tiles"],
)
def test_its_minimum_fan_holds_for_every_win(
    site: Path, tmp_path: Path, win: dict[str, object]
) -> None:
    """per_fan 3, min_fan 1 (the plugin's default): a 0-fan win, asserted or from tiles that
    its evaluator scores 0, is refused, by replay and by record alike, and nothing is stored."""
    (tmp_path / "low.jsonl").write_text(jsonl(START, {"type": "hand_started"}, win))
    for args in (("replay", "low.jsonl"), ("record", "low.jsonl", "--store", "low.sqlite")):
        done = run(site, tmp_path, *args)
        assert done.returncode == 2, done.stdout
        assert "line 3" in done.stderr
        assert "below the table minimum of 1" in done.stderr
    assert not (tmp_path / "low.sqlite").exists()
