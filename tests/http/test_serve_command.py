"""``mjledger serve`` as a process, and what it checks when it starts (http-api.md, "Serving"):
its key read once (a file that is no key: status 2, before it listens), audits verifying
signatures with it, readiness, and a damaged store answered without naming it."""

from __future__ import annotations

import json
import os
import signal
import sqlite3
import subprocess
import sys
import urllib.request
from collections.abc import Iterator
from pathlib import Path

import pytest

from mjledger.store.application import Ledger
from mjledger.store.signing import keygen
from mjledger.store.views import ViewsCore
from tests.http.conftest import Api, make_api

ROOT = Path(__file__).resolve().parents[2]
HK = (ROOT / "examples" / "hongkong-match.jsonl").read_text()
MJLEDGER = [sys.executable, "-m", "mjledger"]


@pytest.fixture
def key(tmp_path: Path) -> tuple[Path, Path]:
    private, public = keygen(tmp_path / "signing.pem")
    return Path(private), Path(public)


def _serve(*args: str) -> subprocess.Popen[str]:
    env = {**os.environ, "PYTHONUNBUFFERED": "1"}
    return subprocess.Popen(
        [*MJLEDGER, "serve", "--port", "0", *args],
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        text=True,
        env=env,
    )


def test_serve_listens_answers_and_stops_on_sigterm_with_status_0(tmp_path: Path) -> None:
    server = _serve("--store", str(tmp_path / "s.sqlite"))
    try:
        assert server.stderr is not None
        announce = server.stderr.readline()
        assert announce.startswith("mjledger serve: listening on http://127.0.0.1:"), announce
        url = announce.split("listening on ", 1)[1].split(" ", 1)[0]
        with urllib.request.urlopen(f"{url}/healthz", timeout=10) as answer:
            assert json.load(answer) == {"status": "ok"}
        with urllib.request.urlopen(f"{url}/readyz", timeout=10) as answer:
            assert json.load(answer)["status"] == "ready"
        server.send_signal(signal.SIGTERM)
        assert server.wait(timeout=30) == 0
    finally:
        if server.poll() is None:
            server.kill()
            server.wait()


def test_a_public_key_that_is_no_key_is_refused_before_serving(tmp_path: Path) -> None:
    bogus = tmp_path / "not-a-key.pub"
    bogus.write_text("-----BEGIN PUBLIC KEY-----\nbm90IGEga2V5\n-----END PUBLIC KEY-----\n")
    server = _serve("--store", str(tmp_path / "s.sqlite"), "--public-key", str(bogus))
    out, err = server.communicate(timeout=60)
    assert server.returncode == 2
    assert out == ""
    assert err.startswith("mjledger: "), err
    assert err.count("\n") == 1, err
    assert "listening" not in err
    assert "Traceback" not in err


@pytest.fixture
def signed_api(tmp_path: Path, key: tuple[Path, Path]) -> Iterator[Api]:
    store = str(tmp_path / "signed.sqlite")
    ledger = Ledger(store, signing_key=str(key[0]))
    ledger.record_log(HK)
    ledger.close()
    yield from make_api(store, public_key=str(key[1]))


def test_audits_over_http_verify_signatures_with_the_public_key(signed_api: Api) -> None:
    report = signed_api.get("/v1/audit", role="auditor").json()
    assert report["findings"] == []
    assert report["summary"]["signed_hands"] > 0


def test_a_signature_made_by_another_key_is_a_finding(tmp_path: Path) -> None:
    store = str(tmp_path / "other.sqlite")
    mine, _ = keygen(tmp_path / "mine.pem")
    _, theirs = keygen(tmp_path / "theirs.pem")
    ledger = Ledger(store, signing_key=str(mine))
    ledger.record_log(HK)
    ledger.close()
    for api in make_api(store, public_key=str(theirs)):
        findings = api.get("/v1/audit", role="auditor").json()["findings"]
        assert findings, "a signature the key does not verify must be reported"


def test_readyz_is_503_not_ready_naming_nothing_when_the_store_fails(
    api: Api, monkeypatch: pytest.MonkeyPatch
) -> None:
    assert api.client.get("/readyz").status_code == 200

    def broken(self: object, progress: object = None) -> int:
        raise sqlite3.OperationalError(f"disk I/O error at {api.store}")

    monkeypatch.setattr(ViewsCore, "catch_up", broken)
    answer = api.client.get("/readyz")
    assert answer.status_code == 503
    assert answer.json()["code"] == "not_ready"
    assert api.store not in answer.text
    assert "I/O" not in answer.text


def test_a_damaged_store_is_500_store_damaged_naming_no_path(api: Api, tmp_path: Path) -> None:
    match = api.post_log("/v1/logs", HK).json()["match"]
    with sqlite3.connect(api.store) as db:
        tables = [r[0] for r in db.execute("select name from sqlite_master where type='table'")]
        events = next(t for t in tables if "stored_events" in t or t == "events")
        db.execute(f"update {events} set state = x'00ff00ff'")
    answer = api.get(f"/v1/matches/{match}", role="auditor")
    assert answer.status_code == 500, answer.text
    assert answer.json()["code"] == "store_damaged"
    assert api.store not in answer.text
