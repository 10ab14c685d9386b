"""``mjledger simulate`` and ``mjledger demo`` from the command line."""

from __future__ import annotations

import json
from pathlib import Path

from click.testing import CliRunner

from mjledger import replay
from mjledger.cli import main
from mjledger.ledger import Ledger
from mjledger.sim.run import simulate


def invoke(*args: str) -> tuple[int, str, str]:
    result = CliRunner().invoke(main, list(args))
    return result.exit_code, result.stdout, result.stderr


def test_simulate_prints_the_log_of_the_library_to_standard_output() -> None:
    code, out, _ = invoke("simulate", "--hands", "3", "--seed", "9")
    assert code == 0
    (match,) = simulate("sichuan", hands=3, seed=9)
    assert out == match.text()
    assert json.loads(out.splitlines()[0])["match"] == "sim-sichuan-9"


def test_simulate_writes_a_file_that_replays(tmp_path: Path) -> None:
    target = tmp_path / "hk.jsonl"
    code, out, _ = invoke(
        "simulate", "--ruleset", "hongkong", "--hands", "6", "--seed", "2", "-o", str(target)
    )
    assert code == 0
    assert out == ""
    result = replay(target.read_text())
    assert result.ruleset == "hongkong"
    assert len(result.hands) == 6


def test_simulate_matches_writes_one_log_per_match_into_a_directory(tmp_path: Path) -> None:
    code, _, _ = invoke("simulate", "--hands", "2", "--matches", "3", "-o", str(tmp_path / "d"))
    assert code == 0
    files = sorted((tmp_path / "d").iterdir())
    assert [f.name for f in files] == [f"sim-sichuan-1-00{n}.jsonl" for n in (1, 2, 3)]
    for path in files:
        assert replay(path.read_text()).match == path.stem


def test_simulate_players_rules_and_stats(tmp_path: Path) -> None:
    code, out, err = invoke(
        "simulate",
        "--hands",
        "4",
        "--players",
        "ming,hua,wei,jing",
        "--rules",
        '{"fan_cap": 3, "base": 2}',
        "--stats",
    )
    assert code == 0
    first = json.loads(out.splitlines()[0])
    assert first["players"] == ["ming", "hua", "wei", "jing"]
    assert first["rules"]["fan_cap"] == 3
    assert first["rules"]["base"] == 2
    assert "4 hands" in err
    assert "Wins by fan" in err
    assert "on a new discard" in " ".join(err.split())  # wins_new_discard (docs/cli.md)


def test_simulate_refuses_bad_options_with_exit_status_2() -> None:
    code, out, err = invoke("simulate", "--rules", '{"fan_cap": 7}')
    assert code == 2
    assert out == ""
    assert err.startswith("mjledger: ")
    assert "fan_cap" in err
    code, _, err = invoke("simulate", "--matches", "2")
    assert code == 2
    assert "directory with -o" in err
    code, _, err = invoke("simulate", "--players", "a,b,c")
    assert code == 2
    assert "four distinct" in err
    code, _, err = invoke("simulate", "--rules", "[1]")
    assert code == 2


def test_demo_records_both_rule_sets_once_and_shows_scores_streaks_and_a_hand(
    tmp_path: Path,
) -> None:
    store = tmp_path / "demo.sqlite"
    code, out, _ = invoke("demo", "--store", str(store), "--hands", "4")
    assert code == 0, out
    assert "Running scores — sichuan" in out
    assert "Running scores — hongkong" in out
    assert "Current dealers" in out
    assert "Step by step" in out
    assert "Running net:" in out
    ledger = Ledger(store)
    try:
        assert ledger.matches() == ["demo-sichuan-2026", "demo-hongkong-2026"]
        before = ledger.recorder.max_notification_id()
    finally:
        ledger.close()
    code, out, _ = invoke("demo", "--store", str(store), "--hands", "4")
    assert code == 0
    assert out.count("already recorded, nothing written") == 2
    ledger = Ledger(store)
    try:
        assert ledger.recorder.max_notification_id() == before
    finally:
        ledger.close()


def test_demo_refuses_a_store_it_cannot_open(tmp_path: Path) -> None:
    code, out, err = invoke("demo", "--store", str(tmp_path / "no" / "such" / "dir.sqlite"))
    assert code == 2
    assert out == ""
    # the real cause, not SQLite's "unable to open database file"
    assert err.startswith("mjledger: no directory ")
    assert err.strip().endswith("no/such/dir.sqlite")


def test_simulate_blood_flow_writes_200_hands_that_replay_cleanly(tmp_path: Path) -> None:
    target = tmp_path / "blood.jsonl"
    code, _, err = invoke(
        "simulate",
        "--ruleset",
        "sichuan",
        "--rules",
        '{"blood_flow": true}',
        "--hands",
        "200",
        "--seed",
        "1",
        "-o",
        str(target),
        "--stats",
    )
    assert code == 0, err
    assert "wins by a player who had already won that hand" in err
    code, out, err = invoke("replay", "--json", str(target))
    assert code == 0, err
    result = json.loads(out)
    assert result["rules"]["blood_flow"] is True
    assert len(result["hands"]) == 200
    assert all(hand["outcome"] in ("won", "void") for hand in result["hands"])
    assert sum(result["totals"].values()) == 0
