"""Messages in the players' languages: gettext catalogs (Babel), numbers and lists per locale.

Message ids are stable codes built from reason codes and event types (``kong_added``,
``kong_money_passed.split``, ``outcome.void`` …), never English sentences, so a fix to the
English wording never orphans a translation. The English text is a catalog like the others.

Where the catalogs come from, and why it is robust: the ``.po`` files under
``mjledger/locale/<lang>/LC_MESSAGES/`` are the source, kept in the repository and shipped in
the wheel; the build (``setup.py``) also compiles each to a ``.mo`` beside it. At run time a
``.mo`` is used when it exists and is not older than its ``.po``; otherwise the ``.po`` is
compiled in memory with Babel. So a wheel reads its compiled catalogs, while an editable
install or a plain checkout — where no build step ran, or a translator just edited a ``.po``
— still finds every message, and never a stale one.
"""

from __future__ import annotations

import decimal
import gettext
import io
import re
from collections.abc import Iterable
from datetime import UTC, datetime
from functools import cache
from pathlib import Path
from typing import Final

from babel.dates import format_datetime
from babel.lists import format_list
from babel.messages.mofile import write_mo
from babel.messages.pofile import read_po
from babel.numbers import format_decimal, get_minus_sign_symbol, get_plus_sign_symbol

from mjledger._text import escaped
from mjledger.explain.languages import DEFAULT_LANGUAGE as DEFAULT_LANGUAGE
from mjledger.explain.languages import LANGUAGES as LANGUAGES
from mjledger.explain.steps import (
    N_,
    Amounts,
    HandExplanation,
    Moment,
    Net,
    Param,
    Sentence,
    Term,
)

DOMAIN: Final = "mjledger"
LOCALE_DIR: Final = Path(__file__).resolve().parents[1] / "locale"
# Babel's locale for each catalog (Chinese is written in simplified characters).
BABEL_LOCALE: Final = {"it": "it", "pt": "pt", "es": "es", "fr": "fr", "en": "en", "zh": "zh_Hans"}

LINE_LABEL: Final = N_("label.line")
RUNNING_NET: Final = N_("running_net")

_PLACEHOLDER = re.compile(r"\{(\w+)\}")


def catalog_paths(lang: str, domain: str = DOMAIN) -> tuple[Path, Path]:
    """The ``.po`` and ``.mo`` of ``lang`` (``domain``: the explanations' and reports'
    ``mjledger``, or the web desk's ``desk``)."""
    folder = LOCALE_DIR / lang / "LC_MESSAGES"
    return folder / f"{domain}.po", folder / f"{domain}.mo"


def compile_catalog(po: Path) -> bytes:
    """The ``.mo`` bytes of a ``.po`` file (Babel), as the build writes them."""
    with po.open("rb") as f:
        catalog = read_po(f, domain=po.stem)
    out = io.BytesIO()
    write_mo(out, catalog, use_fuzzy=False)
    return out.getvalue()


@cache
def translations(lang: str, domain: str = DOMAIN) -> gettext.GNUTranslations:
    """The catalog of ``lang``; a message missing there falls back to English."""
    if lang not in LANGUAGES:
        raise ValueError(f"no catalog for {lang!r} (languages: {', '.join(LANGUAGES)})")
    po, mo = catalog_paths(lang, domain)
    if mo.exists() and (not po.exists() or mo.stat().st_mtime >= po.stat().st_mtime):
        data = mo.read_bytes()
    else:
        data = compile_catalog(po)
    found = gettext.GNUTranslations(io.BytesIO(data))
    if lang != DEFAULT_LANGUAGE:
        found.add_fallback(translations(DEFAULT_LANGUAGE, domain))
    return found


def message(lang: str, message_id: str) -> str:
    return translations(lang).gettext(message_id)


def placeholders(text: str) -> frozenset[str]:
    return frozenset(_PLACEHOLDER.findall(text))


def number(value: int, lang: str) -> str:
    """``value`` as ``lang`` writes it. Babel formats through ``decimal``, whose default
    context holds 28 digits: a log may give a fan of any size (replay and record accept it),
    so the context holds every digit of the value and the pattern's fraction."""
    digits = len(str(abs(value)))
    with decimal.localcontext(prec=max(decimal.getcontext().prec, digits + 10)):
        return format_decimal(value, locale=BABEL_LOCALE[lang])


def signed(value: int, lang: str) -> str:
    """A balance with its sign, ``+1.024`` / ``−3``, in the locale's digits and signs."""
    locale = BABEL_LOCALE[lang]
    if value > 0:
        return get_plus_sign_symbol(locale) + number(value, lang)
    if value < 0:
        return get_minus_sign_symbol(locale) + number(-value, lang)
    return number(0, lang)


def moment(iso: str, lang: str) -> str:
    """A stored time as the locale writes a date and time, in UTC as the store keeps it and
    saying so (text that is not an ISO time is shown as it is)."""
    try:
        when = datetime.fromisoformat(iso)
    except ValueError:
        return iso
    if when.tzinfo is None:
        when = when.replace(tzinfo=UTC)
    return format_datetime(when, format="long", tzinfo=UTC, locale=BABEL_LOCALE[lang])


# Chinese lists of names take the enumeration comma only: Babel's 和 ("and") before the last
# name reads, next to names in Latin letters, as part of a sentence (hua和wei打出的牌), and 和
# is also the word for a win.
LIST_SEPARATOR: Final = {"zh": "、"}


def join(items: Iterable[str], lang: str) -> str:
    separator = LIST_SEPARATOR.get(lang)
    if separator is not None:
        return separator.join(items)
    return format_list(list(items), locale=BABEL_LOCALE[lang])


def param_text(value: Param, lang: str) -> str:
    if isinstance(value, bool):
        return str(value).lower()
    if isinstance(value, int):
        return number(value, lang)
    if isinstance(value, str):
        return escaped(value)  # an id or a reason: shown as written, never raw controls
    if isinstance(value, Term):
        return message(lang, value.id)
    if isinstance(value, Net):
        return join((f"{escaped(p)} {signed(a, lang)}" for p, a in value.amounts), lang)
    if isinstance(value, Amounts):
        return join((f"{escaped(p)} {number(a, lang)}" for p, a in value.items), lang)
    if isinstance(value, Moment):
        return moment(value.iso, lang)
    return join((number(v, lang) if isinstance(v, int) else escaped(v) for v in value), lang)


NEUTRAL: Final = N_("explained.neutral")
"""How a sentence with no wording in the catalogs reads (a plugin's own message id): its
id and its operands, in the catalog's frame."""


def render(sentence: Sentence, lang: str) -> str:
    """One sentence in ``lang``, its numbers and lists formatted for that locale."""
    values = {k: param_text(v, lang) for k, v in sentence.params.items()}
    text = message(lang, sentence.id)
    if text == sentence.id:  # no catalog has it: a rule set's own message, worded neutrally
        operands = join((f"{k} = {v}" for k, v in values.items()), lang)
        return message(lang, NEUTRAL).format(what=sentence.id, operands=operands or "—")
    return text.format(**values)


def render_all(sentences: Iterable[Sentence], lang: str) -> str:
    """Sentences one after the other (Chinese sets no space between them)."""
    return ("" if lang == "zh" else " ").join(render(s, lang) for s in sentences)


def render_hand(hand: HandExplanation, lang: str) -> str:
    """The explanation as text: one paragraph per step, then the summary."""
    players = hand.players
    out: list[str] = []
    for step in hand.steps:
        text = render_all(step.sentences, lang)
        if step.line is not None:
            text = f"{render(Sentence(LINE_LABEL, {'line': step.line}), lang)} — {text}"
        if step.money:
            net = Net.of(players, step.net_after)
            text += "\n    " + render(Sentence(RUNNING_NET, {"net": net}), lang)
        out.append(text)
    out.append("")
    out.extend(render(s, lang) for s in hand.summary)
    return "\n".join(out) + "\n"


def render_text(hands: Iterable[HandExplanation], lang: str) -> str:
    return "\n".join(render_hand(h, lang) for h in hands)


def hand_json(hand: HandExplanation, lang: str) -> dict[str, object]:
    """``--json``: the explanation as data, each step and the summary also as text in ``lang``."""
    data = hand.to_json()
    for step, out in zip(hand.steps, data["steps"], strict=True):
        out["text"] = render_all(step.sentences, lang)
    data["summary_text"] = render_all(hand.summary, lang)
    data["lang"] = lang
    return data
