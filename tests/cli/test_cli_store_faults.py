"""The store commands when the store is not what it should be: not a store, in memory,
damaged, unreadable in part, in a directory that cannot be written, or raced by two writers.

Every refusal is one line naming the file, exit status 2, nothing written; derived data (the
views) is rebuilt rather than refused; and the exit status tells the truth about what was
stored.
"""

from __future__ import annotations

import contextlib
import json
import os
import pwd
import shutil
import sqlite3
import subprocess
import sys
import tempfile
from collections.abc import Iterator
from pathlib import Path

import pytest
from click.testing import CliRunner

import mjledger.store.views  # noqa: F401 - loaded before a fork drops privileges
from mjledger import replay
from mjledger.cli import main
from mjledger.ledger import hand_stream
from tests.cli.test_cli_store import HK, HK_ID, SC, SC_ID, SEED, mj, ok, refused, stored_rows
from tests.conftest import EXAMPLES
from tests.store_logs import sichuan_match

SEED_ID = "hk-club-night-7"
BAD = SEED.read_text(encoding="utf-8") + '{"type": "discarded", "player": "nobody"}\n'


def one_line_naming(err: str, name: str) -> None:
    assert err.startswith("mjledger: ")
    assert err.count("\n") == 1, err
    assert name in err, err


def checkpoint(path: Path) -> None:
    """Fold the write-ahead log into the file, so damage to the file is damage to the data."""
    db = sqlite3.connect(path)
    db.execute("PRAGMA wal_checkpoint(TRUNCATE)")
    db.close()


# --- what --store may name -------------------------------------------------------------------


def test_a_refused_record_into_a_new_store_leaves_no_file(tmp_path: Path) -> None:
    err = refused("record", "-", "--store", "new.sqlite", cwd=tmp_path, stdin=BAD)
    one_line_naming(err, "line 12")
    assert sorted(p.name for p in tmp_path.iterdir()) == []
    # a stand-alone hand (refused for recording) leaves nothing either
    refused("record", EXAMPLES / "disputed-hand.jsonl", "--store", "new.sqlite", cwd=tmp_path)
    assert sorted(p.name for p in tmp_path.iterdir()) == []


def test_files_that_are_not_stores_are_refused_and_left_untouched(tmp_path: Path) -> None:
    ok("record", SEED, "--store", "s.sqlite", cwd=tmp_path)
    other = tmp_path / "other.sqlite"
    db = sqlite3.connect(other)
    db.execute("CREATE TABLE notes (text TEXT)")
    db.commit()
    db.close()
    (tmp_path / "random.bin").write_bytes(os.urandom(5000))
    (tmp_path / "notes.txt").write_text("shopping list\n")
    cases = {
        "s.views.sqlite": "is a views file",
        "other.sqlite": "not a mjledger store",
        "random.bin": "not a mjledger store",
        "notes.txt": "not a mjledger store",
    }
    for name, why in cases.items():
        before = (tmp_path / name).read_bytes()
        for args in (("record", SEED), ("scores",), ("export", SEED_ID), ("project",)):
            err = refused(*args, "--store", name, cwd=tmp_path)
            one_line_naming(err, name)
            assert why in err
        assert (tmp_path / name).read_bytes() == before
    assert not (tmp_path / "other.views.sqlite").exists()


@pytest.mark.parametrize(
    "store",
    [":memory:", "file::memory:", "file::memory:?cache=shared", "file:x.sqlite?mode=memory"],
)
def test_in_memory_stores_are_refused(tmp_path: Path, store: str) -> None:
    for args in (("record", SEED), ("project",), ("scores",)):
        err = refused(*args, "--store", store, cwd=tmp_path)
        assert "in-memory" in err
    assert list(tmp_path.iterdir()) == []


def test_corrections_need_a_store_that_is_there(tmp_path: Path) -> None:
    err = refused(
        "void", SEED_ID, "1", "--reason", "r", "--by", "s", "--store", "none.sqlite", cwd=tmp_path
    )
    assert "no store at none.sqlite" in err
    assert list(tmp_path.iterdir()) == []


def test_unable_to_open_names_the_missing_directory(tmp_path: Path) -> None:
    err = refused("record", SEED, "--store", "no/such/s.sqlite", cwd=tmp_path)
    assert err.strip() == "mjledger: no directory no/such for the store no/such/s.sqlite"
    err = refused("scores", "--store", "no/such/s.sqlite", cwd=tmp_path)
    assert "no directory no/such" in err


# --- damage -----------------------------------------------------------------------------------


def test_a_store_with_damaged_pages_is_one_line_and_status_2(tmp_path: Path) -> None:
    ok("record", HK, "--store", "s.sqlite", cwd=tmp_path)
    store = tmp_path / "s.sqlite"
    checkpoint(store)
    data = bytearray(store.read_bytes())
    page = 4096
    for at in range(page * 2, len(data) - page, page * 3):
        data[at : at + 600] = b"\xa5" * 600  # damage a page header in every third page
    store.write_bytes(bytes(data))
    for extra in ("", "-wal", "-shm"):  # no read models: every command reads the store
        Path(f"{tmp_path}/s.views.sqlite{extra}").unlink(missing_ok=True)
    for args in (("scores",), ("export", HK_ID), ("record", SC), ("history", HK_ID), ("matches",)):
        done = mj(*args, "--store", "s.sqlite", cwd=tmp_path)
        assert done.returncode == 2, (args, done.stderr)
        assert done.stdout == b""
        one_line_naming(done.stderr.decode(), "s.sqlite")
        assert "damaged" in done.stderr.decode() or "malformed" in done.stderr.decode()


def test_a_damaged_views_file_is_rebuilt_and_the_user_told(tmp_path: Path) -> None:
    ok("record", HK, "--store", "s.sqlite", cwd=tmp_path)
    before = ok("scores", "--json", "--store", "s.sqlite", cwd=tmp_path)
    views = tmp_path / "s.views.sqlite"
    for damage in (os.urandom(20000), b"SQLite format 3\x00" + os.urandom(8000)):
        for extra in ("-wal", "-shm"):
            Path(f"{views}{extra}").unlink(missing_ok=True)
        views.write_bytes(damage)
        done = mj("scores", "--json", "--store", "s.sqlite", cwd=tmp_path)
        assert done.returncode == 0, done.stderr
        assert done.stdout.decode() == before
        assert "rebuilding them" in done.stderr.decode()
        assert "s.views.sqlite" in done.stderr.decode()
    # the documented remedy works on a damaged file too
    views.write_bytes(os.urandom(20000))
    for extra in ("-wal", "-shm"):
        Path(f"{views}{extra}").unlink(missing_ok=True)
    done = mj("project", "--rebuild", "--store", "s.sqlite", cwd=tmp_path)
    assert done.returncode == 0, done.stderr
    rows = stored_rows(tmp_path / "s.sqlite")
    assert done.stdout.decode().strip() == f"rebuilt: {rows} events applied, at {rows}"
    assert ok("scores", "--json", "--store", "s.sqlite", cwd=tmp_path) == before


def test_one_unreadable_row_leaves_the_other_matches_readable(tmp_path: Path) -> None:
    for log in (HK, SC, SEED):
        ok("record", log, "--store", "s.sqlite", cwd=tmp_path)
    store = tmp_path / "s.sqlite"
    db = sqlite3.connect(store)
    db.execute(
        "UPDATE stored_events SET state = ? WHERE originator_id = ? AND originator_version = 2",
        (b"\x00not json", hand_stream(HK_ID, 3).hex),
    )
    db.commit()
    db.close()
    done = mj("project", "--rebuild", "--store", "s.sqlite", cwd=tmp_path)
    assert done.returncode == 0, done.stderr
    assert f"left out match {HK_ID!r}" in done.stderr.decode()
    done = mj("scores", "--json", "--store", "s.sqlite", cwd=tmp_path)
    assert done.returncode == 0
    scores = json.loads(done.stdout)
    assert scores["matches"] == {
        SC_ID: replay(SC.read_text(encoding="utf-8")).totals(),
        SEED_ID: replay(SEED.read_text(encoding="utf-8")).totals(),
    }
    streaks = json.loads(mj("streaks", "--json", "--store", "s.sqlite", cwd=tmp_path).stdout)
    assert [m["match"] for m in streaks["matches"]] == [SC_ID, SEED_ID]
    history = mj("history", SC_ID, "--json", "--store", "s.sqlite", cwd=tmp_path)
    assert history.returncode == 0
    assert len(json.loads(history.stdout)) == 10
    # an unrelated valid log is stored, and the status says so
    done = mj("record", "-", "--store", "s.sqlite", cwd=tmp_path, stdin=sichuan_match(2))
    assert done.returncode == 0, done.stderr
    assert done.stdout.decode().startswith("recorded: match big (2 hands")
    listed = json.loads(mj("matches", "--json", "--store", "s.sqlite", cwd=tmp_path).stdout)
    assert [m["match"] for m in listed] == [HK_ID, SC_ID, SEED_ID, "big"]  # its stream reads


# --- permissions, as another user ----------------------------------------------------------


@pytest.fixture
def shared_dir() -> Iterator[Path]:
    """A directory other users can enter (pytest's own tmp_path is private to its user),
    holding the logs the tests give another user: the repository itself may be out of their
    reach (a clone in a ``mktemp -d`` directory is private to its owner)."""
    path = Path(tempfile.mkdtemp(prefix="mjledger-perm-"))
    path.chmod(0o755)
    for log in (HK, SEED):
        shutil.copy(log, path / log.name)
        (path / log.name).chmod(0o644)
    yield path
    shutil.rmtree(path, ignore_errors=True)


def as_other_user(cwd: Path, *args: str) -> tuple[int, str, str]:
    """Run the command as a user who cannot write ``cwd``: as root (CI), a forked child that
    has become ``nobody`` (chmod stops nobody who is root); otherwise the current user, with
    ``cwd`` made read-only."""
    if os.geteuid() != 0:
        cwd.chmod(0o555)
        try:
            result = CliRunner().invoke(main, list(args), catch_exceptions=False, env={})
            return result.exit_code, result.stdout, result.stderr
        finally:
            cwd.chmod(0o755)
    try:
        nobody = pwd.getpwnam("nobody")
    except KeyError:
        pytest.skip("running as root and there is no 'nobody' user to test permissions with")
    # Load what the command loads while still allowed (this interpreter's own files may be
    # out of nobody's reach): the same command, as this user, on a copy of the directory.
    with tempfile.TemporaryDirectory() as warm:
        for f in cwd.glob("*.sqlite"):
            shutil.copy(f, warm)
        with contextlib.chdir(warm):
            CliRunner().invoke(main, list(args), env={"MJLEDGER_STORE": ""})
    read, write = os.pipe()
    pid = os.fork()
    if pid == 0:  # pragma: no cover - the child
        status = 1
        try:
            os.close(read)
            os.setgroups([])
            os.setgid(nobody.pw_gid)
            os.setuid(nobody.pw_uid)
            os.chdir(cwd)
            result = CliRunner().invoke(main, list(args), env={"MJLEDGER_STORE": ""})
            payload = [result.exit_code, result.stdout, result.stderr]
            os.write(write, json.dumps(payload).encode())
            status = 0
        finally:
            os._exit(status)
    os.close(write)
    chunks = []
    while chunk := os.read(read, 65536):
        chunks.append(chunk)
    os.close(read)
    _, status = os.waitpid(pid, 0)
    assert status == 0
    code, out, err = json.loads(b"".join(chunks))
    return code, out, err


def test_a_store_in_an_unwritable_directory_can_be_read(shared_dir: Path) -> None:
    ok("record", SEED, "--store", "s.sqlite", cwd=shared_dir)
    want = replay(SEED.read_text(encoding="utf-8"))
    for views in (True, False):  # with and without a views file beside it
        if not views:
            for extra in ("", "-wal", "-shm"):
                Path(f"{shared_dir}/s.views.sqlite{extra}").unlink(missing_ok=True)
        before = sorted(p.name for p in shared_dir.iterdir())
        code, out, err = as_other_user(shared_dir, "scores", "--json", "--store", "s.sqlite")
        assert code == 0, err
        assert json.loads(out)["matches"] == {SEED_ID: want.totals()}
        code, out, err = as_other_user(shared_dir, "export", SEED_ID, "--store", "s.sqlite")
        assert code == 0, err
        assert replay(out).to_json() == want.to_json()
        code, out, err = as_other_user(shared_dir, "history", "hk", "--store", "s.sqlite")
        assert code == 0, err
        code, out, err = as_other_user(shared_dir, "explain", "--store", "s.sqlite", SEED_ID, "1")
        assert code == 0, err
        assert "line 3" in out
        assert sorted(p.name for p in shared_dir.iterdir()) == before
    # writing is refused, naming the cause
    code, out, err = as_other_user(shared_dir, "record", HK.name, "--store", "s.sqlite")
    assert code == 2
    assert out == ""
    assert err.count("\n") == 1
    assert "permission" in err
    code, out, err = as_other_user(shared_dir, "record", HK.name, "--store", "new.sqlite")
    assert code == 2
    assert "cannot create the store new.sqlite: no permission to write in" in err
    assert not (shared_dir / "new.sqlite").exists()


# --- two writers ------------------------------------------------------------------------------


@pytest.mark.slow
def test_two_writers_of_the_same_log_both_end_well(tmp_path: Path) -> None:
    ok("record", SC, "--store", "alone.sqlite", cwd=tmp_path)
    alone = stored_rows(tmp_path / "alone.sqlite")
    for attempt in range(2):
        store = f"race{attempt}.sqlite"
        processes = [
            subprocess.Popen(
                [sys.executable, "-m", "mjledger", "record", str(SC), "--store", store],
                cwd=tmp_path,
                stdout=subprocess.PIPE,
                stderr=subprocess.PIPE,
            )
            for _ in range(4)
        ]
        outs = [(p.communicate(timeout=120), p.returncode) for p in processes]
        for (_out, err), code in outs:
            assert code == 0, err.decode()
            assert err == b""
        said = [out.decode().split(":")[0] for (out, _err), _code in outs]
        assert said.count("recorded") <= 1
        assert set(said) <= {"recorded", "already recorded", "continued"}
        assert stored_rows(tmp_path / store) == alone
        exported = ok("export", SC_ID, "--store", store, cwd=tmp_path)
        assert replay(exported).to_json() == replay(SC.read_text(encoding="utf-8")).to_json()


# --- a store in a directory that cannot be written ------------------------------------------


@pytest.fixture
def immutable_dir(shared_dir: Path) -> Iterator[Path]:
    """A directory with a store in it, then made immutable (``chattr +i``: root cannot write
    it either); skipped where the file system or the user cannot set the flag."""
    ok("record", SEED, "--store", "s.sqlite", cwd=shared_dir)
    ok("scores", "--store", "s.sqlite", cwd=shared_dir)  # a views file beside the store
    if shutil.which("chattr") is None:
        pytest.skip("no chattr here")
    done = subprocess.run(["chattr", "+i", str(shared_dir)], capture_output=True, check=False)
    if done.returncode != 0:
        pytest.skip(f"cannot make a directory immutable here: {done.stderr.decode().strip()}")
    try:
        yield shared_dir
    finally:
        subprocess.run(["chattr", "-i", str(shared_dir)], check=True)


def test_audit_reads_a_store_in_an_immutable_directory(immutable_dir: Path) -> None:
    done = mj("audit", "--store", "s.sqlite", cwd=immutable_dir)
    assert done.returncode == 0, done.stderr
    assert "no findings" in done.stdout.decode()
    done = mj("audit", "--head", "--store", "s.sqlite", cwd=immutable_dir)
    assert done.returncode == 0, done.stderr
    assert len(done.stdout.decode().strip()) == 64


def test_damaged_read_models_in_an_immutable_directory_are_computed_in_memory(
    shared_dir: Path,
) -> None:
    ok("record", SEED, "--store", "s.sqlite", cwd=shared_dir)
    want = ok("scores", "--json", "--store", "s.sqlite", cwd=shared_dir)
    history = ok("history", SEED_ID, "--json", "--store", "s.sqlite", cwd=shared_dir)
    views = shared_dir / "s.views.sqlite"
    views.write_bytes(os.urandom(20000))
    if (
        shutil.which("chattr") is None
        or subprocess.run(
            ["chattr", "+i", str(shared_dir)], capture_output=True, check=False
        ).returncode
    ):
        pytest.skip("cannot make a directory immutable here")
    try:
        for args, expected in (
            (("scores", "--json"), want),
            (("history", SEED_ID, "--json"), history),
        ):
            done = mj(*args, "--store", "s.sqlite", cwd=shared_dir)
            assert done.returncode == 0, done.stderr
            assert done.stdout.decode() == expected
            assert "computed them in memory" in done.stderr.decode()
    finally:
        subprocess.run(["chattr", "-i", str(shared_dir)], check=True)


def test_audit_reads_a_store_in_a_directory_another_user_cannot_write(shared_dir: Path) -> None:
    ok("record", SEED, "--store", "s.sqlite", cwd=shared_dir)
    code, out, err = as_other_user(shared_dir, "audit", "--store", "s.sqlite")
    assert code == 0, err
    assert "no findings" in out
    code, out, err = as_other_user(shared_dir, "audit", "--head", "--store", "s.sqlite")
    assert code == 0, err
    assert len(out.strip()) == 64


def test_one_illegal_stored_row_leaves_only_its_match_out(tmp_path: Path) -> None:
    """An event stored after its hand's end (a store written by hand, or by a bug): that
    match drops out of every view with a note naming its line in the export; the rest read."""
    for log in (HK, SC, SEED):
        ok("record", log, "--store", "s.sqlite", cwd=tmp_path)
    exported = ok("export", HK_ID, "--store", "s.sqlite", cwd=tmp_path).splitlines()
    starts = [n for n, line in enumerate(exported, 1) if '"hand_started"' in line]
    line = starts[3]  # the illegal row comes right after hand 3's last event
    stream = hand_stream(HK_ID, 3).hex
    with sqlite3.connect(tmp_path / "s.sqlite") as db:
        (version,) = db.execute(
            "SELECT MAX(originator_version) FROM stored_events WHERE originator_id = ?", (stream,)
        ).fetchone()
        topic, state = db.execute(
            "SELECT topic, state FROM stored_events WHERE originator_id = ? "
            "AND topic LIKE '%Discarded' LIMIT 1",
            (stream,),
        ).fetchone()
        db.execute(
            "INSERT INTO stored_events VALUES (?, ?, ?, ?)", (stream, version + 1, topic, state)
        )
    for extra in ("", "-wal", "-shm"):
        Path(f"{tmp_path}/s.views.sqlite{extra}").unlink(missing_ok=True)
    done = mj("scores", "--json", "--store", "s.sqlite", cwd=tmp_path)
    assert done.returncode == 0, done.stderr
    assert set(json.loads(done.stdout)["matches"]) == {SC_ID, SEED_ID}
    err = done.stderr.decode()
    assert f"left out match {HK_ID!r}" in err
    assert f"line {line}: discarded" in err
    assert err.count("\n") == 1
    done = mj("streaks", "--json", "--store", "s.sqlite", cwd=tmp_path)
    assert done.returncode == 0, done.stderr
    assert [m["match"] for m in json.loads(done.stdout)["matches"]] == [SC_ID, SEED_ID]
    for match in (SC_ID, SEED_ID):
        done = mj("history", match, "--json", "--store", "s.sqlite", cwd=tmp_path)
        assert done.returncode == 0, done.stderr
    err = refused("hand", HK_ID, "3", "--store", "s.sqlite", cwd=tmp_path)
    assert f"line {line}: discarded" in err


@pytest.mark.slow
def test_the_permission_tests_pass_in_a_private_clone() -> None:
    """A clone made in ``mktemp -d`` is private to its owner (mode 0700): the tests that run
    the command as another user carry the logs they give it."""
    if os.geteuid() != 0:
        pytest.skip("only root runs the command as another user")
    root = Path(__file__).resolve().parents[2]
    with tempfile.TemporaryDirectory() as private:  # mode 0700, as mktemp -d makes it
        clone = Path(private) / "clone"
        for part in ("tests", "examples"):
            shutil.copytree(root / part, clone / part, ignore=shutil.ignore_patterns("__pycache__"))
        shutil.copy(root / "pyproject.toml", clone)
        done = subprocess.run(
            [sys.executable, "-m", "pytest", "-q", "-p", "no:cacheprovider",
             "tests/cli/test_cli_store_faults.py", "-k", "another_user or unwritable"],
            cwd=clone, capture_output=True, timeout=300, check=False,
        )  # fmt: skip
    assert done.returncode == 0, done.stdout.decode()[-3000:]


@pytest.mark.parametrize("next_dealer", ["nobody", None])
def test_audit_of_a_closing_whose_rotation_cannot_be_used_is_findings(
    next_dealer: str | None,
) -> None:
    """A hand that does not replay and a hand_closed stating a next dealer not at the table
    (or none while the match goes on): status 1 with the findings, never an internal error
    (main's audit exited 70 there)."""
    from tests.store.test_audit_quick import _tamper_closing, bench_text, recorded

    with recorded(bench_text(4, 3, {})) as store:
        _tamper_closing(store, {"next_dealer": next_dealer})
        done = mj("audit", "--store", store, cwd=store.parent)
        assert done.returncode == 1, done.stderr
        assert done.stderr == b""
        out = done.stdout.decode()
        assert "rotation_unusable: match bench-sichuan, hand 1, line 24" in out
        assert "rotation_unusable 1" in out  # the count line (wrapped at 80 columns)
        done = mj("audit", "--json", "--store", store, cwd=store.parent)
        assert done.returncode == 1
        report = json.loads(done.stdout)
        assert not report["clean"]
        assert report["counts"]["rotation_unusable"] == 1
