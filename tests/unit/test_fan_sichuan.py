"""Sichuan fan from tiles. Every row of the table has a hand that scores it and a near miss.

Citations are to rules.md, "Fan from tiles" (normative) and notes/fan-tables.md for the
optional rows.
"""

from __future__ import annotations

import pytest
from hypothesis import given
from hypothesis import strategies as st

from mjledger import SichuanRules
from mjledger.decompose import arrangements, waits
from mjledger.errors import TileError
from mjledger.fan_sichuan import (
    SICHUAN_TABLE,
    FanResult,
    evaluate_sichuan_wall,
    evaluate_sichuan_win,
)
from mjledger.rules import WinContext
from mjledger.rules.sichuan import fan as fan_module
from mjledger.tiles import TILES, Meld, Tile, parse_tiles
from mjledger.tiles.fan import score_patterns
from tests.helpers import meld

P = parse_tiles
T = Tile.parse


def win(
    hand: str,
    tile: str,
    *melds: str,
    void: str | None = "s",
    rules: SichuanRules | None = None,
    **flags: bool,
) -> FanResult:
    context = WinContext(void_suit=void, **flags)
    return evaluate_sichuan_win(
        P(hand), T(tile), [meld(m) for m in melds], context, rules or SichuanRules()
    )


def scores(result: FanResult) -> dict[str, int]:
    return {p.code: p.fan for p in result.patterns}


# --- the table -------------------------------------------------------------------------


def test_the_table_has_the_rows_of_rules_md_with_their_fan() -> None:
    # rules.md "Fan from tiles" and notes/fan-tables.md
    rows = {r.code: (r.name, r.fan) for r in SICHUAN_TABLE}
    assert rows == {
        "plain": ("平胡", 0),
        "all_pungs": ("对对胡", 1),
        "full_flush": ("清一色", 2),
        "seven_pairs": ("七对", 2),
        "dragon_seven_pairs": ("龙七对", 3),
        "golden_hook": ("金钩钓", 2),
        "eighteen_arhats": ("十八罗汉", 6),
        "all_258_pungs": ("将对", 3),
        "terminals_in_all": ("带幺九", 2),
        "heavenly": ("天胡", 5),
        "earthly": ("地胡", 5),
        "root": ("根", 1),
        "kong_bloom": ("杠上花", 1),
        "kong_cannon": ("杠上炮", 1),
        "robbing_kong": ("抢杠胡", 1),
        "last_tile": ("海底", 1),
    }
    optional = {r.code for r in SICHUAN_TABLE if r.option}
    assert optional == {"all_258_pungs", "terminals_in_all", "heavenly", "earthly"}


def test_plain_win_is_0() -> None:
    # rules.md "Fan from tiles": plain 0
    result = win("123m456m789m234p5p", "5p")
    assert result.fan == 0
    assert scores(result) == {"plain": 0}
    # near miss: a hand of pungs is not plain
    assert "plain" not in scores(win("111m222m333p444p5p", "5p"))


def test_all_pungs_1() -> None:
    # rules.md "Fan from tiles": all pungs 1
    assert scores(win("111m222m333p444p5p", "5p")) == {"all_pungs": 1}
    # near miss: one chow
    assert scores(win("111m222m234p666p5p", "5p")) == {"plain": 0}


def test_full_flush_2_adds_to_the_shape() -> None:
    # rules.md "Fan from tiles": one suit (清一色) 2, patterns added together
    assert scores(win("123m456m789m234m5m", "5m")) == {"plain": 0, "full_flush": 2}
    assert win("111m222m333m444m5m", "5m").fan == 3  # 清对: all pungs 1 + one suit 2
    # near miss: one set in a second suit
    assert "full_flush" not in scores(win("123m456m789m234p5m", "5m"))


def test_seven_pairs_2() -> None:
    # rules.md "Fan from tiles": seven pairs 2
    assert scores(win("11m33m55m77p99p22p4p", "4p")) == {"seven_pairs": 2}
    assert win("11m33m55m77m99m22m4m", "4m").fan == 4  # 清七对
    # near miss: one single left over is no hand
    with pytest.raises(TileError, match="not a complete hand"):
        win("11m33m55m77p99p22p4p", "5p")


def test_dragon_seven_pairs_3_in_place_of_seven_pairs_and_its_quad_is_no_root() -> None:
    # rules.md "Fan from tiles": 龙七对 3 in place of seven pairs, that quad is not also a 根
    result = win("1111m55m77p99p22p4p", "4p")
    assert scores(result) == {"dragon_seven_pairs": 3}
    assert result.fan == 3
    assert win("1111m55m77m99m22m4m", "4m").fan == 5  # 清龙七对
    # a second quad is a 根
    assert scores(win("1111m55m77p2222p4p", "4p")) == {"dragon_seven_pairs": 3, "root": 1}
    # near miss: seven pairs without a quad
    assert "dragon_seven_pairs" not in scores(win("11m55m77p99p22p44p3p", "3p"))


def test_golden_hook_2_in_place_of_all_pungs() -> None:
    # rules.md "Fan from tiles": golden hook (a single-tile wait after four melds) 2
    result = win("5p", "5p", "pung:111m", "pung:222m", "pung:333p", "pung:444p")
    assert scores(result) == {"golden_hook": 2}
    # near miss: three melds and a concealed pung is all pungs only
    assert scores(win("4445p", "5p", "pung:111m", "pung:222m", "pung:333p")) == {"all_pungs": 1}


def test_eighteen_arhats_6_in_place_of_all_pungs_and_golden_hook_kongs_still_roots() -> None:
    # rules.md "Fan from tiles": four kongs (十八罗汉) 6 in place of all pungs and golden hook
    # (its kongs still count as 根)
    kongs = ("kong:1111m", "kong:2222m", "concealed-kong:3333p", "kong:4444p")
    result = win("5p", "5p", *kongs)
    assert scores(result) == {"eighteen_arhats": 6, "root": 4}
    assert result.fan == 10
    # near miss: three kongs and a pung is a golden hook with three roots
    near = win("5p", "5p", *kongs[:3], "pung:444p")
    assert scores(near) == {"golden_hook": 2, "root": 3}


def test_root_is_one_per_tile_held_four_times_in_hand_and_melds() -> None:
    # rules.md "Fan from tiles": +1 per 根 (each tile of which the player holds all four)
    result = win("456p123m789m5m", "5m", "pung:444p")
    assert scores(result) == {"plain": 0, "root": 1}
    assert win("1111m234m56789m5p", "5p").fan == 1  # a quad in hand, used as a pung + chow
    # near miss: three copies only
    assert "root" not in scores(win("456p123m789m5m", "5m", "pung:333p"))


@pytest.mark.parametrize("flag", ["kong_bloom", "kong_cannon", "robbing_kong", "last_tile"])
def test_each_situational_add_on_is_1(flag: str) -> None:
    # rules.md "Fan from tiles": +1 each for 杠上花, 杠上炮, robbing a kong, the last tile
    assert scores(win("123m456m789m234p5p", "5p", **{flag: True})) == {"plain": 0, flag: 1}
    # near miss: the same hand without the circumstance
    assert flag not in scores(win("123m456m789m234p5p", "5p"))


def test_add_ons_combine() -> None:
    result = win("111m222m333m444m5m", "5m", kong_bloom=True, last_tile=True)
    assert result.fan == 1 + 2 + 1 + 1


def test_all_258_pungs_is_off_by_default_and_3_in_place_of_all_pungs() -> None:
    # rules.md: 将对 is off unless a house rule turns it on; notes/fan-tables.md: 将对 3
    on = SichuanRules(all_258_pungs=True)
    assert scores(win("222m555m888p222p5p", "5p", rules=on)) == {"all_258_pungs": 3}
    assert scores(win("222m555m888p222p5p", "5p")) == {"all_pungs": 1}
    # near miss: one pung of 3s
    assert scores(win("222m555m888p333p5p", "5p", rules=on)) == {"all_pungs": 1}


def test_terminals_in_all_is_off_by_default_and_2() -> None:
    # rules.md: 带幺九 off unless turned on; notes/fan-tables.md: every set has a terminal, 2
    on = SichuanRules(terminals_in_all=True)
    assert scores(win("123m789m111p789p9p", "9p", rules=on)) == {
        "plain": 0,
        "terminals_in_all": 2,
    }
    assert "terminals_in_all" not in scores(win("123m789m111p789p9p", "9p"))
    # near miss: a 234 chow
    assert "terminals_in_all" not in scores(win("234m789m111p789p9p", "9p", rules=on))


@pytest.mark.parametrize("flag", ["heavenly", "earthly"])
def test_heavenly_and_earthly_need_their_house_rule(flag: str) -> None:
    # rules.md: 天胡, 地胡 are off unless a house rule turns them on; fan-tables.md: 5
    on = SichuanRules(**{flag: True})
    assert scores(win("123m456m789m234p5p", "5p", rules=on, **{flag: True}))[flag] == 5
    # near miss: the circumstance without the house rule, or the house rule without it
    assert flag not in scores(win("123m456m789m234p5p", "5p", **{flag: True}))
    assert flag not in scores(win("123m456m789m234p5p", "5p", rules=on))


def test_the_fan_is_the_highest_over_the_arrangements() -> None:
    # rules.md "Fan from tiles": the fan of a hand is the highest over its arrangements
    result = win("111222333m444p5p", "5p")  # 123m x3 (plain) or 111 222 333m (all pungs)
    assert result.fan == 1
    assert [s.kind for s in result.arrangement.sets] == ["pung"] * 4


# --- refusals --------------------------------------------------------------------------


@pytest.mark.parametrize(
    ("hand", "tile", "melds", "message"),
    [
        ("123m456m789m5p", "5p", ("chow:234p",), "no chows"),
        ("123m456m789m234s5s", "5s", (), "void suit s"),
        ("123m456m789m5s", "5s", ("pung:222s",), "void suit s"),
        ("123m456m789m234p5p", "4p", (), "not a complete hand"),
        ("123m456m789m11z2z", "2z", (), "no honour tiles"),
        ("5555m123p456p789p", "5m", (), "5 copies of 5m"),
        ("123m456m789m5p", "5p", (), "concealed tiles"),
    ],
)
def test_impossible_wins_are_tile_errors(
    hand: str, tile: str, melds: tuple[str, ...], message: str
) -> None:
    # rules.md: a win that is not complete or holds the void suit is an error; so is a tile
    # shown more than four times; Sichuan has no chows
    with pytest.raises(TileError, match=message):
        win(hand, tile, *melds)


def test_a_winning_hand_holds_at_most_two_suits() -> None:
    # rules.md: "A winning hand holds at most two suits."
    with pytest.raises(TileError, match="three suits"):
        win("123m456p789s234p5p", "5p", void=None)
    assert win("123m456p789p234p5p", "5p", void=None).fan == 0


# --- the empty wall --------------------------------------------------------------------


def test_a_flower_pig_holds_its_void_suit_in_hand_or_melds_and_is_never_ready() -> None:
    # rules.md: "A flower pig holds a tile of their void suit in hand or in a meld"
    pig = evaluate_sichuan_wall(P("123m456m789m5s"), [meld("pung:111p")], void_suit="s")
    assert pig.flower_pig
    assert not pig.ready
    assert pig.best_fan is None
    meld_pig = evaluate_sichuan_wall(P("123m456m789m5p"), [meld("pung:111s")], void_suit="s")
    assert meld_pig.flower_pig
    # near miss: the same hand with another void suit is ready and no pig
    other = evaluate_sichuan_wall(P("123m456m789m5s"), [meld("pung:111p")], void_suit="p")
    assert other.flower_pig  # 111p is in a meld
    ready = evaluate_sichuan_wall(P("123m456m789m5s"), [meld("pung:111s")], void_suit="p")
    assert not ready.flower_pig
    assert ready.waits == (T("5s"),)


def test_best_hand_is_the_highest_pattern_fan_plus_roots_over_the_waits() -> None:
    # rules.md "Not ready": best is the highest fan over its waits, counting 根, without
    # situational bonuses
    status = evaluate_sichuan_wall(P("1112223334445m"), void_suit="p")
    assert status.ready
    assert status.best_fan == 3  # 清对 on 5m: 111 222 333 444 55m
    assert set(status.waits) == {T("2m"), T("3m"), T("4m"), T("5m"), T("6m")}
    hook = evaluate_sichuan_wall(
        P("5p"),
        [meld("kong:1111m"), meld("pung:222m"), meld("pung:333p"), meld("pung:444p")],
        void_suit="s",
    )
    assert hook.best_fan == 3  # golden hook 2 + one root


def test_not_ready_has_no_best_hand() -> None:
    status = evaluate_sichuan_wall(P("1357m2468p13579m"), void_suit="s")
    assert status == evaluate_sichuan_wall(P("1357m2468p13579m"), void_suit="s")
    assert not status.ready
    assert status.best_fan is None
    assert not status.flower_pig


def test_a_wait_held_four_times_does_not_make_the_hand_ready() -> None:
    # rules.md "ready": a tile the player already holds four of excepted
    melds = [meld("kong:5555m"), meld("pung:111p"), meld("pung:999p")]
    assert not evaluate_sichuan_wall(P("4699m"), melds, void_suit="s").ready


def test_the_wall_refuses_impossible_counts() -> None:
    with pytest.raises(TileError, match="one tile short has 13"):
        evaluate_sichuan_wall(P("123m456m789m55p"), void_suit="s")
    with pytest.raises(TileError, match="5 copies"):
        evaluate_sichuan_wall(P("55m123p456p78p"), [meld("pung:555m")], void_suit="s")


# --- properties ------------------------------------------------------------------------


@st.composite
def sichuan_ready_hands(draw: st.DrawFn) -> tuple[tuple[Tile, ...], tuple[Meld, ...], str]:
    """A two-suit hand one tile short, with pung and kong melds (no chows), and its void."""
    suits = draw(st.permutations("mps"))
    void, kept = suits[0], [s for s in "mps" if s != suits[0]]
    pool = [i for i in range(27) if "mps"[i // 9] in kept]
    counts = [0] * 34
    if draw(st.integers(0, 4)) == 0:
        hand: list[int] = []
        for _ in range(7):
            tile = draw(st.sampled_from([i for i in pool if counts[i] <= 2]))
            counts[tile] += 2
            hand += [tile, tile]
        hand.remove(draw(st.sampled_from(hand)))
        return tuple(TILES[i] for i in hand), (), void
    n_melds = draw(st.integers(0, 4))
    melds: list[Meld] = []
    hand = []
    for number in range(4):
        options = [("pung", i) for i in pool if counts[i] <= 1]
        options += [
            ("chow", i) for i in pool if i % 9 <= 6 and all(counts[i + k] < 4 for k in range(3))
        ]
        if number < n_melds:
            options = [o for o in options if o[0] != "chow"]
            options += [("kong", i) for i in pool if counts[i] == 0]
        kind, low = draw(st.sampled_from(options))
        tiles = [low, low + 1, low + 2] if kind == "chow" else [low] * (4 if kind == "kong" else 3)
        for t in tiles:
            counts[t] += 1
        if number < n_melds:
            melds.append(Meld(kind, tuple(TILES[t] for t in tiles)))  # type: ignore[arg-type]
        else:
            hand += tiles
    pair = draw(st.sampled_from([i for i in pool if counts[i] <= 2]))
    hand += [pair, pair]
    hand.remove(draw(st.sampled_from(hand)))
    return tuple(TILES[i] for i in hand), tuple(melds), void


@given(sichuan_ready_hands())
def test_best_fan_is_the_maximum_over_the_waits_evaluations(
    case: tuple[tuple[Tile, ...], tuple[Meld, ...], str],
) -> None:
    hand, melds, void = case
    status = evaluate_sichuan_wall(hand, melds, void_suit=void)
    fans = [
        evaluate_sichuan_win(hand, t, melds, WinContext(void_suit=void)).fan
        for t in waits(hand, melds)
    ]
    assert status.ready == bool(fans)
    assert status.best_fan == (max(fans) if fans else None)
    assert not status.flower_pig


@given(sichuan_ready_hands())
def test_wall_ready_exactly_when_some_tile_wins(
    case: tuple[tuple[Tile, ...], tuple[Meld, ...], str],
) -> None:
    hand, melds, void = case
    held = [0] * 34
    for t in [*hand, *(t for m in melds for t in m.tiles)]:
        held[t.index] += 1
    winners = []
    for tile in TILES[:27]:
        if held[tile.index] == 4:
            continue
        try:
            evaluate_sichuan_win(hand, tile, melds, WinContext(void_suit=void))
        except TileError:
            continue
        winners.append(tile)
    status = evaluate_sichuan_wall(hand, melds, void_suit=void)
    assert status.waits == tuple(winners)
    assert status.ready == bool(winners)


@given(sichuan_ready_hands(), st.sampled_from(["kong_bloom", "kong_cannon", "last_tile"]))
def test_situational_add_ons_never_enter_the_best_hand(
    case: tuple[tuple[Tile, ...], tuple[Meld, ...], str], flag: str
) -> None:
    hand, melds, void = case
    status = evaluate_sichuan_wall(hand, melds, void_suit=void)
    for tile in status.waits:
        boosted = evaluate_sichuan_win(
            hand, tile, melds, WinContext(void_suit=void, **{flag: True})
        )
        assert status.best_fan is not None
        assert boosted.fan <= status.best_fan + 1


@given(sichuan_ready_hands(), st.booleans())
def test_the_wall_scores_each_wait_as_the_win_evaluated_afresh(
    case: tuple[tuple[Tile, ...], tuple[Meld, ...], str], void_known: bool
) -> None:
    # The wall evaluates its waits without the checks it has made already; with no win kept
    # from before, each wait still scores as evaluate_sichuan_win scores it.
    hand, melds, void = case
    suit = void if void_known else None
    fan_module._WINS.clear()
    status = evaluate_sichuan_wall(hand, melds, void_suit=suit)
    fans: dict[Tile, int] = {}
    for tile in waits(hand, melds):
        fan_module._WINS.clear()
        try:
            fans[tile] = evaluate_sichuan_win(hand, tile, melds, WinContext(void_suit=suit)).fan
        except TileError:
            continue
    assert status.waits == tuple(fans)
    assert status.best_fan == (max(fans.values()) if fans else None)


# --- the evaluation against the path it replaced -----------------------------------------


def _previous_fan(
    hand: tuple[Tile, ...],
    tile: Tile,
    melds: tuple[Meld, ...],
    context: WinContext,
    rules: SichuanRules,
) -> tuple[int, tuple[object, ...], object] | str:
    """The fan of a win as the evaluation read it before its detection and scoring were
    kept by what they depend on: each arrangement's rows detected into a dict (the shape's,
    清一色, 根 but the 龙七对 quad, the add-ons), scored with the table, the first of the
    highest fan kept; or the refusal's message."""
    try:
        found = arrangements([*hand, tile], melds)
    except TileError as exc:
        return str(exc)
    counts = [0] * 34
    for t in [*hand, tile, *(t for m in melds for t in m.tiles)]:
        counts[t.index] += 1
    suits = {t.suit for t in [*hand, tile, *(t for m in melds for t in m.tiles)]}
    if context.void_suit in suits or len(suits) > 2 or not found:
        return "refused"
    concealed = [0] * 34
    for t in [*hand, tile]:
        concealed[t.index] += 1
    flags = {
        "kong_bloom": context.kong_bloom,
        "kong_cannon": context.kong_cannon,
        "robbing_kong": context.robbing_kong,
        "last_tile": context.last_tile,
        "heavenly": context.heavenly and rules.heavenly,
        "earthly": context.earthly and rules.earthly,
    }
    best: tuple[int, tuple[object, ...], object] | None = None
    for arrangement in found:
        detected: dict[str, int] = {}
        if arrangement.shape == "seven_pairs":
            detected["seven_pairs"] = 1
            if max(concealed) == 4:
                detected["dragon_seven_pairs"] = 1
        else:
            sets = arrangement.all_sets
            if all(s.kind != "chow" for s in sets):
                detected["all_pungs"] = 1
                if len(arrangement.melds) == 4:
                    detected["golden_hook"] = 1
                    if all(m.kind == "kong" for m in arrangement.melds):
                        detected["eighteen_arhats"] = 1
                if (
                    rules.all_258_pungs
                    and all(s.first.rank in (2, 5, 8) for s in sets)
                    and arrangement.pairs[0].rank in (2, 5, 8)
                ):
                    detected["all_258_pungs"] = 1
            if (
                rules.terminals_in_all
                and all(any(t.is_terminal for t in s.tiles) for s in sets)
                and arrangement.pairs[0].is_terminal
            ):
                detected["terminals_in_all"] = 1
        shapes = {
            "all_pungs",
            "seven_pairs",
            "dragon_seven_pairs",
            "golden_hook",
            "eighteen_arhats",
        }
        if not detected.keys() & shapes:
            detected["plain"] = 1
        if len(suits) == 1:
            detected["full_flush"] = 1
        quads = counts.count(4) - (1 if "dragon_seven_pairs" in detected else 0)
        if quads:
            detected["root"] = quads
        detected.update((code, 1) for code, on in flags.items() if on)
        patterns = score_patterns(SICHUAN_TABLE, detected)
        fan = sum(p.fan for p in patterns)
        if best is None or fan > best[0]:
            best = (fan, patterns, arrangement)
    assert best is not None
    return best


_FLAGS = ("kong_bloom", "kong_cannon", "robbing_kong", "last_tile", "heavenly", "earthly")


@given(
    sichuan_ready_hands(),
    st.data(),
    st.sets(st.sampled_from(_FLAGS)),
    st.fixed_dictionaries(
        {k: st.booleans() for k in ("all_258_pungs", "terminals_in_all", "heavenly", "earthly")}
    ),
    st.booleans(),
)
def test_a_win_scores_as_the_previous_evaluation_read_it(
    case: tuple[tuple[Tile, ...], tuple[Meld, ...], str],
    data: st.DataObject,
    flags: set[str],
    options: dict[str, bool],
    keep: bool,
) -> None:
    hand, melds, void = case
    completing = list(waits(hand, melds))
    tile = data.draw(st.sampled_from(completing or list(TILES[:27])))
    suit = data.draw(st.sampled_from([void, None, *"mps"]))
    context = WinContext(void_suit=suit, **dict.fromkeys(flags, True))
    rules = SichuanRules(**options)
    if not keep:
        fan_module._WINS.clear()
    expected = _previous_fan(hand, tile, melds, context, rules)
    try:
        result = evaluate_sichuan_win(hand, tile, melds, context, rules)
    except TileError:
        assert isinstance(expected, str)
        return
    assert not isinstance(expected, str)
    assert (result.fan, result.patterns, result.arrangement) == expected
