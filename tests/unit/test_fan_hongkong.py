"""Hong Kong faan from tiles: every row of the table with a hand and a near miss.

Citations: rules.md "Fan from tiles" (four sets and a pair, or thirteen orphans; seven pairs
and flowers not in the default table) and notes/fan-tables.md ("Hong Kong: common faan
table"). Precedence is the ``replaces`` column documented in ``fan_hongkong``.
"""

from __future__ import annotations

import pytest

from mjledger import HongKongRules
from mjledger.errors import TileError
from mjledger.fan_hongkong import HONGKONG_TABLE, FanResult, evaluate_hongkong_win, wind_tile
from mjledger.rules import WinContext
from mjledger.tiles import Tile, parse_tiles
from tests.helpers import meld

P = parse_tiles
T = Tile.parse


def win(
    hand: str,
    tile: str,
    *melds: str,
    self_drawn: bool = False,
    seat: str = "south",
    round_: str = "west",
    rules: HongKongRules | None = None,
    **flags: bool,
) -> FanResult:
    context = WinContext(self_drawn=self_drawn, seat_wind=seat, round_wind=round_, **flags)
    return evaluate_hongkong_win(
        P(hand), T(tile), [meld(m) for m in melds], context, rules or HongKongRules()
    )


def scores(result: FanResult) -> dict[str, int]:
    return {p.code: p.fan for p in result.patterns}


# A plain exposed hand with nothing in it: one chow, three pungs of simples, in two suits.
CHICKEN = ("234m555p777p5s", "5s", "pung:888m")


def test_the_table_has_the_common_rows_with_their_faan() -> None:
    # notes/fan-tables.md "Hong Kong: common faan table"
    rows = {r.code: (r.name, r.fan, r.limit) for r in HONGKONG_TABLE}
    assert rows["common_hand"] == ("平糊", 1, False)
    assert rows["all_pungs"] == ("對對糊", 3, False)
    assert rows["mixed_one_suit"] == ("混一色", 3, False)
    assert rows["full_flush"] == ("清一色", 7, False)
    assert rows["small_three_dragons"] == ("小三元", 5, False)
    assert rows["big_three_dragons"] == ("大三元", 8, False)
    assert rows["small_four_winds"] == ("小四喜", 6, False)
    assert rows["seven_pairs"] == ("七對", 4, False)
    limits = {code for code, (_, _, limit) in rows.items() if limit}
    assert limits == {
        "thirteen_orphans",
        "nine_gates",
        "big_four_winds",
        "all_honours",
        "all_terminals",
        "four_kongs",
        "heavenly",
        "earthly",
    }
    # rules.md: seven pairs and flowers are not in the default table
    assert {r.code for r in HONGKONG_TABLE if r.option} == {"seven_pairs"}
    assert not any("flower" in r.code for r in HONGKONG_TABLE)


def test_chicken_hand_is_0() -> None:
    result = win(*CHICKEN)
    assert scores(result) == {"chicken_hand": 0}
    assert result.fan == 0
    assert not result.limit
    # near miss: a hand of chows is a common hand, not a chicken hand
    assert "chicken_hand" not in scores(win("234m456m678p5s", "5s", "chow:123p"))
    # the circumstances of a win are not patterns of the hand: still a chicken hand
    assert scores(win("234m555p777p888m5s", "5s")) == {"chicken_hand": 0, "concealed_hand": 1}


def test_common_hand_all_chows_1() -> None:
    # fan-tables.md: 平糊 all chows 1
    assert scores(win("234m456m678p5s", "5s", "chow:123p")) == {"common_hand": 1}
    # near miss: one pung
    assert "common_hand" not in scores(win("234m456m678p5s", "5s", "pung:111p"))


def test_all_pungs_3() -> None:
    # fan-tables.md: 對對糊 all pungs 3
    assert scores(win("555p777p888m5s", "5s", "pung:222m")) == {"all_pungs": 3}
    assert "all_pungs" not in scores(win(*CHICKEN))  # near miss: one chow


def test_mixed_one_suit_3_and_full_flush_7_replaces_it() -> None:
    # fan-tables.md: 混一色 one suit + honours 3; 清一色 7; 清一色 does not also score 混一色
    assert scores(win("234m456m789m5z", "5z", "chow:123m"))["mixed_one_suit"] == 3
    flush = scores(win("234m456m789m5m", "5m", "chow:123m"))
    assert flush == {"common_hand": 1, "full_flush": 7}
    # near miss: a second suit
    assert "mixed_one_suit" not in scores(win("234m456m789p5z", "5z", "chow:123m"))


def test_mixed_terminals_1() -> None:
    # fan-tables.md: 混么九 terminals and honours only 1
    result = scores(win("999m111p999p2z", "2z", "pung:111m"))
    assert result["mixed_terminals"] == 1
    assert "mixed_terminals" not in scores(win("999m111p999p2m", "2m", "pung:111m"))  # a 2


def test_dragon_pung_1_each() -> None:
    # fan-tables.md: 番子 dragon pung 1 each
    assert scores(win("555z666z234m5s", "5s", "chow:123p"))["dragon_pung"] == 2
    # near miss: a dragon pair is not a pung
    assert "dragon_pung" not in scores(win("234m456m678p5z", "5z", "chow:123p"))


def test_seat_and_round_wind_pungs_1_each() -> None:
    # fan-tables.md: 門風 seat-wind pung, 圈風 round-wind pung, 1 each
    seat = scores(win("222z234m456m5s", "5s", "chow:123p", seat="south", round_="west"))
    assert seat["seat_wind"] == 1
    assert "round_wind" not in seat
    both = scores(win("111z234m456m5s", "5s", "chow:123p", seat="east", round_="east"))
    assert (both["seat_wind"], both["round_wind"]) == (1, 1)
    # near miss: someone else's wind
    assert not {"seat_wind", "round_wind"} & set(
        scores(win("444z234m456m5s", "5s", "chow:123p", seat="south", round_="west"))
    )


def test_small_three_dragons_5_replaces_the_dragon_pungs() -> None:
    # fan-tables.md: 小三元 5; a pattern that contains another replaces it
    result = scores(win("555z666z77z23m", "4m", "chow:123m"))
    assert result["small_three_dragons"] == 5
    assert "dragon_pung" not in result
    # near miss: the pair is not a dragon
    assert "small_three_dragons" not in scores(win("555z666z234m4m", "4m", "chow:123m"))


def test_big_three_dragons_8_replaces_the_dragon_pungs() -> None:
    # fan-tables.md: 大三元 8 (made explicit: it includes the dragon pungs)
    result = scores(win("555z666z777z4m", "4m", "chow:123m"))
    assert result["big_three_dragons"] == 8
    assert "dragon_pung" not in result
    assert "big_three_dragons" not in scores(win("555z666z77z23m", "4m", "chow:123m"))


def test_small_four_winds_6_replaces_the_wind_pungs() -> None:
    # fan-tables.md: 小四喜 6
    result = scores(win("111z222z333z4z", "4z", "chow:123m", seat="east", round_="south"))
    assert result["small_four_winds"] == 6
    assert not {"seat_wind", "round_wind"} & set(result)
    # near miss: two wind pungs and a wind pair
    assert "small_four_winds" not in scores(win("111z222z4z555m", "4z", "chow:123m"))


def test_concealed_hand_1_and_a_concealed_kong_keeps_it() -> None:
    # fan-tables.md: 門前清 concealed hand 1
    assert scores(win("234m555p777p888m5s", "5s"))["concealed_hand"] == 1
    assert "concealed_hand" in scores(win("234m555p777p5s", "5s", "concealed-kong:8888m"))
    # near miss: an exposed pung
    assert "concealed_hand" not in scores(win(*CHICKEN))


@pytest.mark.parametrize("flag", ["self_drawn", "last_tile", "kong_bloom", "robbing_kong"])
def test_circumstances_are_1_each(flag: str) -> None:
    # fan-tables.md: 自摸, 海底撈月, 槓上開花, 搶槓 1 each
    result = scores(win(*CHICKEN, **{flag: True}))
    assert result == {"chicken_hand": 0, flag: 1}
    assert flag not in scores(win(*CHICKEN))


def test_seven_pairs_is_a_house_rule_worth_4_and_replaces_concealed_hand() -> None:
    # rules.md: seven pairs not in the default table; fan-tables.md: 門前清 not with seven pairs
    on = HongKongRules(seven_pairs=True)
    result = win("11m33m55m77p99p22s4s", "4s", rules=on)
    assert scores(result) == {"seven_pairs": 4}
    with pytest.raises(TileError, match="not a complete hand"):
        win("11m33m55m77p99p22s4s", "4s")


@pytest.mark.parametrize(
    ("code", "hand", "tile", "melds"),
    [
        ("thirteen_orphans", "19m19p19s1234567z", "7z", ()),
        ("nine_gates", "1112345678999m", "5m", ()),
        ("big_four_winds", "111z222z333z5m", "5m", ("pung:444z",)),
        ("all_honours", "555z666z111z7z", "7z", ("pung:222z",)),
        ("all_terminals", "111m999m111p9s", "9s", ("pung:999p",)),
        ("four_kongs", "5s", "5s", ("kong:1111m", "kong:2222p", "kong:3333s", "kong:4444m")),
    ],
)
def test_limit_hands(code: str, hand: str, tile: str, melds: tuple[str, ...]) -> None:
    # fan-tables.md: limit hands
    result = win(hand, tile, *melds)
    assert result.limit
    assert code in scores(result)


@pytest.mark.parametrize(
    ("code", "hand", "tile", "melds"),
    [
        ("thirteen_orphans", "19m19p19s1234566z", "6z", ()),  # no red dragon: not complete
        ("nine_gates", "1112345678999m", "5m", ()),
        ("big_four_winds", "111z222z333z4z", "4z", ("pung:555m",)),
        ("all_honours", "555z666z111z7z", "7z", ("pung:222m",)),
        ("all_terminals", "111m999m111p9s", "9s", ("pung:777z",)),
        ("four_kongs", "5s", "5s", ("kong:1111m", "kong:2222p", "kong:3333s", "pung:444m")),
    ],
)
def test_limit_hand_near_misses(code: str, hand: str, tile: str, melds: tuple[str, ...]) -> None:
    if code == "thirteen_orphans":
        with pytest.raises(TileError, match="not a complete hand"):
            win(hand, tile, *melds)
        return
    if code == "nine_gates":  # the same tiles with one set exposed
        result = win("1112345678m", "9m", "pung:999m")
    else:
        result = win(hand, tile, *melds)
    assert code not in scores(result)


@pytest.mark.parametrize("flag", ["heavenly", "earthly"])
def test_heavenly_and_earthly_are_limit_hands_from_context(flag: str) -> None:
    result = win(*CHICKEN, **{flag: True})
    assert result.limit
    assert not win(*CHICKEN).limit


def test_a_limit_hand_still_reports_its_ordinary_faan() -> None:
    result = win("19m19p19s1234567z", "7z", self_drawn=True)
    assert result.limit
    assert result.fan == 2  # concealed hand + self-draw; the limit is paid whatever the faan


def test_the_best_arrangement_wins() -> None:
    # 111222333m: three pungs (all pungs, 3) or three chows
    result = win("111222333m5p", "5p", "pung:777p")
    assert scores(result)["all_pungs"] == 3


@pytest.mark.parametrize(
    ("wind", "tile"), [("east", "1z"), ("north", "4z"), ("2z", "2z"), (T("3z"), "3z")]
)
def test_winds_may_be_named_or_given_as_tiles(wind: str | Tile, tile: str) -> None:
    assert wind_tile(wind) == T(tile)


@pytest.mark.parametrize("wind", ["red", "5z", "1m", "sideways"])
def test_not_a_wind_is_refused(wind: str) -> None:
    with pytest.raises(TileError):
        wind_tile(wind)


def test_impossible_hands_are_refused() -> None:
    with pytest.raises(TileError, match="5 copies"):
        win("5555m123p456p789p", "5m")
    with pytest.raises(TileError, match="concealed tiles"):
        win("123m456p789p5m", "5m")
