"""The gettext catalogs: complete, consistent, really translated, and found in every install.

Issue 13: messages come from gettext catalogs (Babel), keyed by stable ids built from reason
codes and event types, in it, pt, es, fr, en and zh; every message exists in every language
with the same placeholders, and no English leaks into another language.
"""

from __future__ import annotations

import json
import re
import shutil
from pathlib import Path

import pytest
from babel.messages.extract import extract_from_dir
from babel.messages.pofile import read_po
from hypothesis import given

from mjledger.explain import explain_log, i18n, iter_sentences
from mjledger.explain.i18n import LANGUAGES, catalog_paths, placeholders, render, render_text
from tests.conftest import EXAMPLES, ROOT
from tests.strategies import legal_log_text

SRC = ROOT / "src" / "mjledger"


def catalog(lang: str) -> dict[str, str]:
    po, _ = catalog_paths(lang)
    with po.open("rb") as f:
        return {m.id: m.string for m in read_po(f) if m.id}


def used_ids() -> set[str]:
    """Every message id the code marks with N_, as ``pybabel extract -k N_`` finds them."""
    return {
        message
        for _file, _line, message, _comments, _context in extract_from_dir(
            str(SRC), method_map=[("**.py", "python")], keywords={"N_": None}
        )
    }


def test_the_code_marks_its_message_ids() -> None:
    ids = used_ids()
    assert {"won_on_discard.sichuan", "kong_added", "outcome.void", "report.chart"} <= ids
    for reason in ("won_on_discard", "self_drawn", "kong_money_passed", "flower_pig"):
        assert any(i.startswith(reason) for i in ids)


@pytest.mark.parametrize("lang", LANGUAGES)
def test_every_message_in_every_language_and_nothing_else(lang: str) -> None:
    messages = catalog(lang)
    ids = used_ids()
    assert sorted(ids - set(messages)) == []  # missing
    assert sorted(set(messages) - ids) == []  # obsolete
    assert all(text.strip() for text in messages.values())


@pytest.mark.parametrize("lang", [lang for lang in LANGUAGES if lang != "en"])
def test_same_placeholders_as_english(lang: str) -> None:
    english = catalog("en")
    for message_id, text in catalog(lang).items():
        assert placeholders(text) == placeholders(english[message_id]), (lang, message_id)


# Words that only an English sentence would hold (checked as whole words, placeholders and
# code names such as kong_passing_split removed).
ENGLISH = re.compile(
    r"\b(the|and|of|pays?|wins?|each|discards?|hand|player|players|share|units?|round|"
    r"deals?|dealer|still|ready|not|refunds?|passes|winner|winners|line|lines|closes|"
    r"run|nobody|void|net|won|by|because|corrected|voided|rules?|house|streak|"
    r"self-draw|rain|wind|exposed|added|concealed|flower|pig|money|running|after|"
    r"match|totals|amount|reason|from|made|network)\b",
    re.IGNORECASE,
)


def _words(text: str) -> str:
    text = re.sub(r"\{\w+\}", " ", text)
    return re.sub(r"\b\w+_\w+\b", " ", text)  # code names (kong_passing_split = none)


@pytest.mark.parametrize("lang", [lang for lang in LANGUAGES if lang != "en"])
def test_no_english_leaks(lang: str) -> None:
    english = catalog("en")
    for message_id, text in catalog(lang).items():
        leak = ENGLISH.search(_words(text))
        assert leak is None, (lang, message_id, leak.group(0) if leak else None)
        if not message_id.startswith("ruleset.hongkong"):  # a place name is a place name
            assert text != english[message_id], (lang, message_id)


def test_the_leak_check_catches_english() -> None:
    assert ENGLISH.search(_words("{winner} pays {amount}")) is not None
    assert ENGLISH.search(_words("{winner} paga {amount}")) is None


def test_seed_vocabulary() -> None:
    """The seeds' words: pesca propria, compra própria, robo propio, pioche; vento, pioggia."""
    assert "pesca propria" in catalog("it")["self_drawn.hongkong"]
    assert "compra própria" in catalog("pt")["self_drawn.hongkong"]
    assert "robo propio" in catalog("es")["self_drawn.hongkong"]
    assert "pioche" in catalog("fr")["self_drawn.hongkong"]
    assert "vento" in catalog("it")["kong_exposed"]
    assert "pioggia" in catalog("it")["kong_concealed"]
    assert "自摸" in catalog("zh")["self_drawn.hongkong"]


@given(legal_log_text())
def test_every_sentence_renders_in_every_language(text: str) -> None:
    """Every placeholder a sentence uses is given, in every language, for any legal log."""
    for hand in explain_log(text):
        for sentence in iter_sentences(hand):
            for lang in LANGUAGES:
                assert render(sentence, lang)


def test_numbers_follow_the_locale() -> None:
    assert i18n.number(12345, "fr") == "12\u202f345"
    assert i18n.number(12345, "it") == "12.345"
    assert i18n.number(12345, "en") == "12,345"
    assert i18n.signed(-1024, "en") == "-1,024"
    assert i18n.signed(0, "zh") == "0"


def test_stored_times_follow_the_locale() -> None:
    """A correction's time reads as a date in the reader's language, not as ISO 8601 text."""
    iso = "2026-11-30T18:00:05.123456+00:00"
    assert i18n.moment(iso, "en") == "November 30, 2026, 6:00:05\u202fPM UTC"
    assert i18n.moment(iso, "it") == "30 novembre 2026 18:00:05 UTC"
    assert i18n.moment(iso, "zh").startswith("2026年11月30日")
    assert i18n.moment("2026-11-30T18:00:05", "es").startswith("30 de noviembre de 2026")
    assert i18n.moment("not a time", "fr") == "not a time"


def test_each_language_explains_the_example_in_its_own_words() -> None:
    hands = explain_log((EXAMPLES / "disputed-hand.jsonl").read_text(encoding="utf-8"))
    texts = {lang: render_text(hands, lang) for lang in LANGUAGES}
    assert len(set(texts.values())) == len(LANGUAGES)
    assert "riga 12" in texts["it"]
    assert "第12行" in texts["zh"]
    assert "ming +3" in texts["en"]


def test_a_missing_mo_is_compiled_from_its_po(tmp_path: Path, monkeypatch) -> None:
    """An editable install or a checkout has only the .po files: messages are still found."""
    shutil.copytree(i18n.LOCALE_DIR, tmp_path / "locale")
    for mo in (tmp_path / "locale").rglob("*.mo"):
        mo.unlink()
    monkeypatch.setattr(i18n, "LOCALE_DIR", tmp_path / "locale")
    i18n.translations.cache_clear()
    try:
        assert i18n.message("it", "outcome.void") == "Nessun vincitore: nessuno ha vinto la mano."
        # A .mo, when present and not older than its .po, is what is read.
        po, mo = i18n.catalog_paths("pt")
        mo.write_bytes(i18n.compile_catalog(po).replace(b"Sem vencedor", b"SEM VENCEDOR"))
        i18n.translations.cache_clear()
        assert i18n.message("pt", "outcome.void").startswith("SEM VENCEDOR")
    finally:
        i18n.translations.cache_clear()


def _kong_run_log(kongs: int) -> str:
    head = [
        {"type": "match_started", "ruleset": "sichuan", "players": ["a", "b", "c", "d"]},
        {"type": "hand_started"},
    ]
    run = [{"type": "kong_declared", "player": "b", "kind": "concealed"}] * kongs
    return "".join(
        json.dumps(e) + "\n" for e in [*head, *run, {"type": "discarded", "player": "b"}]
    )


@pytest.mark.parametrize(
    ("lang", "one", "two"),
    [
        ("en", "(line 3)", "(lines 3 and 4)"),
        ("it", "(riga 3)", "(righe 3 e 4)"),
        ("fr", "(ligne 3)", "(lignes 3 et 4)"),
        ("es", "(línea 3)", "(líneas 3 y 4)"),
        ("pt", "(linha 3)", "(linhas 3 e 4)"),
    ],
)
def test_one_kong_is_named_by_its_line_several_by_their_lines(
    lang: str, one: str, two: str
) -> None:
    assert one in render_text(explain_log(_kong_run_log(1)), lang)
    assert two in render_text(explain_log(_kong_run_log(2)), lang)


# --- wording the glossary asks for (docs/translating.md) -------------------------------------


def _not_ready(lang: str) -> str:
    from mjledger.explain.i18n import render
    from mjledger.explain.steps import Sentence

    params = {"player": "ming", "best": 2, "payers": ("hua", "wei"), "base": 1, "cap": 4}
    return render(Sentence("not_ready", {**params, "amount": 4}), lang)


@pytest.mark.parametrize(
    ("lang", "wording"),
    [
        ("it", "la sua mano migliore vale 2 fan"),
        ("es", "su mejor mano vale 2 fan"),
        ("pt", "sua melhor mão vale 2 fan"),
        ("fr", "sa meilleure main vaut 2 fan"),
        ("en", "best hand is worth 2 fan"),
    ],
)
def test_a_ready_hand_is_worth_its_best_fan(lang: str, wording: str) -> None:
    """Not "a hand better than 2 fan": the ready player's best hand is worth 2 fan."""
    assert wording in _not_ready(lang)


def test_chinese_says_hu_for_a_win_and_lists_names_with_commas() -> None:
    """和 next to a name reads as "and" (hua和wei打出的牌): a win is 胡, a list of names is
    joined by 、, and a split with a remainder is not 平分 ("split evenly")."""
    from mjledger.explain.i18n import catalog_paths, join

    po, _ = catalog_paths("zh")
    with po.open("rb") as f:
        catalog = read_po(f)
    texts = [m.string for m in catalog if m.id and m.string]
    assert texts
    assert not [t for t in texts if "和" in t]
    assert not [t for t in texts if "平分" in t]
    assert join(["hua", "wei", "jing"], "zh") == "hua、wei、jing"
    assert join(["hua", "wei"], "zh") == "hua、wei"


@pytest.mark.parametrize("lang", LANGUAGES)
@pytest.mark.parametrize("digits", [25, 26, 29, 60, 400])
def test_a_fan_of_any_size_is_explained(lang: str, digits: int) -> None:
    """issue 22: replay and record accept a fan of any size, so explain does too (Babel's
    decimal context held 28 digits: a fan of 26 digits was an internal error)."""
    fan = int("9" * digits)
    for ruleset, rules in (("hongkong", {"min_fan": 0}), ("sichuan", {})):
        head = {"type": "match_started", "ruleset": ruleset, "players": ["a", "b", "c", "d"]}
        lines = [
            {**head, "rules": rules},
            {"type": "hand_started"},
            {"type": "self_drawn", "player": "a", "fan": fan},
        ]
        text = render_text(explain_log("\n".join(json.dumps(x) for x in lines)), lang)
        assert i18n.number(fan, lang) in text
    assert re.sub(r"\D", "", i18n.number(fan, lang)) == str(fan)
