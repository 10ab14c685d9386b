"""The store commands in everyday use: listing matches, short ids, readable tables at 80
columns, one wording per thing, labelled progress, JSON for scripts, and plain English."""

from __future__ import annotations

import importlib
import io
import json
import os
from pathlib import Path

import pytest
from click.testing import CliRunner

from mjledger import replay
from mjledger.cli import main
from mjledger.cli.render import TerminalConsole, money, streak_text
from tests.cli.test_cli_store import HK, HK_ID, SC, SC_ID, SEED, ok, refused

SEED_ID = "hk-club-night-7"


@pytest.fixture(scope="module")
def store(tmp_path_factory: pytest.TempPathFactory) -> Path:
    cwd = tmp_path_factory.mktemp("everyday")
    for log in (HK, SC, SEED):
        ok("record", log, "--store", "s.sqlite", cwd=cwd)
    return cwd


def at_80(*args: str, cwd: Path, columns: int = 80) -> str:
    env = {k: v for k, v in os.environ.items() if k != "MJLEDGER_STORE"}
    args = tuple(str(cwd / a) if a.endswith(".sqlite") else a for a in args)
    result = CliRunner().invoke(main, list(args), env={**env, "COLUMNS": str(columns)})
    assert result.exit_code == 0, result.stderr
    return result.stdout


def test_matches_lists_every_match(store: Path) -> None:
    listed = json.loads(ok("matches", "--json", "--store", "s.sqlite", cwd=store))
    assert [m["match"] for m in listed] == [HK_ID, SC_ID, SEED_ID]
    hk = listed[0]
    assert hk["ruleset"] == "hongkong"
    assert hk["players"] == list(replay(HK.read_text(encoding="utf-8")).players)
    assert hk["hands"] == 16
    assert hk["state"] in ("over", "between_hands")
    assert hk["last_recorded"][:4].isdigit()
    assert listed[1]["hands"] == 10
    assert set(hk) == {"match", "ruleset", "players", "hands", "state", "last_recorded"}
    text = at_80("matches", "--store", "s.sqlite", cwd=store, columns=120)
    for m in listed:
        assert m["match"] in text
    # a match with a hand in play
    cwd = store / "open"
    cwd.mkdir(exist_ok=True)
    lines = SEED.read_text(encoding="utf-8").splitlines(keepends=True)
    ok("record", "-", "--store", "o.sqlite", cwd=cwd, stdin="".join(lines[:4]))
    (only,) = json.loads(ok("matches", "--json", "--store", "o.sqlite", cwd=cwd))
    assert only["state"] == "in_play"
    assert only["hands"] == 1


def test_ids_may_be_shortened_to_a_unique_prefix(store: Path) -> None:
    full = ok("history", SC_ID, "--json", "--store", "s.sqlite", cwd=store)
    assert ok("history", "chengdu", "--json", "--store", "s.sqlite", cwd=store) == full
    assert ok("hand", "chengdu", "3", "--json", "--store", "s.sqlite", cwd=store) == ok(
        "hand", SC_ID, "3", "--json", "--store", "s.sqlite", cwd=store
    )
    assert ok("export", "hk-ts", "--store", "s.sqlite", cwd=store) == ok(
        "export", HK_ID, "--store", "s.sqlite", cwd=store
    )
    err = refused("history", "hk", "--store", "s.sqlite", cwd=store)
    assert "'hk' is the start of several matches" in err
    assert HK_ID in err
    assert SEED_ID in err


def test_the_dispute_commands_take_a_shortened_id_too(store: Path, tmp_path: Path) -> None:
    assert ok("explain", "chengdu", "3", "--json", "--store", "s.sqlite", cwd=store) == ok(
        "explain", SC_ID, "3", "--json", "--store", "s.sqlite", cwd=store
    )
    ok("report", "chengdu", "--html", str(tmp_path / "r.html"), "--store", "s.sqlite", cwd=store)
    assert SC_ID in (tmp_path / "r.html").read_text(encoding="utf-8")
    err = refused("void", "hk", "1", "--reason", "r", "--by", "s", "--store", "s.sqlite", cwd=store)
    assert "'hk' is the start of several matches" in err
    # A write through a shortened id names the whole id (on a copy: the store is shared).
    copy = tmp_path / "copy"
    copy.mkdir()
    (copy / "s.sqlite").write_bytes((store / "s.sqlite").read_bytes())
    out = ok(
        "void",
        "chengdu",
        "2",
        "--reason",
        "upheld",
        "--by",
        "staff",
        "--store",
        "s.sqlite",
        cwd=copy,
    )
    assert f"hand 2 of match {SC_ID}" in out


def test_no_match_suggests_near_ids(store: Path) -> None:
    err = refused("export", "chengdu-teahouse-t12-2026-12-60", "--store", "s.sqlite", cwd=store)
    assert err.strip().endswith(f"did you mean '{SC_ID}'?")
    err = refused("history", "zzz", "--store", "s.sqlite", cwd=store)
    assert "did you mean" not in err


def test_history_and_scores_give_each_player_a_column_in_seat_order_at_80_columns(
    store: Path,
) -> None:
    players = replay(SC.read_text(encoding="utf-8")).players  # ming, hua, wei, jing
    text = at_80("history", SC_ID, "--store", "s.sqlite", cwd=store)
    header = next(line for line in text.splitlines() if "hand" in line and "dealer" in line)
    positions = [header.index(f" {p} ") for p in players]
    assert positions == sorted(positions)  # seat order, not alphabetical
    rows = [line for line in text.splitlines() if line.startswith("│")]
    assert len(rows) == 10  # one line per hand: nothing wrapped onto a second row
    assert all(len(line) <= 80 for line in text.splitlines())
    scores = at_80("scores", "--store", "s.sqlite", cwd=store)
    assert f"By match — {', '.join(players)}" in scores
    sc_rows = [line for line in scores.splitlines() if SC_ID in line]
    assert len(sc_rows) == 1
    totals = replay(SC.read_text(encoding="utf-8")).totals()
    assert [int(cell) for cell in sc_rows[0].split("│")[2:6]] == [totals[p] for p in players]
    # JSON keeps each match's players in seat order too
    out = json.loads(ok("scores", "--json", "--store", "s.sqlite", cwd=store))
    assert list(out["matches"][SC_ID]) == list(players)


def test_hand_titles_stand_alone_and_a_hand_nobody_won_says_no_payments(store: Path) -> None:
    text = at_80("hand", HK_ID, "2", "--store", "s.sqlite", cwd=store)
    lines = text.splitlines()
    assert lines[0].startswith("Hand 2 — dealer ")
    assert "no winner" in lines[0]
    assert "no payments" in text
    assert "┏" not in text  # no empty table
    text = at_80("hand", HK_ID, "3", "--store", "s.sqlite", cwd=store)
    assert text.splitlines()[0].startswith("Hand 3 — dealer wing")
    assert text.splitlines()[1].startswith(("kayan", "┏"))  # the table follows the title


def test_one_wording_for_a_dealers_run(store: Path) -> None:
    """A streak is said as the log and explain count it (dealer_streak), in every view."""
    assert [streak_text(n) for n in (0, 1, 2, 11)] == [
        "streak 0",
        "streak 1",
        "streak 2",
        "streak 11",
    ]
    current = json.loads(ok("streaks", "--json", "--store", "s.sqlite", cwd=store))["matches"][0]
    assert current["match"] == HK_ID
    assert current["streak"] > 1  # hands dealt in a row, this one included
    run = streak_text(current["streak"] - 1)
    hand = ok("hand", HK_ID, str(current["hand"]), "--store", "s.sqlite", cwd=store)
    streaks = at_80("streaks", "--store", "s.sqlite", cwd=store)
    explained = ok("explain", HK_ID, str(current["hand"]), "--store", "s.sqlite", cwd=store)
    assert f"({run})" in hand.splitlines()[0]
    assert run in streaks
    assert f"({run})" in explained.splitlines()[0]
    assert "hand in a row" not in hand + streaks


def test_amounts_are_coloured_and_ids_not_highlighted() -> None:
    assert money(5).style == "green"
    assert money(-5).style == "red"
    assert str(money(0)) == "0"
    out = io.StringIO()
    TerminalConsole(file=out, force_terminal=True, color_system="standard").print(
        "match m-2026-12-05 has 16 hands"
    )
    assert "\x1b[" not in out.getvalue()


def test_record_labels_its_phases(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    seen: list[str] = []

    class Recording:
        def __enter__(self):  # type: ignore[no-untyped-def]
            return lambda label, _done, _total: seen.append(label)

        def __exit__(self, *exc: object) -> None:
            return None

    monkeypatch.setattr(importlib.import_module("mjledger.cli.main"), "phases", Recording)
    store = str(tmp_path / "s.sqlite")
    result = CliRunner().invoke(main, ["record", str(HK), "--store", store])
    assert result.exit_code == 0, result.stderr
    phases = list(dict.fromkeys(seen))
    assert phases == ["validating", "recording", "updating read models"]
    seen.clear()
    result = CliRunner().invoke(main, ["project", "--rebuild", "--store", store])
    assert result.exit_code == 0, result.stderr
    assert set(seen) == {"rebuilding read models"}
    seen.clear()
    result = CliRunner().invoke(main, ["replay", str(HK)])
    assert result.exit_code == 0
    assert seen[0] == "replaying"


def test_record_and_project_json(tmp_path: Path) -> None:
    out = json.loads(ok("record", SEED, "--store", "s.sqlite", "--json", cwd=tmp_path))
    assert out == {
        "status": "recorded",
        "match": SEED_ID,
        "id_assigned": False,
        "hands": 3,
        "events": 11,
        "store": "s.sqlite",
        "views_updated": True,
    }
    again = json.loads(ok("record", SEED, "--store", "s.sqlite", "--json", cwd=tmp_path))
    assert again["status"] == "unchanged"
    assert again["events"] == 0
    project = json.loads(ok("project", "--rebuild", "--json", "--store", "s.sqlite", cwd=tmp_path))
    assert project["rebuilt"] is True
    assert project["applied"] == project["position"] > 0


def test_plurals_and_a_conflict_named_by_its_line(tmp_path: Path) -> None:
    lines = SEED.read_text(encoding="utf-8").splitlines(keepends=True)
    one_hand = "".join(lines[:5])
    assert replay(one_hand).to_json()["hands"][0]["outcome"] != "unfinished"
    out = ok("record", "-", "--store", "s.sqlite", cwd=tmp_path, stdin=one_hand)
    assert "(1 hand, 5 events written)" in out
    changed = lines[:]
    changed[2] = json.dumps({"type": "discarded", "player": "kit", "tile": "2p"}) + "\n"
    replay("".join(changed))
    err = refused("record", "-", "--store", "s.sqlite", cwd=tmp_path, stdin="".join(changed))
    assert "line 3 (discarded) differs from the stored match" in err
    assert "version" not in err


def test_evaluate_help_and_limit_hands() -> None:
    help_text = CliRunner().invoke(main, ["--help"]).stdout
    assert "evaluate  A hand's arrangements and fan, or its waits." in help_text
    result = CliRunner().invoke(
        main, ["evaluate", "19m19p19s1234567z", "--ruleset", "hongkong", "--winning-tile", "1m"]
    )
    assert result.exit_code == 0
    total = next(line for line in result.stdout.splitlines() if "total" in line)
    assert "limit" in total
    assert " 1 " not in total
    waits = CliRunner().invoke(main, ["evaluate", "19m19p19s1234567z", "--ruleset", "hongkong"])
    assert "1 limit" not in waits.stdout
    refusal = CliRunner().invoke(main, ["evaluate", "1m", "--melds", "pung:555p"])
    assert refusal.stderr.startswith("mjledger: 1 tile with 1 meld: ")
