"""The desk in the six languages (issue 24: "the desk … in the six languages"): its own
catalog (``desk.po``) complete in each, a language chosen once kept for the session's pages,
the browser's choice as the default, and a ``?lang`` out of the six refused on any page."""

from __future__ import annotations

import re
from collections.abc import Iterator
from pathlib import Path

import pytest
from babel.messages.pofile import read_po

from mjledger.explain.i18n import LANGUAGES, catalog_paths, placeholders
from tests.http.conftest import Api, make_api
from tests.http.test_desk import HAND, HK, HK_ID, ORIGIN, log_in

DESK = Path(__file__).resolve().parents[2] / "src" / "mjledger" / "http"
# Every message id the pages name: a string literal "desk.…" (a kind is "desk.kind." + kind;
# "desk.css" is the stylesheet's file name).
USED = re.compile(r"""["'](desk\.(?!css["'])[a-z_.]*[a-z_])["']""")


def _catalog(lang: str) -> dict[str, str]:
    po, _ = catalog_paths(lang, "desk")
    with po.open("rb") as f:
        return {str(m.id): str(m.string) for m in read_po(f) if m.id}


def _ids_used() -> set[str]:
    texts = [p.read_text() for p in (DESK / "templates").glob("*.html")]
    texts.append((DESK / "desk.py").read_text())
    found = {m for text in texts for m in USED.findall(text)}
    return found | {"desk.kind.corrected", "desk.kind.voided"}


@pytest.mark.parametrize("lang", LANGUAGES)
def test_every_desk_message_is_translated_with_the_same_placeholders(lang: str) -> None:
    english, catalog = _catalog("en"), _catalog(lang)
    used = _ids_used()
    assert len(used) > 40
    assert used <= set(catalog), sorted(used - set(catalog))
    assert set(catalog) == set(english)
    for message_id, text in catalog.items():
        assert text.strip(), (lang, message_id)
        assert placeholders(text) == placeholders(english[message_id]), (lang, message_id)


@pytest.fixture
def desk(store: str) -> Iterator[Api]:
    for api in make_api(store, public_url=ORIGIN):
        assert api.post_log("/v1/logs", HK).status_code == 201
        assert log_in(api).status_code == 303
        yield api


def test_a_language_chosen_once_stays_for_the_next_pages(desk: Api) -> None:
    assert "Step by step" in desk.client.get(HAND).text
    chosen = desk.client.get(HAND + "?lang=fr")
    assert "Étape par étape" in chosen.text
    assert '<html lang="fr">' in chosen.text
    assert "mjledger_lang=fr" in chosen.headers["set-cookie"]
    matches = desk.client.get(f"/desk/matches/{HK_ID}").text
    assert "Totaux" in matches
    assert "Totals" not in matches
    assert "Trouver une partie" in desk.client.get("/desk").text
    back = desk.client.get("/desk?lang=en").text
    assert "Find a match" in back


def test_the_browsers_language_is_the_default(desk: Api) -> None:
    desk.client.cookies.delete("mjledger_lang")
    answer = desk.client.get("/desk", headers={"accept-language": "de-DE, zh-CN;q=0.8, en;q=0.5"})
    assert "查找对局" in answer.text
    assert '<html lang="zh">' in answer.text


def test_a_language_out_of_the_six_is_refused_on_any_page(desk: Api) -> None:
    for path in ("/desk", f"/desk/matches/{HK_ID}", HAND, "/desk/audit"):
        answer = desk.client.get(path + "?lang=de")
        assert answer.status_code == 400, path
        assert "bad_parameter" in answer.text
        assert '<html lang="en">' in answer.text


def test_every_page_links_itself_in_each_language_keeping_its_query(desk: Api) -> None:
    text = desk.client.get("/desk?q=hk-").text
    for lang in LANGUAGES:
        assert f'href="/desk?q=hk-&amp;lang={lang}" hreflang="{lang}"' in text
