"""rules.md, "Hong Kong": every figure of the section as an example test, through real logs.

Each test name or docstring quotes the rule it checks; every expected amount is worked out
from rules.md by hand (never taken from mjledger's output).
"""

from __future__ import annotations

import pytest

from mjledger import LogError, RuleError, replay
from mjledger.rules.hongkong.scoring import UNITS
from tests.helpers import (
    ANA,
    BO,
    CY,
    DI,
    discard,
    hand_json,
    hand_start,
    jsonl,
    kong,
    match_start,
    net,
    new_hand,
    of,
    run,
    self_drawn,
    transfers,
    wall_hk,
    won,
)

HK = "hongkong"

# rules.md, "Fan → units", copied cell by cell from the spec's table.
HALF_SPICY = [1, 2, 4, 8, 16, 24, 32, 48, 64, 96, 128, 192, 256, 384]
SPICY = [1, 2, 4, 8, 16, 32, 64, 128, 256, 512, 1024, 2048, 4096, 8192]
CELLS = [("half_spicy", fan, u) for fan, u in enumerate(HALF_SPICY)] + [
    ("spicy", fan, u) for fan, u in enumerate(SPICY)
]


def hk(*events: dict, rules: dict | None = None, dealer: str = ANA, **ctx: object):
    return run(hand_start(HK, dealer, rules, **ctx), *events)


# --- Fan → units --------------------------------------------------------------------------------


@pytest.mark.parametrize(("table", "fan", "units"), CELLS, ids=lambda v: str(v))
def test_fan_to_units_table_cell_self_drawn(table: str, fan: int, units: int) -> None:
    """rules.md "Fan → units": each cell; on a self-draw each of three pays 1 share = units."""
    rules = {"table": table, "min_fan": 0, "fan_limit": 13}
    result = hk(self_drawn(BO, fan), rules=rules)
    assert transfers(result) == of(*((p, BO, units, "self_drawn", 2) for p in (ANA, CY, DI)))


@pytest.mark.parametrize(("table", "fan", "units"), CELLS, ids=lambda v: str(v))
def test_fan_to_units_table_cell_on_discard(table: str, fan: int, units: int) -> None:
    """rules.md "Fan → units" and "Who pays": the discarder pays 2 shares of each cell."""
    rules = {"table": table, "min_fan": 0, "fan_limit": 13}
    result = hk(discard(ANA), won(CY, DI, fan), rules=rules)
    assert transfers(result) == of((DI, CY, 2 * units, "won_on_discard", 3))


@pytest.mark.parametrize(("table", "fan", "units"), CELLS, ids=lambda v: str(v))
def test_scoring_units_table_agrees_with_the_spec(table: str, fan: int, units: int) -> None:
    """rules.md "Fan → units": the data table mjledger keeps is the spec's table."""
    assert UNITS[table][fan] == units


def test_half_spicy_is_the_default_table() -> None:
    """rules.md: "half-spicy (default)" — 5 fan is 24 units, not spicy's 32."""
    result = hk(self_drawn(BO, 5))
    assert transfers(result) == of(*((p, BO, 24, "self_drawn", 2) for p in (ANA, CY, DI)))


def test_half_spicy_progression_rule() -> None:
    """rules.md: "up to 4 fan each fan doubles, then alternately ×1.5 and ×4/3"."""
    for fan in range(1, 5):
        assert HALF_SPICY[fan] == 2 * HALF_SPICY[fan - 1]
    for fan in range(5, 14):
        factor = (3, 2) if fan % 2 == 1 else (4, 3)
        assert HALF_SPICY[fan] * factor[1] == HALF_SPICY[fan - 1] * factor[0]
    assert all(SPICY[f] == 2**f for f in range(14))


@pytest.mark.parametrize(
    ("ppu", "fan", "share"), [(1, 3, 8), (5, 3, 40), (7, 5, 168), (1_000_000, 10, 128_000_000)]
)
def test_one_share_is_units_times_points_per_unit(ppu: int, fan: int, share: int) -> None:
    """rules.md: "One share = units × points_per_unit"."""
    result = hk(self_drawn(CY, fan), rules={"points_per_unit": ppu})
    assert transfers(result) == of(*((p, CY, share, "self_drawn", 2) for p in (ANA, BO, DI)))


def test_points_per_unit_default_is_one() -> None:
    """log-format.md: points_per_unit default 1 — 3 fan self-drawn pays 8 each."""
    assert net(hk(self_drawn(CY, 3)))[CY] == 24


# --- Who pays ---------------------------------------------------------------------------------


def test_worked_example_discarder_pays_16() -> None:
    """rules.md example: "3 fan = 8 units. On discard the discarder pays 16"."""
    result = hk(discard(ANA), won(CY, BO, 3))
    assert transfers(result) == of((BO, CY, 16, "won_on_discard", 3))
    assert net(result) == {ANA: 0, BO: -16, CY: 16, DI: 0}


def test_worked_example_self_draw_each_of_three_pays_8() -> None:
    """rules.md example: "on self-draw each of three pays 8 and the winner collects 24"."""
    result = hk(self_drawn(CY, 3))
    assert transfers(result) == of(*((p, CY, 8, "self_drawn", 2) for p in (ANA, BO, DI)))
    assert net(result) == {ANA: -8, BO: -8, CY: 24, DI: -8}


def test_worked_example_pay_for_all_discarder_pays_24() -> None:
    """rules.md example: "pay-for-all discarder pays 24"; the other two pay nothing."""
    result = hk(won(CY, BO, 3), rules={"discard_pays": "all"})
    assert transfers(result) == of((BO, CY, 24, "won_on_discard", 2))
    assert net(result) == {ANA: 0, BO: -24, CY: 24, DI: 0}


def test_discard_pays_double_is_the_default() -> None:
    """rules.md: `discard_pays: "double"` (default): the discarder pays 2 shares."""
    result = hk(won(DI, ANA, 4))
    assert transfers(result) == of((ANA, DI, 32, "won_on_discard", 2))


def test_discard_pays_double_explicit_with_stake() -> None:
    """rules.md: "the discarder pays 2 shares; the other two pay nothing" (4 fan, 3 a unit)."""
    result = hk(won(DI, ANA, 4), rules={"discard_pays": "double", "points_per_unit": 3})
    assert transfers(result) == of((ANA, DI, 2 * 16 * 3, "won_on_discard", 2))


def test_pay_for_all_is_as_much_as_a_self_draw() -> None:
    """rules.md: pay for all — "the discarder pays 3 shares, as much as a self-draw"."""
    rules = {"discard_pays": "all", "table": "spicy", "points_per_unit": 2}
    on_discard = hk(won(DI, ANA, 6), rules=rules)
    drawn = hk(self_drawn(DI, 6), rules=rules)
    assert transfers(on_discard) == of((ANA, DI, 3 * 64 * 2, "won_on_discard", 2))
    assert net(on_discard)[DI] == net(drawn)[DI] == 384


def test_self_draw_by_the_dealer_is_paid_by_the_other_three() -> None:
    """rules.md: "Self-draw: each of the other three pays 1 share" (dealer too: no dealer bonus)."""
    result = hk(self_drawn(ANA, 3), dealer=ANA)
    assert transfers(result) == of(*((p, ANA, 8, "self_drawn", 2) for p in (BO, CY, DI)))


# --- Minimum and limit ------------------------------------------------------------------------


def test_min_fan_default_three_rejects_two_fan() -> None:
    """rules.md: "min_fan (default 3 …): a win below it is not a win — the event is rejected"."""
    with pytest.raises(RuleError) as err:
        replay(jsonl(hand_start(HK), discard(ANA), won(CY, BO, 2)))
    assert err.value.line == 3
    assert err.value.event_type == "won_on_discard"


def test_min_fan_rejects_self_draw_below_it() -> None:
    """rules.md min_fan applies to every win, self-drawn too."""
    with pytest.raises(RuleError) as err:
        replay(jsonl(hand_start(HK, rules={"min_fan": 5}), self_drawn(CY, 4)))
    assert err.value.line == 2


@pytest.mark.parametrize("min_fan", [0, 1, 3, 5, 8])
def test_min_fan_accepts_a_win_at_the_minimum(min_fan: int) -> None:
    """rules.md: only a win *below* min_fan is rejected; at the minimum it is paid."""
    rules = {"min_fan": min_fan, "fan_limit": 8}
    result = hk(won(CY, BO, min_fan), rules=rules)
    assert transfers(result) == of((BO, CY, 2 * HALF_SPICY[min_fan], "won_on_discard", 2))
    if min_fan > 0:
        with pytest.raises(RuleError):
            hk(won(CY, BO, min_fan - 1), rules=rules)


def test_limit_hand_is_exempt_from_min_fan() -> None:
    """rules.md: a limit hand "is worth the limit directly, whatever its fan, and is exempt
    from min_fan" (0 fan under min_fan 3, limit 10: 128 units, discarder pays 256)."""
    result = hk(won(CY, BO, 0, limit=True))
    assert transfers(result) == of((BO, CY, 256, "won_on_discard", 2))


def test_limit_hand_without_fan() -> None:
    """log-format.md: "`fan` may be left out of a limit hand"; it is worth the limit."""
    result = hk(self_drawn(DI, limit=True), rules={"fan_limit": 8})
    assert transfers(result) == of(*((p, DI, 64, "self_drawn", 2) for p in (ANA, BO, CY)))


def test_a_win_without_fan_or_limit_is_rejected() -> None:
    """log-format.md: a win carries `fan` (or tiles); only a limit hand may leave it out."""
    with pytest.raises(LogError) as err:
        hk(discard(ANA), self_drawn(DI))
    assert err.value.line == 3


@pytest.mark.parametrize(
    ("fan_limit", "table", "units"),
    [
        (8, "half_spicy", 64),
        (10, "half_spicy", 128),
        (13, "half_spicy", 384),
        (8, "spicy", 256),
        (10, "spicy", 1024),
        (13, "spicy", 8192),
    ],
)
def test_fan_limit_limit_hand_is_worth_the_limit(fan_limit: int, table: str, units: int) -> None:
    """rules.md: `fan_limit` 8, 10 (default) or 13 — a limit hand is worth the limit."""
    rules = {"fan_limit": fan_limit, "table": table}
    result = hk(self_drawn(BO, 1, limit=True), rules=rules)
    assert transfers(result) == of(*((p, BO, units, "self_drawn", 2) for p in (ANA, CY, DI)))


@pytest.mark.parametrize(
    ("fan_limit", "fan", "units"),
    [
        (8, 9, 64),
        (8, 13, 64),
        (8, 40, 64),
        (10, 11, 128),
        (10, 13, 128),
        (13, 14, 384),
        (13, 99, 384),
    ],
)
def test_fan_above_the_limit_counts_as_the_limit(fan_limit: int, fan: int, units: int) -> None:
    """rules.md: "fan above the limit count as the limit"."""
    result = hk(won(BO, DI, fan), rules={"fan_limit": fan_limit})
    assert transfers(result) == of((DI, BO, 2 * units, "won_on_discard", 2))


def test_fan_limit_default_is_ten() -> None:
    """rules.md: "with limit 10 the top is 128 units (half-spicy) or 1024 (spicy)"."""
    assert net(hk(won(BO, DI, 13)))[BO] == 256
    assert net(hk(won(BO, DI, 13), rules={"table": "spicy"}))[BO] == 2048


def test_fan_at_the_limit_is_not_cut() -> None:
    """rules.md: only fan *above* the limit are cut: 8 fan under limit 8 is 64 units."""
    assert net(hk(won(BO, DI, 8), rules={"fan_limit": 8}))[BO] == 128
    assert net(hk(won(BO, DI, 7), rules={"fan_limit": 8}))[BO] == 96


# --- End of hand and dealer -------------------------------------------------------------------


def test_one_winner_per_hand_a_second_win_is_rejected() -> None:
    """rules.md: "The hand ends at the first win (one winner per hand)"."""
    with pytest.raises(RuleError) as err:
        hk(won(BO, DI, 3), won(CY, DI, 3))
    assert err.value.line == 3


def test_void_hand_nobody_pays() -> None:
    """rules.md: "If the wall runs out with no winner the hand is void: nobody pays"."""
    result = hk(discard(ANA), kong(BO, "concealed"), discard(BO), wall_hk())
    h = hand_json(result)
    assert h["outcome"] == "void"
    assert h["winners"] == []
    assert h["transfers"] == []
    assert h["net"] == {ANA: 0, BO: 0, CY: 0, DI: 0}
    assert h["next_dealer"] == ANA


@pytest.mark.parametrize("kind_from", [("exposed", ANA), ("added", None), ("concealed", None)])
def test_kongs_pay_nothing(kind_from: tuple[str, str | None]) -> None:
    """rules.md: "Kongs pay nothing under these rules" — only the win is paid."""
    kind, frm = kind_from
    result = hk(discard(ANA), kong(BO, kind, frm), discard(BO), won(DI, BO, 3))
    assert transfers(result) == of((BO, DI, 16, "won_on_discard", 5))


def test_robbing_a_kong_is_paid_as_a_discarder() -> None:
    """rules.md: "A win by robbing a kong is paid by the robbed player as a discarder"."""
    result = hk(discard(ANA), won(CY, BO, 3, robbing_kong=True))
    assert transfers(result) == of((BO, CY, 16, "won_on_discard", 3))


def test_robbing_a_kong_under_pay_for_all() -> None:
    """rules.md: robbing a kong — "(`discard_pays` applies)": pay for all is 3 shares."""
    result = hk(won(CY, BO, 4, robbing_kong=True), rules={"discard_pays": "all"})
    assert transfers(result) == of((BO, CY, 48, "won_on_discard", 2))


def _hands(result) -> list[dict]:
    return result.to_json()["hands"]


def test_dealer_deals_again_after_winning_and_after_a_void_hand() -> None:
    """rules.md: "If the dealer wins or the hand is void, the dealer deals again (the dealer's
    streak grows); if another player wins, the deal passes to the next player (streak back
    to 0)"."""
    result = run(
        match_start(HK),
        new_hand(),  # 2: ana deals (the first player listed)
        self_drawn(ANA, 3),
        new_hand(),  # 4: ana again, streak 1
        wall_hk(),
        new_hand(),  # 6: ana again, streak 2
        won(ANA, CY, 3),
        new_hand(ANA),  # 8: ana, streak 3
        won(CY, DI, 3),
        new_hand(BO),  # 10: the deal passes to the next player, streak 0
        wall_hk(),
        new_hand(),  # 12: bo again, streak 1
    )
    hands = _hands(result)
    assert [(h["dealer"], h["dealer_streak"]) for h in hands] == [
        (ANA, 0),
        (ANA, 1),
        (ANA, 2),
        (ANA, 3),
        (BO, 0),
        (BO, 1),
    ]
    assert [h["next_dealer"] for h in hands] == [ANA, ANA, ANA, BO, BO, None]
    assert hands[-1]["outcome"] == "unfinished"
    assert all(h["round_wind"] == "east" for h in hands)


def test_the_deal_passes_to_the_next_player_not_to_the_winner() -> None:
    """rules.md: "if another player wins, the deal passes to the next player" (not the winner)."""
    result = run(match_start(HK), new_hand(BO), won(DI, ANA, 3), new_hand(CY))
    assert [h["dealer"] for h in _hands(result)] == [BO, CY]
    with pytest.raises(RuleError) as err:
        run(match_start(HK), new_hand(BO), won(DI, ANA, 3), new_hand(DI))
    assert err.value.line == 4


def _passing_match(first: int, n_hands: int) -> list[dict]:
    """A Hong Kong match where every hand is won by a non-dealer, so the deal always passes."""
    players = [ANA, BO, CY, DI]
    lines: list[dict] = [match_start(HK)]
    for k in range(n_hands):
        dealer = players[(first + k) % 4]
        winner = players[(first + k + 1) % 4]
        lines.append(new_hand(dealer) if k == 0 or k % 3 else new_hand())
        lines.append(won(winner, players[(first + k + 2) % 4], 3))
    return lines


def test_round_wind_advances_when_the_deal_returns_to_the_first_dealer() -> None:
    """rules.md: "When the deal has passed all the way round back to the match's first dealer,
    the round wind advances (east → south → west → north)"."""
    hands = _hands(run(*_passing_match(0, 16)))
    assert [h["round_wind"] for h in hands] == ["east"] * 4 + ["south"] * 4 + ["west"] * 4 + [
        "north"
    ] * 4
    assert [h["dealer"] for h in hands] == [ANA, BO, CY, DI] * 4


def test_round_wind_counts_from_the_first_dealer_not_the_first_player() -> None:
    """rules.md: the round turns when the deal is back to "the match's first dealer" (cy)."""
    hands = _hands(run(*_passing_match(2, 9)))
    assert [h["dealer"] for h in hands] == [CY, DI, ANA, BO, CY, DI, ANA, BO, CY]
    assert [h["round_wind"] for h in hands] == ["east"] * 4 + ["south"] * 4 + ["west"]


def test_streaks_do_not_advance_the_round() -> None:
    """rules.md: the wind advances only when the *deal passes* back to the first dealer."""
    lines = [match_start(HK), new_hand()]
    for _ in range(5):
        lines += [self_drawn(ANA, 3), new_hand()]
    lines += [wall_hk(), new_hand(), won(BO, CY, 3)]
    hands = _hands(run(*lines))
    assert [h["dealer_streak"] for h in hands] == [0, 1, 2, 3, 4, 5, 6]
    assert {h["round_wind"] for h in hands} == {"east"}
    assert hands[-1]["next_dealer"] == BO


def test_last_hand_of_the_match_has_no_next_dealer() -> None:
    """rules.md: "The hand that would pass the deal back to the first dealer during the north
    round is the match's last: its next dealer is none"."""
    hands = _hands(run(*_passing_match(0, 16)))
    assert [h["next_dealer"] for h in hands[:15]] == [BO, CY, DI, ANA] * 3 + [BO, CY, DI]
    assert hands[15]["round_wind"] == "north"
    assert hands[15]["outcome"] == "won"
    assert hands[15]["next_dealer"] is None


def test_a_hand_after_the_north_round_is_rejected() -> None:
    """rules.md: "… and a further hand is an error" (log-format.md: "a Hong Kong hand after
    the north round")."""
    lines = [*_passing_match(0, 16), new_hand()]
    with pytest.raises(RuleError) as err:
        run(*lines)
    assert err.value.line == len(lines) == 34
    assert err.value.event_type == "hand_started"


def test_north_round_dealer_win_and_void_do_not_end_the_match() -> None:
    """rules.md: only the hand that *passes the deal back* to the first dealer in the north
    round ends the match; the last dealer winning or a void hand keeps it going."""
    lines = _passing_match(0, 15)  # hand 16 is di's, north round
    lines += [new_hand(DI), self_drawn(DI, 3), new_hand(DI), wall_hk(), new_hand(DI)]
    lines += [won(ANA, BO, 3)]
    hands = _hands(run(*lines))
    assert [(h["dealer"], h["dealer_streak"], h["round_wind"]) for h in hands[15:]] == [
        (DI, 0, "north"),
        (DI, 1, "north"),
        (DI, 2, "north"),
    ]
    assert [h["next_dealer"] for h in hands[15:]] == [DI, DI, None]


def test_a_log_may_simply_end_earlier() -> None:
    """rules.md: "A log may also simply end earlier" — a match with no hand yet is fine."""
    result = run(match_start(HK))
    assert result.to_json()["hands"] == []
    assert result.to_json()["totals"] == {ANA: 0, BO: 0, CY: 0, DI: 0}


def test_stand_alone_hand_never_ends_a_match() -> None:
    """log-format.md: a stand-alone hand's `next_dealer` follows the usual rule, even cut
    from the north round with the deal about to return (a stand-alone hand never ends a match)."""
    result = hk(won(ANA, BO, 3), dealer=DI, round_wind="north", number=16, dealer_streak=2)
    h = hand_json(result)
    assert (h["number"], h["dealer"], h["dealer_streak"], h["round_wind"]) == (16, DI, 2, "north")
    assert h["next_dealer"] == ANA


def test_stand_alone_context_defaults() -> None:
    """log-format.md: `number` (1), `dealer_streak` (0), `round_wind` ("east")."""
    h = hand_json(hk(wall_hk(), dealer=CY))
    assert (h["number"], h["dealer"], h["dealer_streak"], h["round_wind"]) == (1, CY, 0, "east")
    assert h["next_dealer"] == CY


def test_streak_adds_no_fan() -> None:
    """rules.md: "Under these rules a streak adds no fan" — a dealer on a streak of 5 is paid
    like anyone else."""
    result = hk(self_drawn(ANA, 3), dealer=ANA, dealer_streak=5)
    assert transfers(result) == of(*((p, ANA, 8, "self_drawn", 2) for p in (BO, CY, DI)))


def test_totals_sum_the_hands() -> None:
    """log-format.md "Replay output": totals over the match (hk seed figures: 16, then 8×3)."""
    result = run(match_start(HK), new_hand(), won(CY, BO, 3), new_hand(), self_drawn(CY, 3))
    assert result.to_json()["totals"] == {ANA: -8, BO: -24, CY: 40, DI: -8}
