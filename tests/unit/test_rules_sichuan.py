"""rules.md, "Sichuan blood battle": every figure of the section as an example test.

Players sit ana, bo, cy, di in turn order; line 1 is the hand's (or match's) first line. Every
expected amount below is worked out by hand from rules.md and written next to its reason.
"""

from __future__ import annotations

import pytest

from mjledger import LogError, RuleError
from tests.helpers import (
    ANA,
    BO,
    CY,
    DI,
    NOT_READY,
    PIG,
    discard,
    hand_json,
    hand_start,
    kong,
    match_start,
    net,
    new_hand,
    of,
    ready,
    run,
    self_drawn,
    transfers,
    void,
    wall,
    won,
)

SC = "sichuan"
OTHERS = {ANA: (BO, CY, DI), BO: (ANA, CY, DI), CY: (ANA, BO, DI), DI: (ANA, BO, CY)}


def sc(*events: dict, rules: dict | None = None, dealer: str = ANA):
    return run(hand_start(SC, dealer, rules), *events)


# --- A win --------------------------------------------------------------------------------------


@pytest.mark.parametrize("base", [1, 3])
@pytest.mark.parametrize("fan_cap", [3, 4, 5, 6])
@pytest.mark.parametrize("fan", range(0, 9))
def test_win_collects_base_times_two_to_the_capped_fan(base: int, fan_cap: int, fan: int) -> None:
    """rules.md: "A win collects base × 2^min(fan, fan_cap) from each payer"."""
    result = sc(won(CY, BO, fan), rules={"base": base, "fan_cap": fan_cap})
    assert transfers(result) == of((BO, CY, base * 2 ** min(fan, fan_cap), "won_on_discard", 2))


@pytest.mark.parametrize(
    ("fan", "amount"), [(0, 1), (1, 2), (2, 4), (3, 8), (4, 16), (5, 16), (9, 16)]
)
def test_fan_cap_default_is_four_times_sixteen(fan: int, amount: int) -> None:
    """rules.md: "`fan_cap` 3, 4 (default, ×16), 5 or 6"; base defaults to 1."""
    assert transfers(sc(won(CY, BO, fan))) == of((BO, CY, amount, "won_on_discard", 2))


def test_largest_stake_and_cap() -> None:
    """log-format.md: base up to 1,000,000; rules.md: ×2^6 at cap 6 — exact integers."""
    result = sc(won(CY, BO, 6), rules={"base": 1_000_000, "fan_cap": 6})
    assert transfers(result) == of((BO, CY, 64_000_000, "won_on_discard", 2))


def test_win_on_discard_only_the_discarder_pays() -> None:
    """rules.md: "Win on discard: only the discarder pays"."""
    result = sc(discard(ANA), won(DI, BO, 3))
    assert net(result) == {ANA: 0, BO: -8, CY: 0, DI: 8}


def test_several_winners_on_one_discard_each_paid_by_the_discarder() -> None:
    """rules.md: "Several players may win on the same discard; the discarder pays each of
    them" (1 fan 2, 3 fan 8, 5 fan capped at 4: 16)."""
    result = sc(discard(BO), won(BO, ANA, 1), won(CY, ANA, 3), won(DI, ANA, 5))
    assert transfers(result) == of(
        (ANA, BO, 2, "won_on_discard", 3),
        (ANA, CY, 8, "won_on_discard", 4),
        (ANA, DI, 16, "won_on_discard", 5),
    )
    h = hand_json(result)
    assert h["outcome"] == "won"
    assert h["winners"] == [BO, CY, DI]


def test_self_draw_worked_example_four_plus_one() -> None:
    """rules.md example: "(base 1, self-draw 2 fan, two others still in): each pays 4 + 1 = 5;
    the winner collects 10"."""
    result = sc(won(DI, CY, 1), discard(ANA), self_drawn(BO, 2), rules={"base": 1})
    assert transfers(result) == of(
        (CY, DI, 2, "won_on_discard", 2),
        (ANA, BO, 5, "self_drawn", 4),
        (CY, BO, 5, "self_drawn", 4),
    )
    assert net(result) == {ANA: -5, BO: 10, CY: -7, DI: 2}


def test_self_draw_every_player_still_in_pays() -> None:
    """rules.md: "Self-draw: every player still in the hand (not yet won) pays" — three when
    nobody has won yet (default bonus "base": 2^3 + 1 = 9 each)."""
    result = sc(self_drawn(CY, 3))
    assert transfers(result) == of(*((p, CY, 9, "self_drawn", 2) for p in OTHERS[CY]))


@pytest.mark.parametrize(
    ("bonus", "base", "fan", "each"),
    [
        ("base", 1, 2, 4 + 1),  # the worked example
        ("base", 2, 2, 8 + 2),  # "each payer adds 1 base on top of the capped amount"
        ("base", 1, 6, 16 + 1),  # on top of the CAPPED amount
        ("fan", 1, 2, 8),  # "+1 fan before the cap"
        ("fan", 3, 0, 6),
        ("fan", 1, 3, 16),
        ("fan", 1, 4, 16),  # +1 fan, then the cap of 4
        ("fan", 1, 9, 16),
        ("none", 1, 2, 4),
        ("none", 5, 5, 80),
    ],
)
def test_self_draw_bonus_modes(bonus: str, base: int, fan: int, each: int) -> None:
    """rules.md: self-draw bonus `"base"` (default), `"fan"`, `"none"` (fan_cap 4)."""
    result = sc(won(DI, CY, 0), self_drawn(BO, fan), rules={"self_draw_bonus": bonus, "base": base})
    assert transfers(result) == of(
        (CY, DI, base, "won_on_discard", 2),
        (ANA, BO, each, "self_drawn", 3),
        (CY, BO, each, "self_drawn", 3),
    )


def test_self_draw_bonus_fan_respects_every_cap() -> None:
    """rules.md: `"fan"` +1 fan *before* the cap — cap 3, 2 fan: 2^3 = 8; 3 fan: still 8."""
    rules = {"self_draw_bonus": "fan", "fan_cap": 3}
    assert net(sc(self_drawn(ANA, 2), rules=rules))[ANA] == 24
    assert net(sc(self_drawn(ANA, 3), rules=rules))[ANA] == 24


def test_a_winner_pays_nothing_more() -> None:
    """rules.md: "A player who has won leaves the hand and pays nothing more" — not for a
    later kong, nor a later self-draw; "Only players who have not won pay"."""
    result = sc(
        won(BO, ANA, 1),  # 2: ana pays bo 2
        kong(CY, "concealed"),  # 3: ana, di pay 2 each (bo has won)
        kong(DI, "added"),  # 4: ana, cy pay 1 each
        self_drawn(CY, 0),  # 5: ana, di pay 1 + 1 base
    )
    assert transfers(result) == of(
        (ANA, BO, 2, "won_on_discard", 2),
        (ANA, CY, 2, "kong_concealed", 3),
        (DI, CY, 2, "kong_concealed", 3),
        (ANA, DI, 1, "kong_added", 4),
        (CY, DI, 1, "kong_added", 4),
        (ANA, CY, 2, "self_drawn", 5),
        (DI, CY, 2, "self_drawn", 5),
    )


def test_play_goes_on_until_three_have_won() -> None:
    """rules.md: "play goes on until three players have won or the wall runs out"."""
    result = sc(self_drawn(BO, 0), won(CY, ANA, 0))
    assert hand_json(result)["outcome"] == "unfinished"
    result = sc(self_drawn(BO, 0), won(CY, ANA, 0), discard(DI), self_drawn(DI, 0))
    h = hand_json(result)
    assert h["outcome"] == "won"
    assert h["winners"] == [BO, CY, DI]
    # ana, the last one in, pays the third winner alone: 1 + 1 base.
    assert (ANA, DI, 2, "self_drawn", 5) in transfers(result)


def test_an_event_after_the_third_win_is_rejected() -> None:
    """log-format.md: a Sichuan hand ends "when three players have won"; an event after the
    hand ended is an error."""
    with pytest.raises(RuleError) as err:
        sc(self_drawn(BO, 0), self_drawn(CY, 0), self_drawn(DI, 0), discard(ANA))
    assert err.value.line == 5


def test_limit_is_not_a_sichuan_rule() -> None:
    """log-format.md: "`limit` (Hong Kong only)" — a Sichuan win with it is rejected."""
    with pytest.raises(LogError) as err:
        sc(discard(ANA), won(CY, BO, 2, limit=True))
    assert err.value.line == 3


# --- Kongs --------------------------------------------------------------------------------------


@pytest.mark.parametrize("base", [1, 4])
def test_kong_exposed_two_from_the_discarder(base: int) -> None:
    """rules.md kong table: "exposed (直杠, from a discard) | 2 from the discarder"."""
    result = sc(kong(BO, "exposed", DI), rules={"base": base})
    assert transfers(result) == of((DI, BO, 2 * base, "kong_exposed", 2))


@pytest.mark.parametrize("base", [1, 4])
def test_kong_added_one_from_each_player_still_in(base: int) -> None:
    """rules.md kong table: "added (刮风 …) | 1 from each player still in"."""
    result = sc(kong(BO, "added"), rules={"base": base})
    assert transfers(result) == of(*((p, BO, base, "kong_added", 2) for p in OTHERS[BO]))


@pytest.mark.parametrize("base", [1, 4])
def test_kong_concealed_two_from_each_player_still_in(base: int) -> None:
    """rules.md kong table: "concealed (下雨, rain) | 2 from each player still in"."""
    result = sc(kong(BO, "concealed"), rules={"base": base})
    assert transfers(result) == of(*((p, BO, 2 * base, "kong_concealed", 2) for p in OTHERS[BO]))


def test_kongs_only_players_still_in_pay() -> None:
    """rules.md: "Only players who have not won pay" — with two winners out, one payer."""
    result = sc(self_drawn(ANA, 0), self_drawn(BO, 0), kong(CY, "concealed"), kong(CY, "added"))
    kong_transfers = {t for t in transfers(result) if t[3].startswith("kong")}
    assert kong_transfers == {(DI, CY, 2, "kong_concealed", 4), (DI, CY, 1, "kong_added", 5)}


def test_robbed_kong_is_not_paid_robbed_player_pays_as_discarder() -> None:
    """rules.md: "A kong robbed by a win (抢杠) is never completed and is not paid; the robbed
    player pays that win as a discarder"."""
    result = sc(discard(ANA), won(CY, BO, 2, robbing_kong=True))
    assert transfers(result) == of((BO, CY, 4, "won_on_discard", 3))


def test_several_robbers_of_one_kong() -> None:
    """rules.md: "Several players may rob the same kong: that is one win with several winners,
    like several winners on one discard"."""
    result = sc(won(CY, BO, 2, robbing_kong=True), won(ANA, BO, 1, robbing_kong=True), discard(DI))
    assert transfers(result) == of(
        (BO, CY, 4, "won_on_discard", 2), (BO, ANA, 2, "won_on_discard", 3)
    )


# --- Kong money passing ---------------------------------------------------------------------


def test_kong_money_passes_to_the_single_winner() -> None:
    """rules.md "Kong money passing": "the money that kong just collected goes to the winner,
    on top of the win" (rain: 2 × 3 = 6; line of the win it went to)."""
    result = sc(kong(BO, "concealed"), won(CY, BO, 1), discard(DI))
    assert transfers(result) == of(
        (ANA, BO, 2, "kong_concealed", 2),
        (CY, BO, 2, "kong_concealed", 2),
        (DI, BO, 2, "kong_concealed", 2),
        (BO, CY, 2, "won_on_discard", 3),
        (BO, CY, 6, "kong_money_passed", 3),
    )
    assert net(result) == {ANA: -2, BO: -2, CY: 6, DI: -2}


def test_kong_money_passing_is_on_by_default_and_with_split_none_for_one_winner() -> None:
    """log-format.md: `kong_money_passing` default true; rules.md: `kong_passing_split` only
    decides "if that discard lets several players win"."""
    result = sc(kong(BO, "added"), won(CY, BO, 0), rules={"kong_passing_split": "none"})
    assert (BO, CY, 3, "kong_money_passed", 3) in transfers(result)


def test_kong_money_passing_settles_at_the_end_of_the_log() -> None:
    """rules.md: "The passing is settled when that run of wins closes (at the next line, or at
    the end of the log)"."""
    result = sc(kong(BO, "concealed"), won(CY, BO, 1))
    assert (BO, CY, 6, "kong_money_passed", 3) in transfers(result)
    assert hand_json(result)["outcome"] == "unfinished"


def test_kong_money_passes_only_what_that_kong_collected() -> None:
    """rules.md: "the money that kong just collected" — a rain after one win collects 2 × 2."""
    result = sc(won(DI, ANA, 0), kong(BO, "concealed"), won(CY, BO, 1))
    assert (BO, CY, 4, "kong_money_passed", 4) in transfers(result)


def test_kong_money_of_a_run_of_kongs_on_replacement_tiles() -> None:
    """rules.md: "the money of every kong the discarder declared since their previous discard
    (… more when replacement tiles were themselves made into kongs)": 6 + 3 + 2 = 11."""
    result = sc(
        discard(ANA),
        kong(BO, "concealed"),  # 3: 6
        kong(BO, "added"),  # 4: 3
        kong(BO, "exposed", ANA),  # 5: 2 (an exposed kong of bo's is in bo's run too)
        won(DI, BO, 2),
    )
    assert (BO, DI, 11, "kong_money_passed", 6) in transfers(result)
    assert net(result) == {ANA: -5, BO: -4, CY: -3, DI: 4 + 11 - 3}


def test_only_kongs_since_the_previous_discard_pass() -> None:
    """rules.md: "since their previous discard" — a kong before bo's last discard stays bo's."""
    result = sc(kong(BO, "concealed"), discard(BO), kong(BO, "added"), won(CY, BO, 1))
    passed = [t for t in transfers(result) if t[3] == "kong_money_passed"]
    assert passed == [(BO, CY, 3, "kong_money_passed", 5)]


def test_kong_money_splits_between_several_winners_with_remainder_by_turn_order() -> None:
    """rules.md: `"split"` (default: equal parts, any remainder to the first winner after the
    discarder in turn order) — 3 among bo and di, discarder cy: di is next after cy, so di gets
    2 and bo 1, although bo won first in the log."""
    result = sc(kong(CY, "added"), won(BO, CY, 0), won(DI, CY, 0), discard(ANA))
    assert transfers(result) == of(
        (ANA, CY, 1, "kong_added", 2),
        (BO, CY, 1, "kong_added", 2),
        (DI, CY, 1, "kong_added", 2),
        (CY, BO, 1, "won_on_discard", 3),
        (CY, DI, 1, "won_on_discard", 4),
        (CY, BO, 1, "kong_money_passed", 3),
        (CY, DI, 2, "kong_money_passed", 4),
    )


def test_kong_money_split_evenly_and_three_ways_at_the_end_of_the_hand() -> None:
    """rules.md "split": equal parts — 2 + 3 = 5 among three winners: 1 each, the remainder 2
    to bo (first after ana); settled as the third win ends the hand."""
    result = sc(
        kong(ANA, "exposed", BO),  # 2: bo pays 2
        kong(ANA, "added"),  # 3: bo, cy, di pay 1
        won(CY, ANA, 0),
        won(DI, ANA, 0),
        won(BO, ANA, 0),
    )
    passed = sorted(t for t in transfers(result) if t[3] == "kong_money_passed")
    assert passed == [
        (ANA, BO, 3, "kong_money_passed", 6),
        (ANA, CY, 1, "kong_money_passed", 4),
        (ANA, DI, 1, "kong_money_passed", 5),
    ]
    assert hand_json(result)["outcome"] == "won"
    assert hand_json(result)["next_dealer"] == ANA


def test_kong_money_split_with_no_remainder() -> None:
    """rules.md "split": rain 6 between two winners: 3 each."""
    result = sc(kong(CY, "concealed"), won(DI, CY, 1), won(ANA, CY, 1), discard(BO))
    passed = sorted(t for t in transfers(result) if t[3] == "kong_money_passed")
    assert passed == [(CY, ANA, 3, "kong_money_passed", 4), (CY, DI, 3, "kong_money_passed", 3)]


def test_kong_passing_split_none_keeps_the_money_and_it_stays_refundable() -> None:
    """rules.md: `"none"` (no money passes; it stays the konger's, and refundable) — cy, not
    ready at the wall, refunds the rain to everyone who paid it, winners included."""
    result = sc(
        kong(CY, "concealed"),  # 2
        won(BO, CY, 1),  # 3
        won(DI, CY, 1),  # 4
        discard(ANA),  # 5
        wall(ana=ready(1), cy=NOT_READY),  # 6
        rules={"kong_passing_split": "none"},
    )
    assert transfers(result) == of(
        (ANA, CY, 2, "kong_concealed", 2),
        (BO, CY, 2, "kong_concealed", 2),
        (DI, CY, 2, "kong_concealed", 2),
        (CY, BO, 2, "won_on_discard", 3),
        (CY, DI, 2, "won_on_discard", 4),
        (CY, ANA, 2, "not_ready", 6),
        (CY, ANA, 2, "kong_refund", 6),
        (CY, BO, 2, "kong_refund", 6),
        (CY, DI, 2, "kong_refund", 6),
    )


def test_kong_money_passing_false() -> None:
    """log-format.md `kong_money_passing`: false — nothing passes; the money stays refundable."""
    result = sc(
        kong(BO, "concealed"),
        won(CY, BO, 1),
        discard(DI),
        wall(ana=ready(2), bo=NOT_READY, di=ready(0)),
        rules={"kong_money_passing": False},
    )
    assert transfers(result) == of(
        (ANA, BO, 2, "kong_concealed", 2),
        (CY, BO, 2, "kong_concealed", 2),
        (DI, BO, 2, "kong_concealed", 2),
        (BO, CY, 2, "won_on_discard", 3),
        (BO, ANA, 4, "not_ready", 5),
        (BO, DI, 1, "not_ready", 5),
        (BO, ANA, 2, "kong_refund", 5),
        (BO, CY, 2, "kong_refund", 5),
        (BO, DI, 2, "kong_refund", 5),
    )


def test_claimed_discard_for_an_exposed_kong_ends_the_claimed_from_run() -> None:
    """rules.md: "A discard claimed for an exposed kong counts as a discard of the player it
    was claimed from" — bo's rain does not pass on bo's later discard; cy's exposed kong does
    pass on cy's next discard."""
    result = sc(
        kong(BO, "concealed"),  # 2: ana, cy, di pay bo 2
        kong(CY, "exposed", BO),  # 3: bo pays cy 2; ends bo's run
        won(DI, CY, 1),  # 4: cy pays di 2, and passes its kong money 2
        discard(ANA),  # 5
        won(ANA, BO, 1),  # 6: bo pays ana 2; nothing passes
    )
    passed = [t for t in transfers(result) if t[3] == "kong_money_passed"]
    assert passed == [(CY, DI, 2, "kong_money_passed", 4)]
    assert net(result) == {ANA: -2 + 2, BO: 6 - 2 - 2, CY: -2 + 2 - 2 - 2, DI: -2 + 2 + 2}


def test_robbed_kong_ends_the_robbed_players_run_and_nothing_passes() -> None:
    """rules.md: "a kong robbed from a player also ends that player's run of kongs, and
    nothing passes on a robbing win"."""
    result = sc(
        kong(BO, "concealed"),  # 2
        won(CY, BO, 1, robbing_kong=True),  # 3: bo pays cy 2, nothing passes
        discard(DI),  # 4
        won(ANA, BO, 1),  # 5: bo's run ended at the robbing: nothing passes
    )
    assert not [t for t in transfers(result) if t[3] == "kong_money_passed"]
    assert net(result) == {ANA: -2 + 2, BO: 6 - 2 - 2, CY: -2 + 2, DI: -2}


def test_nothing_passes_when_a_discard_comes_between() -> None:
    """rules.md: only "the discard that follows" the kong passes its money."""
    result = sc(kong(BO, "added"), discard(BO), discard(CY), won(DI, BO, 1))
    assert not [t for t in transfers(result) if t[3] == "kong_money_passed"]


def test_passed_kong_money_is_never_refunded() -> None:
    """rules.md: "Money that was passed is the winner's and is never refunded"; the refund is
    "except money already passed" — bo refunds only the later wind kong."""
    result = sc(
        kong(BO, "concealed"),  # 2: 6
        won(CY, BO, 0),  # 3: 1 + 6 passed
        kong(BO, "added"),  # 4: ana, di pay 1
        discard(BO),  # 5
        wall(ana=NOT_READY, bo=NOT_READY, di=ready(2)),  # 6
    )
    assert transfers(result) == of(
        (ANA, BO, 2, "kong_concealed", 2),
        (CY, BO, 2, "kong_concealed", 2),
        (DI, BO, 2, "kong_concealed", 2),
        (BO, CY, 1, "won_on_discard", 3),
        (BO, CY, 6, "kong_money_passed", 3),
        (ANA, BO, 1, "kong_added", 4),
        (DI, BO, 1, "kong_added", 4),
        (ANA, DI, 4, "not_ready", 6),
        (BO, DI, 4, "not_ready", 6),
        (BO, ANA, 1, "kong_refund", 6),
        (BO, DI, 1, "kong_refund", 6),
    )


# --- When the wall runs out -----------------------------------------------------------------


@pytest.mark.parametrize(
    ("base", "fan_cap", "amount"), [(1, 4, 16), (1, 3, 8), (2, 6, 128), (3, 5, 96)]
)
def test_flower_pig_pays_every_non_pig_winners_included(
    base: int, fan_cap: int, amount: int
) -> None:
    """rules.md: "Flower pig (花猪): a player still holding a tile of the void suit they chose
    pays every non-pig at the table — winners included — base × 2^fan_cap"."""
    result = sc(
        void(ANA, "m"),
        won(BO, CY, 0),  # 3
        wall(ana=PIG, cy=ready(0), di=ready(0)),  # 4: the not-ready checks add ana → cy, di
        rules={"base": base, "fan_cap": fan_cap},
    )
    pig = {t for t in transfers(result) if t[3] == "flower_pig"}
    assert pig == {(ANA, p, amount, "flower_pig", 4) for p in (BO, CY, DI)}


def test_flower_pigs_do_not_pay_each_other() -> None:
    """rules.md: a pig pays every *non-pig*; two pigs, no ready player: only the pig money."""
    result = sc(self_drawn(BO, 0), won(DI, ANA, 0), wall(ana=PIG, cy=PIG))
    at_wall = {t for t in transfers(result) if t[4] == 4}
    assert at_wall == {
        (ANA, BO, 16, "flower_pig", 4),
        (ANA, DI, 16, "flower_pig", 4),
        (CY, BO, 16, "flower_pig", 4),
        (CY, DI, 16, "flower_pig", 4),
    }


def test_not_ready_pays_each_ready_player_by_their_best_fan_capped() -> None:
    """rules.md: "each player still in who is not ready … pays every ready player
    base × 2^min(best, fan_cap)" (best 1: 2; best 6 at cap 4: 16)."""
    result = sc(wall(ana=ready(1), bo=ready(6), cy=NOT_READY, di=NOT_READY))
    assert transfers(result) == of(
        (CY, ANA, 2, "not_ready", 2),
        (CY, BO, 16, "not_ready", 2),
        (DI, ANA, 2, "not_ready", 2),
        (DI, BO, 16, "not_ready", 2),
    )
    h = hand_json(result)
    assert (h["outcome"], h["winners"], h["next_dealer"]) == ("void", [], ANA)


def test_a_pig_is_never_ready_and_pays_the_ready_players_too() -> None:
    """rules.md: the checks "are independent": a pig also pays the not-ready check — "a pig is
    never ready" (best 3 at base 2: 16)."""
    result = sc(wall(ana=PIG, bo=ready(3), cy=NOT_READY, di=ready(0)), rules={"base": 2})
    assert transfers(result) == of(
        (ANA, BO, 32, "flower_pig", 2),
        (ANA, CY, 32, "flower_pig", 2),
        (ANA, DI, 32, "flower_pig", 2),
        (ANA, BO, 16, "not_ready", 2),
        (ANA, DI, 2, "not_ready", 2),
        (CY, BO, 16, "not_ready", 2),
        (CY, DI, 2, "not_ready", 2),
    )


def test_winners_are_not_checked_at_the_wall() -> None:
    """rules.md: "Winners are not checked: they never pay here" — all ready: nothing moves."""
    result = sc(self_drawn(BO, 0), discard(ANA), wall(ana=ready(2), cy=ready(1), di=ready(5)))
    assert {t for t in transfers(result) if t[4] == 4} == set()


def test_refund_of_kong_money_to_everyone_who_paid_it_winners_included() -> None:
    """rules.md "Refund (退税)": "each player still in who is not ready — pigs included —
    returns all kong money they collected in this hand to the players who paid it (winners
    included)"."""
    result = sc(
        kong(CY, "concealed"),  # 2: ana, bo, di pay cy 2
        kong(ANA, "exposed", DI),  # 3: di pays ana 2
        discard(ANA),  # 4
        won(BO, DI, 1),  # 5: di pays bo 2
        wall(ana=PIG, cy=NOT_READY, di=ready(3)),  # 6
    )
    assert transfers(result) == of(
        (ANA, CY, 2, "kong_concealed", 2),
        (BO, CY, 2, "kong_concealed", 2),
        (DI, CY, 2, "kong_concealed", 2),
        (DI, ANA, 2, "kong_exposed", 3),
        (DI, BO, 2, "won_on_discard", 5),
        (ANA, BO, 16, "flower_pig", 6),
        (ANA, CY, 16, "flower_pig", 6),
        (ANA, DI, 16, "flower_pig", 6),
        (ANA, DI, 8, "not_ready", 6),
        (CY, DI, 8, "not_ready", 6),
        (ANA, DI, 2, "kong_refund", 6),
        (CY, ANA, 2, "kong_refund", 6),
        (CY, BO, 2, "kong_refund", 6),
        (CY, DI, 2, "kong_refund", 6),
    )


def test_a_ready_player_keeps_their_kong_money() -> None:
    """rules.md: only a player "who is not ready" refunds."""
    result = sc(
        kong(DI, "added"), discard(DI), wall(ana=NOT_READY, bo=NOT_READY, cy=NOT_READY, di=ready(0))
    )
    assert not [t for t in transfers(result) if t[3] == "kong_refund"]


def test_a_winner_keeps_their_kong_money() -> None:
    """rules.md: "Winners are not checked" — a konger who then won refunds nothing."""
    result = sc(
        kong(DI, "concealed"),
        self_drawn(DI, 1),
        discard(ANA),
        wall(ana=NOT_READY, bo=NOT_READY, cy=NOT_READY),
    )
    assert not [t for t in transfers(result) if t[3] == "kong_refund"]


# --- Dealer -------------------------------------------------------------------------------------


def _dealers(result) -> list[tuple[str, int, str, str | None]]:
    return [
        (h["dealer"], h["dealer_streak"], h["round_wind"], h["next_dealer"])
        for h in result.to_json()["hands"]
    ]


def test_dealer_rule() -> None:
    """rules.md "Dealer": "The first player to win deals the next hand; if the first win had
    several winners on one discard (or one robbed kong), the discarder deals; if nobody won,
    the dealer deals again"."""
    result = run(
        match_start(SC),
        new_hand(),  # 2: ana deals
        won(CY, BO, 1),  # cy wins first
        won(DI, ANA, 1),
        won(ANA, BO, 0),  # third win ends the hand
        new_hand(CY),  # 6: cy deals
        discard(CY),
        won(ANA, DI, 0),  # several winners on the first discard: di deals
        won(BO, DI, 0),
        won(CY, DI, 0),
        new_hand(),  # 11: di
        wall(ana=NOT_READY, bo=NOT_READY, cy=NOT_READY, di=NOT_READY),  # nobody won: di again
        new_hand(DI),  # 13: di, streak 1
        won(ANA, CY, 0, robbing_kong=True),  # robbed kong, two robbers: cy deals
        won(BO, CY, 0, robbing_kong=True),
        discard(DI),
        self_drawn(DI, 0),
        new_hand(),  # 18: cy
        self_drawn(CY, 0),  # the dealer wins first: cy again, streak 1
        won(DI, ANA, 0),
        won(BO, ANA, 0),
        new_hand(),  # 22: cy, streak 1
        won(DI, BO, 0),  # one winner first, then two on one discard: di deals
        won(ANA, CY, 0),
        won(BO, CY, 0),
        new_hand(),  # 26: di
    )
    assert _dealers(result) == [
        (ANA, 0, "east", CY),
        (CY, 0, "east", DI),
        (DI, 0, "east", DI),
        (DI, 1, "east", CY),
        (CY, 0, "east", CY),
        (CY, 1, "east", DI),
        (DI, 0, "east", None),
    ]


def test_sichuan_reports_east_throughout() -> None:
    """log-format.md: "Sichuan reports "east" throughout", however often the deal goes round."""
    lines: list[dict] = [match_start(SC)]
    players = [ANA, BO, CY, DI]
    for k in range(9):
        winner = players[(k + 1) % 4]
        lines += [
            new_hand(),
            self_drawn(winner, 0),
            wall(**{p: NOT_READY for p in players if p != winner}),
        ]
    hands = run(*lines).to_json()["hands"]
    assert {h["round_wind"] for h in hands} == {"east"}
    assert [h["dealer"] for h in hands] == (players * 3)[:9]
    assert hands[-1]["next_dealer"] == players[9 % 4]


def test_wall_with_a_single_winner_dealer_is_that_winner() -> None:
    """rules.md "Dealer": the first winner deals next, also when the hand ends at the wall."""
    result = sc(won(DI, BO, 2), discard(ANA), wall(ana=NOT_READY, bo=NOT_READY, cy=ready(1)))
    assert hand_json(result)["next_dealer"] == DI
