"""Naming a store with one string (issue 11): a path is SQLite, a postgresql:// URL is a server.

The password of a URL never appears in what mjledger prints: not in a parsed store's str or
repr, not in a refused URL's error, not in a connection failure from a real server.
"""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

import pytest

from mjledger import StoreConnectionError, StoreError
from mjledger.store.application import Ledger
from mjledger.store.location import (
    STORE_ENV,
    PostgresStore,
    SqliteStore,
    parse_url,
    redact,
    store_location,
)
from tests import pg
from tests.conftest import ROOT

SECRET = "s3cr:t@pa%ss"  # what a real password may hold, percent-encoded in a URL
URL = "postgresql://ana:s3cr%3At%40pa%25ss@db.example:6543/ledger?schema=club7&pool_size=3"


def test_a_path_is_sqlite_and_a_url_is_postgres(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.delenv(STORE_ENV, raising=False)
    assert store_location("t7.sqlite") == SqliteStore(Path("t7.sqlite"))
    assert store_location(Path("/srv/t7.db")) == SqliteStore(Path("/srv/t7.db"))
    assert store_location(None) == SqliteStore(Path("mjledger.sqlite"))
    monkeypatch.setenv(STORE_ENV, URL)
    store = store_location(None)
    assert isinstance(store, PostgresStore)
    assert (store.host, store.port, store.dbname, store.user) == (
        "db.example",
        6543,
        "ledger",
        "ana",
    )
    assert (store.password, store.schema, store.pool_size) == (SECRET, "club7", 3)
    assert store_location("postgres://bo@h/d") == parse_url("postgresql://bo@h:5432/d")


def test_options_become_eventsourcing_settings() -> None:
    store = parse_url(URL + "&max_overflow=0&timeout=4&lock_timeout=2&pre_ping=true")
    settings = store.settings()
    assert settings["PERSISTENCE_MODULE"] == "eventsourcing.postgres"
    assert settings["POSTGRES_PASSWORD"] == SECRET
    assert {k: settings[f"POSTGRES_{k}"] for k in ("SCHEMA", "POOL_SIZE", "MAX_OVERFLOW")} == {
        "SCHEMA": "club7",
        "POOL_SIZE": "3",
        "MAX_OVERFLOW": "0",
    }
    assert settings["POSTGRES_CONNECT_TIMEOUT"] == "4"
    assert settings["POSTGRES_LOCK_TIMEOUT"] == "2"
    assert settings["POSTGRES_PRE_PING"] == "y"


def test_a_socket_directory_as_host() -> None:
    assert parse_url("postgresql://ana@%2Frun%2Fpostgresql/ledger").host == "/run/postgresql"
    assert parse_url("postgresql://ana@/ledger?host=/tmp/pg").host == "/tmp/pg"


def test_the_password_never_shows() -> None:
    store = parse_url(URL)
    for shown in (str(store), repr(store), store.redacted(), redact(URL), redact(f"at {URL}.")):
        assert SECRET not in shown
        assert "s3cr%3At" not in shown
    assert str(store) == "postgresql://ana:***@db.example:6543/ledger?schema=club7"
    assert store.scrub(f"failed for {SECRET}") == "failed for ***"


@pytest.mark.parametrize(
    ("query", "problem"),
    [
        ("pool_size=0", "pool_size must be a whole number from 1, not '0'"),
        ("timeout=soon", "timeout must be a whole number from 1, not 'soon'"),
        ("pool_size=1&max_overflow=0", r"pool_size \+ max_overflow must be at least 2"),
        ("schema=Club-7", "schema 'Club-7' must be lower-case letters"),
        ("sslmode=require", "unknown option 'sslmode'"),
    ],
)
def test_a_bad_option_is_refused_by_name_without_the_password(query: str, problem: str) -> None:
    with pytest.raises(StoreError, match=problem) as refused:
        parse_url(f"postgresql://ana:{SECRET}@h/db?{query}")  # even unencoded
    assert "postgresql://ana:***@h/db" in str(refused.value)
    assert "s3cr" not in str(refused.value)


def test_a_url_without_a_database_is_refused() -> None:
    with pytest.raises(StoreError, match=r"no database name"):
        parse_url("postgresql://ana:pw@h:5432/")


def test_connection_failures_name_the_store_without_the_password(pg_cluster: pg.Cluster) -> None:
    database = pg_cluster.create_database()
    for url, reason in [
        (pg_cluster.url(database, timeout=2).replace(pg.PASSWORD, SECRET), "password auth"),
        (pg_cluster.url("no_such_db", timeout=2), 'database "no_such_db" does not exist'),
    ]:
        with pytest.raises(StoreConnectionError, match=reason) as failed:
            Ledger(url)
        message = str(failed.value)
        assert pg.PASSWORD not in message
        assert SECRET not in message
        assert "postgresql://mjledger:***@127.0.0.1" in message
    assert pg_cluster.connections(database) == 0


def test_a_url_without_a_password_takes_pgpassword(
    pg_cluster: pg.Cluster, pg_database: str, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv("PGPASSWORD", pg.PASSWORD)
    url = f"postgresql://{pg.USER}@127.0.0.1:{pg_cluster.port}/{pg_database}"
    ledger = Ledger(url)
    try:
        assert ledger.matches() == []
        assert str(ledger.location) == url.replace("@", ":***@")
        assert pg.PASSWORD not in repr(ledger.location)
    finally:
        ledger.close()


def _pytest_without_postgres(ci: bool) -> subprocess.CompletedProcess[str]:
    env = {k: v for k, v in os.environ.items() if k != "CI"}
    env["MJLEDGER_PG_BINDIR"] = "/nonexistent"
    if ci:
        env["CI"] = "true"
    test = (
        "tests/store/test_location.py::test_connection_failures_name_the_store_without_the_password"
    )
    return subprocess.run(
        [sys.executable, "-m", "pytest", "-q", "-p", "no:cacheprovider", test],
        cwd=ROOT,
        env=env,
        capture_output=True,
        text=True,
        timeout=120,
    )


@pytest.mark.skipif(
    os.environ.get("MJLEDGER_PG_BINDIR") == "/nonexistent", reason="already the inner run"
)
def test_without_postgres_the_tests_skip_with_a_reason_but_fail_under_ci() -> None:
    local = _pytest_without_postgres(ci=False)
    assert local.returncode == 0, local.stdout
    assert "SKIPPED" in local.stdout
    assert "PostgreSQL is not installed" in local.stdout
    ci = _pytest_without_postgres(ci=True)
    assert ci.returncode == 1, ci.stdout
    assert "CI=true needs a real server" in ci.stdout
