"""Error codes (issue 22): every ``MjledgerError`` carries a code of http-api.md's table.

Walks the error classes (each has a default code of the table) and every raise site in the
source (a code it names is one of the table's; a bare ``StoreError`` or ``MjledgerError``
always names one, since their causes differ), checks that docs/library.md lists the codes,
and that each refusal a log can meet has its code — the same from ``replay``, ``record``,
``explain`` and from the command line's ``--json``.
"""

from __future__ import annotations

import ast
import importlib
import json
import pkgutil
import re
from pathlib import Path
from typing import Any

import pytest
from click.testing import CliRunner

import mjledger
from mjledger import Discarded, Ledger, MjledgerError, replay
from mjledger.cli import main
from mjledger.errors import CODES, FormatError, LogError
from mjledger.explain.steps import explain_log
from mjledger.log.codec import decode_line
from mjledger.log.fast import decode_numbered

ROOT = Path(__file__).resolve().parents[2]
SOURCE = ROOT / "src" / "mjledger"
# Calls that build an error with a code as their argument ``code`` (keyword) or, for the
# folds' helpers, as a positional argument at this index.
HELPERS = {"_refusal": 3, "refuse": 1}
# Classes whose causes are too many for one default: every site names its code.
EXPLICIT = {"StoreError", "MjledgerError"}


def _error_classes() -> list[type[MjledgerError]]:
    for info in pkgutil.walk_packages(mjledger.__path__, "mjledger."):
        if not info.name.endswith("__main__"):  # that one runs the command line
            importlib.import_module(info.name)
    found: list[type[MjledgerError]] = []
    todo: list[type[MjledgerError]] = [MjledgerError]
    while todo:
        cls = todo.pop()
        found.append(cls)
        todo.extend(cls.__subclasses__())
    return found


def test_every_error_class_has_a_code_of_the_table() -> None:
    classes = _error_classes()
    assert {c.__name__ for c in classes} >= {
        "FormatError",
        "RuleError",
        "TileError",
        "StoreError",
        "ConcurrencyError",
        "StoreConnectionError",
        "ChainError",
        "SigningKeyError",
        "SimulationError",
        "UnknownRulesetError",
    }
    for cls in classes:
        assert cls.default_code in CODES, cls
        error = cls("a problem")
        assert error.code == cls.default_code
        assert (error.line, error.event_type, error.hand) == (None, None, None)


def _code_arguments(call: ast.Call, name: str) -> list[ast.expr]:
    given = [k.value for k in call.keywords if k.arg == "code"]
    position = HELPERS.get(name)
    if position is not None and len(call.args) > position:
        given.append(call.args[position])
    return given


def _sites() -> list[tuple[str, int, str, list[ast.expr]]]:
    names = {c.__name__ for c in _error_classes()} | set(HELPERS)
    sites = []
    for path in sorted(SOURCE.rglob("*.py")):
        for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
            if isinstance(node, ast.Call) and isinstance(node.func, ast.Name):
                name = node.func.id
                if name in names:
                    where = f"{path.relative_to(ROOT)}:{node.lineno}"
                    sites.append((where, node.lineno, name, _code_arguments(node, name)))
    return sites


def test_every_raise_site_names_a_code_of_the_table() -> None:
    sites = _sites()
    assert len(sites) > 150  # the walk finds the raise sites
    literal = 0
    for where, _line, name, codes in sites:
        if name in EXPLICIT:
            assert codes, f"{where}: {name} without a code"
        for code in codes:
            if isinstance(code, ast.Constant):
                literal += 1
                assert code.value in CODES, f"{where}: {code.value!r} is not a code"
            else:  # passed on from the error it re-raises
                assert re.fullmatch(
                    r"(exc|error)\.code|code|_first_code\(exc\)", ast.unparse(code)
                ), where
    assert literal > 60


def test_docs_list_every_code_the_library_uses() -> None:
    text = (ROOT / "docs" / "library.md").read_text(encoding="utf-8").split("\n## Errors")[1]
    listed = set(re.findall(r"^\| `([a-z_]+)`(?:, `([a-z_]+)`)? \| `", text, re.MULTILINE))
    documented = {code for pair in listed for code in pair if code}
    used = {
        code.value
        for _, _, _, codes in _sites()
        for code in codes
        if isinstance(code, ast.Constant)
    } | {c.default_code for c in _error_classes()}
    assert used <= documented, used - documented
    assert documented <= set(CODES)


HEAD = '{"type": "match_started", "ruleset": "%s", "players": ["ana", "bo", "cy", "di"]%s}'
HK, SC = HEAD % ("hongkong", ""), HEAD % ("sichuan", "")
START = '{"type": "hand_started"}'


def _log(*lines: str) -> str:
    return "".join(line + "\n" for line in lines)


CASES: list[tuple[str, str, int]] = [
    ("bad_json", _log(SC, '{"type": "hand_started"'), 2),
    ("bad_json", _log(SC, '{"type": "hand_started", "type": "hand_started"}'), 2),
    ("bad_format", _log(SC, '{"type": "melded"}'), 2),
    ("bad_format", _log(HEAD % ("sichuan", ', "match": "a\\u202eb"')), 1),
    ("bad_format", _log(SC, START, '{"type": "discarded", "player": "' + "x" * 201 + '"}'), 3),
    ("unknown_ruleset", _log(HEAD % ("riichi", "")), 1),
    ("bad_house_rule", _log(HEAD % ("sichuan", ', "rules": {"fan_cap": 9}')), 1),
    ("bad_house_rule", _log(HEAD % ("sichuan", ', "rules": {"spicy": 1}')), 1),
    ("not_at_table", _log(SC, START, '{"type": "discarded", "player": "zed"}'), 3),
    (
        "already_won",
        _log(
            SC,
            START,
            '{"type": "self_drawn", "player": "ana", "fan": 1}',
            '{"type": "discarded", "player": "ana"}',
        ),
        4,
    ),
    (
        "self_reference",
        _log(SC, START, '{"type": "won_on_discard", "player": "ana", "from": "ana", "fan": 1}'),
        3,
    ),
    ("below_minimum_fan", _log(HK, START, '{"type": "self_drawn", "player": "ana", "fan": 1}'), 3),
    (
        "wrong_ruleset",
        _log(HK, START, '{"type": "void_suit_chosen", "player": "ana", "suit": "m"}'),
        3,
    ),
    (
        "wrong_ruleset",
        _log(SC, START, '{"type": "self_drawn", "player": "ana", "fan": 1, "limit": true}'),
        3,
    ),
    (
        "bad_tiles",
        _log(
            SC,
            START,
            '{"type": "self_drawn", "player": "ana", "tiles": "1112345678999m", '
            '"winning_tile": "1p"}',
        ),
        3,
    ),
    (
        "wrong_dealer",
        _log(
            HK,
            START,
            '{"type": "self_drawn", "player": "bo", "fan": 3}',
            '{"type": "hand_started", "dealer": "cy"}',
        ),
        4,
    ),
    ("hand_in_play", _log(SC, START, START), 3),
    (
        "hand_not_in_play",
        _log(
            HK,
            START,
            '{"type": "self_drawn", "player": "ana", "fan": 3}',
            '{"type": "discarded", "player": "bo"}',
        ),
        4,
    ),
    ("rule_violation", _log(SC, '{"type": "discarded", "player": "ana"}'), 2),
]


def _library(text: str, action: Any) -> tuple[str, str, int | None]:
    with pytest.raises(MjledgerError) as caught:
        action(text)
    return caught.value.code, str(caught.value), caught.value.line


def _record(text: str) -> None:
    with Ledger(persistence="memory") as ledger:
        ledger.record_log(text)


@pytest.mark.parametrize(("code", "text", "line"), CASES)
def test_each_refusal_has_its_code_on_every_path(
    code: str, text: str, line: int, tmp_path: Path
) -> None:
    answer = _library(text, replay)
    assert answer[0] == code, answer
    assert answer[2] == line
    assert _library(text, _record) == answer
    assert _library(text, explain_log) == answer
    log = tmp_path / "log.jsonl"
    log.write_text(text, encoding="utf-8")
    store = str(tmp_path / "s.sqlite")
    for args in (
        ["replay", str(log)],
        ["record", str(log), "--store", store],
        ["explain", str(log)],
    ):
        result = CliRunner().invoke(main, [*args, "--json"])
        assert result.exit_code == 2, result.output
        document = json.loads(result.stdout)
        assert (document["code"], document["message"], document["line"]) == (
            code,
            answer[1],
            line,
        )
        assert result.stderr == f"mjledger: {answer[1]}\n"


def test_the_match_over_code_after_the_north_round() -> None:
    # A Hong Kong match of sixteen hands won by a non-dealer each time ends with the north
    # round; a seventeenth hand is refused.
    lines = [HK]
    players = ["ana", "bo", "cy", "di"]
    for k in range(16):
        winner = players[(k + 1) % 4]
        lines += [START, json.dumps({"type": "self_drawn", "player": winner, "fan": 3})]
    lines.append(START)
    with pytest.raises(LogError) as caught:
        replay(_log(*lines))
    assert caught.value.code == "match_over"
    assert caught.value.line == len(lines)


def test_store_refusals_have_their_codes(tmp_path: Path) -> None:
    with Ledger(persistence="memory") as ledger:
        match = ledger.start_match("sichuan", ["ana", "bo", "cy", "di"])
        number = ledger.start_hand(match)
        with pytest.raises(MjledgerError) as in_play:
            ledger.start_hand(match)
        assert in_play.value.code == "hand_in_play"
        discard = Discarded(player="ana")
        with pytest.raises(MjledgerError) as stale:
            ledger.record(match, number, discard, expected_version=7)
        assert stale.value.code == "conflict"
    result = CliRunner().invoke(
        main, ["matches", "--store", str(tmp_path / "none.sqlite"), "--json"]
    )
    assert result.exit_code == 2
    assert json.loads(result.stdout)["code"] == "store_unavailable"


@pytest.mark.parametrize(
    "bad",
    [
        "x" * 201,
        *("a" + c + "b" for c in "\x00\x7f\x9f\u2028\u2029\u061c\u200f\u202a\u202e\u2066\u2069"),
    ],
)
@pytest.mark.parametrize("field", ["match", "player", "players", "dealer", "from", "liable"])
def test_an_id_is_refused_alike_by_the_fast_and_the_strict_decoder(bad: str, field: str) -> None:
    """log-format.md's ids, on every decoding path: the same first error (of its line)."""
    line = {
        "match": {
            "type": "match_started",
            "ruleset": "sichuan",
            "players": list("abcd"),
            "match": bad,
        },
        "players": {"type": "match_started", "ruleset": "sichuan", "players": ["a", "b", "c", bad]},
        "player": {"type": "discarded", "player": bad},
        "dealer": {"type": "hand_started", "dealer": bad},
        "from": {"type": "won_on_discard", "player": "a", "from": bad, "fan": 1},
        "liable": {"type": "self_drawn", "player": "a", "fan": 1, "liable": bad},
    }[field]
    data = json.dumps(line, ensure_ascii=False).encode()
    with pytest.raises(FormatError) as strict:
        decode_line(data.decode(), 4)
    with pytest.raises(FormatError) as fast:
        list(decode_numbered([4], [data]))
    assert str(fast.value) == str(strict.value)
    assert (strict.value.line, strict.value.code) == (4, "bad_format")
    assert "200" in str(strict.value) or "U+" in str(strict.value)
    ok = json.dumps(line, ensure_ascii=False).replace(
        json.dumps(bad, ensure_ascii=False)[1:-1], "z" * 200
    )
    assert [e for _, e in decode_numbered([1], [ok.encode()])] == [decode_line(ok)]
