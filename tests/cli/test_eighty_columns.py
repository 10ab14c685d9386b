"""At 80 columns (every pipe) an id is never broken unless it is wider than the line, and the
one-line texts (titles, the house rules, the demo's hints) are never wrapped."""

from __future__ import annotations

import contextlib
import re
from pathlib import Path

import pytest
from click.testing import CliRunner

from mjledger.cli import main
from tests.cli.test_cli_store import HK, HK_ID, SC, SC_ID, ok

LONG = "a-very-long-match-id-that-is-still-narrower-than-the-line-0042"


def at_80(*args: str, cwd: Path) -> str:
    with contextlib.chdir(cwd):
        result = CliRunner(env={"MJLEDGER_STORE": None, "COLUMNS": "80"}).invoke(main, list(args))
    assert result.exit_code == 0, result.stderr
    return result.stdout


@pytest.fixture
def store(tmp_path: Path) -> Path:
    ok("record", HK, "--store", "s.sqlite", cwd=tmp_path)
    ok("record", SC, "--store", "s.sqlite", cwd=tmp_path)
    text = HK.read_text(encoding="utf-8").replace(HK_ID, LONG)
    (tmp_path / "long.jsonl").write_text(text, encoding="utf-8")
    ok("record", "long.jsonl", "--store", "s.sqlite", cwd=tmp_path)
    return tmp_path


@pytest.mark.parametrize("command", ["matches", "streaks", "scores"])
def test_ids_stand_whole_at_80_columns(store: Path, command: str) -> None:
    out = at_80(command, "--store", "s.sqlite", cwd=store)
    for match in (HK_ID, SC_ID, LONG):
        assert re.search(rf"(^|[\s│┃]){re.escape(match)}([\s│┃]|$)", out, re.M), (match, out)
    assert all(len(line) <= 80 for line in out.splitlines()), out


def test_replay_keeps_its_one_line_texts_whole(store: Path) -> None:
    out = at_80("replay", str(HK), cwd=store)
    lines = out.splitlines()
    assert lines[0].startswith("hongkong match ")
    assert lines[0].endswith("siuling")
    (rules,) = (line for line in lines if line.startswith("house rules: "))
    assert rules.endswith("discard_pays=double")


def test_the_demo_hints_are_whole_lines(tmp_path: Path) -> None:
    out = at_80("demo", "--store", "demo.sqlite", cwd=tmp_path)
    assert "\\n" not in out
    hints = [line.strip() for line in out.splitlines() if line.strip().startswith("mjledger ")]
    assert hints[-1].endswith("| mjledger replay -")
    assert hints[-2].startswith("mjledger history ")
    assert hints[-2].endswith("--store demo.sqlite")
