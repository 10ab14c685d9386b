"""Exit statuses (docs/cli.md, "Exit status"): each means one thing.

0 done, 1 findings (never a crash), 2 refused, 70 an internal error (one line asking for a
report; the traceback with --debug), 130 interrupted, 141 the reader went away.
"""

from __future__ import annotations

import importlib
import json
import os
import signal
import subprocess
import sys
import tempfile
import time
from pathlib import Path

import pytest
from click.testing import CliRunner

from mjledger.cli import main
from tests.conftest import CONTRACT
from tests.store_logs import sichuan_match

SEED = CONTRACT / "hongkong-three-hands.jsonl"
CLI_MODULE = importlib.import_module("mjledger.cli.main")  # `mjledger.cli.main` is the command
SPOOL_MODULE = importlib.import_module("mjledger._replay_json")  # where the output is spooled


def python_m(*args: str) -> list[str]:
    return [sys.executable, "-m", "mjledger", *args]


def test_an_internal_error_is_status_70_with_one_line(monkeypatch: pytest.MonkeyPatch) -> None:
    def broken(*_args: object) -> None:
        raise ValueError("something inside went wrong\nsecond line")

    monkeypatch.setattr(importlib.import_module("mjledger.log.reader"), "iter_log_file", broken)
    monkeypatch.delenv("MJLEDGER_DEBUG", raising=False)
    result = CliRunner().invoke(main, ["replay", str(SEED)])
    assert result.exit_code == 70
    assert result.stdout == ""
    assert result.stderr.count("\n") == 1, result.stderr
    assert result.stderr.startswith("mjledger: internal error (ValueError: something inside")
    assert "please report it" in result.stderr
    assert "--debug" in result.stderr

    debug = CliRunner().invoke(main, ["--debug", "replay", str(SEED)])
    assert debug.exit_code == 70
    assert "Traceback (most recent call last)" in debug.stderr
    assert "ValueError: something inside went wrong" in debug.stderr


def test_a_refusal_stays_status_2_and_success_0(tmp_path: Path) -> None:
    bad = tmp_path / "bad.jsonl"
    bad.write_text('{"type": "nope"}\n')
    refused = CliRunner().invoke(main, ["replay", str(bad)])
    assert refused.exit_code == 2
    assert refused.stderr.startswith("mjledger: line 1: unknown event type")
    assert CliRunner().invoke(main, ["replay", str(SEED)]).exit_code == 0
    assert CliRunner().invoke(main, ["--version"]).exit_code == 0
    assert CliRunner().invoke(main, ["no-such-command"]).exit_code == 2


def _wait_until_reading(process: subprocess.Popen[bytes]) -> None:
    """Until the interpreter has started and blocks reading its standard input: a signal sent
    earlier lands in the imports, before mjledger's handler exists (a loaded machine takes
    seconds to start). Linux says where a process sleeps; elsewhere a fixed wait."""
    wchan = Path(f"/proc/{process.pid}/wchan")
    if not wchan.exists():
        time.sleep(1.5)
        return
    deadline = time.monotonic() + 60
    while "pipe_read" not in wchan.read_text() and time.monotonic() < deadline:
        assert process.poll() is None, "the command ended before reading"
        time.sleep(0.05)


@pytest.mark.skipif(sys.platform == "win32", reason="POSIX signals")
def test_ctrl_c_is_status_130() -> None:
    # `replay -` waits on standard input, which never comes: interrupt it there.
    process = subprocess.Popen(
        python_m("replay", "-"),
        stdin=subprocess.PIPE,
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
    )
    try:
        _wait_until_reading(process)
        process.send_signal(signal.SIGINT)
        out, err = process.communicate(timeout=30)
    finally:
        if process.poll() is None:
            process.kill()
    assert process.returncode == 130, err
    assert out == b""
    assert err.decode().strip() == "mjledger: interrupted"


@pytest.mark.skipif(sys.platform == "win32", reason="POSIX pipes")
def test_a_closed_pipe_exits_quietly(tmp_path: Path) -> None:
    log = tmp_path / "long.jsonl"
    log.write_text(sichuan_match(300), encoding="utf-8")  # far more than a pipe buffer holds
    # Unbuffered, Python drops a partial write to a closed pipe without an error: buffered, as
    # a user's shell runs it, the broken pipe shows.
    env = {k: v for k, v in os.environ.items() if k != "PYTHONUNBUFFERED"}
    for args in (["replay", str(log)], ["replay", str(log), "--json"]):
        process = subprocess.Popen(
            python_m(*args), stdout=subprocess.PIPE, stderr=subprocess.PIPE, env=env
        )
        assert process.stdout is not None
        assert process.stdout.readline()  # `| head -1`
        process.stdout.close()
        err = process.stderr.read() if process.stderr else b""
        process.wait(timeout=60)
        assert err == b"", err.decode()
        assert process.returncode == 141


class FullDisk:
    """A temporary file on a file system with no space left: every write fails."""

    def __init__(self, *_args: object, **_kwargs: object) -> None:
        pass

    def write(self, _data: bytes) -> int:
        raise OSError(28, "No space left on device")

    def close(self) -> None:
        pass


def test_replay_json_with_a_full_temporary_directory_is_refused_naming_it(
    monkeypatch: pytest.MonkeyPatch, tmp_path: Path
) -> None:
    monkeypatch.setattr(tempfile, "TemporaryFile", FullDisk)
    monkeypatch.setattr(tempfile, "tempdir", str(tmp_path))
    monkeypatch.setattr(SPOOL_MODULE, "SPOOL_IN_MEMORY", 100)  # the output goes to a file
    result = CliRunner().invoke(main, ["replay", "--json", str(SEED)])
    assert result.exit_code == 2, result.stderr
    # No partial replay on stdout: only the refusal as data (http-api.md, "The same codes in
    # the library and the command line"), the same message as the one line on stderr.
    refusal = json.loads(result.stdout)
    assert refusal["code"] == "bad_parameter"
    assert "mjledger: " + refusal["message"] + "\n" == result.stderr
    assert result.stderr.count("\n") == 1
    assert str(tmp_path) in result.stderr
    assert "No space left on device" in result.stderr


@pytest.mark.parametrize("held", [1, 100, 1 << 22])
def test_replay_json_is_the_same_held_in_memory_or_in_a_temporary_file(
    monkeypatch: pytest.MonkeyPatch, held: int
) -> None:
    """Output up to ``SPOOL_IN_MEMORY`` bytes is held in memory (a full temporary directory
    does not matter then), beyond it in a temporary file: the same bytes either way."""
    expected = CliRunner().invoke(main, ["replay", "--json", str(SEED)]).stdout
    assert len(expected) > 100
    monkeypatch.setattr(SPOOL_MODULE, "SPOOL_IN_MEMORY", held)
    if held > len(expected):
        monkeypatch.setattr(tempfile, "TemporaryFile", FullDisk)
    result = CliRunner().invoke(main, ["replay", "--json", str(SEED)])
    assert result.exit_code == 0, result.stderr
    assert result.stdout == expected
