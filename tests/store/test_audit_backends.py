"""The audit beside main's PostgreSQL store and exit statuses (issue 12 after issue 11).

The store head, signed checkpoints and the audit work on both backends: on PostgreSQL the
audit reads one read-only snapshot, a store it cannot reach is status 2 in one line with the
password masked, a signing key signs exactly as on SQLite (same head, same signatures for the
same rows), and verify on read works on both.
"""

from __future__ import annotations

import importlib
import json
from pathlib import Path
from typing import Any

import psycopg
import pytest
from click.testing import CliRunner

from mjledger.cli import main
from mjledger.ledger import Ledger
from mjledger.store.audit import audit, store_head
from mjledger.store.audit.postgres import PostgresRows
from mjledger.store.location import store_location
from mjledger.store.signing import keygen, load_verifier
from tests.backends import raw_rows, set_state
from tests.conftest import EXAMPLES
from tests.pg import PASSWORD
from tests.store_logs import sichuan_match

HK = "hk-tsimshatsui-t3-2026-12-05"
AUDIT = importlib.import_module("mjledger.store.audit")  # the audit command imports it as it runs


def _record(store: str) -> None:
    with Ledger(store) as ledger:
        ledger.record_log((EXAMPLES / "hongkong-match.jsonl").read_text(encoding="utf-8"))


def test_audit_of_a_postgresql_store_on_the_command_line(pg_url: str) -> None:
    _record(pg_url)
    clean = CliRunner().invoke(main, ["audit", "--store", pg_url])
    assert clean.exit_code == 0, clean.output
    assert "no findings" in clean.stdout
    assert "audit of postgresql://mjledger:***@" in clean.stdout
    assert PASSWORD not in clean.output
    data = json.loads(CliRunner().invoke(main, ["audit", "--store", pg_url, "--json"]).stdout)
    assert data["clean"] is True
    assert (data["summary"]["matches"], data["summary"]["hands"]) == (1, 16)
    assert data["summary"]["views"] == "absent"  # nothing has caught the views up yet
    head = CliRunner().invoke(main, ["audit", "--store", pg_url, "--head"])
    assert head.exit_code == 0, head.output
    assert head.stdout.strip() == store_head(pg_url).digest


def test_an_unreachable_postgresql_store_is_status_2_in_one_line(
    pg_cluster: Any, pg_database: str
) -> None:
    wrong = pg_cluster.url(pg_database).replace(PASSWORD, PASSWORD + "-wrong")
    gone = pg_cluster.url("no_such_database")
    for url in (wrong, gone):
        for args in ((), ("--head",), ("--json",)):
            result = CliRunner().invoke(main, ["audit", "--store", url, *args])
            assert result.exit_code == 2, result.output
            if "--json" in args:  # the refusal as data (issue 22), the password masked too
                refusal = json.loads(result.stdout)
                assert refusal["code"] == "store_unavailable"
                assert PASSWORD not in result.stdout
            else:
                assert result.stdout == ""
            assert result.stderr.count("\n") == 1, result.stderr
            assert result.stderr.startswith("mjledger: cannot open the store postgresql://")
            assert ":***@" in result.stderr
            assert PASSWORD not in result.stderr


def test_a_postgresql_database_without_a_store_is_status_2(pg_url: str) -> None:
    result = CliRunner().invoke(main, ["audit", "--store", pg_url])
    assert result.exit_code == 2
    assert result.stderr.startswith("mjledger: no store at postgresql://mjledger:***@")


def test_the_postgresql_audit_reads_one_read_only_snapshot(pg_url: str) -> None:
    _record(pg_url)
    rows = PostgresRows(store_location(pg_url))
    try:
        before = rows.last_notification()
        with Ledger(pg_url) as ledger:  # another writer, while the audit reads
            ledger.start_match("sichuan", ["a", "b", "c", "d"], match_id="later")
        assert rows.last_notification() == before
        assert store_head(pg_url).rows > before
        with pytest.raises(psycopg.errors.ReadOnlySqlTransaction):
            rows.conn.execute("DELETE FROM mjledger_events")
    finally:
        rows.close()


def test_signing_into_a_postgresql_store_signs_as_on_sqlite(
    pg_url: str, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """The same logs recorded at the same instant into both backends give byte-identical
    rows, so the same head and the same signatures: one formula, two implementations."""
    private, public = keygen(tmp_path / "k.pem")
    stamp = "2026-12-05T10:00:00.000000+00:00"
    monkeypatch.setattr("mjledger.store.records.now", lambda: stamp)
    monkeypatch.setattr("mjledger.store.importer.now", lambda: stamp)
    sqlite = str(tmp_path / "s.sqlite")
    for store in (sqlite, pg_url):
        with Ledger(store, signing_key=private) as ledger:
            ledger.record_log((EXAMPLES / "hongkong-match.jsonl").read_text(encoding="utf-8"))
            ledger.record_log(sichuan_match(4, seed=5, match_id="both"))
            ledger.views.catch_up()
        log = str(EXAMPLES / "sichuan-match.jsonl")  # and through the command line
        result = CliRunner().invoke(
            main, ["record", log, "--store", store, "--signing-key", str(private)]
        )
        assert result.exit_code == 0, result.output
    assert raw_rows(sqlite)
    assert [r[1:] for r in raw_rows(pg_url)] == [r[1:] for r in raw_rows(sqlite)]
    on_sqlite, on_postgres = store_head(sqlite), store_head(pg_url)
    assert on_sqlite.agrees
    assert on_postgres.agrees
    assert on_postgres == on_sqlite  # rows, digest, and the head's signature
    verifier = load_verifier(public)
    reports = [audit(s, public_key=verifier) for s in (sqlite, pg_url)]
    for report in reports:
        assert report.findings == (), [str(f) for f in report.findings]
        assert report.summary.head_signed
    hands = reports[0].summary.hands
    assert hands > 16 + 4
    assert [r.summary.signed_hands for r in reports] == [hands, hands]
    assert reports[0].summary.head == reports[1].summary.head == on_sqlite.digest
    # The same tampering behind the ledger's back gives the same report on both backends
    # (findings, codes, positions, expected and found), the store's name aside.
    for store in (sqlite, pg_url):
        notification, _, _, _, state = next(
            r for r in raw_rows(store) if r[4]["type"] == "won_on_discard"
        )
        set_state(store, notification, {**state, "fan": state["fan"] + 1})
    tampered = [audit(s, public_key=verifier).to_json() for s in (sqlite, pg_url)]
    for report in tampered:
        del report["summary"]["store"]
    assert tampered[0] == tampered[1]
    assert {"chain_broken", "replay_differs", "head_mismatch"} <= set(tampered[0]["counts"])


def test_verify_on_read_settles_an_intact_store_on_both_backends(any_store: str) -> None:
    store = any_store
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

    monkeypatch.setattr(AUDIT, "Auditor", Broken)
    monkeypatch.delenv("MJLEDGER_DEBUG", raising=False)
    result = CliRunner().invoke(main, ["audit", "--store", str(store)])
    assert result.exit_code == 70
    assert result.stdout == ""
    assert result.stderr.startswith("mjledger: internal error (ValueError: inside the audit")


def test_the_postgresql_audit_streams_through_pages_and_cursors(
    pg_url: str, monkeypatch: pytest.MonkeyPatch
) -> None:
    """Every stream read in keyset pages and the long reads through server-side cursors give
    the same audit however small the pages are (a page of 2 rows splits every stream)."""
    _record(pg_url)
    expected = audit(pg_url)
    assert expected.findings == ()
    monkeypatch.setattr("mjledger.store.audit.postgres.PAGE", 2)
    assert audit(pg_url) == expected
    rows = PostgresRows(store_location(pg_url))
    try:
        every = rows.all_rows()
        next(every)  # the cursor is open on the server, the rest not yet fetched
        cursors = rows.conn.execute("SELECT count(*) FROM pg_cursors").fetchone()
        assert cursors == (1,)
        assert sum(1 for _ in every) + 1 == expected.summary.rows
    finally:
        rows.close()
