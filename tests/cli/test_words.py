"""One word for each thing on screen: a void suit, a hand nobody won and a hand annulled by
staff are three different words; house rules read as the log writes them (`true`); a match's
state reads as its JSON says it."""

from __future__ import annotations

import json
from pathlib import Path

from tests.cli.test_cli_store import HK, HK_ID, SC, SEED, ok

STORE = ("--store", "s.sqlite")


def test_a_hand_nobody_won_is_not_called_void(tmp_path: Path) -> None:
    replayed = ok("replay", str(SEED), cwd=tmp_path)
    assert "no winner (wall exhausted)" in replayed
    ok("record", SEED, *STORE, cwd=tmp_path)
    history = ok("history", "hk-club-night-7", *STORE, cwd=tmp_path)
    explained = ok("explain", "hk-club-night-7", "3", *STORE, cwd=tmp_path)
    assert "no winner" in history
    assert "No winner" in explained
    for text in (replayed, history, explained):
        assert "void" not in text.lower(), text


def test_a_hand_annulled_by_staff_says_so(tmp_path: Path) -> None:
    ok("record", HK, *STORE, cwd=tmp_path)
    ok("void", HK_ID, "1", "--reason", "wrong tiles", "--by", "staff-9", *STORE, cwd=tmp_path)
    for args in (("history", HK_ID), ("hand", HK_ID, "1"), ("explain", HK_ID, "1")):
        text = ok(*args, *STORE, cwd=tmp_path)
        assert "annulled" in text.lower(), text
        assert "void" not in text.lower().replace("voided:", ""), text


def test_a_void_suit_keeps_its_word(tmp_path: Path) -> None:
    explained = ok("explain", str(SC), "--hand", "1", cwd=tmp_path)
    assert " void." in explained  # "ming declares s void."


def test_house_rules_read_as_the_log_writes_them(tmp_path: Path) -> None:
    text = ok("replay", str(SC), cwd=tmp_path)
    assert "kong_money_passing=true" in text
    assert "True" not in text


def test_a_matchs_state_reads_as_its_json(tmp_path: Path) -> None:
    ok("record", HK, *STORE, cwd=tmp_path)
    ok("record", SEED, *STORE, cwd=tmp_path)
    listed = json.loads(ok("matches", "--json", *STORE, cwd=tmp_path))
    shown = ok("matches", *STORE, cwd=tmp_path)
    for m in listed:
        assert m["state"] in shown
    assert "open" not in shown
    assert "playing" not in shown
