"""Sichuan (blood battle) fan from tiles: one table, read top to bottom, and small functions.

rules.md, "Fan from tiles", is normative: pattern fan add up; a row that contains another
replaces it (``replaces`` below); +1 per 根 and per situational add-on; the fan of a hand is
the highest over its arrangements. Codes are stable snake_case strings (also translation keys);
the native name is what players at the table call the pattern.
"""

from __future__ import annotations

from collections.abc import Iterable, Sequence
from functools import lru_cache
from itertools import product
from operator import attrgetter
from typing import Final

from mjledger._replace import constructor
from mjledger._text import plural
from mjledger.errors import TileError
from mjledger.rules.protocol import NO_CONTEXT, WinContext
from mjledger.rules.sichuan.options import SichuanRules
from mjledger.tiles.decompose import (
    SICHUAN,
    Arrangement,
    arrangements_of_counts,
    check_copies,
    tally,
    waits_of_counts,
)
from mjledger.tiles.fan import (
    FanResult,
    PatternRow,
    PatternScore,
    WallStatus,
    pattern_row,
    score_patterns,
)
from mjledger.tiles.notation import Meld, Tile, format_tiles

__all__ = ["SICHUAN_TABLE", "evaluate_sichuan_wall", "evaluate_sichuan_win"]


DEFAULT_RULES = SichuanRules()

# The Sichuan table (rules.md "Fan from tiles"; optional rows from notes/fan-tables.md).
SICHUAN_TABLE: tuple[PatternRow, ...] = (
    pattern_row("plain", "平胡", 0),
    pattern_row("all_pungs", "对对胡", 1),
    pattern_row("full_flush", "清一色", 2),
    pattern_row("seven_pairs", "七对", 2),
    # Seven pairs holding four identical tiles; that quad is not also a 根 (a second quad is).
    pattern_row("dragon_seven_pairs", "龙七对", 3, replaces=["seven_pairs"]),
    # A single-tile wait after four melds.
    pattern_row("golden_hook", "金钩钓", 2, replaces=["all_pungs"]),
    # Four kongs and a pair; its kongs still count as 根.
    pattern_row("eighteen_arhats", "十八罗汉", 6, replaces=["all_pungs", "golden_hook"]),
    # Optional rows, off unless the house rule of the same name is on.
    pattern_row("all_258_pungs", "将对", 3, replaces=["all_pungs"], option="all_258_pungs"),
    pattern_row("terminals_in_all", "带幺九", 2, option="terminals_in_all"),
    pattern_row("heavenly", "天胡", 5, option="heavenly"),
    pattern_row("earthly", "地胡", 5, option="earthly"),
    # Add-ons.
    pattern_row("root", "根", 1, per=True),
    pattern_row("kong_bloom", "杠上花", 1),
    pattern_row("kong_cannon", "杠上炮", 1),
    pattern_row("robbing_kong", "抢杠胡", 1),
    pattern_row("last_tile", "海底", 1),
)
_SHAPES = frozenset(
    {"all_pungs", "seven_pairs", "dragon_seven_pairs", "golden_hook", "eighteen_arhats"}
)


def _check_hand(
    tiles: Sequence[Tile],
    concealed: Sequence[int],
    melds: Sequence[Meld],
    void_suit: str | None,
    *,
    complete: bool,
) -> list[int]:
    """The refusals shared by wins and the empty-wall check, phrased for a person; the counts
    of the tiles in hand (``concealed``: those of ``tiles``) and melds."""
    if void_suit is not None and void_suit not in ("m", "p", "s"):
        raise TileError(f"void suit {void_suit!r}: expected m, p or s")
    counts = list(concealed)
    for meld in melds:
        if meld.kind == "chow":
            raise TileError(f"Sichuan has no chows: chow meld {meld}")
        held = meld.tiles  # a pung's or a kong's tiles are one tile (Meld checks it)
        counts[held[0].index] += len(held)
    if any(counts[_HONOURS:]):
        everything = [*tiles, *(t for m in melds for t in m.tiles)]
        honours = [t for t in everything if t.index >= _HONOURS]
        raise TileError(f"Sichuan has no honour tiles: {format_tiles(honours)}")
    if len(melds) > 4:
        raise TileError(f"{plural(len(melds), 'meld')}: a hand has at most four")
    expected = (14 if complete else 13) - 3 * len(melds)
    if len(tiles) != expected:
        what = "a complete hand" if complete else "a hand one tile short"
        raise TileError(
            f"{plural(len(tiles), 'concealed tile')} with {plural(len(melds), 'meld')}: "
            f"{what} has {expected}"
        )
    check_copies(counts)
    return counts


_HONOURS: Final = 27  # the first honour's slot: the tiles Sichuan plays come before it
_SUIT_SLOTS: Final = (("m", 0), ("p", 9), ("s", 18))


def _suits_held(counts: Sequence[int]) -> tuple[str, ...]:
    """The suits of a hand without honours, in order, from its counts."""
    return _SUITS_OF[any(counts[0:9]), any(counts[9:18]), any(counts[18:27])]


# The suits held, by whether each of the three is (all eight ways, built from _SUIT_SLOTS).
_SUITS_OF: Final = {
    held: tuple(suit for (suit, _), on in zip(_SUIT_SLOTS, held, strict=True) if on)
    for held in product((False, True), repeat=3)
}


def evaluate_sichuan_win(
    tiles: Iterable[Tile],
    winning_tile: Tile,
    melds: Sequence[Meld] = (),
    context: WinContext = NO_CONTEXT,
    rules: SichuanRules = DEFAULT_RULES,
    *,
    counts: Sequence[int] | None = None,
) -> FanResult:
    """The fan of a Sichuan win; ``tiles`` are the concealed tiles without the winning tile.

    Refuses (``TileError``) a chow meld, honours, a fifth copy of a tile, a wrong tile count,
    the void suit, more than two suits, and a hand that is not complete. ``counts``: the
    count vector of ``tiles`` and the winning tile, where the caller has made it (the fold
    does, for the line's check of copies): they are not counted again.
    """
    hand = (*tiles, winning_tile)
    melds = tuple(melds)
    void_suit = context.void_suit
    on = _add_ons(
        context.kong_bloom,
        context.kong_cannon,
        context.robbing_kong,
        context.last_tile,
        context.heavenly and rules.heavenly,
        context.earthly and rules.earthly,
    )
    held = tuple(tally(hand) if counts is None else counts)
    key = _win_key(held, _melds_key(melds) if melds else (), void_suit, on, rules)
    found = _WINS.get(key)
    if found is None:
        counts = _check_hand(hand, held, melds, void_suit, complete=True)
        found = _keep(key, _evaluated(hand, held, counts, melds, void_suit, rules, on))
    return found


# The situational add-ons, in the order a win's flags are given to :func:`_add_ons`.
_SITUATIONAL: Final = (
    "kong_bloom",
    "kong_cannon",
    "robbing_kong",
    "last_tile",
    "heavenly",
    "earthly",
)


@lru_cache(maxsize=64)
def _add_ons(*flags: bool) -> tuple[str, ...]:
    """The codes of the add-ons whose flag is set (``flags``: one for each of
    :data:`_SITUATIONAL`, 天胡 and 地胡 only where their house rule is on)."""
    return tuple([code for code, flag in zip(_SITUATIONAL, flags, strict=True) if flag])


def _melds_key(melds: tuple[Meld, ...]) -> tuple[tuple[str, int, bool], ...]:
    """The melds as a win's result depends on them: a meld's tiles are sorted and of one
    kind, so its kind and lowest tile say which tiles it holds."""
    return tuple([(m.kind, m.tiles[0].index, m.concealed) for m in melds])


def _win_key(
    concealed: tuple[int, ...],
    melds: tuple[tuple[str, int, bool], ...],
    void_suit: str | None,
    on: tuple[str, ...],
    rules: SichuanRules,
) -> tuple[object, ...]:
    """Everything a win's result depends on: the tiles as counts, the melds, the void suit,
    the add-ons and the house rules the detection reads."""
    return (concealed, melds, void_suit, on, rules.all_258_pungs, rules.terminals_in_all)


def _keep(key: tuple[object, ...], found: FanResult) -> FanResult:
    """``found`` kept under ``key`` among the wins evaluated lately."""
    if len(_WINS) >= _WINS_KEPT:
        _WINS.clear()
    _WINS[key] = found
    return found


# Wins evaluated lately, by what their result depends on (a failure is never kept): under
# blood flow a winner stays in with the hand they won with, wins with it again and shows it
# at the empty wall, whose check evaluates a win on each of its waits. Those come within a
# hand: of a 3,000-hand blood-flow log's 33,554 look-ups, 13,687 hit with 4,096 kept and
# 13,526 with 256, which leave the collector 3,840 fewer results and keys to walk.
_WINS: Final[dict[tuple[object, ...], FanResult]] = {}
_WINS_KEPT: Final = 256


def _evaluated(
    hand: tuple[Tile, ...],
    concealed: tuple[int, ...],
    counts: list[int],
    melds: tuple[Meld, ...],
    void_suit: str | None,
    rules: SichuanRules,
    on: tuple[str, ...],
) -> FanResult:
    """:func:`evaluate_sichuan_win` of ``hand`` (the winning tile last; ``concealed``: its
    counts; ``counts``: hand and melds') with the add-ons ``on``, once :func:`_check_hand`
    has passed it: the refusals of a win's suits, then the best arrangement."""
    suits = _suits_held(counts)
    if void_suit is not None and void_suit in suits:
        everything = [*hand, *(t for m in melds for t in m.tiles)]
        voids = [t for t in everything if t.suit == void_suit]
        raise TileError(
            f"holds {format_tiles(voids)} of the void suit {void_suit}: no win with the void suit"
        )
    if len(suits) > 2:
        raise TileError(f"holds three suits ({', '.join(suits)}): a Sichuan win holds at most two")
    best = _best(concealed, counts, len(suits) == 1, melds, rules, on)
    if best is None:
        shown = " ".join([*(f"[{m}]" for m in melds), format_tiles(hand[:-1])])
        raise TileError(f"not a complete hand: {shown} + {hand[-1]}")
    return best


def _best(
    concealed: Sequence[int],
    counts: Sequence[int],
    one_suit: bool,
    melds: tuple[Meld, ...],
    options: SichuanRules,
    situational: tuple[str, ...],
) -> FanResult | None:
    """The best arrangement of a checked hand (``concealed``: its counts; ``counts``: hand
    and melds) and its fan: the first of the highest fan (rules.md, "the highest over its
    arrangements")."""
    roots = counts.count(4)
    top = 0
    best: tuple[tuple[PatternScore, ...], Arrangement] | None = None
    for arrangement in arrangements_of_counts(concealed, melds, SICHUAN):
        patterns, fan = _scored(
            _detect(arrangement, concealed, options), one_suit, roots, situational
        )
        if best is None or fan > top:
            top, best = fan, (patterns, arrangement)
    return None if best is None else _new_result(top, *best)


# A win's result, built without running attrs' ``__init__``.
_new_result: Final = constructor(FanResult)


@lru_cache(maxsize=4096)
def _scored(
    shape: tuple[str, ...], one_suit: bool, roots: int, situational: tuple[str, ...]
) -> tuple[tuple[PatternScore, ...], int]:
    """The rows an arrangement scores and its total: its ``shape`` rows (:func:`_detect`),
    清一色 for one suit, a 根 per tile held four times (``roots``: in hand and melds) but the
    quad of 龙七对, and the add-ons, scored by :func:`~mjledger.tiles.fan.score_patterns`. A
    few such sets of rows recur in every match, so each is scored once."""
    detected = dict.fromkeys(shape, 1)
    if one_suit:
        detected["full_flush"] = 1
    quads = roots - (1 if "dragon_seven_pairs" in detected else 0)
    if quads:
        detected["root"] = quads
    for code in situational:
        detected[code] = 1
    patterns = score_patterns(SICHUAN_TABLE, detected)
    return patterns, sum(p.fan for p in patterns)


def _detect(
    arrangement: Arrangement, concealed: Sequence[int], options: SichuanRules
) -> tuple[str, ...]:
    """The rows an arrangement's shape scores, each once (平胡 when no shape row applies)."""
    detected: list[str] = []
    if arrangement.shape == "seven_pairs":
        detected.append("seven_pairs")
        if max(concealed) == 4:
            detected.append("dragon_seven_pairs")
    else:
        sets = arrangement.all_sets
        if "chow" not in map(_KIND, sets):
            detected.append("all_pungs")
            if len(arrangement.melds) == 4:
                detected.append("golden_hook")
                if all(m.kind == "kong" for m in arrangement.melds):
                    detected.append("eighteen_arhats")
            if (
                options.all_258_pungs
                and all(s.first.rank in (2, 5, 8) for s in sets)
                and arrangement.pairs[0].rank in (2, 5, 8)
            ):
                detected.append("all_258_pungs")
        if (
            options.terminals_in_all
            and all(any(t.is_terminal for t in s.tiles) for s in sets)
            and arrangement.pairs[0].is_terminal
        ):
            detected.append("terminals_in_all")
    if _SHAPES.isdisjoint(detected):
        detected.append("plain")
    return tuple(detected)


_KIND: Final = attrgetter("kind")


def evaluate_sichuan_wall(
    tiles: Iterable[Tile],
    melds: Sequence[Meld] = (),
    *,
    void_suit: str | None,
    rules: SichuanRules = DEFAULT_RULES,
) -> WallStatus:
    """Flower pig, readiness and best hand of a player still in when the wall runs out.

    A pig is never ready. A wait that would not be a legal win (three suits when no void suit
    is known) does not make the hand ready. ``best_fan`` counts pattern fan + 根 only.
    """
    hand = tuple(tiles)
    melds = tuple(melds)
    concealed = tally(hand)
    counts = _check_hand(hand, concealed, melds, void_suit, complete=False)
    if void_suit is not None and void_suit in _suits_held(counts):
        return _FLOWER_PIG
    ready: list[Tile] = []
    best: int | None = None
    melds_key = _melds_key(melds)
    for tile in waits_of_counts(concealed, counts, len(melds), SICHUAN):
        try:
            result = _wait_won(hand, tile, concealed, counts, melds_key, melds, void_suit, rules)
        except TileError:
            continue
        ready.append(tile)
        best = result.fan if best is None else max(best, result.fan)
    return _new_status(False, bool(ready), best, tuple(ready))


# A wall's status, built without running attrs' ``__init__``; a flower pig's, one value.
_new_status: Final = constructor(WallStatus)
_FLOWER_PIG: Final = WallStatus(flower_pig=True, ready=False, best_fan=None)


def _wait_won(
    hand: tuple[Tile, ...],
    tile: Tile,
    concealed: list[int],
    counts: list[int],
    melds_key: tuple[tuple[str, int, bool], ...],
    melds: tuple[Meld, ...],
    void_suit: str | None,
    rules: SichuanRules,
) -> FanResult:
    """:func:`evaluate_sichuan_win` of a checked hand one tile short (``concealed``: its
    counts; ``counts``: with its melds) won on one of its waits, with no add-ons: the
    hand passed :func:`_check_hand` and a wait is never a fifth copy, so what is left to
    refuse is the win's suits. The counts are as given again when it returns."""
    index = tile.index
    concealed[index] += 1
    counts[index] += 1
    try:
        held = tuple(concealed)
        key = _win_key(held, melds_key, void_suit, (), rules)
        found = _WINS.get(key)
        if found is None:
            won = (*hand, tile)
            found = _keep(key, _evaluated(won, held, counts, melds, void_suit, rules, ()))
        return found
    finally:
        concealed[index] -= 1
        counts[index] -= 1
