"""The desk's pages through the test client: sessions, CSRF and origins, escaping, headers."""

from __future__ import annotations

import html
import json
import re
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

from tests.http.conftest import Api, make_api

ROOT = Path(__file__).resolve().parents[2]
HK = (ROOT / "examples" / "hongkong-match.jsonl").read_text()
HK_ID = "hk-tsimshatsui-t3-2026-12-05"
ORIGIN = "http://testserver.local"
HAND = f"/desk/matches/{HK_ID}/hands/1"


@pytest.fixture
def desk(store: str) -> Iterator[Api]:
    for api in make_api(store, public_url=ORIGIN):
        assert api.post_log("/v1/logs", HK).status_code == 201
        yield api


def csrf_of(page: Any) -> str:
    found = re.search(r'name="csrf_token" value="([^"]+)"', page.text)
    assert found is not None
    return found.group(1)


def log_in(api: Api, role: str = "staff") -> Any:
    form = api.client.get("/desk/login")
    return api.client.post(
        "/desk/login",
        data={"token": api.tokens[role], "csrf_token": csrf_of(form)},
        headers={"origin": ORIGIN},
        follow_redirects=False,
    )


def test_every_page_needs_a_session(desk: Api) -> None:
    for path in ("/desk", f"/desk/matches/{HK_ID}", HAND, f"{HAND}/correct", "/desk/audit"):
        answer = desk.client.get(path, follow_redirects=False)
        assert (answer.status_code, answer.headers["location"]) == (303, "/desk/login"), path
    assert desk.client.get("/desk/static/desk.css").headers["content-type"].startswith("text/css")


def test_pages_carry_a_strict_policy(desk: Api) -> None:
    assert log_in(desk).status_code == 303
    for path in (
        "/desk/login",
        "/desk",
        f"/desk/matches/{HK_ID}",
        HAND,
        f"{HAND}/correct",
        "/desk/audit",
    ):
        answer = desk.client.get(path)
        assert answer.status_code == 200, path
        assert answer.headers["content-type"] == "text/html; charset=utf-8"
        policy = answer.headers["content-security-policy"]
        assert "default-src 'none'" in policy
        assert "frame-ancestors 'none'" in policy
        assert "unsafe-inline" not in policy
        assert "unsafe-eval" not in policy
        assert answer.headers["x-content-type-options"] == "nosniff"
        assert answer.headers["referrer-policy"] == "same-origin"
        assert answer.headers["cache-control"] == "no-store"
        assert "<script" not in answer.text.lower()
        assert " on" + "click" not in answer.text


def test_the_session_cookie(desk: Api) -> None:
    cookie = log_in(desk).headers["set-cookie"]
    session = next(c for c in cookie.split(", mjledger") if "mjledger_session=" in c)
    assert "HttpOnly" in session
    assert "Path=/desk" in session
    assert "samesite=strict" in session.lower()
    assert "Secure" not in session  # plain http public URL


def test_a_backend_token_opens_no_session(desk: Api) -> None:
    answer = log_in(desk, "backend")
    assert answer.status_code == 403
    assert "csrf_token" in answer.text


@pytest.mark.parametrize(
    "headers",
    [{}, {"origin": "null"}, {"origin": "http://evil.example"}, {"referer": "http://evil/x"}],
)
def test_posts_from_another_origin_are_refused(desk: Api, headers: dict[str, str]) -> None:
    form = desk.client.get("/desk/login")
    answer = desk.client.post(
        "/desk/login",
        data={"token": desk.tokens["staff"], "csrf_token": csrf_of(form)},
        headers=headers,
        follow_redirects=False,
    )
    assert answer.status_code == 403
    assert "csrf_failed" in answer.text


def test_a_post_without_its_csrf_token_writes_nothing(desk: Api) -> None:
    log_in(desk)
    for fields in (
        {"reason": "r", "correction": "1"},
        {"reason": "r", "correction": "1", "csrf_token": "x" * 43},
    ):
        answer = desk.client.post(f"{HAND}/void", data=fields, headers={"origin": ORIGIN})
        assert answer.status_code == 403
        assert "csrf_failed" in answer.text
    assert desk.get(f"/v1/matches/{HK_ID}/corrections").json() == {"items": []}


def test_an_auditor_reads_but_may_not_post(desk: Api) -> None:
    log_in(desk, "auditor")
    assert desk.client.get("/desk/audit").status_code == 200
    page = desk.client.get(HAND)
    answer = desk.client.post(
        f"{HAND}/void",
        data={"reason": "r", "correction": "1", "csrf_token": csrf_of(page)},
        headers={"origin": ORIGIN},
    )
    assert answer.status_code == 403
    assert desk.get(f"/v1/matches/{HK_ID}/corrections").json() == {"items": []}


def test_a_correction_at_the_desk_and_a_second_staff_member_too_late(desk: Api) -> None:
    log_in(desk)
    form = desk.client.get(f"{HAND}/correct")
    text = html.unescape(re.search(r"<textarea[^>]*>(.*?)</textarea>", form.text, re.S)[1])
    fixed = text.replace('"fan": 4', '"fan": 5')
    # another staff member records correction 1 through the API first
    void = json.dumps({"action": "void", "number": 2, "reason": "first"})
    assert desk.put(f"/v1/matches/{HK_ID}/corrections/1", void, role="staff2").status_code == 201
    late = desk.client.post(
        f"{HAND}/correct",
        data={"log": fixed, "reason": "fan 5", "csrf_token": csrf_of(form), "correction": "1"},
        headers={"origin": ORIGIN},
    )
    assert late.status_code == 409
    assert "conflict" in late.text
    assert "first" in late.text
    again = desk.client.post(
        f"{HAND}/correct",
        data={"log": fixed, "reason": "fan 5", "csrf_token": csrf_of(late), "correction": "2"},
        headers={"origin": ORIGIN},
        follow_redirects=False,
    )
    assert (again.status_code, again.headers["location"]) == (303, HAND)
    shown = desk.client.get(HAND + "?lang=it")
    assert "Correzione 2: corretta" in shown.text  # the desk speaks the language chosen
    assert "fan 5" in shown.text
    assert "wen.li" in shown.text
    refused = desk.client.post(
        f"{HAND}/correct",
        data={"log": "nope", "reason": "x", "csrf_token": csrf_of(shown), "correction": "3"},
        headers={"origin": ORIGIN},
    )
    assert refused.status_code == 400


def test_logout_ends_the_session_everywhere(desk: Api) -> None:
    log_in(desk)
    page = desk.client.get("/desk")
    cookie = desk.client.cookies.get("mjledger_session")
    out = desk.client.post(
        "/desk/logout",
        data={"csrf_token": csrf_of(page)},
        headers={"origin": ORIGIN},
        follow_redirects=False,
    )
    assert (out.status_code, out.headers["location"]) == (303, "/desk/login")
    desk.client.cookies.set("mjledger_session", str(cookie), path="/desk")
    assert desk.client.get("/desk", follow_redirects=False).status_code == 303


def test_text_from_the_store_is_shown_as_text(desk: Api) -> None:
    evil = "<script>alert(1)</script>"
    start = json.dumps(
        {"type": "match_started", "ruleset": "hongkong", "players": [evil, "b", "c", "d"]}
    )
    assert desk.put("/v1/matches/x-1", start).status_code == 201
    assert desk.put("/v1/matches/x-1/hands/1", '{"type": "hand_started"}').status_code == 201
    log_in(desk)
    for path in ("/desk/matches/x-1", "/desk/matches/x-1/hands/1"):
        page = desk.client.get(path)
        assert evil not in page.text
        assert html.escape(evil) in page.text or "&lt;script&gt;" in page.text
