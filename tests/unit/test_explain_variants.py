"""Issue 19, "Settlement that explains itself": a hand under each variant of variants.md (half
gun, liability, false win, blood flow, each kong-passing option, each pig and refund option,
table stakes with a bust player) and under a plugin rule set is explained with its sums, in
all six languages, from what the hooks noted next to their arithmetic.

Each step's arithmetic (``computed``: the dues the hook noted, as stakes let them through)
must give exactly the settlement's transfers (``money``), and every sentence must come from
the reader's own catalog (no English standing in for a missing translation).
"""

from __future__ import annotations

import json
import re
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
from babel.messages.pofile import read_po
from click.testing import CliRunner
from hypothesis import given

from mjledger import replay
from mjledger.cli import main
from mjledger.explain import HandExplanation, explain_log, iter_sentences, money_by_player
from mjledger.explain.i18n import LANGUAGES, catalog_paths, placeholders, render, render_text
from mjledger.rules import explained, registered
from mjledger.rules.explained import Notes, Why
from tests.cli.test_registry import TOY_LOG
from tests.helpers import (
    ANA,
    BO,
    CY,
    DI,
    NOT_READY,
    PIG,
    discard,
    hand_start,
    jsonl,
    kong,
    match_start,
    ready,
    self_drawn,
    wall,
    won,
)
from tests.toy_ruleset import FLAT, Flat
from tests.unit.test_explain import check_explanation
from tests.unit.test_i18n import ENGLISH, _words
from tests.variant_strategies import variant_logs


def _stakes(stakes: dict[str, int], *lines: Any) -> str:
    head = {**match_start("sichuan"), "stakes": stakes}
    return jsonl(head, {"type": "hand_started", "dealer": ANA}, *lines)


HK = "hongkong"
SC = "sichuan"
# Each variant: its log, the message ids its explanation must use, and (reason, payer, payee,
# amount) transfers its steps' arithmetic must give (variants.md's worked examples).
VARIANTS: dict[str, tuple[str, set[str], list[tuple[str, str, str, int]]]] = {
    "half gun": (
        jsonl(
            hand_start(HK, rules={"discard_pays": "half", "points_per_unit": 2}),
            won(CY, BO, 4),
        ),
        {"won_on_discard.hongkong.half", "worth.hongkong"},
        [("won_on_discard", BO, CY, 32), ("won_on_discard", ANA, CY, 16)],
    ),
    "liability on a self-draw": (
        jsonl(hand_start(HK), self_drawn(CY, 3, liable=ANA)),
        {"self_drawn.hongkong", "worth.hongkong", "liability.hongkong"},
        [("liability", ANA, CY, 24)],
    ),
    "liability on a discard": (
        jsonl(hand_start(HK, rules={"discard_pays": "all"}), won(CY, BO, 3, liable=DI)),
        {"won_on_discard.hongkong", "liability.hongkong"},
        [("liability", DI, CY, 24)],
    ),
    "false win": (
        jsonl(hand_start(HK, rules={"fan_limit": 8}), {"type": "false_win", "player": BO}),
        {"false_win.hongkong", "worth.hongkong.limit"},
        [("false_win", BO, ANA, 192), ("false_win", BO, DI, 192)],
    ),
    "blood flow": (
        jsonl(
            hand_start(SC, rules={"blood_flow": True}),
            won(BO, ANA, 1),
            self_drawn(BO, 2),
            wall(ana=ready(1), bo=NOT_READY, cy=NOT_READY, di=ready(0)),
        ),
        {"won_on_discard.sichuan", "self_drawn.sichuan.base", "not_ready"},
        [("self_drawn", ANA, BO, 5), ("self_drawn", CY, BO, 5), ("not_ready", BO, ANA, 2)],
    ),
    "exposed kong from everyone": (
        jsonl(hand_start(SC, rules={"exposed_kong_pays": "everyone"}), kong(BO, "exposed", ANA)),
        {"kong_exposed.everyone"},
        [("kong_exposed", ANA, BO, 1), ("kong_exposed", DI, BO, 1)],
    ),
    "each winner the full passed money": (
        jsonl(
            hand_start(SC, rules={"kong_passing_split": "each_full"}),
            kong(BO, "concealed"),
            won(CY, BO, 0),
            won(DI, BO, 0),
            discard(ANA),
        ),
        {"kong_money_passed.each_full.one_line"},
        [("kong_money_passed", BO, CY, 6), ("kong_money_passed", BO, DI, 6)],
    ),
    "no split among several winners": (
        jsonl(
            hand_start(SC, rules={"kong_passing_split": "none"}),
            kong(BO, "concealed"),
            won(CY, BO, 0),
            won(DI, BO, 0),
            discard(ANA),
        ),
        {"kong_money_kept.not_split.one_line"},
        [("kong_concealed", ANA, BO, 2)],
    ),
    "passing of the last kong only": (
        jsonl(
            hand_start(SC, rules={"kong_passing_scope": "last"}),
            kong(BO, "concealed"),
            kong(BO, "added"),
            won(CY, BO, 1),
            discard(ANA),
        ),
        {"kong_money_passed.one_line", "kong_passing_scope.last"},
        [("kong_money_passed", BO, CY, 3)],
    ),
    "passing off": (
        jsonl(
            hand_start(SC, rules={"kong_money_passing": False}),
            kong(BO, "concealed"),
            won(CY, BO, 1),
            discard(ANA),
        ),
        {"kong_money_kept.off.one_line"},
        [("won_on_discard", BO, CY, 2)],
    ),
    "the feeder pays a claimed kong's bloom": (
        jsonl(
            hand_start(SC, rules={"claimed_kong_bloom": "feeder_pays"}),
            kong(BO, "exposed", ANA),
            self_drawn(BO, 1),
        ),
        {"self_drawn.sichuan.base", "self_drawn.sichuan.feeder_pays"},
        [("self_drawn", ANA, BO, 3)],
    ),
    "a pig pays only those still in": (
        jsonl(
            hand_start(SC, rules={"pig_pays": "still_in"}),
            won(CY, BO, 1),
            wall(ana=PIG, bo=ready(1), di=NOT_READY),
        ),
        {"flower_pig.still_in", "not_ready"},
        [("flower_pig", ANA, BO, 16), ("flower_pig", ANA, DI, 16), ("not_ready", DI, BO, 2)],
    ),
    "pigs outside the not-ready check": (
        jsonl(
            hand_start(SC, rules={"not_ready_includes_pigs": False}),
            wall(ana=PIG, bo=ready(2), cy=NOT_READY, di=NOT_READY),
        ),
        {"flower_pig", "not_ready", "not_ready.pigs_left_out"},
        [("not_ready", CY, BO, 4), ("not_ready", DI, BO, 4)],
    ),
    "refunds skip winners": (
        jsonl(
            hand_start(SC, rules={"refund_to_winners": False}),
            kong(DI, "concealed"),
            discard(DI),
            won(CY, BO, 1),
            wall(ana=ready(1), bo=ready(0), di=NOT_READY),
        ),
        {"kong_refund", "kong_refund.skips_winners"},
        [("kong_refund", DI, ANA, 2), ("kong_refund", DI, BO, 2)],
    ),
    "table stakes with a bust player": (
        _stakes(
            {ANA: 5, BO: 100, CY: 100, DI: 100},
            self_drawn(CY, 3),
            kong(BO, "concealed"),
        ),
        {"self_drawn.sichuan.base", "stakes.capped", "stakes.bust", "kong_concealed"},
        [("self_drawn", ANA, CY, 5), ("self_drawn", BO, CY, 9), ("kong_concealed", DI, BO, 2)],
    ),
}


def catalog(lang: str) -> dict[str, str]:
    po, _ = catalog_paths(lang)
    with po.open("rb") as f:
        return {m.id: m.string for m in read_po(f) if m.id}


CATALOGS = {lang: catalog(lang) for lang in LANGUAGES}


def check_own_words(hands: tuple[HandExplanation, ...]) -> None:
    """Every sentence is in every language's own catalog (none falls back to English), and
    each renders with its placeholders filled."""
    for hand in hands:
        for sentence in iter_sentences(hand):
            for lang in LANGUAGES:
                assert sentence.id in CATALOGS[lang], (lang, sentence.id)
                assert placeholders(CATALOGS[lang][sentence.id]) <= set(sentence.params)
                assert render(sentence, lang)


def paid(hands: tuple[HandExplanation, ...]) -> set[tuple[str, str, str, int]]:
    return {
        (s.reason or "", p.payer, p.payee, p.amount)
        for h in hands
        for s in h.steps
        for p in s.computed
    }


@pytest.mark.parametrize("name", sorted(VARIANTS))
def test_each_variant_is_explained_with_its_sums(name: str) -> None:
    text, ids, amounts = VARIANTS[name]
    check_explanation(text)  # each step's arithmetic is its money; all money is explained
    hands = explain_log(text)
    used = {s.id for h in hands for s in iter_sentences(h)}
    assert ids <= used, sorted(used)
    assert not {"variants_settled", "other_ruleset"} & used
    assert set(amounts) <= paid(hands)
    check_own_words(hands)


def test_the_stakes_step_states_its_split() -> None:
    """variants.md's worked example: ana holds 5, owes 9, pays 5; bust, she pays nothing."""
    text, _, _ = VARIANTS["table stakes with a bust player"]
    (hand,) = explain_log(text)
    capped = next(s for s in hand.steps if s.sentences[0].id == "stakes.capped")
    assert capped.operands == {"player": ANA, "held": 5, "owed": 9, "parts": {CY: 5}, "leftover": 0}
    assert capped.money == ()
    bust = next(s for s in hand.steps if s.sentences[0].id == "stakes.bust")
    assert bust.operands["owed"] == 2
    assert hand.net[CY] == 23


def test_half_gun_operands() -> None:
    text, _, _ = VARIANTS["half gun"]
    (hand,) = explain_log(text)
    step = hand.steps[-1]
    assert (step.operands["share"], step.operands["half_share"], step.operands["amount"]) == (
        32,
        16,
        64,
    )


@pytest.mark.parametrize("lang", LANGUAGES)
def test_the_cli_explains_each_variant_in_each_language(tmp_path: Path, lang: str) -> None:
    runner = CliRunner()
    for name, (text, _, amounts) in VARIANTS.items():
        log = tmp_path / f"{name.replace(' ', '-')}.jsonl"
        log.write_text(text, encoding="utf-8")
        result = runner.invoke(main, ["explain", str(log), "--lang", lang])
        assert result.exit_code == 0, (name, result.output)
        for _, payer, payee, amount in amounts:  # each payment's sum, in the reader's words
            assert payer in result.output
            assert payee in result.output
            assert f" {amount}" in result.output or f"{amount}。" in result.output
        if lang != "en":
            leak = ENGLISH.search(_words(result.output))
            assert leak is None, (name, lang, leak.group(0) if leak else None)
        data = json.loads(runner.invoke(main, ["explain", str(log), "--json"]).output)
        hands = data.get("hands", [data])
        settled = replay(text).to_json()["hands"]
        assert [h["net"] for h in hands] == [h["net"] for h in settled]
        for h in hands:
            for step in h["steps"]:
                assert step["text"]
                assert step["messages"]


@given(variant_logs())
def test_explained_arithmetic_equals_the_transfers_on_variant_logs(lines: list[Any]) -> None:
    text = "".join(json.dumps(line) + "\n" for line in lines)
    check_explanation(text)
    hands = explain_log(text)
    for hand in hands:
        assert money_by_player(hand) == hand.net
        for step in hand.steps:
            _check_stakes_split(step.operands, step.sentences[0].id)
    check_own_words(hands)


def _check_stakes_split(operands: dict[str, Any], message_id: str) -> None:
    """A capped payer pays their whole balance, split by what each payee was owed (rounded
    down), the points left over one each: the split the step states adds up."""
    if message_id != "stakes.capped":
        return
    held, owed, parts = operands["held"], operands["owed"], operands["parts"]
    assert held < owed
    assert sum(parts.values()) == held
    assert 0 <= operands["leftover"] < max(len(parts), 1) + 1


# --- a plugin rule set --------------------------------------------------------------------


def test_a_plugin_without_wording_is_explained_from_its_payments() -> None:
    with registered(FLAT):
        hands = explain_log(TOY_LOG)
    steps = [s for h in hands for s in h.steps if s.money]
    assert steps
    assert all(s.sentences[0].id == "other_ruleset" for s in steps)
    first = steps[0].sentences[0]
    assert first.params["amount"] == 3
    assert "ana → cy 3" in render(first, "en")
    assert "ana → cy 3" in render(first, "zh")
    check_own_words(hands)


class NotingFlat(Flat):
    """The toy rule set noting its own sum under a message id of its own."""

    name = "flat_noting"  # type: ignore[misc]

    def win_payments(self, hand: Any, context: Any, fan: Any, limit: Any) -> Any:
        notes = explained.notes()
        if notes is not None:
            params = {"stake": self.rules.stake}
            notes.why(Why((("flat.win", params),), params, None))
        return super().win_payments(hand, context, fan, limit)


@pytest.fixture
def noting() -> Iterator[None]:
    with registered(NotingFlat()):
        yield


@pytest.mark.usefixtures("noting")
def test_a_plugin_message_without_wording_reads_neutrally_in_every_language() -> None:
    text = TOY_LOG.replace('"ruleset": "flat"', '"ruleset": "flat_noting"')
    hands = explain_log(text)
    win = next(s for h in hands for s in h.steps if s.sentences[0].id == "flat.win")
    assert [p.amount for p in win.computed] == [3]
    assert win.computed == win.money
    assert render(win.sentences[0], "it") == "Calcolo flat.win: stake = 3."
    assert render(win.sentences[0], "fr") == "Calcul flat.win : stake = 3."
    for lang in LANGUAGES:
        assert render_text(hands, lang)


def test_nothing_is_noted_unless_asked() -> None:
    """Replay pays nothing for explanations: without a caller asking, there is nowhere to note."""
    assert explained.notes() is None
    with explained.explaining() as notes:
        assert isinstance(notes, Notes)
        replay(VARIANTS["half gun"][0])
        assert notes.items
    assert explained.notes() is None


def test_explain_names_no_rule_set() -> None:
    """Issue 19: only a rule set's own package names it."""
    folder = Path(explained.__file__).parents[1] / "explain"
    for path in folder.glob("*.py"):
        source = path.read_text(encoding="utf-8")
        assert not re.search(r"hongkong|sichuan|HongKong|Sichuan", source), path.name
