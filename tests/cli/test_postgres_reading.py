"""Reading commands on PostgreSQL never create anything: a mistyped ``?schema=`` is refused
as SQLite refuses a missing file, and an empty store says so."""

from __future__ import annotations

from pathlib import Path

import psycopg
import pytest

from mjledger.ledger import Ledger
from mjledger.store.location import store_location
from tests.cli.test_cli_store import SEED, mj, ok, refused

READERS = [
    ("scores",),
    ("streaks",),
    ("matches",),
    ("history", "hk"),
    ("export", "hk"),
    ("audit", "--head"),
    ("audit",),
    ("explain", "hk", "1"),
]


def schemas(url: str) -> set[str]:
    with psycopg.connect(url.split("?")[0]) as db:
        return {name for (name,) in db.execute("SELECT nspname FROM pg_namespace")}


@pytest.mark.parametrize("args", READERS, ids=lambda args: " ".join(args))
def test_a_reading_command_never_creates_a_schema(
    pg_url: str, tmp_path: Path, args: tuple[str, ...]
) -> None:
    ok("record", SEED, "--store", pg_url + "?schema=club", cwd=tmp_path)
    before = schemas(pg_url)
    err = refused(*args, "--store", pg_url + "?schema=clb", cwd=tmp_path)
    assert "no store at" in err
    assert "schema=clb" in err
    assert schemas(pg_url) == before


def test_an_empty_store_says_so(pg_url: str, tmp_path: Path) -> None:
    store = tmp_path / "s.sqlite"
    Ledger(store).close()
    empty = pg_url + "?schema=empty"
    Ledger(empty).close()  # the tables, and nothing in them
    for where in (str(store), empty):
        for command in ("scores", "streaks", "matches"):
            done = mj(command, "--store", where, cwd=tmp_path)
            assert done.returncode == 0, done.stderr
            assert f"no matches in {store_location(where)}" in done.stdout.decode()
