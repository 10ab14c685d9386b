"""Tokens: the 401/403 matrix, scopes, hashes only, and tables outside the events."""

from __future__ import annotations

import json
import sqlite3
import subprocess
import sys
from typing import Any

import pytest

from mjledger.http.access import Access, digest
from mjledger.store.audit import store_head
from mjledger.store.location import store_location
from tests.http.conftest import EXAMPLE_START, Api, make_api

START = '{"type": "match_started", "ruleset": "hongkong", "players": ["a", "b", "c", "d"]}'
VOID = '{"action": "void", "number": 1, "reason": "r"}'

# (method, path, body, who may) for one endpoint of each kind of role.
MATRIX = [
    ("GET", "/v1/matches", None, {"backend", "staff", "auditor"}),
    ("PUT", "/v1/matches/lobby1-m", START, {"backend", "staff"}),
    ("PUT", "/v1/matches/lobby1-m/corrections/1", VOID, {"staff"}),
    ("GET", "/v1/audit", None, {"staff", "auditor"}),
    ("GET", "/v1/audit/head", None, {"staff", "auditor"}),
    ("POST", "/v1/replay", None, {"backend", "staff", "auditor"}),
]


def _send(api: Api, method: str, path: str, body: str | None, headers: dict[str, str]) -> Any:
    if method == "POST":
        headers = {**headers, "content-type": "application/x-ndjson"}
        return api.client.post(path, content=START + "\n", headers=headers)
    if body is not None:
        headers = {**headers, "content-type": "application/json"}
        return api.client.request(method, path, content=body, headers=headers)
    return api.client.request(method, path, headers=headers)


@pytest.mark.parametrize(("method", "path", "body", "allowed"), MATRIX)
def test_roles(api: Api, method: str, path: str, body: str | None, allowed: set[str]) -> None:
    for role in ("backend", "staff", "auditor"):
        answer = _send(api, method, path, body, api.auth(role))
        if role in allowed:
            assert answer.status_code not in (401, 403), (role, answer.text)
        else:
            assert (answer.status_code, answer.json()["code"]) == (403, "forbidden"), role


@pytest.mark.parametrize(("method", "path", "body", "allowed"), MATRIX)
def test_no_token_or_a_bad_one_is_401(
    api: Api, method: str, path: str, body: str | None, allowed: set[str]
) -> None:
    cases = {
        None: 'Bearer realm="mjledger"',
        "Basic abc": 'Bearer realm="mjledger"',
        "Bearer mjl_short": 'Bearer realm="mjledger", error="invalid_token"',
        "Bearer mjl_" + "A" * 43: 'Bearer realm="mjledger", error="invalid_token"',
    }
    for header, challenge in cases.items():
        headers = {} if header is None else {"authorization": header}
        answer = _send(api, method, path, body, headers)
        assert answer.status_code == 401
        assert answer.json()["code"] == "unauthorized"
        assert answer.headers["www-authenticate"] == challenge
    lower = {"authorization": "bearer " + api.tokens["staff"]}
    assert _send(api, method, path, body, lower).status_code != 401


def test_authentication_comes_before_the_route(api: Api) -> None:
    assert api.client.get("/v1/nowhere").status_code == 401
    assert api.client.delete("/v1/matches").status_code == 401
    assert api.get("/v1/nowhere").status_code == 404


def test_a_revoked_token_is_refused_at_its_next_request(api: Api) -> None:
    assert api.get("/v1/matches", role="backend").status_code == 200
    access = Access(store_location(api.store))
    (token,) = [t for t in access.tokens() if t.name == "game-server"]
    access.revoke(token.id)
    access.close()
    answer = api.get("/v1/matches", role="backend")
    assert answer.status_code == 401
    assert 'error="invalid_token"' in answer.headers["www-authenticate"]


def test_a_scoped_token_reaches_only_its_prefix(api: Api) -> None:
    assert api.put("/v1/matches/lobby1-t3", START, role="scoped").status_code == 201
    for path in ("/v1/matches/lobby10-t3", "/v1/matches/Lobby1-t3", "/v1/matches/x%ZZ"):
        answer = api.put(path, START, role="scoped")
        assert (answer.status_code, answer.json()["code"]) == (403, "out_of_scope"), path
    assert api.get("/v1/matches/lobby10-none", role="scoped").json()["code"] == "out_of_scope"
    api.put("/v1/matches/other", START)
    listed = api.get("/v1/matches", role="scoped").json()["items"]
    assert [m["match"] for m in listed] == ["lobby1-t3"]
    assert [m["match"] for m in api.get("/v1/matches").json()["items"]] == ["lobby1-t3", "other"]


def test_a_scoped_log_names_its_match_in_the_prefix_first(api: Api) -> None:
    outside = '{"type": "match_started", "match": "lobby2-x", "ruleset": "hongkong",' + (
        ' "players": ["a", "b", "c", "d"]}\n{"broken'
    )
    answer = api.post_log("/v1/logs", outside, role="scoped")
    assert (answer.status_code, answer.json()["code"]) == (403, "out_of_scope")
    unnamed = START + "\n"
    assert api.post_log("/v1/logs", unnamed, role="scoped").json()["code"] == "out_of_scope"
    inside = unnamed.replace('"ruleset"', '"match": "lobby1-x", "ruleset"')
    assert api.post_log("/v1/logs", inside, role="scoped").status_code == 201
    assert api.post_log("/v1/replay", outside.split("\n")[0], role="scoped").status_code == 200


def test_the_store_keeps_only_hashes_and_tokens_stay_out_of_the_audit(api: Api) -> None:
    api.put("/v1/matches/m1", EXAMPLE_START)
    with sqlite3.connect(api.store) as db:
        rows = db.execute("SELECT token_hash, id FROM api_tokens").fetchall()
    assert {h for h, _ in rows} == {digest(t) for t in api.tokens.values()}
    assert all(h[:12] == i for h, i in rows)
    before = store_head(api.store)
    access = Access(store_location(api.store))
    access.create("staff")
    access.close()
    assert store_head(api.store) == before
    assert api.get("/v1/audit").json()["findings"] == []


def test_an_existing_store_gains_the_tables_without_a_change_to_its_events(tmp_path: Any) -> None:
    store = str(tmp_path / "old.sqlite")
    log = tmp_path / "m.jsonl"
    log.write_text(EXAMPLE_START + "\n")
    mjledger = [sys.executable, "-m", "mjledger"]
    subprocess.run([*mjledger, "record", str(log), "--store", store], check=True)
    before = store_head(store)
    with sqlite3.connect(store) as db:
        assert not db.execute("SELECT name FROM sqlite_master WHERE name='api_tokens'").fetchall()
    made = subprocess.run(
        [*mjledger, "token", "create", "--role", "staff", "--store", store, "--json"],
        check=True,
        capture_output=True,
        text=True,
    )
    created = json.loads(made.stdout)
    assert created["token"].startswith("mjl_")
    assert len(created["token"]) == 47
    assert store_head(store) == before
    listed = subprocess.run(
        [*mjledger, "token", "list", "--store", store, "--json"],
        check=True,
        capture_output=True,
        text=True,
    )
    assert [t["id"] for t in json.loads(listed.stdout)] == [created["id"]]
    assert created["token"] not in listed.stdout


def test_token_create_refuses_a_bad_scope(tmp_path: Any) -> None:
    store = str(tmp_path / "s.sqlite")
    for args in (["--role", "staff", "--scope", "a-"], ["--role", "backend", "--scope", "abc"]):
        done = subprocess.run(
            [sys.executable, "-m", "mjledger", "token", "create", *args, "--store", store],
            capture_output=True,
            text=True,
        )
        assert done.returncode == 2
        assert done.stdout == ""


def test_the_command_line_does_not_load_the_web_framework() -> None:
    code = "import sys, mjledger.cli; print(sorted(m for m in sys.modules if m.split('.')[0] in "
    code += "('litestar', 'uvicorn', 'jinja2') or m.startswith('mjledger.http')))"
    done = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True)
    assert done.stdout.strip() == "[]"


def test_postgres_stores_gain_the_tables_and_share_tokens(pg_url: str) -> None:
    for api in make_api(pg_url):
        assert api.put("/v1/matches/m1", START).status_code == 201
        assert api.get("/v1/matches", role="auditor").status_code == 200
        before = store_head(pg_url)
        access = Access(store_location(pg_url))
        revoked = next(t for t in access.tokens() if t.name == "audit")
        access.revoke(revoked.id)
        access.close()
        assert api.get("/v1/matches", role="auditor").status_code == 401
        assert store_head(pg_url) == before
        assert api.get("/v1/audit").json()["findings"] == []
