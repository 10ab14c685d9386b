"""The small things a new user meets in the first hour: choice lists in order, a hint for a
stored hand named without its number, and ``export … | head`` ending as a pipe should."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

from click.testing import CliRunner

from mjledger.cli import main
from tests.cli.test_cli_store import mj_process, ok, refused
from tests.store_logs import sichuan_match


def test_choice_lists_are_sorted(tmp_path: Path) -> None:
    err = refused("simulate", "--rules", '{"fan_cap": 7}', cwd=tmp_path)
    assert "must be one of 3, 4, 5, 6, not 7" in err
    result = CliRunner().invoke(main, ["simulate", "--ruleset", "mahjong"])
    assert result.exit_code == 2
    assert '"hongkong", "sichuan"' in result.stderr
    result = CliRunner().invoke(main, ["explain", "x.jsonl", "--lang", "de"])
    assert result.exit_code == 2
    assert "'en', 'es', 'fr', 'it', 'pt', 'zh'" in result.stderr
    err = refused("record", "-", "--store", "s.sqlite", cwd=tmp_path, stdin=(
        '{"type": "match_started", "ruleset": "mahjong", "players": ["a", "b", "c", "d"]}\n'
    ))  # fmt: skip
    assert '"hongkong", "sichuan"' in err


def test_a_stored_hand_without_its_number_is_hinted(tmp_path: Path) -> None:
    ok(
        "record",
        "-",
        "--store",
        "s.sqlite",
        cwd=tmp_path,
        stdin=sichuan_match(2, match_id="chengdu"),
    )
    err = refused("explain", "chengdu", "--store", "s.sqlite", cwd=tmp_path)
    assert "MATCH N" in err
    err = refused("explain", "chengdu", cwd=tmp_path)
    assert "cannot read chengdu" in err
    assert "explain chengdu N" in err


def test_export_into_head_ends_as_a_pipe_does(tmp_path: Path) -> None:
    ok("record", "-", "--store", "s.sqlite", cwd=tmp_path, stdin=sichuan_match(400, match_id="big"))
    done = mj_process("export", "big", "--store", "s.sqlite", cwd=tmp_path)
    assert done.returncode == 0
    assert len(done.stdout) > 1 << 17  # more than a pipe holds: head leaves before the end
    export = subprocess.Popen(
        [sys.executable, "-m", "mjledger", "export", "big", "--store", "s.sqlite"],
        cwd=tmp_path,
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
    )
    assert export.stdout is not None
    for _ in range(3):
        assert export.stdout.readline()
    export.stdout.close()  # `| head -n 3`
    assert export.wait(timeout=120) == 141
    assert export.stderr is not None
    assert export.stderr.read() == b""
