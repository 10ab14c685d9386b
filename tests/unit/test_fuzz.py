"""Fuzzing: mutated logs (byte flips, deep nesting, huge numbers and strings, dropped,
duplicated and swapped lines) through every decoding path.

Whatever the damage, only an ``MjledgerError`` escapes — a ``LogError`` naming a line — and its
message is one line under 300 characters (a log is untrusted input, and an error message is
printed on a terminal and pasted into support tickets).
"""

from __future__ import annotations

import json
import sys
from collections.abc import Callable

import pytest
from click.testing import CliRunner
from hypothesis import given, settings
from hypothesis import strategies as st

from mjledger import FormatError, Ledger, LogError, MjledgerError, parse_log, replay, replay_bytes
from mjledger.cli import main
from mjledger.errors import CODES
from mjledger.explain.steps import explain_log
from mjledger.log.codec import MAX_DEPTH, decode_line, read_log_bytes
from mjledger.log.reader import iter_log, parse_events, read_events
from tests.conftest import CONTRACT, EXAMPLES

SEEDS = [
    (EXAMPLES / "disputed-hand.jsonl").read_bytes(),
    (CONTRACT / "hongkong-three-hands.jsonl").read_bytes(),
    (CONTRACT / "sichuan-wall-checks.jsonl").read_bytes(),
    (CONTRACT / "sichuan-kong-money-split.jsonl").read_bytes(),
]


def check_error(exc: MjledgerError, line: int | None = None) -> None:
    assert isinstance(exc, LogError), repr(exc)
    assert exc.line is not None, str(exc)
    assert exc.line >= 1
    assert line in (None, exc.line)
    text = str(exc)
    assert len(text) < 300, text[:400]
    for raw in ("\n", "\r", "\x1b"):
        assert raw not in text, text[:400]


def outcome(data: bytes) -> None:
    """Every path a log can take: bytes (the CLI's), text (the library's), one line at a time."""
    for attempt in (lambda: replay_bytes(data), lambda: replay(data.decode("utf-8"))):
        try:
            attempt()
        except UnicodeDecodeError:
            continue  # replay(text) needs text; replay_bytes names the line
        except MjledgerError as exc:
            check_error(exc)
    try:
        text = data.decode("utf-8")
    except UnicodeDecodeError:
        return
    for number, line in enumerate(text.split("\n"), 1):
        if line.strip():
            try:
                decode_line(line, number)
            except MjledgerError as exc:
                check_error(exc, number)


def _nested(depth: int, inner: str = "1") -> str:
    return "[" * depth + inner + "]" * depth


def _mutate(data: bytes, op: str, a: int, b: int, size: int) -> bytes:
    lines = data.split(b"\n")
    i, j = a % len(lines), b % len(lines)
    if op == "flip":
        k = a % len(data)
        return data[:k] + bytes([data[k] ^ (1 << (b % 8))]) + data[k + 1 :]
    if op == "drop":
        del lines[i]
    elif op == "duplicate":
        lines.insert(i, lines[i])
    elif op == "swap":
        lines[i], lines[j] = lines[j], lines[i]
    elif op == "deep":
        value = _nested(min(size, 3000)).encode()
        lines[i] = lines[i].replace(b":", b": " + value + b', "x":', 1)
    elif op == "deep_field":
        lines[i] = lines[i].replace(b'"player": ', b'"player": ' + _nested(size % 40).encode(), 1)
    elif op == "huge_number":
        digits = b"9" * (size * 10 + 1)
        lines[i] = lines[i].replace(b'"fan": ', b'"fan": ' + digits + b', "y": ', 1)
    elif op == "huge_string":
        blob = json.dumps("\x1bz\n" * (size * 100)).encode()
        lines[i] = lines[i].replace(b'"player": ', b'"player": ' + blob + b', "z": ', 1)
    elif op == "odd_key":
        key = json.dumps("bad\nkey\x1b[31m" + "k" * size).encode()
        lines[i] = lines[i].replace(b"{", b"{" + key + b": 1, ", 1)
    elif op == "bom":
        return b"\xef\xbb\xbf" + data
    return b"\n".join(lines)


def _mutated(seed: bytes, mutations: list[tuple[str, int, int, int]]) -> bytes:
    data = seed
    for op, a, b, size in mutations:
        data = _mutate(data, op, a, b, size)
    return data


OPS = st.sampled_from(
    [
        "flip",
        "drop",
        "duplicate",
        "swap",
        "deep",
        "deep_field",
        "huge_number",
        "huge_string",
        "odd_key",
        "bom",
    ]
)
MUTATION = st.tuples(
    OPS,
    st.integers(0, 10_000),
    st.integers(0, 10_000),
    st.integers(0, 5_000),
)


@given(
    seed=st.sampled_from(SEEDS),
    mutations=st.lists(MUTATION, min_size=1, max_size=4),
)
def test_mutated_logs_raise_only_short_errors_naming_a_line(
    seed: bytes, mutations: list[tuple[str, int, int, int]]
) -> None:
    outcome(_mutated(seed, mutations))


@pytest.mark.parametrize("depth", [9, 50, 980, 5000, 200_000])
@pytest.mark.parametrize("stack", [0, 400])
def test_deep_nesting_is_one_error_whatever_the_stack(depth: int, stack: int) -> None:
    """The cap is checked on the text, so the answer does not move with the caller's stack
    (which decided, before, between a RecursionError and a clean refusal)."""
    line = '{"type": "discarded", "player": ' + _nested(depth) + "}"

    def at_depth(n: int) -> MjledgerError:
        if n:
            return at_depth(n - 1)
        with pytest.raises(FormatError) as caught:
            replay(line)
        return caught.value

    limit = sys.getrecursionlimit()
    exc = at_depth(stack)
    assert str(exc) == f"line 1: JSON nested more than {MAX_DEPTH} levels deep"
    assert sys.getrecursionlimit() == limit


def test_nesting_of_eight_levels_is_read_and_nine_is_refused() -> None:
    eight = '{"type": "discarded", "player": ' + _nested(7, '"ana"') + "}"
    with pytest.raises(FormatError, match="player: expected a string"):
        decode_line(eight, 4)
    nine = '{"type": "discarded", "player": ' + _nested(8, '"ana"') + "}"
    with pytest.raises(FormatError, match="nested more than 8 levels"):
        decode_line(nine, 4)
    # Brackets inside strings are not nesting.
    assert decode_line('{"type": "discarded", "player": "' + "[" * 50 + '"}').player == "[" * 50


def test_unknown_field_names_are_printed_escaped() -> None:
    line = '{"type": "discarded", "player": "ana", "a\\nb\\u001b[31m": 1}'
    with pytest.raises(FormatError) as caught:
        decode_line(line, 2)
    assert str(caught.value) == "line 2: discarded: unknown field: a\\nb\\x1b[31m"


def test_huge_values_are_shortened_in_messages() -> None:
    line = '{"type": "discarded", "player": ' + json.dumps(["x" * 1_000_000]) + "}"
    with pytest.raises(FormatError) as caught:
        decode_line(line, 7)
    assert len(str(caught.value)) < 100
    assert str(caught.value).startswith("line 7: discarded: player: expected a string, not [")


def test_a_leading_bom_is_ignored_by_text_and_bytes_alike() -> None:
    log = (CONTRACT / "hongkong-three-hands.jsonl").read_text(encoding="utf-8")
    plain = replay(log).to_json()
    assert replay("\ufeff" + log).to_json() == plain
    assert replay_bytes(b"\xef\xbb\xbf" + log.encode()).to_json() == plain
    assert parse_log("\ufeff" + log) == parse_log(log)


def _first_error(read: Callable[[], object]) -> object:
    """What a user sees of a decoding path's answer: its events, or its first error."""
    try:
        return read()
    except MjledgerError as exc:
        return (type(exc).__name__, str(exc), exc.line)


@given(
    seed=st.sampled_from(SEEDS),
    mutations=st.lists(MUTATION, min_size=1, max_size=3),
    block=st.integers(1, 300),
)
def test_every_decoding_path_gives_the_same_events_or_first_error(
    seed: bytes, mutations: list[tuple[str, int, int, int]], block: int
) -> None:
    """The fast path (msgspec batches, whole or in blocks of any size, bytes or text) and the
    strict codec agree on mutated logs: deep nesting, huge values, odd keys, a BOM."""
    data = _mutated(seed, mutations)
    strict = _first_error(lambda: read_log_bytes(data))
    assert _first_error(lambda: read_events(data)) == strict
    chunks = [data[i : i + block] for i in range(0, len(data), block)]
    assert _first_error(lambda: list(iter_log(chunks))) == strict
    try:
        text = data.decode("utf-8")
    except UnicodeDecodeError:
        return
    assert _first_error(lambda: parse_events(text)) == _first_error(lambda: parse_log(text))
    assert _first_error(lambda: parse_log(text)) == strict


@pytest.mark.parametrize("depth", [8, 9, 12, 600])
@pytest.mark.parametrize(
    ("line", "outside"),
    [
        ('{"type": "discarded", "player": %s, "tile": "1m"}', 1),
        ('{"type": "discarded", "player": "ana", "tile": "1m", "extra": %s}', 1),
        ('{"type": "melded", "player": "ana", "kind": "pung", "tiles": %s, "from": "bo"}', 1),
        (
            '{"type": "match_started", "ruleset": "hongkong", "players": ["a", "b", "c", "d"], '
            '"rules": {"table": %s}}',
            2,
        ),
    ],
)
def test_nesting_is_refused_alike_on_every_path(depth: int, line: str, outside: int) -> None:
    """A value nested past the cap is the cap's error on every path, in every field (typed,
    unknown, or one only the strict codec types), and a value at the cap is not."""
    inside = depth - outside  # the levels of the line around the value
    value = "[" * inside + '"x"' + "]" * inside
    data = (line % value).encode()
    strict = _first_error(lambda: read_log_bytes(data))
    assert _first_error(lambda: read_events(data)) == strict
    assert _first_error(lambda: list(iter_log([data[:7], data[7:]]))) == strict
    assert _first_error(lambda: parse_events(data.decode())) == strict
    nested_error = isinstance(strict, tuple) and "nested more than" in str(strict[1])
    assert nested_error == (depth > MAX_DEPTH), strict


def _refusal(action: Callable[[], object]) -> tuple[str, str, int | None] | None:
    """A path's refusal as a user sees it: its message, its code and its line (None when the
    path accepts the log). Anything but an ``MjledgerError`` fails the test: an internal
    error on input."""
    try:
        action()
    except MjledgerError as exc:
        return str(exc), exc.code, exc.line
    return None


def _record_text(text: str) -> None:
    with Ledger(persistence="memory") as ledger:
        ledger.record_log(text)


def _cli_refusal(args: list[str]) -> tuple[str, str, int | None] | None:
    """The command's refusal: its one line on standard error, and the code and line of the
    JSON it prints on standard output with ``--json`` (status 2, never 70)."""
    result = CliRunner().invoke(main, [*args, "--json"])
    if result.exit_code == 0:
        return None
    assert result.exit_code == 2, (args, result.output)
    assert result.stderr.count("\n") == 1, result.stderr
    message = result.stderr.removeprefix("mjledger: ").rstrip("\n")
    document = json.loads(result.stdout)
    assert document["message"] == message
    return message, document["code"], document["line"]


def _library_refusals(data: bytes) -> dict[str, tuple[str, str, int | None] | None]:
    """Every library path's answer to a log: replay (bytes, text), record, explain."""
    answers = {"replay_bytes": _refusal(lambda: replay_bytes(data))}
    try:
        text = data.decode("utf-8")
    except UnicodeDecodeError:
        return answers  # the text paths need text; the bytes path names the line
    answers["replay"] = _refusal(lambda: replay(text))
    answers["record"] = _refusal(lambda: _record_text(text))
    answers["explain"] = _refusal(lambda: explain_log(text))
    return answers


def _one_refusal(answers: dict[str, tuple[str, str, int | None] | None]) -> None:
    """A log replay refuses is refused by every path with one message, code and line; a log
    replay accepts is not refused for its content (record refuses a stand-alone hand only)."""
    refusal = answers["replay_bytes"]
    if refusal is None:
        for path, answer in answers.items():
            assert answer is None or answer[1] == "wrong_event_type", (path, answer)
        return
    assert refusal[1] in CODES, refusal
    for path, answer in answers.items():
        assert answer == refusal, (path, answer, refusal)


@given(
    seed=st.sampled_from(SEEDS),
    mutations=st.lists(MUTATION, min_size=1, max_size=3),
)
def test_every_library_path_refuses_a_mutated_log_with_one_message_and_one_code(
    seed: bytes, mutations: list[tuple[str, int, int, int]]
) -> None:
    """issue 22: replay, record and explain are the same refusal of the same log (docs/cli.md
    promises record refuses what replay refuses, with replay's message)."""
    _one_refusal(_library_refusals(_mutated(seed, mutations)))


@settings(max_examples=max(10, settings().max_examples // 4))
@given(
    seed=st.sampled_from(SEEDS),
    mutations=st.lists(MUTATION, min_size=1, max_size=3),
)
def test_every_command_refuses_a_mutated_log_as_the_library_does(
    tmp_path_factory: pytest.TempPathFactory,
    seed: bytes,
    mutations: list[tuple[str, int, int, int]],
) -> None:
    """The command line's replay, record and explain (``--json``: the code on standard
    output) refuse as the library does: one message, one code, status 2, never 70."""
    data = _mutated(seed, mutations)
    where = tmp_path_factory.mktemp("fuzz")
    log = where / "log.jsonl"
    log.write_bytes(data)
    answers = _library_refusals(data)
    answers["cli replay"] = _cli_refusal(["replay", str(log)])
    answers["cli record"] = _cli_refusal(["record", str(log), "--store", str(where / "s.sqlite")])
    answers["cli explain"] = _cli_refusal(["explain", str(log)])
    _one_refusal(answers)
