"""Issue 23, variants.md "Variants, second set": Sichuan's flat false win (诈胡), blood flow's
winners left out at the wall, the stakes leftover to the first seat, and a Hong Kong limit
of 5 to 13 faan.

- every log in tests/data/variants-2/ replays to its expected output (worked in its README);
- every worked example of these four options, cited, figure by figure;
- each refusal: a clear error naming the line, the same on the strict and the fast decoder;
- the explanations state each new payment's arithmetic, in six languages.

The Hypothesis properties (zero-sum, stakes, the model, record → export, fast = strict) run
these options through tests/variant_strategies.py in the suites that already hold them.
"""

from __future__ import annotations

import json
from collections import Counter
from pathlib import Path
from typing import Any

import pytest

from mjledger import LogError, replay
from mjledger.errors import FormatError
from mjledger.explain import explain_log, iter_sentences
from mjledger.explain.i18n import LANGUAGES, render
from mjledger.log.codec import decode_line
from mjledger.log.fast import decode_numbered

from ..conftest import DATA
from ..helpers import comparable_output as comparable
from ..model import model
from ..strategies import log_text
from .test_explain import check_explanation

SECOND_SET = DATA / "variants-2"
CASES = sorted(SECOND_SET.glob("*.jsonl"))
P = ["ana", "bo", "cy", "di"]
ANA, BO, CY, DI = P
Line = dict[str, Any]
FLAT = {"sichuan_false_win": "flat"}
EXEMPT = {"blood_flow": True, "blood_flow_wall": "exempt_winners"}


def run(*lines: Line) -> dict[str, Any]:
    return replay(log_text(list(lines))).to_json()


def transfers(hand: dict[str, Any]) -> Counter[tuple[Any, ...]]:
    return Counter(
        (t["from"], t["to"], t["amount"], t["reason"], t["line"]) for t in hand["transfers"]
    )


def alone(ruleset: str, rules: Line | None = None, dealer: str = ANA) -> Line:
    line: Line = {"type": "hand_started", "ruleset": ruleset, "players": P, "dealer": dealer}
    if rules is not None:
        line["rules"] = rules
    return line


def match(ruleset: str, rules: Line, **extra: Any) -> Line:
    return {"type": "match_started", "ruleset": ruleset, "players": P, "rules": rules, **extra}


def won(player: str, frm: str, fan: int, **extra: Any) -> Line:
    return {"type": "won_on_discard", "player": player, "from": frm, "fan": fan, **extra}


def false_win(player: str) -> Line:
    return {"type": "false_win", "player": player}


def kong(player: str, kind: str = "concealed") -> Line:
    return {"type": "kong_declared", "player": player, "kind": kind}


def wall(**remaining: Line) -> Line:
    return {"type": "wall_exhausted", "remaining": remaining}


def ready(best_fan: int) -> Line:
    return {"ready": True, "best_fan": best_fan}


NOT_READY: Line = {"ready": False}


# --- the examples ---------------------------------------------------------------------------


@pytest.mark.parametrize("log", CASES, ids=lambda p: p.stem)
def test_each_second_set_example_replays_to_its_expected_output(log: Path) -> None:
    expected = json.loads(log.with_name(log.stem + ".expected.json").read_text())
    out = replay(log.read_text(encoding="utf-8")).to_json()
    assert comparable(out) == comparable(expected)


@pytest.mark.parametrize("log", CASES, ids=lambda p: p.stem)
def test_each_second_set_example_agrees_with_the_model(log: Path) -> None:
    lines = [json.loads(x) for x in log.read_text(encoding="utf-8").splitlines()]
    out = replay(log.read_text(encoding="utf-8")).to_json()
    expected = model(lines)
    assert [transfers(h) for h in out["hands"]] == [h.transfers for h in expected.hands]
    assert [h["next_dealer"] for h in out["hands"]] == [h.next_dealer for h in expected.hands]


# --- Sichuan false win ----------------------------------------------------------------------


def test_worked_example_sichuan_false_win() -> None:
    """variants.md: "Sichuan false win, `fan_cap` 3, base 1: bo has won on cy's discard (0 fan:
    cy pays 1); ana false-wins: ana pays 8 to cy and 8 to di (bo has won). Net: ana −16, bo +1,
    cy +7, di +8." """
    (hand,) = run(alone("sichuan", {"fan_cap": 3, **FLAT}), won(BO, CY, 0), false_win(ANA))["hands"]
    assert hand["net"] == {ANA: -16, BO: 1, CY: 7, DI: 8}
    assert transfers(hand) == Counter(
        [
            (CY, BO, 1, "won_on_discard", 2),
            (ANA, CY, 8, "false_win", 3),
            (ANA, DI, 8, "false_win", 3),
        ]
    )
    assert hand["outcome"] == "unfinished"  # "The hand goes on."
    assert hand["winners"] == [BO]  # "A false win is not a win"


def test_worked_example_sichuan_false_win_returns_the_kong() -> None:
    """variants.md: "With a concealed kong of ana's before it (6 collected), ana also returns
    2 to each of bo, cy and di in the same batch." """
    rules = {"fan_cap": 3, **FLAT}
    (hand,) = run(alone("sichuan", rules), kong(ANA), won(BO, CY, 0), false_win(ANA))["hands"]
    refunds = [t for t in hand["transfers"] if t["reason"] == "kong_refund"]
    assert {(t["from"], t["to"], t["amount"], t["line"]) for t in refunds} == {
        (ANA, BO, 2, 4),
        (ANA, CY, 2, 4),
        (ANA, DI, 2, 4),
    }  # "winners included": bo, who has won, gets his 2 back
    assert hand["net"] == {ANA: -16, BO: 1, CY: 7, DI: 8}


def test_a_false_win_empties_the_kong_window_and_is_never_refunded_twice() -> None:
    """ "Their kong window is emptied with it: a discard win right after moves no kong
    money"; the wall's refund "never returns it twice"."""
    out = run(
        alone("sichuan", FLAT),
        kong(CY),
        false_win(CY),
        won(BO, CY, 1),
        wall(ana=NOT_READY, cy=NOT_READY, di=NOT_READY),
    )
    (hand,) = out["hands"]
    reasons = Counter(t["reason"] for t in hand["transfers"])
    assert reasons["kong_money_passed"] == 0
    assert reasons["kong_refund"] == 3  # at the false win only, not again at the wall
    assert {t["line"] for t in hand["transfers"] if t["reason"] == "kong_refund"} == {3}


def test_a_kong_already_passed_is_not_returned_and_a_new_one_is() -> None:
    """ "returns every kong payment ... that has not already been passed or refunded (on a
    deal-in, or at an earlier false win)"; "A player may false-win more than once"; "declare
    kongs (collected anew)"."""
    out = run(
        alone("sichuan", {**FLAT, "blood_flow": True}),
        kong(CY),
        won(BO, CY, 0),  # the 6 passes to bo
        false_win(CY),  # nothing to return
        kong(CY, "added"),  # 1 from each of three
        false_win(CY),
    )
    (hand,) = out["hands"]
    refunds = [
        (t["to"], t["amount"], t["line"]) for t in hand["transfers"] if t["reason"] == "kong_refund"
    ]
    assert sorted(refunds) == [(ANA, 1, 6), (BO, 1, 6), (DI, 1, 6)]
    # under blood flow "each of the other three", the winner bo too
    penalties = Counter(
        (t["to"], t["line"]) for t in hand["transfers"] if t["reason"] == "false_win"
    )
    assert penalties == Counter({(p, line): 1 for p in (ANA, BO, DI) for line in (4, 6)})


def test_eight_times_base_whatever_the_cap_and_bonus() -> None:
    """ "The 8 is fixed, not a parameter ... `base` scales it ... It does not depend on
    `fan_cap` or `self_draw_bonus`." """
    for rules in ({"base": 3, "fan_cap": 6, "self_draw_bonus": "fan"}, {"base": 3, "fan_cap": 3}):
        (hand,) = run(alone("sichuan", {**rules, **FLAT}), false_win(DI))["hands"]
        assert {t["amount"] for t in hand["transfers"]} == {24}
        assert hand["net"][DI] == -72


def test_a_false_win_is_not_a_win_for_the_dealer_or_the_first_turn() -> None:
    """ "winners, the dealer rule and the first-turn checks ignore it; the offender may win
    later"."""
    out = run(
        match("sichuan", FLAT),
        {"type": "hand_started", "dealer": ANA},
        false_win(BO),
        {"type": "self_drawn", "player": ANA, "fan": 0, "first_turn": True},  # heavenly still
        won(BO, CY, 1),
        won(DI, CY, 1),
    )
    (hand,) = out["hands"]
    assert hand["winners"] == [ANA, BO, DI]
    assert hand["outcome"] == "won"
    assert hand["next_dealer"] == ANA  # the first winner, not the false winner


def test_a_sichuan_false_win_is_refused_by_default_and_by_a_winner() -> None:
    """ "Under "refused" (default) a Sichuan `false_win` is an error of its line"; "without
    blood flow a player who has won cannot be named"."""
    with pytest.raises(LogError) as refused:
        run(alone("sichuan"), false_win(BO))
    assert (refused.value.line, refused.value.code) == (2, "wrong_ruleset")
    with pytest.raises(LogError) as winner:
        run(alone("sichuan", FLAT), won(BO, CY, 1), false_win(BO))
    assert (winner.value.line, winner.value.code) == (3, "already_won")


def test_a_false_win_under_stakes_is_one_batch() -> None:
    """ "In one batch (line: the `false_win`)": a payer short of the whole batch pays what they
    hold, split by what each was due (penalty and refunds alike)."""
    out = run(
        match("sichuan", FLAT, stakes={ANA: 100, BO: 100, CY: 100, DI: 10}),
        {"type": "hand_started", "dealer": ANA},
        kong(DI),  # di 16
        false_win(DI),  # owes 3 × (8 + 2) = 30, holds 16: 5 each, the 1 left over to ana
    )
    (hand,) = out["hands"]
    got = Counter()
    for t in hand["transfers"]:
        if t["line"] == 4:
            got[t["to"]] += t["amount"]
    assert got == {ANA: 6, BO: 5, CY: 5}
    assert hand["balances"][DI] == 0


# --- blood flow, winners exempt at the wall ---------------------------------------------------


def test_worked_example_winners_exempt_at_the_wall() -> None:
    """variants.md: "Winners exempt, blood flow: bo has won on cy's discard (0 fan, 1); at the
    wall ana is ready at 0 fan, cy not ready, di ready at 1 fan; `remaining` names ana, cy, di
    only. cy pays ana 1 and di 2 — not bo. Net: ana +1, bo +1, cy −4, di +2." """
    (hand,) = run(
        alone("sichuan", EXEMPT), won(BO, CY, 0), wall(ana=ready(0), cy=NOT_READY, di=ready(1))
    )["hands"]
    assert hand["net"] == {ANA: 1, BO: 1, CY: -4, DI: 2}
    assert (CY, BO) not in {(t["from"], t["to"]) for t in hand["transfers"] if t["line"] == 3}


@pytest.mark.parametrize(
    ("remaining", "code"),
    [
        ({ANA: ready(0), BO: ready(0), CY: NOT_READY, DI: ready(1)}, "already_won"),
        ({ANA: ready(0), DI: ready(1)}, "rule_violation"),
    ],
)
def test_remaining_maps_exactly_the_players_who_have_not_won(remaining: Line, code: str) -> None:
    """ "`remaining` maps exactly the players who have not won (no more, no fewer)"."""
    with pytest.raises(LogError) as err:
        run(alone("sichuan", EXEMPT), won(BO, CY, 0), wall(**remaining))
    assert (err.value.line, err.value.code) == (3, code)


def test_the_wall_checks_run_when_all_four_have_won() -> None:
    """ "`{}` when all four have won"; "The checks always run"."""
    lines = [won(p, q, 0) for p, q in ((BO, CY), (CY, DI), (DI, ANA), (ANA, BO))]
    (hand,) = run(alone("sichuan", EXEMPT), kong(DI), *lines, wall())["hands"]
    assert hand["outcome"] == "won"
    assert not [t for t in hand["transfers"] if t["line"] == 7]  # nobody is checked


def test_an_exempt_winner_still_receives_pig_money_and_refunds() -> None:
    """ "A winner still receives: flower-pig money under `pig_pays: "non_pigs"` (under
    `"still_in"` only players who have not won receive it), and refunds of kong money they
    paid (unless `refund_to_winners: false`)." """
    body = (kong(DI), won(BO, CY, 0), wall(ana={"flower_pig": True}, cy=ready(0), di=NOT_READY))
    (hand,) = run(alone("sichuan", EXEMPT), *body)["hands"]
    to_bo = Counter(t["reason"] for t in hand["transfers"] if t["to"] == BO)
    assert to_bo == {"won_on_discard": 1, "flower_pig": 1, "kong_refund": 1}
    rules = {**EXEMPT, "pig_pays": "still_in", "refund_to_winners": False}
    (hand,) = run(alone("sichuan", rules), *body)["hands"]
    assert Counter(t["reason"] for t in hand["transfers"] if t["to"] == BO) == {"won_on_discard": 1}


def test_blood_flow_wall_refines_blood_flow() -> None:
    """ "`blood_flow_wall` unless `blood_flow` is `true`" must be at its default, "otherwise
    the line that sets the rules is an error"; a default key is accepted and not listed."""
    for rules in ({"blood_flow_wall": "exempt_winners"}, {**EXEMPT, "blood_flow": False}):
        with pytest.raises(LogError) as err:
            run(alone("sichuan", rules))
        assert (err.value.line, err.value.code) == (1, "bad_house_rule")
        assert "blood_flow_wall" in str(err.value)
    plain = run(alone("sichuan"))["rules"]
    assert run(alone("sichuan", {"blood_flow_wall": "all"}))["rules"] == plain
    assert run(alone("sichuan", EXEMPT))["rules"] == {**plain, **EXEMPT}


# --- stakes leftover --------------------------------------------------------------------------


@pytest.mark.parametrize(("leftover", "ana", "cy"), [("lowest_seat", 2, 3), ("after_payer", 1, 4)])
def test_worked_example_lowest_seat(leftover: str, ana: int, cy: int) -> None:
    """variants.md: "Lowest seat: stakes bo 5, others 100; at the wall ana is ready at 2 fan,
    cy at 3 (base 1, cap 6), bo and di are not ready: bo owes ana 4 and cy 8 (12) but holds 5:
    floor(5 × 4/12) = 1, floor(5 × 8/12) = 3, the 1 left over goes to ana (listed first): ana
    2, cy 3. Under `"after_payer"` it would go to cy (the first payee after bo): ana 1, cy 4." """
    rules = {"fan_cap": 6, "stakes_leftover": leftover}
    out = run(
        match("sichuan", rules, stakes={ANA: 100, BO: 5, CY: 100, DI: 100}),
        {"type": "hand_started", "dealer": ANA},
        wall(ana=ready(2), bo=NOT_READY, cy=ready(3), di=NOT_READY),
    )
    (hand,) = out["hands"]
    from_bo = {t["to"]: t["amount"] for t in hand["transfers"] if t["from"] == BO}
    assert from_bo == {ANA: ana, CY: cy}
    assert hand["balances"][BO] == 0


def test_lowest_seat_pays_the_whole_balance_even_beyond_the_first_payees_dues() -> None:
    """Read literally: "all of them to the payee that comes first" and the capped payer "pays
    their whole balance": bo holds 64 and owes ana 1, cy 32, di 32 (65): floor shares 0, 31,
    31, and the 2 left over go to ana, 1 more than her due (on her last transfer)."""
    rules = {"fan_cap": 6, "stakes_leftover": "lowest_seat"}
    lines = [
        match("sichuan", rules, stakes={ANA: 100, BO: 64, CY: 100, DI: 100}),
        {"type": "hand_started", "dealer": ANA},
        wall(ana=ready(0), bo=NOT_READY, cy=ready(5), di=ready(5)),
    ]
    (hand,) = run(*lines)["hands"]
    from_bo = {t["to"]: t["amount"] for t in hand["transfers"] if t["from"] == BO}
    assert from_bo == {ANA: 2, CY: 31, DI: 31}
    assert hand["balances"][BO] == 0
    assert hand["next_dealer"] is None
    assert transfers(hand) == model(lines).hands[0].transfers


@pytest.mark.parametrize(
    ("leftover", "parts"),
    [("lowest_seat", {ANA: 4, CY: 3, DI: 3}), ("after_payer", {ANA: 3, CY: 4, DI: 3})],
)
def test_lowest_seat_in_hong_kong_too(leftover: str, parts: dict[str, int]) -> None:
    """ "Both rule sets": bo's false win at limit 5 owes 3 × 24 = 72 to each of three (216) but
    bo holds 10: floor(10 × 72/216) = 3 each, the 1 left over to ana (listed first), or to cy
    (the first payee after bo)."""
    rules = {"fan_limit": 5, "min_fan": 0, "stakes_leftover": leftover}
    out = run(
        match("hongkong", rules, stakes={ANA: 100, BO: 10, CY: 100, DI: 100}),
        {"type": "hand_started", "dealer": ANA},
        false_win(BO),
    )
    (hand,) = out["hands"]
    assert {t["to"]: t["amount"] for t in hand["transfers"]} == parts
    assert hand["balances"][BO] == 0


@pytest.mark.parametrize(
    "head",
    [
        match("sichuan", {"stakes_leftover": "lowest_seat"}),
        match("hongkong", {"stakes_leftover": "lowest_seat"}),
        alone("sichuan", {"stakes_leftover": "lowest_seat"}),
    ],
)
def test_stakes_leftover_needs_stakes(head: Line) -> None:
    """ "must be "after_payer" in a log without stakes, a stand-alone hand included"; the same
    first error on the strict and the fast decoder."""
    with pytest.raises(LogError) as err:
        run(head)
    assert (err.value.line, err.value.code) == (1, "bad_house_rule")
    assert "stakes_leftover" in str(err.value)
    data = json.dumps(head).encode()
    with pytest.raises(FormatError) as strict:
        decode_line(data.decode(), 1)
    with pytest.raises(FormatError) as fast:
        list(decode_numbered([1], [data]))
    assert str(fast.value) == str(strict.value) == str(err.value)
    at_default = {**head, "rules": {"stakes_leftover": "after_payer"}}
    assert "stakes_leftover" not in run(at_default)["rules"]


# --- Hong Kong limit 5–13 ---------------------------------------------------------------------

LIMIT_UNITS = {5: 24, 6: 32, 7: 48, 8: 64, 9: 96, 10: 128, 11: 192, 12: 256, 13: 384}


@pytest.mark.parametrize("limit", sorted(LIMIT_UNITS))
@pytest.mark.parametrize("table", ["half_spicy", "spicy"])
def test_a_limit_hand_is_worth_the_limits_column(limit: int, table: str) -> None:
    """variants.md: "a limit hand ... is worth the units of the limit's column — half-spicy 5 →
    24, 6 → 32, 7 → 48, 8 → 64, 9 → 96, 10 → 128, 11 → 192, 12 → 256, 13 → 384; spicy `2^limit`";
    "fan above the limit count as the limit"."""
    units = LIMIT_UNITS[limit] if table == "half_spicy" else 2**limit
    rules = {"fan_limit": limit, "table": table, "min_fan": 0}
    (hand,) = run(alone("hongkong", rules), {"type": "self_drawn", "player": BO, "limit": True})[
        "hands"
    ]
    assert hand["net"][BO] == 3 * units
    (hand,) = run(alone("hongkong", rules), won(BO, CY, 13))["hands"]
    assert hand["net"][BO] == 2 * units
    assert run(alone("hongkong", rules))["rules"]["fan_limit"] == limit  # always listed


def test_worked_example_limit_6() -> None:
    """variants.md: "Limit 6, half-spicy, `points_per_unit` 2: a share at the limit is 32 × 2 =
    64; a false win pays 3 × 64 = 192 to each of the other three; a 7-faan win counts as 6." """
    rules = {"fan_limit": 6, "points_per_unit": 2, "min_fan": 0}
    (hand,) = run(alone("hongkong", rules), false_win(DI))["hands"]
    assert {t["amount"] for t in hand["transfers"]} == {192}
    assert hand["net"][DI] == -576
    (seven,) = run(alone("hongkong", rules), won(BO, CY, 7))["hands"]
    (six,) = run(alone("hongkong", rules), won(BO, CY, 6))["hands"]
    assert seven["net"] == six["net"] == {ANA: 0, BO: 128, CY: -128, DI: 0}


@pytest.mark.parametrize(
    "rules",
    [
        {"fan_limit": 4},
        {"fan_limit": 14},
        {"fan_limit": 6.0},
        {"fan_limit": True},
        {"fan_limit": "6"},
        {"fan_limit": 6, "min_fan": 7},
    ],
)
def test_a_bad_fan_limit_is_an_error_of_its_line(rules: Line) -> None:
    """ "`fan_limit` is a JSON integer from 5 to 13 (default 10); anything else is an error of
    the line that sets the rules, and `min_fan` is still at most `fan_limit`."""
    head = match("hongkong", rules)
    with pytest.raises(LogError) as err:
        run(head)
    assert (err.value.line, err.value.code) == (1, "bad_house_rule")
    data = json.dumps(head).encode()
    with pytest.raises(FormatError) as fast:
        list(decode_numbered([1], [data]))
    assert str(fast.value) == str(err.value)


@pytest.mark.parametrize(
    ("key", "value"),
    [("sichuan_false_win", "flat"), ("blood_flow_wall", "all"), ("sichuan_false_win", "refused")],
)
def test_the_sichuan_keys_are_errors_in_hong_kong(key: str, value: str) -> None:
    """ "`sichuan_false_win` is a Sichuan key: an error in Hong Kong" (so is blood_flow_wall)."""
    with pytest.raises(LogError) as err:
        run(match("hongkong", {key: value}))
    assert (err.value.line, err.value.code) == (1, "bad_house_rule")
    assert key in str(err.value)


# --- explanations -----------------------------------------------------------------------------

EXPLAINED: dict[str, tuple[list[Line], set[str]]] = {
    "flat false win": (
        [alone("sichuan", {"fan_cap": 3, **FLAT}), kong(ANA), won(BO, CY, 0), false_win(ANA)],
        {"false_win.sichuan", "false_win.kong_refund"},
    ),
    "winners exempt": (
        [alone("sichuan", EXEMPT), won(BO, CY, 0), wall(ana=ready(0), cy=NOT_READY, di=ready(1))],
        {"wall_exhausted.winners_exempt", "not_ready"},
    ),
    "lowest seat": (
        [
            match(
                "sichuan",
                {"fan_cap": 6, "stakes_leftover": "lowest_seat"},
                stakes={ANA: 100, BO: 5, CY: 100, DI: 100},
            ),
            {"type": "hand_started", "dealer": ANA},
            wall(ana=ready(2), bo=NOT_READY, cy=ready(3), di=NOT_READY),
        ],
        {"stakes.capped.lowest_seat"},
    ),
}


@pytest.mark.parametrize("name", sorted(EXPLAINED))
def test_each_new_payment_is_explained_with_its_sums_in_six_languages(name: str) -> None:
    lines, ids = EXPLAINED[name]
    text = log_text(lines)
    check_explanation(text)  # each step's arithmetic is its money; all money is explained
    hands = explain_log(text)
    sentences = [s for h in hands for s in iter_sentences(h)]
    assert ids <= {s.id for s in sentences}
    for sentence in sentences:
        for lang in LANGUAGES:
            assert render(sentence, lang)


def test_the_lowest_seat_step_names_its_first_payee() -> None:
    (hand,) = explain_log(log_text(EXPLAINED["lowest seat"][0]))
    capped = next(s for s in hand.steps if s.sentences[0].id == "stakes.capped.lowest_seat")
    assert capped.operands == {
        "player": BO,
        "held": 5,
        "owed": 12,
        "first": ANA,
        "parts": {ANA: 2, CY: 3},
        "leftover": 1,
    }
    assert "8 × 1 = 8" in render(
        next(
            s
            for s in iter_sentences(explain_log(log_text(EXPLAINED["flat false win"][0]))[0])
            if s.id == "false_win.sichuan"
        ),
        "en",
    )


def test_the_library_refuses_the_leftover_rule_without_stakes_too() -> None:
    """The same refusal on every path: an event built in Python cannot carry
    ``stakes_leftover: "lowest_seat"`` without stakes (a store could not read it back)."""
    from mjledger import HandStarted, MatchStarted
    from mjledger.rules.hongkong.options import HongKongRules
    from mjledger.rules.sichuan.options import SichuanRules

    for rules in (
        SichuanRules(stakes_leftover="lowest_seat"),
        HongKongRules(stakes_leftover="lowest_seat"),
    ):
        ruleset = "sichuan" if isinstance(rules, SichuanRules) else "hongkong"
        with pytest.raises(FormatError, match="stakes_leftover"):
            MatchStarted(ruleset=ruleset, players=tuple(P), rules=rules)
        with pytest.raises(FormatError, match="stakes_leftover"):
            HandStarted(dealer=ANA, ruleset=ruleset, players=tuple(P), rules=rules)
        staked = MatchStarted(
            ruleset=ruleset, players=tuple(P), rules=rules, stakes=dict.fromkeys(P, 5)
        )
        assert staked.rules.stakes_leftover == "lowest_seat"
