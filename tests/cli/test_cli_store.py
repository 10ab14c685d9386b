"""The store commands end to end, as a backend's operator runs them: record, scores, streaks,
history, hand, export, project --rebuild, all with --store. They run in process (click's
runner, in the test's directory); one smoke test per command runs it as its own process."""

from __future__ import annotations

import contextlib
import json
import os
import sqlite3
import subprocess
import sys
from pathlib import Path

import pytest
from click.testing import CliRunner

from mjledger import replay
from mjledger.cli import main
from tests.conftest import CONTRACT, EXAMPLES
from tests.store_logs import sichuan_match

HK = EXAMPLES / "hongkong-match.jsonl"
SC = EXAMPLES / "sichuan-match.jsonl"
SEED = CONTRACT / "hongkong-three-hands.jsonl"
HK_ID = "hk-tsimshatsui-t3-2026-12-05"
SC_ID = "chengdu-teahouse-t12-2026-12-06"


def mj(
    *args: str | Path, cwd: Path, stdin: str | bytes | None = None
) -> subprocess.CompletedProcess[bytes]:
    """Run ``mjledger ARGS`` in process, in ``cwd``, without ``$MJLEDGER_STORE``."""
    with contextlib.chdir(cwd):
        result = CliRunner(env={"MJLEDGER_STORE": None}).invoke(
            main, [str(a) for a in args], input=stdin
        )
    if result.exception is not None and not isinstance(result.exception, SystemExit):
        raise result.exception
    return subprocess.CompletedProcess(
        ["mjledger", *map(str, args)], result.exit_code, result.stdout_bytes, result.stderr_bytes
    )


def mj_process(
    *args: str | Path, cwd: Path, stdin: str | None = None, raw: bytes | None = None
) -> subprocess.CompletedProcess[bytes]:
    """Run ``python -m mjledger ARGS`` as its own process (standard input a pipe)."""
    env = {k: v for k, v in os.environ.items() if k != "MJLEDGER_STORE"}
    return subprocess.run(
        [sys.executable, "-m", "mjledger", *map(str, args)],
        cwd=cwd,
        input=stdin.encode("utf-8") if stdin is not None else raw,
        capture_output=True,
        env=env,
        timeout=120,
    )


def ok(*args: str | Path, cwd: Path, stdin: str | None = None) -> str:
    done = mj(*args, cwd=cwd, stdin=stdin)
    assert done.returncode == 0, done.stderr.decode()
    assert done.stderr == b""
    return done.stdout.decode("utf-8")


def refused(*args: str | Path, cwd: Path, stdin: str | None = None) -> str:
    done = mj(*args, cwd=cwd, stdin=stdin)
    assert done.returncode == 2, (done.stdout, done.stderr)
    err = done.stderr.decode("utf-8")
    assert err.endswith("\n")
    assert err.count("\n") == 1, err  # one line, no traceback
    if "--json" in args:  # the refusal as data too (issue 22)
        refusal = json.loads(done.stdout)
        assert refusal["message"] == err.removeprefix("mjledger: ").rstrip("\n")
    else:
        assert done.stdout == b""
    return err


def stored_rows(path: Path) -> int:
    with sqlite3.connect(path) as db:
        (n,) = db.execute("SELECT COUNT(*) FROM stored_events").fetchone()
    return int(n)


@pytest.fixture(scope="module")
def recorded(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """A store holding the two example matches and the seed example, recorded by the CLI."""
    cwd = tmp_path_factory.mktemp("cli-store")
    (cwd / "tmp").mkdir()
    for log in (HK, SC, SEED):
        out = ok("record", log, "--store", "tmp/store.sqlite", cwd=cwd)
        assert out.startswith("recorded: match ")
        assert "match id assigned" not in out
    return cwd


def test_record_prints_the_match_and_re_recording_is_a_no_op(tmp_path: Path) -> None:
    out = ok("record", HK, "--store", "s.sqlite", cwd=tmp_path)
    assert out.splitlines() == [
        f"recorded: match {HK_ID} (16 hands, 184 events written) in s.sqlite"
    ]
    rows = stored_rows(tmp_path / "s.sqlite")
    again = ok("record", HK, "--store", "s.sqlite", cwd=tmp_path)
    assert again.startswith(f"already recorded: match {HK_ID} (0 hands, 0 events")
    assert stored_rows(tmp_path / "s.sqlite") == rows
    # a log continuing the stored one
    text = SC.read_text(encoding="utf-8")
    head = "".join(text.splitlines(keepends=True)[:40])
    ok("record", "-", "--store", "s.sqlite", cwd=tmp_path, stdin=head)
    continued = ok("record", SC, "--store", "s.sqlite", cwd=tmp_path)
    assert continued.startswith(f"continued: match {SC_ID} (")
    exported = ok("export", SC_ID, "--store", "s.sqlite", cwd=tmp_path)
    assert replay(exported).to_json() == replay(text).to_json()


def test_a_log_without_an_id_gets_one_from_its_content_and_records_once(tmp_path: Path) -> None:
    text = sichuan_match(3, seed=7, match_id=None)
    prefix = "match id derived from the log's content: "
    out = ok("record", "-", "--store", "s.sqlite", cwd=tmp_path, stdin=text).splitlines()
    assert out[0].startswith(prefix)
    match = out[0].removeprefix(prefix).split(" ")[0]
    assert match.startswith("m-")
    assert out[1].startswith(f"recorded: match {match} (3 hands")
    # the same log again is the same match: nothing is stored twice, scores are not doubled
    again = ok("record", "-", "--store", "s.sqlite", cwd=tmp_path, stdin=text).splitlines()
    assert again[0] == out[0]
    assert again[1].startswith(f"already recorded: match {match} (0 hands, 0 events")
    scores = json.loads(ok("scores", "--json", "--store", "s.sqlite", cwd=tmp_path))
    assert scores["matches"] == {match: replay(text).totals()}
    # blank lines and key order are not content; another log is another match
    reordered = "\n\n".join(
        json.dumps(dict(reversed(json.loads(line).items()))) for line in text.splitlines()
    )
    same = ok("record", "-", "--store", "s.sqlite", cwd=tmp_path, stdin=reordered)
    assert f"already recorded: match {match} " in same
    other = ok(
        "record",
        "-",
        "--store",
        "s.sqlite",
        cwd=tmp_path,
        stdin=sichuan_match(3, seed=8, match_id=None),
    )
    assert match not in other
    # export writes the id into match_started; recording the export changes nothing
    exported = ok("export", match, "--store", "s.sqlite", cwd=tmp_path)
    assert json.loads(exported.splitlines()[0])["match"] == match
    assert ok("record", "-", "--store", "s.sqlite", cwd=tmp_path, stdin=exported).startswith(
        f"already recorded: match {match} "
    )
    got = replay(exported).to_json()
    want = replay(text).to_json()
    assert got["match"] == match
    assert {k: v for k, v in got.items() if k != "match"} == {
        k: v for k, v in want.items() if k != "match"
    }


def test_the_default_store_and_the_env_var(tmp_path: Path) -> None:
    ok("record", SEED, cwd=tmp_path)
    assert (tmp_path / "mjledger.sqlite").exists()
    scores = json.loads(ok("scores", "--json", cwd=tmp_path))
    assert scores["matches"] == {"hk-club-night-7": replay(SEED.read_text()).totals()}
    env = {**os.environ, "MJLEDGER_STORE": str(tmp_path / "env.sqlite")}
    done = subprocess.run(
        [sys.executable, "-m", "mjledger", "record", str(HK)],
        cwd=tmp_path,
        capture_output=True,
        env=env,
        check=True,
    )
    assert b"env.sqlite" in done.stdout
    assert (tmp_path / "env.sqlite").exists()
    assert json.loads(ok("scores", "--json", "--store", "env.sqlite", cwd=tmp_path))["matches"] == {
        HK_ID: replay(HK.read_text()).totals()
    }


def test_scores_json(recorded: Path) -> None:
    out = json.loads(ok("scores", "--json", "--store", "tmp/store.sqlite", cwd=recorded))
    hk, sc, seed = (replay(p.read_text(encoding="utf-8")) for p in (HK, SC, SEED))
    seed_id = "hk-club-night-7"
    assert out["matches"] == {HK_ID: hk.totals(), SC_ID: sc.totals(), seed_id: seed.totals()}
    assert list(out["matches"]) == [HK_ID, SC_ID, "hk-club-night-7"]
    hongkong: dict[str, dict[str, int]] = {}
    for result in (hk, seed):
        for player, amount in result.totals().items():
            entry = hongkong.setdefault(player, {"total": 0, "matches": 0})
            entry["total"] += amount
            entry["matches"] += 1
    assert out["players"]["hongkong"] == hongkong
    assert out["players"]["sichuan"] == {
        p: {"total": a, "matches": 1} for p, a in sc.totals().items()
    }
    # the human form names every player
    text = ok("scores", "--store", "tmp/store.sqlite", cwd=recorded)
    for player in [*hk.players, *sc.players]:
        assert player in text


def test_streaks_json(recorded: Path) -> None:
    out = json.loads(ok("streaks", "--json", "--store", "tmp/store.sqlite", cwd=recorded))
    expected_current = []
    longest: dict[str, int] = {}
    for path in (HK, SC, SEED):
        result = replay(path.read_text(encoding="utf-8")).to_json()
        last = result["hands"][-1]
        expected_current.append(
            {
                "match": result["match"],
                "hand": last["number"],
                "dealer": last["dealer"],
                "streak": last["dealer_streak"] + 1,
                "outcome": last["outcome"],
                "next_dealer": last["next_dealer"],
            }
        )
        for h in result["hands"]:
            longest[h["dealer"]] = max(longest.get(h["dealer"], 0), h["dealer_streak"] + 1)
    assert out["matches"] == expected_current
    assert out["longest"] == longest
    assert ok("streaks", "--store", "tmp/store.sqlite", cwd=recorded).strip()


@pytest.mark.parametrize(("path", "match"), [(HK, HK_ID), (SC, SC_ID), (SEED, "hk-club-night-7")])
def test_history_json(recorded: Path, path: Path, match: str) -> None:
    out = json.loads(ok("history", match, "--json", "--store", "tmp/store.sqlite", cwd=recorded))
    hands = replay(path.read_text(encoding="utf-8")).to_json()["hands"]
    assert out == [{k: v for k, v in h.items() if k != "transfers"} for h in hands]
    assert ok("history", match, "--store", "tmp/store.sqlite", cwd=recorded).strip()


@pytest.mark.parametrize(("match", "numbers"), [(HK_ID, [1, 16]), (SC_ID, [7])])
def test_hand_json_is_that_hands_entry_in_the_replay_of_the_export(
    recorded: Path, match: str, numbers: list[int]
) -> None:
    exported = ok("export", match, "--store", "tmp/store.sqlite", cwd=recorded)
    log = recorded / f"{match}.jsonl"
    log.write_text(exported, encoding="utf-8")
    replayed = json.loads(ok("replay", log, "--json", cwd=recorded))
    for n in numbers:
        hand = json.loads(
            ok("hand", match, str(n), "--json", "--store", "tmp/store.sqlite", cwd=recorded)
        )
        assert hand == replayed["hands"][n - 1]
    # the human form too
    assert ok("hand", match, "1", "--store", "tmp/store.sqlite", cwd=recorded).strip()


@pytest.mark.parametrize(("path", "match"), [(HK, HK_ID), (SC, SC_ID), (SEED, "hk-club-night-7")])
def test_export_is_a_canonical_log_that_replays_the_same(
    recorded: Path, path: Path, match: str
) -> None:
    exported = ok("export", match, "--store", "tmp/store.sqlite", cwd=recorded)
    assert exported.endswith("\n")
    assert "\n\n" not in exported
    lines = exported.splitlines()
    assert all(isinstance(json.loads(line), dict) for line in lines)
    assert json.loads(lines[0])["type"] == "match_started"
    assert replay(exported).to_json() == replay(path.read_text(encoding="utf-8")).to_json()
    # the export records as the very same match
    log = recorded / f"export-{match}.jsonl"
    log.write_text(exported, encoding="utf-8")
    again = ok("record", log, "--store", "tmp/store.sqlite", cwd=recorded)
    assert again.startswith(f"already recorded: match {match}")


def test_project_catch_up_and_rebuild(recorded: Path) -> None:
    rows = stored_rows(recorded / "tmp" / "store.sqlite")
    before = {
        cmd: ok(cmd, "--json", "--store", "tmp/store.sqlite", cwd=recorded)
        for cmd in ("scores", "streaks")
    }
    out = ok("project", "--store", "tmp/store.sqlite", cwd=recorded)
    assert out.strip() == f"caught up: 0 events applied, at {rows}"
    out = ok("project", "--rebuild", "--store", "tmp/store.sqlite", cwd=recorded)
    assert out.strip() == f"rebuilt: {rows} events applied, at {rows}"
    after = {
        cmd: ok(cmd, "--json", "--store", "tmp/store.sqlite", cwd=recorded)
        for cmd in ("scores", "streaks")
    }
    assert after == before
    # the views live beside the store, with a derived name
    assert (recorded / "tmp" / "store.views.sqlite").exists()
    # rebuilding after the views file was lost
    (recorded / "tmp" / "store.views.sqlite").unlink()
    for extra in ("-wal", "-shm"):
        (recorded / "tmp" / f"store.views.sqlite{extra}").unlink(missing_ok=True)
    out = ok("project", "--store", "tmp/store.sqlite", cwd=recorded)
    assert out.strip() == f"caught up: {rows} events applied, at {rows}"
    assert ok("scores", "--json", "--store", "tmp/store.sqlite", cwd=recorded) == before["scores"]


def test_a_rejected_log_exits_2_with_one_line_and_records_nothing(tmp_path: Path) -> None:
    lines = SC.read_text(encoding="utf-8").splitlines(keepends=True)
    bad = "".join(lines[:30]) + '{"type": "discarded", "player": "nobody"}\n' + "".join(lines[30:])
    err = refused("record", "-", "--store", "s.sqlite", cwd=tmp_path, stdin=bad)
    assert err.startswith("mjledger: ")
    assert "line 31" in err
    assert "discarded" in err
    if (tmp_path / "s.sqlite").exists():
        assert stored_rows(tmp_path / "s.sqlite") == 0
    # with a store already holding a match, nothing more is written either
    ok("record", SEED, "--store", "s.sqlite", cwd=tmp_path)
    rows = stored_rows(tmp_path / "s.sqlite")
    refused("record", "-", "--store", "s.sqlite", cwd=tmp_path, stdin=bad)
    refused("record", "-", "--store", "s.sqlite", cwd=tmp_path, stdin="{broken\n")
    refused("record", "-", "--store", "s.sqlite", cwd=tmp_path, stdin="")
    refused("record", EXAMPLES / "disputed-hand.jsonl", "--store", "s.sqlite", cwd=tmp_path)
    assert stored_rows(tmp_path / "s.sqlite") == rows
    scores = json.loads(ok("scores", "--json", "--store", "s.sqlite", cwd=tmp_path))
    assert list(scores["matches"]) == ["hk-club-night-7"]
    # invalid UTF-8 names its line
    raw = subprocess.run(
        [sys.executable, "-m", "mjledger", "record", "-", "--store", "s.sqlite"],
        cwd=tmp_path,
        input=SEED.read_bytes() + b'{"type": "discarded", "player": "\xff"}\n',
        capture_output=True,
    )
    assert raw.returncode == 2
    assert raw.stderr.decode().count("\n") == 1
    assert stored_rows(tmp_path / "s.sqlite") == rows


def test_a_conflicting_log_exits_2_and_writes_nothing(tmp_path: Path) -> None:
    ok("record", SEED, "--store", "s.sqlite", cwd=tmp_path)
    rows = stored_rows(tmp_path / "s.sqlite")
    lines = SEED.read_text(encoding="utf-8").splitlines(keepends=True)
    head = json.loads(lines[0])
    head["rules"] = {**head.get("rules", {}), "points_per_unit": 9}
    err = refused(
        "record", "-", "--store", "s.sqlite", cwd=tmp_path,
        stdin=json.dumps(head) + "\n" + "".join(lines[1:]),
    )  # fmt: skip
    assert "hk-club-night-7" in err
    assert stored_rows(tmp_path / "s.sqlite") == rows


@pytest.mark.parametrize(
    "args",
    [
        ("history", "no-such-match", "--json"),
        ("hand", "no-such-match", "1", "--json"),
        ("export", "no-such-match"),
    ],
)
def test_an_unknown_match_exits_2_with_a_clear_message(recorded: Path, args: tuple[str]) -> None:
    err = refused(*args, "--store", "tmp/store.sqlite", cwd=recorded)
    assert "no-such-match" in err
    assert "no match" in err


def test_an_unknown_hand_exits_2(recorded: Path) -> None:
    err = refused("hand", HK_ID, "17", "--store", "tmp/store.sqlite", cwd=recorded)
    assert HK_ID in err
    assert "17" in err
    done = mj("hand", HK_ID, "0", "--store", "tmp/store.sqlite", cwd=recorded)
    assert done.returncode == 2


@pytest.mark.parametrize(
    "args",
    [
        ("scores", "--json"),
        ("streaks",),
        ("history", HK_ID),
        ("hand", HK_ID, "1", "--json"),
        ("export", HK_ID),
        ("project", "--rebuild"),
    ],
)
def test_a_missing_store_exits_2_for_read_commands(tmp_path: Path, args: tuple[str]) -> None:
    err = refused(*args, "--store", "missing.sqlite", cwd=tmp_path)
    assert "missing.sqlite" in err
    assert not (tmp_path / "missing.sqlite").exists()
    assert not (tmp_path / "missing.views.sqlite").exists()


def test_a_store_that_cannot_be_opened_exits_2(tmp_path: Path) -> None:
    (tmp_path / "text.sqlite").write_text("not a database\n")
    err = refused("scores", "--store", "text.sqlite", cwd=tmp_path)
    assert "text.sqlite" in err
    err = refused("record", SEED, "--store", "no/such/dir/s.sqlite", cwd=tmp_path)
    assert "no/such/dir/s.sqlite" in err


@pytest.mark.slow
@pytest.mark.parametrize(
    ("args", "expect"),
    [
        (("record", SEED, "--store", "s.sqlite"), "hk-club-night-7"),
        (("scores", "--store", "s.sqlite"), "hk-club-night-7"),
        (("streaks", "--store", "s.sqlite"), "hk-club-night-7"),
        (("history", "hk-club-night-7", "--store", "s.sqlite"), "won"),
        (("hand", "hk-club-night-7", "1", "--store", "s.sqlite"), "win on discard"),
        (("export", "hk-club-night-7", "--store", "s.sqlite"), "match_started"),
        (("project", "--rebuild", "--store", "s.sqlite"), ""),
    ],
    ids=lambda v: v[0] if isinstance(v, tuple) else None,
)
def test_each_store_command_runs_as_its_own_process(
    tmp_path: Path, args: tuple[str | Path, ...], expect: str
) -> None:
    ok("record", SEED, "--store", "s.sqlite", cwd=tmp_path)
    done = mj_process(*args, cwd=tmp_path)
    assert done.returncode == 0, done.stderr.decode()
    assert expect in done.stdout.decode("utf-8")
