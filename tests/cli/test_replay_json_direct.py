"""``replay --json LOG`` run without click (mjledger/_replay_json) gives click's command's
bytes, on both streams, and its status: on random legal, corrupted and simulated tile logs
(replayed or refused), in either order of the arguments; a command line it does not take, or
a LOG it cannot open, goes to click untouched (the console script, in a process of its own)."""

from __future__ import annotations

import os
import subprocess
import sys
import tempfile
from pathlib import Path
from unittest import mock

import pytest
from click.testing import CliRunner
from hypothesis import given, settings
from hypothesis import strategies as st

from mjledger import _replay_json
from mjledger.cli import main
from mjledger.sim.run import simulate
from tests.strategies import corrupted_log_texts, legal_log_text

EXAMPLES = Path(__file__).resolve().parents[2] / "examples"


def by_click(args: list[str]) -> tuple[bytes, bytes, int]:
    result = CliRunner().invoke(main, args)
    return result.stdout_bytes, result.stderr_bytes, result.exit_code


def direct(args: list[str]) -> tuple[bytes, bytes, int] | None:
    """``mjledger ARGS`` through :func:`mjledger._replay_json.run`, or None if it would not
    take it (click's then)."""
    status = None
    with (
        CliRunner().isolation() as (out, err, _mixed),
        mock.patch.object(_replay_json, "command_imported", return_value=None),  # not here
    ):
        try:
            if not _replay_json.run(args):
                return None
        except SystemExit as exc:
            status = exc.code
    assert isinstance(status, int)
    return out.getvalue(), err.getvalue(), status


def same_both_ways(data: bytes, order: int) -> None:
    with tempfile.TemporaryDirectory() as directory:
        log = os.path.join(directory, "log.jsonl")
        with open(log, "wb") as file:
            file.write(data)
        args = ["replay", "--json", log] if order == 0 else ["replay", log, "--json"]
        expected = by_click(args)
        assert direct(args) == expected


@settings(max_examples=60, deadline=None)
@given(st.one_of(legal_log_text(), corrupted_log_texts()), st.integers(0, 1))
def test_legal_and_corrupted_logs_the_same_bytes_and_status(text: str, order: int) -> None:
    same_both_ways(text.encode("utf-8", "surrogatepass"), order)


@settings(max_examples=12, deadline=None)
@given(
    st.sampled_from(["sichuan", "hongkong"]),
    st.integers(1, 10_000),
    st.integers(1, 6),
    st.sampled_from(["", "cut", "garbage", "blank"]),
    st.integers(0, 1),
)
def test_simulated_tile_logs_whole_or_spoiled_the_same(
    ruleset: str, seed: int, hands: int, spoil: str, order: int
) -> None:
    (match,) = simulate(ruleset, hands=hands, seed=seed)
    data = match.text().encode()
    if spoil == "cut":  # a hand that never ends
        data = data[: len(data) * 2 // 3]
    elif spoil == "garbage":
        data += b'{"type": "hand_started"\n'
    elif spoil == "blank":
        data = b"\n" + data.replace(b"\n", b"\n\n", 3)
    same_both_ways(data, order)


def test_the_examples_the_same() -> None:
    for example in ("hongkong-match.jsonl", "sichuan-match.jsonl", "disputed-hand.jsonl"):
        same_both_ways((EXAMPLES / example).read_bytes(), 0)


@pytest.mark.parametrize(
    "args",
    [
        ["replay", "--json"],
        ["replay", "--json", "a", "b"],
        ["replay", "--json", "--json", "a"],
        ["replay", "--json=1", "a"],
        ["replay", "-x", "a"],
        ["replay", "--json", "--", "a"],
        ["--debug", "replay", "--json", "a"],
        ["replay", "a"],
        ["schema", "--json", "a"],
        ["replay", "--json", "/no/such/log.jsonl"],  # click says why, as a usage error
    ],
)
def test_any_other_command_line_is_left_to_click(args: list[str]) -> None:
    assert direct(args) is None


def console(args: list[str], **options: object) -> subprocess.CompletedProcess[bytes]:
    return subprocess.run(
        [sys.executable, "-m", "mjledger", *args],
        capture_output=True,
        check=False,
        **options,  # type: ignore[call-overload]
    )


@pytest.mark.parametrize(
    "log", ["/no/such/log.jsonl", str(EXAMPLES), str(EXAMPLES / "hongkong-match.jsonl")]
)
def test_the_console_script_as_click_runs_it(log: str) -> None:
    """Through the console script: a log that cannot be opened (click's usage error, status 2)
    and one that can give what click's own command line gives (``--`` takes it to click)."""
    ours = console(["replay", "--json", log])
    clicks = console(["replay", "--json", "--", log])
    assert (ours.stdout, ours.stderr, ours.returncode) == (
        clicks.stdout,
        clicks.stderr,
        clicks.returncode,
    )


def test_standard_input_and_a_reader_gone() -> None:
    data = (EXAMPLES / "hongkong-match.jsonl").read_bytes()
    ours = console(["replay", "--json", "-"], input=data)
    clicks = console(["replay", "--json", "--", "-"], input=data)
    assert ours.returncode == clicks.returncode == 0
    assert ours.stdout == clicks.stdout
    assert ours.stderr == clicks.stderr == b""
    # The reader of standard output gone: status 141, nothing said, as click's group ends it.
    code = (
        "import os, subprocess, sys\n"
        "r, w = os.pipe()\n"
        "os.close(r)\n"
        "p = subprocess.run([sys.executable, '-m', 'mjledger', *sys.argv[1:]], stdout=w,"
        " stderr=subprocess.PIPE)\n"
        "print(p.returncode, repr(p.stderr))\n"
    )
    log = str(EXAMPLES / "hongkong-match.jsonl")
    gone = [
        subprocess.run(
            [sys.executable, "-c", code, *args], capture_output=True, text=True, check=True
        ).stdout
        for args in (["replay", "--json", log], ["replay", "--json", "--", log])
    ]
    assert gone[0] == gone[1] == "141 b''\n"
