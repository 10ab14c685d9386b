"""The documents tell the truth: their Python examples run and print what the page shows, and
the command-line sessions they show (``$ mjledger …`` in ``console`` blocks) give the output and
exit status shown.

A line ``…`` in a shown output stands for any number of lines. A session runs in order, in one
temporary directory holding a copy of ``examples/``, so a page's later commands see its earlier
ones' store. What cannot be reproduced here (a PostgreSQL server, the clock, an internal error,
files the page does not give, minutes of simulation) is listed in ``SKIPPED`` with the reason.
"""

from __future__ import annotations

import contextlib
import io
import re
import shlex
import shutil
from collections.abc import Iterator
from pathlib import Path

import pytest
from click.testing import CliRunner

from mjledger import LogError, replay_bytes
from mjledger.cli import main
from mjledger.fan_hongkong import HONGKONG_TABLE
from mjledger.fan_sichuan import SICHUAN_TABLE
from mjledger.tiles.fan import PatternRow
from tests.conftest import ROOT

FENCE = re.compile(r"^```(\w*)\n(.*?)^```", re.MULTILINE | re.DOTALL)
ANY_LINES = "…"

# (page, start of the command): why it is not run here.
SKIPPED: dict[tuple[str, str], str] = {
    ("docs/cli.md", "mjledger replay match.jsonl"): "an internal error, for illustration",
    ("docs/cli.md", "mjledger simulate --hands 10000"): "ten thousand hands: too slow here",
    ("docs/cli.md", "mjledger replay sichuan.jsonl"): "the log of the ten thousand hands",
    ("docs/cli.md", "mjledger matches"): "shows when each match was recorded",
    ("docs/cli.md", "mjledger project --follow"): "a PostgreSQL server",
    ("docs/cli.md", "mjledger correct"): "the files are not given on the page",
    ("docs/cli.md", "mjledger audit"): "the store head covers the recording times",
    (
        "docs/cli.md",
        "mjledger export hk-tsimshatsui-t3-2026-12-05 --store demo.sqlite | mjledger",
    ): ("a pipe into jq"),
    ("docs/tiles.md", "mjledger replay cannon-bad.jsonl"): "the file is described, not given",
}
PAGES = ["README.md", "docs/library.md", "docs/store.md", "docs/tiles.md", "docs/cli.md"]
PAGES += ["docs/disputes.md", "docs/log-format.md"]


def blocks(page: str, language: str) -> Iterator[tuple[int, str, str | None]]:
    """Each ``language`` block of ``page``: its line, its text, and the ``text`` block that
    directly follows it (its output), if any."""
    text = (ROOT / page).read_text(encoding="utf-8")
    found = list(FENCE.finditer(text))
    for i, block in enumerate(found):
        if block.group(1) != language:
            continue
        output = None
        if i + 1 < len(found) and found[i + 1].group(1) == "text":
            between = text[block.end() : found[i + 1].start()].strip()
            if between in ("", "prints"):
                output = found[i + 1].group(2)
        yield text.count("\n", 0, block.start()) + 1, block.group(2), output


def shown_matches(shown: str, actual: str) -> bool:
    """``actual`` is what ``shown`` shows (trailing blanks aside), ``…`` lines being any lines."""
    parts = re.split(r"^…\n", shown.rstrip() + "\n", flags=re.MULTILINE)
    pattern = ".*?".join(re.escape("\n".join(x.rstrip() for x in p.splitlines())) for p in parts)
    got = "\n".join(line.rstrip() for line in actual.rstrip().splitlines())
    return re.fullmatch(pattern.rstrip("\n"), got, flags=re.DOTALL) is not None


@pytest.fixture(scope="module")
def recorded(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """A directory with ``examples/`` and ``mjledger.sqlite`` holding both example matches, as
    store.md's examples assume."""
    where = tmp_path_factory.mktemp("recorded")
    shutil.copytree(ROOT / "examples", where / "examples")
    with contextlib.chdir(where):
        for log in ("hongkong-match.jsonl", "sichuan-match.jsonl"):
            result = CliRunner().invoke(main, ["record", f"examples/{log}"], env=ENV)
            assert result.exit_code == 0, result.output
    return where


# A terminal 120 columns wide, as the pages show; no store or key named by the environment.
ENV = {"COLUMNS": "120", "MJLEDGER_STORE": None, "MJLEDGER_SIGNING_KEY": None}


PYTHON = [
    pytest.param(page, line, code, output, id=f"{page}:{line}")
    for page in PAGES
    for line, code, output in blocks(page, "python")
    if "jsonschema" not in code  # a library mjledger does not install
]


@pytest.mark.parametrize(("page", "line", "code", "output"), PYTHON)
def test_python_example_prints_what_the_page_shows(
    page: str,
    line: int,
    code: str,
    output: str | None,
    recorded: Path,
    tmp_path: Path,
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    where = tmp_path / "run"
    shutil.copytree(recorded, where)
    monkeypatch.chdir(where)
    monkeypatch.delenv("MJLEDGER_STORE", raising=False)
    printed = io.StringIO()
    with contextlib.redirect_stdout(printed):
        exec(compile(code, f"{page}:{line}", "exec"), {"__name__": "__docs__"})
    if output is not None:
        assert shown_matches(output, printed.getvalue()), printed.getvalue()


def sessions(page: str) -> Iterator[tuple[int, str, list[str]]]:
    """Each ``$ command`` of the page's ``console`` blocks, with the lines shown after it."""
    for line, text, _ in blocks(page, "console"):
        commands: list[tuple[int, str, list[str]]] = []
        for offset, row in enumerate(text.splitlines(), 1):
            if row.startswith("$ "):
                commands.append((line + offset, row[2:], []))
            elif commands:
                commands[-1][2].append(row)
        yield from commands


def skipped(page: str, command: str) -> str | None:
    for (where, start), why in SKIPPED.items():
        if where == page and command.startswith(start):
            return why
    return None


CONSOLE_PAGES = ["docs/cli.md", "docs/tiles.md", "docs/disputes.md"]


@pytest.mark.parametrize("page", CONSOLE_PAGES)
def test_console_sessions_give_what_the_page_shows(
    page: str, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    shutil.copytree(ROOT / "examples", tmp_path / "examples")
    (tmp_path / "bad.jsonl").write_text(BAD_LOG, encoding="utf-8")
    monkeypatch.chdir(tmp_path)
    status: int | None = None
    checked = 0
    for line, command, shown in sessions(page):
        where = f"{page}:{line}: $ {command}"
        if command == "echo $?":
            if status is not None:  # None: the command before it was not run
                assert [str(status)] == shown, where
            continue
        if command.startswith("#") or skipped(page, command) or not_mjledger(command):
            status = None
            continue
        status, output = run(command)
        assert shown_matches("\n".join(shown), output), f"{where}\n{output}"
        checked += 1
    assert checked >= 1


def not_mjledger(command: str) -> bool:
    """A command that is not mjledger (``ls``): shown for the reader, not run here."""
    words = shlex.split(command)
    words = [w for w in words if not re.fullmatch(r"[A-Z_]+=.*", w)]
    return not words or words[0] != "mjledger"


def run(command: str) -> tuple[int, str]:
    """Run one ``mjledger …`` command line in-process: ``VAR=value`` prefixes become its
    environment, and a ``| head -n N`` or ``| sed -n A,Bp`` after it cuts its output."""
    command, _, pipe = command.partition(" | ")
    words = shlex.split(command)
    env = dict(ENV)
    while re.fullmatch(r"[A-Z_]+=.*", words[0]):
        name, _, value = words.pop(0).partition("=")
        env[name] = value
    result = CliRunner().invoke(main, words[1:], env=env, prog_name="mjledger")
    lines = result.output.splitlines()
    if pipe:
        cut = re.fullmatch(r"head -n (\d+)|sed -n (\d+),(\d+)p", pipe.strip())
        assert cut is not None, f"unsupported pipe: {pipe}"
        if cut.group(1):
            lines = lines[: int(cut.group(1))]
        else:
            lines = lines[int(cut.group(2)) - 1 : int(cut.group(3))]
    return result.exit_code, "\n".join(lines)


# cli.md's rejected log (the one of library.md's "Errors").
BAD_LOG = "\n".join(
    [
        '{"type": "match_started", "ruleset": "hongkong", "players": ["ana", "bo", "cy", "di"]}',
        '{"type": "hand_started"}',
        '{"type": "discarded", "player": "ana"}',
        '{"type": "discarded", "player": "bo"}',
        '{"type": "won_on_discard", "player": "cy", "from": "bo", "fan": 2}',
    ]
)


def test_ellipsis_stands_for_any_lines() -> None:
    assert shown_matches("a\n…\nd", "a\nb\nc\nd")
    assert shown_matches("a\n…\nd", "a\nd")
    assert not shown_matches("a\n…\nd", "a\nb\nc")
    assert not shown_matches("a\nb", "a\nc")
    assert shown_matches("a  \nb", "a\nb  \n")


@pytest.mark.parametrize(
    ("title", "table"),
    [("## The Sichuan table", SICHUAN_TABLE), ("## The Hong Kong table", HONGKONG_TABLE)],
    ids=["sichuan", "hongkong"],
)
def test_tiles_md_lists_each_fan_table_row_as_the_code_has_it(
    title: str, table: tuple[PatternRow, ...]
) -> None:
    text = (ROOT / "docs/tiles.md").read_text(encoding="utf-8")
    start = text.index(title)
    section = text[start : text.index("\n## ", start + len(title))]
    shown = []
    for row in section.splitlines():
        if row.startswith("| `"):
            code, name, fan, replaces, option = (cell.strip() for cell in row.split("|")[1:6])
            shown.append(
                (code.strip("`"), name, fan, set(re.findall(r"`(\w+)`", replaces)), option)
            )
    wanted = [
        (
            row.code,
            row.name,
            "limit" if row.limit else f"{row.fan} each" if row.per else str(row.fan),
            set(row.replaces),
            f"`{row.option}`" if row.option else "",
        )
        for row in table
    ]
    assert shown == wanted


# log-format.md's table of refusals: a log that gives each message shown ("…" ends a message
# whose rest is not shown).
SC = '{"type": "match_started", "ruleset": "sichuan", "players": ["ana", "bo", "cy", "di"]}'
HK = '{"type": "match_started", "ruleset": "hongkong", "players": ["ana", "bo", "cy", "di"]}'
HAND = '{"type": "hand_started", "dealer": "ana"}'


def hk_with(keys: str) -> str:
    """A Hong Kong ``match_started`` with more keys."""
    return HK[:-1] + ", " + keys + "}"


SELF_DRAWN = '{"type": "self_drawn", "player": "cy", '
REFUSED: list[list[str | bytes]] = [
    [SC, HAND, SELF_DRAWN + '"fan": true}'],
    [SC, HAND, SELF_DRAWN + '"fan": 3.0}'],
    [SC, HAND, SELF_DRAWN + '"fan": "3"}'],
    [SC, HAND, SELF_DRAWN + '"fan": 3, "fan": 4}'],
    [SC, HAND, SELF_DRAWN + '"fan": NaN}'],
    [SC, '{"type": "hand_started""dealer": "ana"}'],
    [SC, HAND, b'{"type": "discarded", "player": "\xff"}'],
    ["[1, 2]"],
    ['{"ruleset": "sichuan"}'],
    [SC, '{"type": "hand_start"}'],
    [SC, HAND, SELF_DRAWN + '"fan": 3, "note": "x"}'],
    [hk_with('"rules": {"fan_cap": 4}')],
    [hk_with('"rules": {"min_fan": 11}')],
    [SC, HAND, '{"type": "self_drawn", "player": "zed", "fan": 3}'],
    [HK, HAND, SELF_DRAWN + '"fan": 3}', '{"type": "discarded", "player": "ana"}'],
    [HK, HAND, '{"type": "void_suit_chosen", "player": "ana", "suit": "p"}'],
    ['{"type": "discarded", "player": "ana"}'],
    [""],
    [hk_with('"rules": {"blood_flow": true}')],
    [hk_with('"rules": {"discard_pays": "half", "points_per_unit": 3}')],
    [SC[:-1] + ', "rules": {"blood_flow_wall": "exempt_winners"}}'],
    [SC[:-1] + ', "rules": {"stakes_leftover": "lowest_seat"}}'],
    [hk_with('"stakes": {"ana": 100, "bo": 100, "cy": 100}')],
    [hk_with('"stakes": {"ana": 100, "bo": 100, "cy": 100, "di": 0}')],
    [HK, HAND, '{"type": "self_drawn", "player": "bo", "fan": 3, "liable": "bo"}'],
    [
        HK,
        HAND,
        '{"type": "discarded", "player": "ana"}',
        '{"type": "self_drawn", "player": "ana", "fan": 3, "first_turn": true}',
    ],
    [
        hk_with('"stakes": {"ana": 8, "bo": 1000, "cy": 1000, "di": 1000}'),
        HAND,
        '{"type": "self_drawn", "player": "bo", "fan": 10}',
        HAND,
    ],
    [
        '{"type": "hand_started", "ruleset": "hongkong", "players": ["ana", "bo", "cy", "di"], '
        '"dealer": "ana", "stakes": {"ana": 1, "bo": 1, "cy": 1, "di": 1}}'
    ],
]


def test_log_format_md_shows_each_refusal_as_mjledger_words_it() -> None:
    text = (ROOT / "docs/log-format.md").read_text(encoding="utf-8")
    start = text.index("More, exactly as mjledger prints them:")
    shown = [
        message
        for row in text[
            start : text.index("\n\n", text.index("| what is wrong", start))
        ].splitlines()[3:]
        for message in re.findall(r"`(line \d+: [^`]*)`", row)
    ]
    given = []
    for lines in REFUSED:
        data = b"\n".join(line if isinstance(line, bytes) else line.encode() for line in lines)
        with pytest.raises(LogError) as refused:
            replay_bytes(data)
        given.append(str(refused.value))
    assert len(shown) == len(given)
    for message, actual in zip(shown, given, strict=True):
        assert actual.startswith(message.removesuffix("…)")), (message, actual)
