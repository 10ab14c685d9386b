"""The audit beside main's PostgreSQL store and exit statuses (issue 12 after issue 11).

The store head, signed checkpoints and the audit are kept by SQLite stores only for now: on a
PostgreSQL store the audit is refused in one line with status 2 (never a crash), a signing key
is refused rather than silently not signing, and verify on read works on both backends.
"""

from __future__ import annotations

import importlib
import json
from pathlib import Path

import pytest
from click.testing import CliRunner

from mjledger import StoreError
from mjledger.cli import main
from mjledger.ledger import Ledger
from mjledger.store.audit import Auditor, store_head
from mjledger.store.signing import keygen
from tests.conftest import EXAMPLES
from tests.pg import PASSWORD

HK = "hk-tsimshatsui-t3-2026-12-05"
AUDIT_CLI = importlib.import_module("mjledger.cli.audit")


def _record(store: str) -> None:
    with Ledger(store) as ledger:
        ledger.record_log((EXAMPLES / "hongkong-match.jsonl").read_text(encoding="utf-8"))


@pytest.mark.parametrize("args", [(), ("--head",), ("--json",)])
def test_audit_of_a_postgresql_store_is_refused_in_one_line(
    pg_url: str, args: tuple[str, ...]
) -> None:
    _record(pg_url)
    result = CliRunner().invoke(main, ["audit", "--store", pg_url, *args])
    assert result.exit_code == 2, result.output
    assert result.stdout == ""
    assert result.stderr.count("\n") == 1, result.stderr
    assert result.stderr.startswith("mjledger: cannot audit postgresql://mjledger:***@")
    assert "SQLite stores only" in result.stderr
    assert PASSWORD not in result.stderr


def test_the_library_refuses_a_postgresql_audit_with_a_store_error(pg_url: str) -> None:
    with pytest.raises(StoreError, match="SQLite stores only"):
        store_head(pg_url)
    with pytest.raises(StoreError, match="SQLite stores only"):
        Auditor(pg_url)


def test_signing_into_a_postgresql_store_is_refused(pg_url: str, tmp_path: Path) -> None:
    private, _public = keygen(tmp_path / "k.pem")
    with pytest.raises(StoreError, match="SQLite stores only"):
        Ledger(pg_url, signing_key=private)
    log = str(EXAMPLES / "hongkong-match.jsonl")
    result = CliRunner().invoke(
        main, ["record", log, "--store", pg_url, "--signing-key", str(private)]
    )
    assert result.exit_code == 2
    assert "SQLite stores only" in result.stderr


@pytest.mark.parametrize("backend", ["sqlite", "postgres"])
def test_verify_on_read_settles_an_intact_store_on_both_backends(
    backend: str, request: pytest.FixtureRequest, tmp_path: Path
) -> None:
    store = str(tmp_path / "s.sqlite") if backend == "sqlite" else request.getfixturevalue("pg_url")
    _record(store)
    with Ledger(store) as plain, Ledger(store, verify=True) as verified:
        assert verified.settlement(HK, 3) == plain.settlement(HK, 3)
        assert list(verified.rederive()) == list(plain.rederive())
    result = CliRunner().invoke(main, ["--verify", "history", HK, "--store", store, "--json"])
    assert result.exit_code == 0, result.output
    assert json.loads(result.stdout)


def test_an_internal_error_in_the_audit_is_status_70(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    store = tmp_path / "s.sqlite"
    _record(str(store))

    class Broken:
        def __init__(self, *_args: object, **_kwargs: object) -> None:
            raise ValueError("inside the audit")

    monkeypatch.setattr(AUDIT_CLI, "Auditor", Broken)
    monkeypatch.delenv("MJLEDGER_DEBUG", raising=False)
    result = CliRunner().invoke(main, ["audit", "--store", str(store)])
    assert result.exit_code == 70
    assert result.stdout == ""
    assert result.stderr.startswith("mjledger: internal error (ValueError: inside the audit")
