"""The desk in a real browser: Playwright driving Debian's Chromium (``/usr/bin/chromium``,
never a downloaded browser). A screenshot of each page is kept in ``build/desk-screenshots``."""

from __future__ import annotations

import json
import os
import shutil
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

from mjledger.http.access import Access
from mjledger.store.location import store_location
from tests.http.conftest import Server

ROOT = Path(__file__).resolve().parents[2]
SHOTS = ROOT / "build" / "desk-screenshots"
HK_ID = "hk-tsimshatsui-t3-2026-12-05"
EVIL = "<script>alert(1)</script>"


def chromium() -> str:
    found = shutil.which("chromium") or shutil.which("chromium-browser")
    if found is None:
        if os.environ.get("CI") == "true":
            pytest.fail("CI=true but Chromium is not installed (apt-get install chromium)")
        pytest.skip("Chromium is not installed (Debian: apt-get install chromium)")
    return found


@pytest.fixture
def browser_page(store: str) -> Iterator[tuple[Any, str, dict[str, str]]]:
    from playwright.sync_api import sync_playwright

    executable = chromium()
    access = Access(store_location(store))
    tokens = {"staff": access.create("staff", name="wen.li")[1]}
    access.close()
    with Server(store) as server:
        base = f"http://127.0.0.1:{server.port}"
        server.app.service.options = type(server.app.service.options)(public_url=base)  # type: ignore[attr-defined]
        _seed(server, tokens["staff"])
        with sync_playwright() as p:
            browser = p.chromium.launch(executable_path=executable, args=["--no-sandbox"])
            page = browser.new_page()
            errors: list[str] = []
            page.on("console", lambda m: errors.append(m.text) if m.type == "error" else None)
            page.on("pageerror", lambda e: errors.append(str(e)))
            yield page, base, tokens, errors
            browser.close()


def _seed(server: Server, token: str) -> None:
    import httpx

    base = f"http://127.0.0.1:{server.port}"
    headers = {"authorization": f"Bearer {token}"}
    log = (ROOT / "examples" / "hongkong-match.jsonl").read_bytes()
    httpx.post(
        f"{base}/v1/logs", content=log, headers={**headers, "content-type": "application/x-ndjson"}
    ).raise_for_status()
    start = {"type": "match_started", "ruleset": "hongkong", "players": [EVIL, "b", "c", "d"]}
    json_headers = {**headers, "content-type": "application/json"}
    httpx.put(
        f"{base}/v1/matches/evil-1", content=json.dumps(start), headers=json_headers
    ).raise_for_status()
    httpx.put(
        f"{base}/v1/matches/evil-1/hands/1",
        content='{"type": "hand_started"}',
        headers=json_headers,
    ).raise_for_status()


def shot(page: Any, name: str) -> None:
    SHOTS.mkdir(parents=True, exist_ok=True)
    page.screenshot(path=str(SHOTS / f"{name}.png"), full_page=True)


def test_a_support_person_settles_a_disputed_hand(browser_page: Any) -> None:
    page, base, tokens, errors = browser_page
    page.goto(f"{base}/desk")
    assert page.url.endswith("/desk/login")
    shot(page, "01-login")
    page.fill("#token", tokens["staff"])
    page.keyboard.press("Enter")  # keyboard only
    page.wait_for_url(f"{base}/desk")
    page.fill("#q", "hk-")
    page.click("button[type=submit]:has-text('Find')")
    shot(page, "02-find")
    page.click(f"text={HK_ID}")
    shot(page, "03-match")
    page.click("a:has-text('1') >> nth=0")
    page.click("a[hreflang=it]")
    assert "Passo per passo" in page.inner_text("main")  # the desk's own headings too
    shot(page, "04-hand-it")
    page.click("a[hreflang=zh]")
    assert "自摸" in page.content()
    assert "逐步说明" in page.inner_text("main")
    shot(page, "05-hand-zh")
    page.click("a[hreflang=en]")  # the language chosen stays with the session's pages
    page.click("text=Correct or void this hand")
    shot(page, "06-correct-form")
    log = page.input_value("#log").replace('"fan": 4', '"fan": 5')
    page.fill("#log", log)
    page.fill("#reason", "the win was 5 fan")
    page.click("button:has-text('Record the correction')")
    page.wait_for_url(f"{base}/desk/matches/{HK_ID}/hands/1")
    text = page.inner_text("main")
    assert "Original" in text
    assert "Corrected" in text
    assert "wen.li" in text
    assert "+96" in text
    assert "+144" in text
    shot(page, "07-corrected")
    page.goto(f"{base}/desk/audit")
    assert "No findings" in page.inner_text("main")
    shot(page, "08-audit")
    page.click("button:has-text('Log out')")
    page.wait_for_url(f"{base}/desk/login")
    page.goto(f"{base}/desk")
    assert page.url.endswith("/desk/login")
    assert errors == []


def test_a_player_named_like_a_script_is_shown_as_text(browser_page: Any) -> None:
    page, base, tokens, errors = browser_page
    page.goto(f"{base}/desk/login")
    page.fill("#token", tokens["staff"])
    page.click("button:has-text('Log in')")
    page.goto(f"{base}/desk/matches/evil-1")
    assert EVIL in page.inner_text("main")
    assert page.locator("main script").count() == 0
    shot(page, "09-script-as-text")
    assert errors == []


def test_a_form_post_without_its_csrf_token_is_refused(browser_page: Any) -> None:
    page, base, tokens, errors = browser_page
    page.goto(f"{base}/desk/login")
    page.fill("#token", tokens["staff"])
    page.click("button:has-text('Log in')")
    page.goto(f"{base}/desk/matches/{HK_ID}/hands/2/correct")
    page.eval_on_selector_all("input[name=csrf_token]", "els => els.forEach(e => e.remove())")
    page.fill("#void-reason", "no token")
    page.click("button:has-text('Void the hand')")
    assert "csrf_failed" in page.inner_text("main")
    shot(page, "10-csrf-refused")
    # the refusal's own status is the only message the console shows
    assert [e for e in errors if "403" not in e] == []
