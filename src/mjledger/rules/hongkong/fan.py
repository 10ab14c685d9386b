"""Hong Kong faan from tiles: one table with its precedence, limit hands, and small functions.

The table is the common Hong Kong one (notes/fan-tables.md). Precedence is explicit in the
``replaces`` column: a pattern that contains another stands in its place —

- 清一色 full flush replaces 混一色 half flush;
- 小三元 and 大三元 replace 番子 for their dragon pungs (5 and 8 faan are the whole value, the
  reading most Hong Kong tables print as "including the dragon pungs");
- 小四喜 replaces 門風 and 圈風 for the same reason (the wind pungs are part of it);
- 七對 seven pairs (house rule ``seven_pairs``, 4 faan, seven *distinct* pairs) replaces 門前清.

A limit hand (``limit`` rows) is paid at the limit whatever its faan; its result still reports
the faan of its ordinary rows, for a log that states them. Flowers are not scored.
"""

from __future__ import annotations

from collections.abc import Iterable, Sequence

import attrs

from mjledger.errors import TileError
from mjledger.rules.hongkong.options import HongKongRules
from mjledger.rules.protocol import NO_CONTEXT, WinContext
from mjledger.tiles.decompose import (
    HONGKONG,
    Arrangement,
    Shapes,
    arrangements,
    tally,
    with_melds,
)
from mjledger.tiles.fan import FanResult, PatternRow, pattern_row, score_patterns
from mjledger.tiles.notation import HONOUR_NAMES, Meld, Tile, format_tiles

__all__ = ["HONGKONG_TABLE", "evaluate_hongkong_win", "shapes", "wind_tile"]


HONGKONG_TABLE: tuple[PatternRow, ...] = (
    pattern_row("chicken_hand", "雞糊", 0),
    pattern_row("common_hand", "平糊", 1),
    pattern_row("all_pungs", "對對糊", 3),
    pattern_row("seven_pairs", "七對", 4, option="seven_pairs", replaces=["concealed_hand"]),
    pattern_row("mixed_one_suit", "混一色", 3),
    pattern_row("full_flush", "清一色", 7, replaces=["mixed_one_suit"]),
    pattern_row("mixed_terminals", "混么九", 1),
    pattern_row("dragon_pung", "番子", 1, per=True),
    pattern_row("seat_wind", "門風", 1),
    pattern_row("round_wind", "圈風", 1),
    pattern_row("small_three_dragons", "小三元", 5, replaces=["dragon_pung"]),
    pattern_row("big_three_dragons", "大三元", 8, replaces=["dragon_pung"]),
    pattern_row("small_four_winds", "小四喜", 6, replaces=["seat_wind", "round_wind"]),
    pattern_row("concealed_hand", "門前清", 1),
    pattern_row("self_drawn", "自摸", 1),
    pattern_row("last_tile", "海底撈月", 1),
    pattern_row("kong_bloom", "槓上開花", 1),
    pattern_row("robbing_kong", "搶槓", 1),
    # Limit hands.
    pattern_row("thirteen_orphans", "十三么", 0, limit=True),
    pattern_row("nine_gates", "九子連環", 0, limit=True),
    pattern_row("big_four_winds", "大四喜", 0, limit=True, replaces=["seat_wind", "round_wind"]),
    pattern_row("all_honours", "字一色", 0, limit=True),
    pattern_row("all_terminals", "清么九", 0, limit=True),
    pattern_row("four_kongs", "十八羅漢", 0, limit=True),
    pattern_row("heavenly", "天糊", 0, limit=True),
    pattern_row("earthly", "地糊", 0, limit=True),
)

# Rows about how the hand was won rather than what it holds: a hand with nothing else is a
# chicken hand.
_CIRCUMSTANCE = frozenset(
    {
        "concealed_hand",
        "self_drawn",
        "last_tile",
        "kong_bloom",
        "robbing_kong",
        "heavenly",
        "earthly",
    }
)
_DRAGONS = (31, 32, 33)
_WINDS = (27, 28, 29, 30)


DEFAULT_RULES = HongKongRules()


def shapes(rules: HongKongRules) -> Shapes:
    """Four sets and a pair, thirteen orphans, and seven distinct pairs if the house allows."""
    return attrs.evolve(HONGKONG, seven_pairs=True) if rules.seven_pairs else HONGKONG


def wind_tile(wind: str | Tile) -> Tile:
    """A wind as its tile: accepts ``"east"``..``"north"``, ``"1z"``..``"4z"`` or a ``Tile``."""
    if isinstance(wind, Tile):
        tile = wind
    elif wind in HONOUR_NAMES[:4]:
        tile = Tile("z", HONOUR_NAMES.index(wind) + 1)
    else:
        try:
            tile = Tile.parse(wind)
        except TileError:
            raise TileError(f"unknown wind {wind!r}: expected east, south, west or north") from None
    if tile.suit != "z" or tile.rank > 4:
        raise TileError(f"{tile} is not a wind: expected 1z-4z (east, south, west, north)")
    return tile


def evaluate_hongkong_win(
    tiles: Iterable[Tile],
    winning_tile: Tile,
    melds: Sequence[Meld] = (),
    context: WinContext = NO_CONTEXT,
    rules: HongKongRules = DEFAULT_RULES,
    *,
    counts: Sequence[int] | None = None,
) -> FanResult:
    """The faan of a Hong Kong win; ``tiles`` are the concealed tiles without the winning tile
    (``counts``: their count vector with the winning tile's, where the caller has made it).

    The best arrangement is the one that makes a limit hand, else the one with most faan.
    """
    seat = wind_tile(context.seat_wind).index
    round_ = wind_tile(context.round_wind).index
    hand = (*tuple(tiles), winning_tile)
    melds = tuple(melds)
    held = tally(hand) if counts is None else counts
    found = arrangements(hand, melds, shapes(rules), counts=held)
    if not found:
        shown = " ".join([*(f"[{m}]" for m in melds), format_tiles(hand[:-1])])
        raise TileError(f"not a complete hand: {shown} + {winning_tile}")
    total = with_melds(held, melds)  # checked by ``arrangements``
    circumstances = {
        "self_drawn": context.self_drawn,
        "last_tile": context.last_tile,
        "kong_bloom": context.kong_bloom,
        "robbing_kong": context.robbing_kong,
        "heavenly": context.heavenly,
        "earthly": context.earthly,
    }
    best: FanResult | None = None
    for arrangement in found:
        detected = _detect(arrangement, total, seat, round_)
        for code, on in circumstances.items():
            if on:
                detected[code] = 1
        if not detected.keys() - _CIRCUMSTANCE:
            detected["chicken_hand"] = 1
        patterns = score_patterns(HONGKONG_TABLE, detected)
        result = FanResult(
            sum(p.fan for p in patterns),
            patterns,
            arrangement,
            limit=any(p.limit for p in patterns),
        )
        if best is None or (result.limit, result.fan) > (best.limit, best.fan):
            best = result
    assert best is not None
    return best


def _detect(
    arrangement: Arrangement, counts: Sequence[int], seat: int, round_: int
) -> dict[str, int]:
    detected: dict[str, int] = {}
    present = [i for i in range(34) if counts[i]]
    suits = {i // 9 for i in present if i < 27}
    honours = any(i >= 27 for i in present)
    terminals = [i for i in present if i < 27 and i % 9 in (0, 8)]
    if all(arrangement.melds[i].concealed for i in range(len(arrangement.melds))):
        detected["concealed_hand"] = 1
    if arrangement.shape == "thirteen_orphans":
        detected["thirteen_orphans"] = 1
        return detected
    if len(suits) == 1 and honours:
        detected["mixed_one_suit"] = 1
    if len(suits) == 1 and not honours:
        detected["full_flush"] = 1
    if not suits:
        detected["all_honours"] = 1
    if len(terminals) == len(present):
        detected["all_terminals"] = 1
    elif (
        honours
        and terminals
        and len(terminals) + sum(1 for i in present if i >= 27) == len(present)
    ):
        detected["mixed_terminals"] = 1
    if arrangement.shape == "seven_pairs":
        detected["seven_pairs"] = 1
        return detected
    sets = arrangement.all_sets
    if not arrangement.melds and len(suits) == 1:
        low = next(iter(suits)) * 9
        run = counts[low : low + 9]
        if run[0] >= 3 and run[8] >= 3 and min(run) >= 1:
            detected["nine_gates"] = 1
    if all(s.kind == "chow" for s in sets):
        detected["common_hand"] = 1
    if all(s.kind != "chow" for s in sets):
        detected["all_pungs"] = 1
    if len(arrangement.melds) == 4 and all(m.kind == "kong" for m in arrangement.melds):
        detected["four_kongs"] = 1
    pungs = {s.first.index for s in sets if s.kind != "chow"}
    detected.update(_honour_pungs(pungs, arrangement.pairs[0].index, seat, round_))
    return detected


def _honour_pungs(pungs: set[int], pair: int, seat: int, round_: int) -> dict[str, int]:
    """The patterns of the honours a hand pungs (dragons, the seat's and round's winds)."""
    detected: dict[str, int] = {}
    dragon_pungs = sum(1 for i in _DRAGONS if i in pungs)
    wind_pungs = sum(1 for i in _WINDS if i in pungs)
    if dragon_pungs:
        detected["dragon_pung"] = dragon_pungs
    if dragon_pungs == 3:
        detected["big_three_dragons"] = 1
    elif dragon_pungs == 2 and pair in _DRAGONS:
        detected["small_three_dragons"] = 1
    if seat in pungs:
        detected["seat_wind"] = 1
    if round_ in pungs:
        detected["round_wind"] = 1
    if wind_pungs == 4:
        detected["big_four_winds"] = 1
    elif wind_pungs == 3 and pair in _WINDS:
        detected["small_four_winds"] = 1
    return detected
