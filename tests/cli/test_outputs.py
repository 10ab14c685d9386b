"""Output files (``report --html``, ``simulate -o``): never over the store in use, its read
models, a log being read or any SQLite database; another existing file only with ``--force``;
a failed write names the file."""

from __future__ import annotations

from pathlib import Path

import pytest

from tests.cli.test_cli_store import SEED, mj, ok, refused

MATCH = "hk-club-night-7"


@pytest.fixture
def folder(tmp_path: Path) -> Path:
    ok("record", SEED, "--store", "s.sqlite", cwd=tmp_path)
    ok("scores", "--store", "s.sqlite", cwd=tmp_path)  # the read models file is there too
    assert (tmp_path / "s.views.sqlite").exists()
    return tmp_path


def unchanged(folder: Path, *names: str) -> dict[str, bytes]:
    return {name: (folder / name).read_bytes() for name in names}


@pytest.mark.parametrize("force", [(), ("--force",)])
@pytest.mark.parametrize(
    "args",
    [
        ("report", MATCH, "--html", "s.sqlite", "--store", "s.sqlite"),
        ("report", MATCH, "--html", "s.views.sqlite", "--store", "s.sqlite"),
        ("report", MATCH, "--html", "./s.sqlite", "--store", "s.sqlite"),
        ("report", "log.jsonl", "--html", "log.jsonl"),
        ("report", "log.jsonl", "--html", "s.sqlite"),
        ("simulate", "--hands", "2", "-o", "s.sqlite"),
        ("simulate", "--hands", "2", "-o", "s.views.sqlite"),
    ],
)
def test_an_output_never_replaces_a_store_or_its_input(
    folder: Path, args: tuple[str, ...], force: tuple[str, ...]
) -> None:
    (folder / "log.jsonl").write_bytes(SEED.read_bytes())
    before = unchanged(folder, "s.sqlite", "s.views.sqlite", "log.jsonl")
    err = refused(*args, *force, cwd=folder)
    assert "s.sqlite" in err or "log.jsonl" in err or "s.views.sqlite" in err
    assert unchanged(folder, "s.sqlite", "s.views.sqlite", "log.jsonl") == before


@pytest.mark.parametrize(
    "args",
    [
        ("report", MATCH, "--store", "s.sqlite", "--html", "page.html"),
        ("simulate", "--hands", "2", "-o", "page.html"),
    ],
)
def test_an_existing_file_is_replaced_only_with_force(folder: Path, args: tuple[str, ...]) -> None:
    (folder / "page.html").write_text("mine", encoding="utf-8")
    err = refused(*args, cwd=folder)
    assert "page.html exists" in err
    assert "--force" in err
    assert (folder / "page.html").read_text(encoding="utf-8") == "mine"
    ok(*args, "--force", cwd=folder)
    assert (folder / "page.html").read_text(encoding="utf-8") != "mine"


def test_simulate_into_a_directory_replaces_its_logs_only_with_force(tmp_path: Path) -> None:
    args = ("simulate", "--hands", "2", "--matches", "2", "-o", "logs")
    ok(*args, cwd=tmp_path)
    written = {p.name: p.read_bytes() for p in (tmp_path / "logs").iterdir()}
    assert len(written) == 2
    err = refused(*args, "--seed", "1", cwd=tmp_path)
    assert "exists" in err
    assert "--force" in err
    ok(*args, "--force", cwd=tmp_path)
    assert {p.name: p.read_bytes() for p in (tmp_path / "logs").iterdir()} == written


@pytest.mark.skipif(not Path("/dev/full").exists(), reason="no /dev/full here")
@pytest.mark.parametrize(
    "args",
    [
        ("simulate", "--hands", "2", "-o", "/dev/full"),
        ("report", str(SEED), "--html", "/dev/full"),
    ],
)
def test_a_full_device_is_named(tmp_path: Path, args: tuple[str, ...]) -> None:
    done = mj(*args, cwd=tmp_path)
    assert done.returncode == 2, done.stderr
    err = done.stderr.decode()
    assert err.count("\n") == 1
    assert "cannot write /dev/full" in err
    assert "None" not in err
