"""The ``mjledger`` command, in process (click's CliRunner) and as a real process.

log-format.md: `mjledger replay LOG --json` prints one JSON object on standard output; a
rejected log exits with status 2 and prints the message (line, event type, problem) on
standard error. Issue 2: `LOG` may be `-`, `--version`, `mjledger schema` prints a JSON Schema.
"""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

import jsonschema
import pytest
from click.testing import CliRunner
from hypothesis import given

from mjledger import LogError, __version__, replay
from mjledger.cli import main
from tests.conftest import CONTRACT
from tests.helpers import ANA, BO, CY, DI, discard, hand_start, jsonl, kong, self_drawn, won
from tests.strategies import legal_logs

EXAMPLE_LOGS = sorted(CONTRACT.glob("*.jsonl"))
SCRIPT = Path(sys.executable).parent / "mjledger"
COMMANDS = [[str(SCRIPT)], [sys.executable, "-m", "mjledger"]]

GOOD = jsonl(hand_start("sichuan"), kong(BO, "concealed"), won(CY, BO, 1), self_drawn(DI, 2))
BAD = jsonl(hand_start("sichuan"), discard(ANA), won(CY, "zed", 1))


def invoke(*args: str, stdin: str | bytes | None = None):
    return CliRunner().invoke(main, list(args), input=stdin)


def run_process(
    command: list[str], *args: str, stdin: bytes = b""
) -> subprocess.CompletedProcess[bytes]:
    return subprocess.run(
        [*command, *args], input=stdin, capture_output=True, timeout=60, check=False
    )


# --- replay --json ------------------------------------------------------------------------------


def test_replay_json_is_the_contract_output(tmp_path: Path) -> None:
    """log-format.md "Replay output": one JSON object, exactly the library's contract JSON;
    figures from rules.md: rain 2 × 3, win 2, 6 passed, self-draw (4 + 1) × 2."""
    log = tmp_path / "hand.jsonl"
    log.write_text(GOOD)
    result = invoke("replay", str(log), "--json")
    assert result.exit_code == 0, result.output
    out = json.loads(result.stdout)
    assert out == replay(GOOD).to_json()
    assert out["totals"] == {ANA: -2 - 5, BO: 6 - 2 - 6 - 5, CY: -2 + 2 + 6, DI: -2 + 10}
    assert set(out) == {"ruleset", "match", "players", "rules", "hands", "totals"}
    assert out["match"] is None
    assert out["hands"][0]["outcome"] == "unfinished"


@pytest.mark.parametrize("log", EXAMPLE_LOGS, ids=lambda p: p.stem)
def test_replay_json_on_the_spec_examples(log: Path) -> None:
    """The spec's examples: `mjledger replay NAME.jsonl --json` prints NAME.expected.json
    (transfers compared as a multiset within each hand)."""
    result = invoke("replay", str(log), "--json")
    assert result.exit_code == 0, result.output
    got = json.loads(result.stdout)
    expected = json.loads(log.with_name(log.stem + ".expected.json").read_text())
    for hand in (*got["hands"], *expected["hands"]):
        hand["transfers"] = sorted(json.dumps(t, sort_keys=True) for t in hand["transfers"])
    assert got == expected


@given(legal_logs(max_hands=3))
def test_replay_json_prints_json_dumps_bytes_exactly(lines: list[dict[str, object]]) -> None:
    """The streamed, orjson-encoded output is byte for byte ``json.dumps(indent=2)``'s."""
    text = "".join(json.dumps(line, ensure_ascii=False) + "\n" for line in lines)
    result = invoke("replay", "-", "--json", stdin=text.encode("utf-8"))
    assert result.exit_code == 0, result.output
    expected = json.dumps(replay(text).to_json(), ensure_ascii=False, indent=2) + "\n"
    assert result.stdout_bytes == expected.encode("utf-8")


def test_dash_reads_standard_input() -> None:
    """Issue 2: "`LOG` may be `-` for standard input"."""
    result = invoke("replay", "-", "--json", stdin=GOOD.encode())
    assert result.exit_code == 0, result.output
    assert json.loads(result.stdout) == replay(GOOD).to_json()


# --- rejected logs ------------------------------------------------------------------------------


@pytest.mark.parametrize(
    ("text", "line", "event_type"),
    [
        (BAD, 3, "won_on_discard"),
        ("", 1, None),
        (jsonl(hand_start("hongkong"), discard(ANA), won(CY, BO, 2)), 3, "won_on_discard"),
        (
            jsonl(hand_start("hongkong"), '{"type": "discarded", "player": "ana", "player": "bo"}'),
            2,
            None,
        ),
        (
            jsonl(
                hand_start("hongkong"), "", '{"type": "self_drawn", "player": "bo", "fan": true}'
            ),
            3,
            "self_drawn",
        ),
        (jsonl(hand_start("hongkong"), "{not json"), 2, None),
        # a refused event, then a broken line: the broken line is the log's error, as when
        # the whole log is decoded before it is folded (replay streams; the order holds)
        (jsonl(hand_start("hongkong"), discard(ANA), won(CY, BO, 2), "{not json"), 4, None),
    ],
)
@pytest.mark.parametrize("as_json", [True, False])
def test_rejected_log_exit_2_one_line_on_stderr_nothing_on_stdout(
    tmp_path: Path, text: str, line: int, event_type: str | None, as_json: bool
) -> None:
    """log-format.md Errors: rejected as a whole; "the error names the line number, the event
    type and the problem. The CLI exits with status 2 and prints that message on standard
    error" — issue 2: one line, nothing on stdout; issue 22: with --json, the refusal as one
    JSON object on stdout (http-api.md, "The same codes in the library and the command
    line")."""
    log = tmp_path / "bad.jsonl"
    log.write_text(text)
    result = invoke("replay", str(log), *(["--json"] if as_json else []))
    assert result.exit_code == 2
    lines = result.stderr.splitlines()
    assert len(lines) == 1, result.stderr
    assert f"line {line}" in lines[0]
    if event_type is not None:
        assert event_type in lines[0]
    if not as_json:
        assert result.stdout == ""
        return
    refusal = json.loads(result.stdout)
    assert set(refusal) == {"code", "message", "line", "event_type"}
    assert refusal["message"] == lines[0].removeprefix("mjledger: ")
    with pytest.raises(LogError) as caught:
        replay(text)
    assert refusal["code"] == caught.value.code
    assert (refusal["line"], refusal["event_type"]) == (line, caught.value.event_type)


def test_rejected_log_names_the_problem() -> None:
    result = invoke("replay", "-", stdin=BAD)
    assert result.exit_code == 2
    assert "zed" in result.stderr
    assert "line 3" in result.stderr


def test_missing_file_exits_2(tmp_path: Path) -> None:
    """Issue 2: an unreadable file is refused with exit status 2 (nothing on stdout)."""
    result = invoke("replay", str(tmp_path / "no-such.jsonl"))
    assert result.exit_code == 2
    assert result.stdout == ""


def test_lone_surrogate_escape_is_a_rejected_line_not_a_crash() -> None:
    """log-format.md: logs are UTF-8 text; a `\\ud800` escape in a player id cannot be written
    back as UTF-8, so it is an error of its line (exit 2), not an encoding crash (exit 1)."""
    head = '{"type": "hand_started", "ruleset": "hongkong", "players": ["\\ud800", "b", "c", "d"], '
    text = jsonl(head + '"dealer": "b"}', self_drawn("b", 3))
    for proc in (run_process(COMMANDS[1], "replay", "-", "--json", stdin=text.encode()),):
        assert proc.returncode == 2, proc.stderr
        assert json.loads(proc.stdout)["code"] == "bad_json"  # --json: the refusal as data
        assert proc.stderr.decode().count("\n") == 1
        assert b"line 1" in proc.stderr
    paired = text.replace("\\ud800", "\\ud83c\\udc04")  # a valid pair: U+1F004 (red dragon tile)
    out = json.loads(
        run_process(COMMANDS[1], "replay", "-", "--json", stdin=paired.encode()).stdout
    )
    assert out["players"][0] == "\U0001f004"


# --- as a real process --------------------------------------------------------------------------


@pytest.mark.slow
@pytest.mark.parametrize("command", COMMANDS, ids=["script", "python -m"])
def test_process_replay_json_from_file_and_stdin(command: list[str], tmp_path: Path) -> None:
    if command[0] == str(SCRIPT) and not SCRIPT.exists():
        pytest.skip("console script not installed next to this interpreter")
    log = tmp_path / "hand.jsonl"
    log.write_text(GOOD)
    from_file = run_process(command, "replay", str(log), "--json")
    from_stdin = run_process(command, "replay", "-", "--json", stdin=GOOD.encode())
    for proc in (from_file, from_stdin):
        assert proc.returncode == 0, proc.stderr
        assert json.loads(proc.stdout) == replay(GOOD).to_json()


@pytest.mark.slow
@pytest.mark.parametrize("command", COMMANDS, ids=["script", "python -m"])
def test_process_rejected_log(command: list[str]) -> None:
    if command[0] == str(SCRIPT) and not SCRIPT.exists():
        pytest.skip("console script not installed next to this interpreter")
    proc = run_process(command, "replay", "-", "--json", stdin=BAD.encode())
    assert proc.returncode == 2
    assert json.loads(proc.stdout)["code"] == "not_at_table"
    assert len(proc.stderr.decode().splitlines()) == 1
    assert b"line 3" in proc.stderr
    assert b"won_on_discard" in proc.stderr
    missing = run_process(command, "replay", "/nonexistent/dir/x.jsonl")
    assert missing.returncode == 2
    assert missing.stdout == b""


@pytest.mark.slow
@pytest.mark.parametrize("command", COMMANDS, ids=["script", "python -m"])
def test_process_version(command: list[str]) -> None:
    if command[0] == str(SCRIPT) and not SCRIPT.exists():
        pytest.skip("console script not installed next to this interpreter")
    proc = run_process(command, "--version")
    assert proc.returncode == 0
    assert __version__ in proc.stdout.decode()


def test_version() -> None:
    """Issue 2: `mjledger --version`."""
    result = invoke("--version")
    assert result.exit_code == 0
    assert __version__ in result.stdout


# --- the human table ----------------------------------------------------------------------------


def test_human_table_shows_every_transfer_amount_and_the_totals(tmp_path: Path) -> None:
    """Issue 2: "a readable table per hand (dealer, outcome, each transfer with its reason,
    net) and the totals"."""
    text = jsonl(
        hand_start("sichuan", rules={"base": 7}),
        kong(BO, "concealed"),  # 14 from each of three
        won(CY, BO, 3),  # 56, and 42 passed
        self_drawn(DI, 2),  # (28 + 7) from ana and bo
    )
    log = tmp_path / "hand.jsonl"
    log.write_text(text)
    result = invoke("replay", str(log))
    assert result.exit_code == 0, result.output
    shown = result.stdout
    out = replay(text).to_json()
    for t in out["hands"][0]["transfers"]:
        assert str(t["amount"]) in shown
    for amount in (14, 56, 42, 35):
        assert str(amount) in shown
    # totals, as worked out from rules.md: ana -14-35, bo +42-56-42-35, cy -14+56+42, di -14+70
    totals = {ANA: -49, BO: -91, CY: 84, DI: 56}
    assert out["totals"] == totals
    tail = shown[shown.index("Totals") :]
    for player, amount in totals.items():
        assert player in tail
        assert f"{amount:+d}" in tail
    for player in (ANA, BO, CY, DI):
        assert player in shown
    assert "dealer" in shown.lower()


# --- schema -------------------------------------------------------------------------------------


@pytest.fixture(scope="module")
def validator() -> jsonschema.protocols.Validator:
    result = invoke("schema")
    assert result.exit_code == 0, result.output
    schema = json.loads(result.stdout)
    cls = jsonschema.validators.validator_for(schema)
    cls.check_schema(schema)
    return cls(schema)


def test_schema_is_a_json_schema(validator: jsonschema.protocols.Validator) -> None:
    """Issue 2: "`mjledger schema` prints it" — a valid JSON Schema document."""
    assert "$schema" in validator.schema


@pytest.mark.parametrize("log", EXAMPLE_LOGS, ids=lambda p: p.stem)
def test_spec_example_lines_validate(validator: jsonschema.protocols.Validator, log: Path) -> None:
    for text in log.read_text().splitlines():
        if text.strip():
            validator.validate(json.loads(text))


@given(legal_logs())
def test_every_line_of_a_legal_log_validates(lines: list[dict]) -> None:
    schema = json.loads(invoke("schema").stdout)
    v = jsonschema.validators.validator_for(schema)(schema)
    for line in lines:
        v.validate(line)


@pytest.mark.parametrize(
    "line",
    [
        {"type": "hand_ended"},
        {"type": "discarded"},
        {"type": "discarded", "player": "ana", "note": 1},
        {"type": "discarded", "player": ""},
        {"type": "self_drawn", "player": "ana", "fan": "3"},
        {"type": "self_drawn", "player": "ana", "fan": True},
        {"type": "self_drawn", "player": "ana", "fan": -1},
        {"type": "kong_declared", "player": "ana", "kind": "hidden"},
        {"type": "void_suit_chosen", "player": "ana", "suit": "z"},
        {"type": "match_started", "ruleset": "sichuan", "players": ["a", "b", "c"]},
        {"type": "match_started", "ruleset": "sichuan", "players": ["a", "b", "c", "a"]},
        {"type": "match_started", "ruleset": "mcr", "players": ["a", "b", "c", "d"]},
        {
            "type": "match_started",
            "ruleset": "sichuan",
            "players": ["a", "b", "c", "d"],
            "format": 2,
        },
        {
            "type": "match_started",
            "ruleset": "sichuan",
            "players": ["a", "b", "c", "d"],
            "rules": {"base": 0},
        },
        {
            "type": "match_started",
            "ruleset": "sichuan",
            "players": ["a", "b", "c", "d"],
            "rules": {"table": "spicy"},
        },
        {
            "type": "match_started",
            "ruleset": "hongkong",
            "players": ["a", "b", "c", "d"],
            "rules": {"fan_limit": 4},  # variants.md, second set: 5 to 13
        },
        {"type": "discarded", "player": "ana", "tile": "0m"},
        [1, 2],
    ],
    ids=lambda v: json.dumps(v)[:60],
)
def test_invalid_lines_fail_the_schema(
    validator: jsonschema.protocols.Validator, line: object
) -> None:
    with pytest.raises(jsonschema.ValidationError):
        validator.validate(line)
