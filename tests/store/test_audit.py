"""The audit (issue 12): tamper tests behind the ledger's back, signed checkpoints, the store
head, verify on read, and the command line.

Every tamper opens the store (or its views file) with plain ``sqlite3`` — or, on PostgreSQL,
the database with plain ``psycopg`` — as someone with write access to the database would, and
asserts which finding names it. The stores of the ``store`` and ``signed`` fixtures are on both
backends: each tamper test runs on SQLite and on PostgreSQL (tests/pg.py's throwaway server;
skipped without PostgreSQL installed, failing instead under ``CI=true``).
"""

from __future__ import annotations

import hashlib
import json
import re
import shutil
import sqlite3
from pathlib import Path
from typing import Any, cast
from uuid import UUID

import pytest
from click.testing import CliRunner

from mjledger import Discarded, KongDeclared, StoreError
from mjledger.cli import main
from mjledger.ledger import Ledger, hand_stream, match_stream
from mjledger.store.audit import CODES, AuditReport, audit, store_head
from mjledger.store.backends import Backend
from mjledger.store.head import fold_head
from mjledger.store.location import SqliteStore, store_location
from mjledger.store.signing import SigningKeyError, keygen, load_verifier
from mjledger.store.verify import ChainError
from mjledger.store.views import views_path
from tests.backends import PERSISTING, new_store
from tests.conftest import EXAMPLES
from tests.store_logs import sichuan_match

HK = "hk-tsimshatsui-t3-2026-12-05"
SC = "forge"


def record(store: str | Path, key: Path | None = None) -> None:
    ledger = Ledger(store, signing_key=key)
    ledger.record_log((EXAMPLES / "hongkong-match.jsonl").read_text(encoding="utf-8"))
    ledger.record_log(sichuan_match(6, seed=3, match_id=SC))
    ledger.views.catch_up()
    ledger.close()


@pytest.fixture
def key(tmp_path: Path) -> Path:
    private, _public = keygen(tmp_path / "signing.pem")
    return private


@pytest.fixture(params=PERSISTING, ids=lambda backend: backend.name)
def backend(request: pytest.FixtureRequest) -> type[Backend]:
    return cast(type[Backend], request.param)


@pytest.fixture
def store(backend: type[Backend], request: pytest.FixtureRequest) -> str:
    path = new_store(backend, request, "store")
    record(path)
    return path


@pytest.fixture
def signed(backend: type[Backend], request: pytest.FixtureRequest, key: Path) -> str:
    path = new_store(backend, request, "signed")
    record(path, key)
    return path


@pytest.fixture
def sqlite_store(tmp_path: Path) -> Path:
    path = tmp_path / "store.sqlite"
    record(path)
    return path


def codes(report: AuditReport) -> set[str]:
    return {f.code for f in report.findings}


class Raw:
    """A store's tables behind the ledger's back: plain ``sqlite3`` on a file (its views file
    with ``views=True``), plain ``psycopg`` (autocommit) on a PostgreSQL database, where the
    same statements run with PostgreSQL's names (``mjledger_events``, ``notification_id``,
    ``%s``, the views' ``mjledger_views_tracking``). Stream ids come back as 32 hex digits,
    states as bytes, on both."""

    def __init__(self, store: str | Path, *, views: bool = False) -> None:
        location = store_location(store)
        self.postgres = not isinstance(location, SqliteStore)
        if isinstance(location, SqliteStore):
            path = views_path(location.path) if views else location.path
            self.conn: Any = sqlite3.connect(path, isolation_level=None)
        else:
            import psycopg

            self.conn = psycopg.connect(**location.conninfo(), autocommit=True)

    def _sql(self, statement: str) -> str:
        if not self.postgres:
            return statement
        statement = re.sub(r"\bstored_events\b", "mjledger_events", statement)
        statement = re.sub(r"\browid\b", "notification_id", statement)
        statement = re.sub(r"\bFROM tracking\b", "FROM mjledger_views_tracking", statement)
        return statement.replace("?", "%s")

    def execute(self, statement: str, params: Any = ()) -> _Rows:
        cursor = self.conn.execute(self._sql(statement), params)
        if cursor.description is None:
            return _Rows([])
        return _Rows([tuple(_plain(v) for v in row) for row in cursor.fetchall()])

    def executemany(self, statement: str, params: Any) -> None:
        if self.postgres:
            with self.conn.cursor() as cursor:
                cursor.executemany(self._sql(statement), params)
        else:
            self.conn.executemany(statement, params)

    def __enter__(self) -> Raw:
        return self

    def __exit__(self, *exc: object) -> None:
        self.conn.close()


class _Rows(list[tuple[Any, ...]]):
    def fetchone(self) -> tuple[Any, ...] | None:
        return self[0] if self else None

    def fetchall(self) -> list[tuple[Any, ...]]:
        return list(self)


def _plain(value: Any) -> Any:
    if isinstance(value, UUID):
        return value.hex
    if isinstance(value, memoryview):
        return bytes(value)
    return value


def db(store: str | Path) -> Raw:
    return Raw(store)


def views_db(store: str | Path) -> Raw:
    return Raw(store, views=True)


def drop_views(store: str | Path) -> None:
    """Remove the read models: the views file, or the view tables of a PostgreSQL schema."""
    location = store_location(store)
    if isinstance(location, SqliteStore):
        views_path(location.path).unlink()
        return
    with db(store) as c:
        for table in (
            "view_matches",
            "view_hand_ids",
            "view_hands",
            "view_hand_net",
            "view_progress",
            "view_damage",
            "view_hand_balances",
            "mjledger_views_tracking",
        ):
            c.execute(f"DROP TABLE IF EXISTS {table}")


def rows_of(path: str | Path, stream: Any) -> list[tuple[int, int, dict[str, Any]]]:
    with db(path) as c:
        found = c.execute(
            "SELECT rowid, originator_version, state FROM stored_events "
            "WHERE originator_id = ? ORDER BY originator_version",
            (stream.hex,),
        ).fetchall()
    return [(rowid, version, json.loads(state)) for rowid, version, state in found]


def put(path: str | Path, rowid: int, data: dict[str, Any]) -> None:
    with db(path) as c:
        c.execute(
            "UPDATE stored_events SET state = ? WHERE rowid = ?",
            (json.dumps(data, separators=(",", ":")).encode(), rowid),
        )


def pub(key: Path) -> Any:
    return load_verifier(key.with_name(key.name + ".pub"))


# --- an untouched store ---------------------------------------------------------------------


def test_an_untouched_store_audits_clean(store: str) -> None:
    report = audit(store)
    assert report.findings == ()
    assert report.clean
    s = report.summary
    assert (s.matches, s.hands, s.views) == (2, 16 + 6, "compared")
    with db(store) as c:
        assert s.rows == c.execute("SELECT COUNT(*) FROM stored_events").fetchone()[0]


def test_an_untouched_signed_store_audits_clean_with_its_public_key(signed: str, key: Path) -> None:
    report = audit(signed, public_key=pub(key))
    assert report.findings == ()
    assert report.summary.signed_hands == 16 + 6
    assert report.summary.head_signed


def test_a_library_recorded_store_with_tables_and_an_open_hand_audits_clean(tmp_path: Path) -> None:
    ledger = Ledger(tmp_path / "lib.sqlite")
    ledger.open_table("t7", "sichuan", ["ana", "bo", "cy", "di"], {"base": 2})
    match = ledger.start_match(table="t7", match_id="t7-a")
    ledger.start_hand(match)
    ledger.record(match, 1, KongDeclared(player="bo", kind="concealed"))
    ledger.record(match, 1, Discarded(player="bo"))
    ledger.change_rules("t7", {"base": 4})
    ledger.views.catch_up()
    ledger.close()
    report = audit(tmp_path / "lib.sqlite")
    assert report.findings == ()
    assert (report.summary.tables, report.summary.hands) == (1, 1)


# --- tampering, each detected and named -----------------------------------------------------


def test_a_changed_fan_in_a_stored_win_is_found(store: str) -> None:
    rows = rows_of(store, hand_stream(HK, 3))
    rowid, version, data = next(r for r in rows if r[2]["type"] == "won_on_discard")
    data["fan"] += 1
    put(store, rowid, data)
    report = audit(store)
    assert {"chain_broken", "replay_differs", "view_differs", "head_mismatch"} == codes(report)
    broken = next(f for f in report.findings if f.code == "chain_broken")
    assert (broken.match, broken.hand, broken.version) == (HK, 3, version)
    # Its export line: the won_on_discard is line `version` of hand 3's stream.
    with Ledger(store) as ledger:
        export = ledger.export(HK).splitlines()
    assert json.loads(export[broken.line - 1])["type"] == "won_on_discard"


def test_one_deleted_event_is_found(store: str) -> None:
    rows = rows_of(store, hand_stream(SC, 2))
    rowid, version, _ = rows[2]
    with db(store) as c:
        c.execute("DELETE FROM stored_events WHERE rowid = ?", (rowid,))
    report = audit(store)
    missing = next(f for f in report.findings if f.code == "row_missing")
    assert (missing.match, missing.hand, missing.version) == (SC, 2, version)
    assert {"row_missing", "closing_differs", "head_mismatch"} <= codes(report)


def test_two_swapped_events_of_a_hand_are_found(store: str) -> None:
    rows = rows_of(store, hand_stream(HK, 2))
    (a, _, first), (b, _, second) = rows[1], rows[2]
    assert first != second
    put(store, a, second)
    put(store, b, first)
    report = audit(store)
    assert "chain_broken" in codes(report)
    assert all(f.hand in (2, None) for f in report.findings)


def test_a_deleted_hand_is_found(store: str) -> None:
    with db(store) as c:
        c.execute("DELETE FROM stored_events WHERE originator_id = ?", (hand_stream(HK, 5).hex,))
    report = audit(store)
    missing = [f for f in report.findings if f.code == "hand_missing"]
    assert [(f.match, f.hand) for f in missing] == [(HK, 5)]
    assert "head_mismatch" in codes(report)


def test_a_truncated_last_hand_is_found_by_the_head(store: str) -> None:
    """No chain shows a tail cut off: the last hand and its hand_closed go together."""
    last = rows_of(store, match_stream(SC))[-1]
    cut = len(rows_of(store, hand_stream(SC, 6))) + 1
    with db(store) as c:
        c.execute("DELETE FROM stored_events WHERE originator_id = ?", (hand_stream(SC, 6).hex,))
        c.execute("DELETE FROM stored_events WHERE rowid = ?", (last[0],))
    report = audit(store)
    assert codes(report) == {"head_mismatch", "view_differs"}
    drop_views(store)  # without read models, only the head can tell
    report = audit(store)
    assert codes(report) == {"head_mismatch"}
    (finding,) = report.findings
    assert finding.expected["rows"] - finding.found["rows"] == cut


def test_an_edited_read_model_row_is_found(store: str) -> None:
    with views_db(store) as c:
        c.execute(
            "UPDATE view_hand_net SET amount = amount + 5 WHERE match = ? AND number = 4 "
            "AND player = 'bo'",
            (SC,),
        )
    report = audit(store)
    assert codes(report) == {"view_differs"}
    (finding,) = report.findings
    assert (finding.match, finding.hand) == (SC, 4)
    assert finding.found["net"]["bo"] == finding.expected["net"]["bo"] + 5


def test_an_edited_hand_closed_is_found(store: str) -> None:
    rowid, version, data = rows_of(store, match_stream(HK))[3]
    assert data["type"] == "hand_closed"
    data["net"] = {p: -n for p, n in data["net"].items()}
    put(store, rowid, data)
    report = audit(store)
    assert {"chain_broken", "replay_differs", "head_mismatch"} == codes(report)
    differs = next(f for f in report.findings if f.code == "replay_differs")
    assert (differs.hand, differs.version) == (3, version)


def test_an_edited_topic_is_found(store: str) -> None:
    rowid = rows_of(store, hand_stream(HK, 1))[1][0]
    with db(store) as c:
        c.execute(
            "UPDATE stored_events SET topic = 'mjledger.events:SelfDrawn' WHERE rowid = ?", (rowid,)
        )
    assert codes(audit(store)) == {"topic_mismatch", "head_mismatch"}


def test_a_row_from_nowhere_is_found(store: str) -> None:
    with db(store) as c:
        c.execute(
            "INSERT INTO stored_events VALUES (?, 1, 'mjledger.events:Discarded', ?)",
            ("0" * 32, b'{"type":"discarded","player":"x","digest":"00"}'),
        )
    # The views have not seen the new row either (a row the ledger never wrote).
    assert codes(audit(store)) == {"stray_rows", "head_mismatch", "view_behind"}


def forge_kong(path: str, tmp: Path) -> None:
    """Insert a concealed kong into hand 2 of the Sichuan match as a thorough forger would:
    re-derive every row after it with mjledger itself (chains, hand_closed, later hands, the
    head, the read models), keep the old signatures, and write it all back with sqlite3 (or
    psycopg)."""
    with Ledger(path) as original:
        lines = original.export(SC).splitlines()
    starts = [i for i, line in enumerate(lines) if json.loads(line)["type"] == "hand_started"]
    at = starts[1] + 5  # after hand 2's hand_started and its four void suits
    kong = {"type": "kong_declared", "player": "cy", "kind": "concealed"}
    lines.insert(at, json.dumps(kong))
    forged_store = tmp / "forged.sqlite"
    forged = Ledger(forged_store)
    forged.record_log((EXAMPLES / "hongkong-match.jsonl").read_text(encoding="utf-8"))
    forged.record_log("\n".join(lines) + "\n")
    forged.views.catch_up()
    forged.close()
    with db(path) as c:
        signatures = {
            (s, v): json.loads(state).get("signature")
            for s, v, state in c.execute(
                "SELECT originator_id, originator_version, state FROM stored_events"
            )
        }
        head_signature = c.execute("SELECT signature FROM ledger_head").fetchone()[0]
    with db(forged_store) as f:
        rows = f.execute(
            "SELECT rowid, originator_id, originator_version, topic, state FROM stored_events "
            "ORDER BY rowid"
        ).fetchall()
    new_rows = []
    for rowid, stream, version, topic, state in rows:
        data = json.loads(state)
        if data["type"] == "hand_closed" and signatures.get((stream, version)):
            data["signature"] = signatures[(stream, version)]  # an old signature, kept
            state = json.dumps(data, separators=(",", ":")).encode()
        new_rows.append((rowid, stream, version, topic, state))
    count, last, digest = fold_head(new_rows)
    with db(path) as c:
        c.execute("BEGIN")
        c.execute("DELETE FROM stored_events")
        c.executemany(
            "INSERT INTO stored_events (rowid, originator_id, originator_version, topic, state) "
            "VALUES (?, ?, ?, ?, ?)",
            new_rows,
        )
        c.execute(
            "UPDATE ledger_head SET rows = ?, notification = ?, digest = ?, signature = ?",
            (count, last, digest, head_signature),
        )
        c.execute("COMMIT")
    if c.postgres:  # the read models beside the events: rebuilt by mjledger from the forgery
        with Ledger(path) as ledger:
            ledger.views.rebuild()
    else:
        shutil.copy(views_path(forged_store), views_path(Path(path)))


def test_a_forged_kong_with_a_recomputed_chain_is_found_only_by_the_signed_mode(
    signed: str, key: Path, tmp_path: Path
) -> None:
    with Ledger(signed) as ledger:
        before = ledger.settlement(SC, 2).net()
    length = len(rows_of(signed, hand_stream(SC, 2)))
    forge_kong(signed, tmp_path)
    with Ledger(signed) as ledger:
        after = ledger.settlement(SC, 2).net()
    assert after != before  # the forgery moves money
    assert len(rows_of(signed, hand_stream(SC, 2))) == length + 1
    # Without the key, everything is consistent: the chain was recomputed.
    assert audit(signed).findings == ()
    # With it, hand 2's closing (and each later one, chained after it) and the head fail.
    report = audit(signed, public_key=pub(key))
    assert codes(report) == {"signature_invalid"}
    hands = sorted(f.hand for f in report.findings if f.hand is not None)
    assert hands == [2, 3, 4, 5, 6]
    assert any(f.hand is None for f in report.findings)  # the head


# --- signatures, keys, the head -------------------------------------------------------------


def test_an_unsigned_store_under_a_public_key_has_unsigned_hands_and_head(
    store: str, key: Path
) -> None:
    report = audit(store, public_key=pub(key))
    assert codes(report) == {"unsigned_hand", "unsigned_head"}
    assert len([f for f in report.findings if f.code == "unsigned_hand"]) == 16 + 6


def test_signatures_from_another_key_do_not_verify(signed: str, tmp_path: Path) -> None:
    other, _ = keygen(tmp_path / "other.pem")
    assert codes(audit(signed, public_key=pub(other))) == {"signature_invalid"}


def test_a_stripped_signature_is_an_unsigned_hand(signed: str, key: Path) -> None:
    rowid, _, data = rows_of(signed, match_stream(HK))[2]
    del data["signature"]
    put(signed, rowid, data)
    report = audit(signed, public_key=pub(key))
    assert codes(report) == {"unsigned_hand", "head_mismatch"}
    assert codes(audit(signed)) == {"head_mismatch"}


def test_the_signing_key_from_the_environment(
    tmp_path: Path, key: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv("MJLEDGER_SIGNING_KEY", str(key))
    record(tmp_path / "env.sqlite")
    assert audit(tmp_path / "env.sqlite", public_key=pub(key)).findings == ()
    monkeypatch.setenv("MJLEDGER_SIGNING_KEY", str(tmp_path / "missing.pem"))
    with pytest.raises(SigningKeyError, match=r"missing\.pem"):
        Ledger(tmp_path / "other.sqlite")
    assert not (tmp_path / "other.sqlite").exists()


def test_a_public_key_is_not_a_signing_key(tmp_path: Path, key: Path) -> None:
    with pytest.raises(SigningKeyError, match="not a PEM private key"):
        Ledger(tmp_path / "x.sqlite", signing_key=key.with_name(key.name + ".pub"))
    with pytest.raises(SigningKeyError, match="exists already"):
        keygen(key)


def head_by_the_formula(path: str | Path) -> tuple[int, str]:
    """docs/store.md's head formula, written out again here."""
    digest = ""
    with db(path) as c:
        rows = c.execute(
            "SELECT originator_id, originator_version, topic, state FROM stored_events "
            "ORDER BY rowid"
        ).fetchall()
    for stream, version, topic, state in rows:
        text = f"{digest} {stream} {version} {topic}\n".encode()
        digest = hashlib.sha256(text + state).hexdigest()
    return len(rows), digest


def test_the_head_row_follows_every_transaction(
    backend: type[Backend], request: pytest.FixtureRequest
) -> None:
    path = new_store(backend, request, "h")
    ledger = Ledger(path)
    match = ledger.start_match("hongkong", ["ana", "bo", "cy", "di"], match_id="h")
    for step in range(3):
        if step == 0:
            ledger.start_hand(match)
        else:
            ledger.record(match, 1, Discarded(player="ana"))
        with db(path) as c:
            rows, digest = c.execute("SELECT rows, digest FROM ledger_head").fetchone()
        assert (rows, digest) == head_by_the_formula(path)
    ledger.close()
    head = store_head(path)
    assert (head.rows, head.digest) == head_by_the_formula(path)
    assert head.agrees


def test_a_store_from_before_the_head_gets_one_when_opened(store: str) -> None:
    with db(store) as c:
        c.execute("DROP TABLE ledger_head")
    assert codes(audit(store)) == {"head_missing"}
    Ledger(store).close()
    assert audit(store).findings == ()


def test_a_removed_head_row_is_found_and_stops_recording(store: str) -> None:
    with db(store) as c:
        c.execute("DELETE FROM ledger_head")
    assert codes(audit(store)) == {"head_missing"}
    ledger = Ledger(store)
    with pytest.raises(StoreError, match="head row is missing"):
        ledger.start_match("sichuan", ["a", "b", "c", "d"], match_id="new")
    assert not ledger.has_match("new")
    ledger.close()


def test_a_published_head_shows_a_rollback(store: str) -> None:
    published = store_head(store).digest
    last = rows_of(store, match_stream(SC))[-1]
    with db(store) as c:  # a thorough attacker: truncate, then recompute the head
        c.execute("DELETE FROM stored_events WHERE originator_id = ?", (hand_stream(SC, 6).hex,))
        c.execute("DELETE FROM stored_events WHERE rowid = ?", (last[0],))
        rows = c.execute(
            "SELECT rowid, originator_id, originator_version, topic, state FROM stored_events "
            "ORDER BY rowid"
        ).fetchall()
        count, rowid, digest = fold_head(rows)
        c.execute(
            "UPDATE ledger_head SET rows = ?, notification = ?, digest = ?", (count, rowid, digest)
        )
    drop_views(store)
    assert audit(store).findings == ()  # consistent in itself...
    assert store_head(store).digest != published  # ...but not the head that was published


# --- verify on read -------------------------------------------------------------------------


def test_verify_on_read_refuses_a_broken_stream(store: str) -> None:
    rowid, _, data = next(
        r for r in rows_of(store, hand_stream(HK, 3)) if r[2]["type"] == "discarded"
    )
    data["tile"] = "1m" if data.get("tile") != "1m" else "2m"
    put(store, rowid, data)
    trusting = Ledger(store)
    trusting.settlement(HK, 2)
    verifying = Ledger(store, verify=True)
    assert verifying.settlement(HK, 2).net() == trusting.settlement(HK, 2).net()
    with pytest.raises(ChainError, match="chain is broken"):
        verifying.settlement(HK, 3)
    with pytest.raises(ChainError):
        verifying.replay_all()
    assert Ledger(store, verify=True).replay_match(SC).totals()


def test_verify_on_read_checks_the_match_a_hand_starts_from(store: str) -> None:
    rowid, _, data = rows_of(store, match_stream(HK))[0]
    data["players"] = list(reversed(data["players"]))
    put(store, rowid, data)
    with pytest.raises(ChainError):
        Ledger(store, verify=True).hand(HK, 4)


# --- the command line -----------------------------------------------------------------------


def run(*args: str) -> Any:
    return CliRunner().invoke(main, list(args))


def test_cli_audit_exit_status_and_json(store: str, tmp_path: Path) -> None:
    clean = run("audit", "--store", str(store))
    assert clean.exit_code == 0, clean.output
    assert "no findings" in clean.output
    out = run("audit", "--store", str(store), "--json")
    assert out.exit_code == 0
    assert json.loads(out.output)["clean"] is True
    with views_db(store) as c:
        c.execute("UPDATE view_hands SET dealer = 'zed' WHERE number = 1")
    found = run("audit", "--store", str(store), "--json")
    assert found.exit_code == 1
    data = json.loads(found.output)
    assert data["counts"] == {"view_differs": 2}
    assert {f["match"] for f in data["findings"]} == {HK, SC}
    assert set(data["findings"][0]) == {
        "code",
        "message",
        "match",
        "hand",
        "stream",
        "version",
        "line",
        "expected",
        "found",
    }
    only = run("audit", "--store", str(store), "--match", SC)
    assert only.exit_code == 1
    assert "view_differs" in only.output
    assert f"match {HK}" not in only.output


def test_cli_audit_of_an_unreadable_store_exits_2_with_one_line(tmp_path: Path) -> None:
    for path in (tmp_path / "none.sqlite", tmp_path / "junk.sqlite"):
        if path.name == "junk.sqlite":
            path.write_text("not a database")
        result = CliRunner().invoke(main, ["audit", "--store", str(path)])
        assert result.exit_code == 2
        assert result.stdout == ""
        assert len(result.stderr.splitlines()) == 1
        assert result.stderr.startswith("mjledger: ")


def test_cli_keygen_signed_record_and_audit_with_the_public_key(tmp_path: Path) -> None:
    key = tmp_path / "k.pem"
    assert run("keygen", str(key)).exit_code == 0
    assert key.exists()
    assert key.with_name("k.pem.pub").exists()
    assert oct(key.stat().st_mode)[-3:] == "600"
    store = tmp_path / "s.sqlite"
    log = str(EXAMPLES / "hongkong-match.jsonl")
    assert run("record", log, "--store", str(store), "--signing-key", str(key)).exit_code == 0
    good = run("audit", "--store", str(store), "--public-key", f"{key}.pub")
    assert good.exit_code == 0, good.output
    assert "16 hands signed; verified" in good.output
    unsigned = tmp_path / "u.sqlite"
    run("record", log, "--store", str(unsigned))
    bad = run("audit", "--store", str(unsigned), "--public-key", f"{key}.pub")
    assert bad.exit_code == 1
    assert "unsigned_hand" in bad.output


def test_cli_head_prints_the_digest_by_the_formula(store: str) -> None:
    result = run("audit", "--store", str(store), "--head")
    assert result.exit_code == 0
    assert result.output.strip() == head_by_the_formula(store)[1]
    with db(store) as c:
        c.execute("DELETE FROM stored_events WHERE rowid = (SELECT MAX(rowid) FROM stored_events)")
    cut = CliRunner().invoke(main, ["audit", "--store", str(store), "--head"])
    assert cut.exit_code == 1
    assert cut.stdout.strip() == head_by_the_formula(store)[1]
    assert "is not the head" in cut.stderr


def test_cli_verify_refuses_to_settle_a_broken_hand(store: str) -> None:
    rowid, _, data = next(
        r for r in rows_of(store, hand_stream(HK, 2)) if r[2]["type"] == "discarded"
    )
    data["tile"] = "1m" if data.get("tile") != "1m" else "2m"
    put(store, rowid, data)
    assert run("hand", HK, "2", "--store", str(store)).exit_code == 0
    result = CliRunner().invoke(main, ["--verify", "hand", HK, "2", "--store", str(store)])
    assert result.exit_code == 2
    assert "chain is broken" in result.stderr


def test_every_code_is_documented() -> None:
    docs = (Path(__file__).resolve().parents[2] / "docs" / "store.md").read_text()
    for code in CODES:
        assert f"`{code}`" in docs, code


def test_the_head_stays_whole_under_concurrent_writers(
    backend: type[Backend], request: pytest.FixtureRequest
) -> None:
    """Each writer updates the head in its own transaction, with its inserts: threads on one
    Ledger and a second Ledger (another connection) leave a head that covers every row."""
    from concurrent.futures import ThreadPoolExecutor

    from mjledger import SelfDrawn

    path = new_store(backend, request, "c")
    first, second = Ledger(path), Ledger(path)

    def play(n: int) -> None:
        ledger = first if n % 2 else second
        match = ledger.start_match("hongkong", ["ana", "bo", "cy", "di"], match_id=f"c-{n}")
        for _ in range(3):
            number = ledger.start_hand(match)
            ledger.record(match, number, Discarded(player="ana"))
            ledger.record(match, number, SelfDrawn(player="cy", fan=3))

    with ThreadPoolExecutor(6) as pool:
        list(pool.map(play, range(12)))
    first.close()
    second.close()
    report = audit(path)
    assert report.findings == ()
    assert (report.summary.matches, report.summary.hands) == (12, 36)


def test_cli_audit_of_an_unknown_match_exits_2(store: str) -> None:
    result = CliRunner().invoke(main, ["audit", "--store", str(store), "--match", "nope"])
    assert result.exit_code == 2
    assert result.stderr.strip() == f"mjledger: no match 'nope' in {store_location(store)}"


def test_a_damaged_views_file_is_a_finding_not_an_unreadable_store(sqlite_store: Path) -> None:
    store = sqlite_store
    with views_db(store) as c:
        c.execute("DROP TABLE view_hand_net")
    report = audit(store)
    assert codes(report) == {"view_differs"}
    assert "view_hand_net" in report.findings[0].message
    views_path(store).write_bytes(b"not a database at all")
    assert codes(audit(store)) == {"view_differs"}


def test_a_hand_cut_short_in_the_middle_of_a_match_is_one_hand_s_findings(store: str) -> None:
    rows = rows_of(store, hand_stream(HK, 4))
    with db(store) as c:
        c.execute("DELETE FROM stored_events WHERE rowid = ?", (rows[-1][0],))
    report = audit(store)
    assert {f.hand for f in report.findings if f.hand is not None} == {4}
    assert {"closing_differs", "replay_differs"} <= codes(report)


@pytest.mark.parametrize("number", [0, 10**9])
def test_a_hand_closed_with_a_wild_number_is_found_and_the_audit_ends(
    store: str, number: int
) -> None:
    rowid, _, data = rows_of(store, match_stream(HK))[5]
    data["number"] = number
    put(store, rowid, data)
    report = audit(store)
    assert {"chain_broken", "closing_differs", "head_mismatch"} <= codes(report)


def test_a_deleted_hand_closed_is_missing_and_the_next_hands_still_line_up(store: str) -> None:
    rowid, _, data = rows_of(store, match_stream(HK))[5]
    assert data["number"] == 5
    with db(store) as c:
        c.execute("DELETE FROM stored_events WHERE rowid = ?", (rowid,))
    report = audit(store)
    missing = [f for f in report.findings if f.code == "closing_missing"]
    assert [f.hand for f in missing] == [5]
    assert "row_missing" in codes(report)
    assert not codes(report) & {"replay_differs", "closing_differs", "rotation_differs"}


def test_the_audit_reports_progress_up_to_its_total(store: str) -> None:
    calls: list[tuple[int, int]] = []
    audit(store, progress=lambda done, total: calls.append((done, total)))
    assert calls  # every 1,024 rows, and once at the end
    assert [done for done, _ in calls] == sorted(done for done, _ in calls)
    rows = audit(store).summary.rows
    assert calls[-1] == (2 * rows, 2 * rows)


def test_a_store_written_by_mjledger_0_1_audits_clean_once_opened(tmp_path: Path) -> None:
    """Its rows name classes by their 0.1 topics, which are still the topics; it has no head
    until a Ledger opens it."""
    data = Path(__file__).resolve().parents[1] / "data" / "store-v0.1"
    shutil.copy(data / "store.sqlite", tmp_path / "old.sqlite")
    assert codes(audit(tmp_path / "old.sqlite")) == {"head_missing"}
    Ledger(tmp_path / "old.sqlite").close()
    report = audit(tmp_path / "old.sqlite")
    assert report.findings == ()
    assert report.summary.hands > 0


# --- corrections and voids ------------------------------------------------------------------

SCM = "chengdu-teahouse-t12-2026-12-06"
DISPUTED = (EXAMPLES / "disputed-hand.jsonl").read_text(encoding="utf-8")  # hand 3 of SCM
FIXED = DISPUTED.replace(
    '"player": "jing", "from": "wei", "fan": 2', '"player": "jing", "from": "wei", "fan": 1'
)


def corrected_store(path: Path, key: Path | None = None) -> Path:
    from mjledger.store.corrections import correct, void

    ledger = Ledger(path, signing_key=key)
    ledger.record_log((EXAMPLES / "sichuan-match.jsonl").read_text(encoding="utf-8"))
    ledger.record_log((EXAMPLES / "hongkong-match.jsonl").read_text(encoding="utf-8"))
    correct(ledger, SCM, 3, FIXED, reason="fan miscounted", by="staff7")
    void(ledger, SCM, 5, reason="misdeal", by="staff7")
    correct(ledger, SCM, 3, DISPUTED, reason="the first fix was wrong", by="staff9")
    ledger.record_log((EXAMPLES / "hongkong-match.jsonl").read_text(encoding="utf-8"))
    ledger.views.catch_up()
    ledger.close()
    return path


def test_corrections_and_voids_audit_clean_and_are_signed(tmp_path: Path, key: Path) -> None:
    plain = corrected_store(tmp_path / "c.sqlite")
    assert audit(plain).findings == ()
    signed = corrected_store(tmp_path / "cs.sqlite", key)
    assert audit(signed, public_key=pub(key)).findings == ()
    report = audit(plain, public_key=pub(key))
    unsigned = {(f.hand, f.stream) for f in report.findings if f.code == "unsigned_hand"}
    from mjledger.store.correction_log import corrections_stream

    assert {(h, s) for h, s in unsigned if s == corrections_stream(SCM).hex} == {
        (3, corrections_stream(SCM).hex),
        (5, corrections_stream(SCM).hex),
    }


def test_an_edited_correction_is_found(tmp_path: Path) -> None:
    from mjledger.store.correction_log import correction_stream, corrections_stream

    store = corrected_store(tmp_path / "c.sqlite")
    rowid, _, data = rows_of(store, corrections_stream(SCM))[0]
    data["net"] = {p: -n for p, n in data["net"].items()}
    put(store, rowid, data)
    found = codes(audit(store))
    assert {"chain_broken", "replay_differs", "head_mismatch"} <= found
    # and a corrected hand's own stream, cut short behind the ledger's back:
    store = corrected_store(tmp_path / "d.sqlite")
    last = rows_of(store, correction_stream(SCM, 3, 1))[-1]
    with db(store) as c:
        c.execute("DELETE FROM stored_events WHERE rowid = ?", (last[0],))
    assert {"closing_differs", "head_mismatch"} <= codes(audit(store))


def test_a_read_model_that_ignores_a_correction_is_found(tmp_path: Path) -> None:
    store = corrected_store(tmp_path / "c.sqlite")
    with db(views_path(store)) as c:
        c.execute(
            "UPDATE view_hand_net SET amount = 7 WHERE match = ? AND number = 5 AND player = "
            "(SELECT player FROM view_hand_net WHERE match = ? AND number = 5 LIMIT 1)",
            (SCM, SCM),
        )
    report = audit(store)
    assert codes(report) == {"view_differs"}
    assert report.findings[0].hand == 5


def test_verify_on_read_follows_corrections(tmp_path: Path) -> None:
    from mjledger.store.correction_log import correction_stream

    store = corrected_store(tmp_path / "c.sqlite")
    trusting = Ledger(store)
    verifying = Ledger(store, verify=True)
    for number in (3, 5, 6):
        assert verifying.settlement(SCM, number) == trusting.settlement(SCM, number)
    assert verifying.export(SCM) == trusting.export(SCM)
    rowid, _, data = rows_of(store, correction_stream(SCM, 3, 3))[1]  # the third correction
    data["player"] = "ming" if data.get("player") != "ming" else "hua"
    put(store, rowid, data)
    with pytest.raises(ChainError, match="chain is broken"):
        Ledger(store, verify=True).settlement(SCM, 3)


def test_the_summary_counts_agree_with_their_nouns(tmp_path: Path) -> None:
    """One match, one hand: the summary says "1 match", not "1 matches"."""
    with Ledger(tmp_path / "one.sqlite") as ledger:
        ledger.record_log(sichuan_match(1, seed=3))
    result = CliRunner().invoke(main, ["audit", "--store", str(tmp_path / "one.sqlite")])
    assert result.exit_code == 0, result.output
    assert ": 1 match, 1 hand, 0 tables, " in " ".join(result.output.split())  # unwrapped


def test_a_findings_text_shows_only_the_values_it_has() -> None:
    """A finding that states only what it found reads "found …", not "expected null"."""
    from mjledger.store.audit.report import Finding

    net = {"a": 1, "b": 0}
    only_found = Finding("not_zero_sum", "hand 1 settles to 1", match="m", hand=1, found=net)
    both = Finding("replay_differs", "net", expected={"x": 1}, found={"x": None})
    neither = Finding("head_missing", "the store has no head row")
    assert (
        str(only_found)
        == 'not_zero_sum: match m, hand 1: hand 1 settles to 1 (found {"a": 1, "b": 0})'
    )
    assert str(both) == 'replay_differs: net (expected {"x": 1}, found {"x": null})'
    assert str(neither) == "head_missing: the store has no head row"
