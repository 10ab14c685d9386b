"""Hostile output: every text command over ids that hold rich markup, terminal escapes,
bidirectional controls and newlines.

Stores written before ids were bounded may hold any string as a player, match or staff id, so
the store here is built the way such a store may look: a clean store recorded by mjledger, its
rows rewritten with plain sqlite3 (the ids replaced, the stream ids derived again). Every view
must show each such id as literal text: no control byte reaches standard output or standard
error, no markup is interpreted, and no command fails for it.
"""

from __future__ import annotations

import contextlib
import json
import re
import sqlite3
from pathlib import Path
from typing import Any

import pytest
from click.testing import CliRunner

from mjledger.cli import main
from mjledger.store.correction_log import correction_stream, corrections_stream
from mjledger.store.streams import hand_stream, match_stream
from tests.conftest import CONTRACT

LOG = CONTRACT / "hongkong-three-hands.jsonl"
CLEAN_MATCH = "hk-club-night-7"
MATCH = "club[/b]\x1b]0;retitled\x07\u202eevil"
PLAYERS = {
    "mei": "[/oops]<i>",
    "jun": "[bold red]boom[/]",
    "wai": "wai\nmjledger: audit clean, 0 findings",
    "kit": "\x1b[2J\x1b]8;;http://evil.example\x07kit\x1b]8;;\x07\u2066",
}
STAFF = "staff\x1b[31m\r\u202d"
REASON = "upheld [link=http://evil.example]x[/link]\x9b31m\u2028forged"
RENAMED = {CLEAN_MATCH: MATCH, **PLAYERS, "STAFFID": STAFF, "THEREASON": REASON}

# What must never reach a terminal: C0 controls but the newline, DEL, C1 controls, the line and
# paragraph separators, and the bidirectional embeddings, overrides, isolates and marks.
FORBIDDEN = re.compile(
    "[\x00-\x09\x0b-\x1f\x7f-\x9f\u2028\u2029\u202a-\u202e\u2066-\u2069\u200e\u200f\u061c]"
)


def renamed(value: Any) -> Any:
    """``value`` (a stored row's JSON) with every placeholder id replaced, keys too."""
    if isinstance(value, str):
        return RENAMED.get(value, value)
    if isinstance(value, list):
        return [renamed(v) for v in value]
    if isinstance(value, dict):
        return {renamed(k): renamed(v) for k, v in value.items()}
    return value


def run(*args: str, cwd: Path, columns: int = 80) -> tuple[int, str, str]:
    with contextlib.chdir(cwd):
        result = CliRunner(env={"MJLEDGER_STORE": None, "COLUMNS": str(columns)}).invoke(
            main, list(args)
        )
    if result.exception is not None and not isinstance(result.exception, SystemExit):
        raise result.exception
    return result.exit_code, result.stdout, result.stderr


def stream_ids() -> dict[str, str]:
    """Each clean stream id and the one the hostile match id gives it."""
    ids = {
        match_stream(CLEAN_MATCH).hex: match_stream(MATCH).hex,
        corrections_stream(CLEAN_MATCH).hex: corrections_stream(MATCH).hex,
        correction_stream(CLEAN_MATCH, 2, 1).hex: correction_stream(MATCH, 2, 1).hex,
    }
    for number in range(1, 4):
        ids[hand_stream(CLEAN_MATCH, number).hex] = hand_stream(MATCH, number).hex
    return ids


@pytest.fixture(scope="module")
def store(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """A store whose ids hold everything hostile, written with plain sqlite3."""
    folder = tmp_path_factory.mktemp("hostile")
    code, _, err = run("record", str(LOG), "--store", "clean.sqlite", cwd=folder)
    assert code == 0, err
    code, _, err = run(
        "void", CLEAN_MATCH, "2", "--by", "STAFFID", "--reason", "THEREASON",
        "--store", "clean.sqlite", cwd=folder,
    )  # fmt: skip
    assert code == 0, err
    streams = stream_ids()
    clean = sqlite3.connect(folder / "clean.sqlite")
    hostile = sqlite3.connect(folder / "s.sqlite")
    for (sql,) in clean.execute("SELECT sql FROM sqlite_master WHERE type = 'table'"):
        hostile.execute(sql)
    for stream, version, topic, state in clean.execute("SELECT * FROM stored_events"):
        row = json.dumps(renamed(json.loads(state)), ensure_ascii=False).encode()
        hostile.execute(
            "INSERT INTO stored_events VALUES (?, ?, ?, ?)",
            (streams.get(stream, stream), version, topic, row),
        )
    hostile.execute("INSERT INTO ledger_head SELECT * FROM ledger_head")
    hostile.commit()
    hostile.close()
    clean.close()
    return folder


def commands() -> list[tuple[str, ...]]:
    store = ("--store", "s.sqlite")
    hands = [("hand", MATCH, str(n), *store) for n in (1, 2, 3)]
    explained = [
        ("explain", MATCH, str(n), "--lang", lang, *store)
        for n in (1, 2, 3)
        for lang in ("en", "zh")
    ]
    return [
        ("matches", *store),
        ("scores", *store),
        ("streaks", *store),
        ("history", MATCH, *store),
        ("history", "club", *store),
        *hands,
        *explained,
        ("audit", *store),
        ("audit", "--head", *store),
        ("history", MATCH + "\x1b[0m", *store),  # a refusal echoing the id given
        ("hand", MATCH, "9", *store),
        ("explain", MATCH, "9", *store),
    ]


def assert_inert(out: str, where: str) -> None:
    bad = FORBIDDEN.search(out)
    assert bad is None, f"{where}: {bad.group()!r} reached the terminal: {out!r}"
    assert not any(line.startswith("mjledger: audit clean") for line in out.splitlines()), out


@pytest.mark.parametrize("columns", [80, 200])
@pytest.mark.parametrize("args", commands(), ids=lambda args: args[0])
def test_no_control_byte_reaches_the_terminal(
    store: Path, args: tuple[str, ...], columns: int
) -> None:
    code, out, err = run(*args, cwd=store, columns=columns)
    assert code in (0, 1, 2), err
    assert_inert(out, "stdout")
    assert_inert(err, "stderr")
    if code == 2:
        assert out == ""
        assert err.count("\n") == 1, err


@pytest.mark.parametrize(
    "args",
    [("scores",), ("streaks",), ("matches",), ("history", MATCH), ("hand", MATCH, "1")],
    ids=lambda args: args[0],
)
def test_markup_in_ids_is_shown_as_written(store: Path, args: tuple[str, ...]) -> None:
    code, out, err = run(*args, "--store", "s.sqlite", cwd=store, columns=400)
    assert code == 0, err
    shown = out.replace("\n", " ")
    assert "[bold red]boom[/]" in shown or "[/oops]<i>" in shown, out


def test_staff_names_and_reasons_are_shown_escaped(store: Path) -> None:
    code, out, err = run("history", MATCH, "--store", "s.sqlite", cwd=store, columns=400)
    assert code == 0, err
    assert "staff\\x1b[31m\\r\\u202d" in out
    assert "[link=http://evil.example]x[/link]\\x9b31m\\u2028forged" in out


def test_replay_and_its_log_are_inert(store: Path) -> None:
    code, exported, err = run("export", MATCH, "--store", "s.sqlite", cwd=store)
    assert code == 0, err
    (store / "hostile.jsonl").write_text(exported, encoding="utf-8")
    for args in (("replay", "hostile.jsonl"), ("explain", "hostile.jsonl")):
        code, out, err = run(*args, cwd=store)
        assert code in (0, 2), err
        assert_inert(out, "stdout")
        assert_inert(err, "stderr")


def test_the_html_report_holds_no_markup_of_its_ids(store: Path) -> None:
    code, out, err = run("report", MATCH, "--html", "page.html", "--store", "s.sqlite", cwd=store)
    assert code == 0, err
    assert_inert(out, "stdout")
    page = (store / "page.html").read_text(encoding="utf-8")
    assert "<i>" not in page
    assert "&lt;i&gt;" in page
    assert FORBIDDEN.search(page) is None


def test_the_writing_commands_answer_inertly(store: Path, tmp_path: Path) -> None:
    """void and record echo the ids they were given and the ids they stored, inertly."""
    (tmp_path / "s.sqlite").write_bytes((store / "s.sqlite").read_bytes())
    code, out, err = run(
        "void", MATCH, "3", "--by", STAFF, "--reason", REASON, "--store", "s.sqlite", cwd=tmp_path
    )
    assert code in (0, 2), err
    assert_inert(out, "stdout")
    assert_inert(err, "stderr")
    code, exported, err = run("export", MATCH, "--store", "s.sqlite", cwd=tmp_path)
    (tmp_path / "hostile.jsonl").write_text(exported, encoding="utf-8")
    code, out, err = run("record", "hostile.jsonl", "--store", "again.sqlite", cwd=tmp_path)
    assert code in (0, 2), err
    assert_inert(out, "stdout")
    assert_inert(err, "stderr")
    code, out, err = run(
        "simulate", "--hands", "2", "--players", "[b]a[/b],b\x1b[2J,c\u202e,d\nx", "--stats",
        cwd=tmp_path,
    )  # fmt: skip
    assert code in (0, 2), err
    assert_inert(err, "stderr")
