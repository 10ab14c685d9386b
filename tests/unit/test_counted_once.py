"""A win's tiles are counted once (issue 25, eighth round): the fold counts a win's hand for
the line's check of copies and gives those counts to the rule set's ``evaluate_win``, which
no longer counts the same tiles again.

The model is what the fold did before: the line's copies checked over every tile it shows
(:func:`check_no_fifth_copy`), then the evaluator given the tiles alone, counting them
itself. Every line of tiles — complete hands, near misses, fifth copies, honours, chows,
wrong sizes, the void suit — gives the same result or the same message both ways, for each
rule set that evaluates tiles; so does each evaluator given the counts or not, and a rule set
whose ``evaluate_win`` was written before it took counts is still called.
"""

from __future__ import annotations

from collections.abc import Sequence

from hypothesis import given
from hypothesis import strategies as st

from mjledger import HongKongRules, SichuanRules
from mjledger.errors import TileError
from mjledger.log.events import MeldRecord, SelfDrawn, WonOnDiscard
from mjledger.rules import BaseRuleset, WinContext
from mjledger.rules.hongkong import fan as hongkong_fan
from mjledger.rules.registry import table_of
from mjledger.rules.sichuan import fan as sichuan_fan
from mjledger.rules.tiles import check_no_fifth_copy, derive_win, melds_of, shown_tiles
from mjledger.tiles import TILES, Meld, Tile, parse_tiles
from mjledger.tiles.decompose import tally
from mjledger.tiles.fan import FanResult
from mjledger.tiles.notation import format_tiles

PLAYERS = ("a", "b", "c", "d")


def _previous(table: BaseRuleset, event: WonOnDiscard | SelfDrawn, context: WinContext) -> object:
    """``derive_win`` as it was: every tile the line shows counted for the copies, then the
    evaluator given the tiles (it counts them itself)."""
    assert event.tiles is not None
    assert event.winning_tile is not None
    melds = melds_of(event.melds)
    concealed = parse_tiles(event.tiles)
    winning = Tile.parse(event.winning_tile)
    check_no_fifth_copy(shown_tiles(concealed, winning, melds))
    return table.evaluate_win(concealed, winning, melds, context)


def _outcome(call: object) -> object:
    """A result's ``repr``, or the message it refused with; the caches of wins emptied
    first, so that each way evaluates afresh."""
    sichuan_fan._WINS.clear()
    try:
        return repr(call())  # type: ignore[operator]
    except TileError as exc:
        return ("TileError", str(exc))


@st.composite
def complete_sets(draw: st.DrawFn, slots: list[int]) -> list[list[Tile]]:
    """Four sets and a pair of tiles in ``slots``, or seven pairs: of distinct tiles mostly,
    now and then one repeated (a quad in seven pairs, or a fifth copy)."""
    order = draw(st.permutations(slots))
    if draw(st.integers(0, 5)) == 0:
        return [[TILES[i]] * 2 for i in (order * 7)[:6]] + [
            [TILES[draw(st.sampled_from(order))]] * 2
        ]
    chows = [i for i in slots if i < 27 and i % 9 <= 6 and i + 2 in slots]
    sets: list[list[Tile]] = []
    for n in range(4):
        if chows and draw(st.booleans()):
            start = draw(st.sampled_from(chows))
            sets.append([TILES[start], TILES[start + 1], TILES[start + 2]])
        else:
            sets.append([TILES[order[n % len(order)]]] * 3)
    pair = order[4 % len(order)] if draw(st.integers(0, 5)) else draw(st.sampled_from(order))
    return [*sets, [TILES[pair]] * 2]


def _meld(tiles: list[Tile], kong: bool, concealed: bool) -> MeldRecord:
    if tiles[0] != tiles[1]:
        return MeldRecord(kind="chow", tiles=format_tiles(tiles))
    if kong:
        return MeldRecord(kind="kong", tiles=format_tiles([*tiles, tiles[0]]), concealed=concealed)
    return MeldRecord(kind="pung", tiles=format_tiles(tiles))


@st.composite
def win_lines(draw: st.DrawFn, honours: bool) -> tuple[WonOnDiscard | SelfDrawn, WinContext]:
    """A win's line with tiles: a complete hand (four sets and a pair, some of the sets
    declared melds, or seven pairs) of one suit, two or three (and honours), a third of them
    changed a tile (replaced, added or taken away); fifth copies, chows, wrong sizes and the
    void suit come with them."""
    suits = draw(st.sampled_from([(0,), (0, 1), (1, 2), (0, 1, 2)]))
    if honours and draw(st.booleans()):
        suits = (*suits, 3)
    slots = [i for i in range(34) if i // 9 in suits]
    groups = draw(complete_sets(slots))
    declared = draw(st.integers(0, 4)) if len(groups) == 5 else 0
    if not honours:  # Sichuan has no chow melds: a few, refused; the others made pungs
        for i in range(declared):
            if groups[i][0] != groups[i][1] and draw(st.integers(0, 7)):
                groups[i] = [groups[i][0]] * 3
    melds = [_meld(g, draw(st.booleans()), draw(st.booleans())) for g in groups[:declared]]
    hand = [t for g in groups[declared:] for t in g]
    change = draw(st.sampled_from(["none", "none", "none", "none", "replace", "add", "remove"]))
    if change == "replace":
        hand[draw(st.integers(0, len(hand) - 1))] = TILES[draw(st.sampled_from(slots))]
    elif change == "add":
        hand.append(TILES[draw(st.sampled_from(slots))])
    elif change == "remove" and len(hand) > 2:
        hand.pop(draw(st.integers(0, len(hand) - 1)))
    winning = hand.pop(draw(st.integers(0, len(hand) - 1)))
    fields = {
        "player": "a",
        "tiles": format_tiles(hand) if hand else str(winning),
        "winning_tile": str(winning),
        "melds": tuple(melds) or None,
        "last_tile": draw(st.booleans()),
    }
    self_drawn = draw(st.booleans())
    event: WonOnDiscard | SelfDrawn = (
        SelfDrawn(**fields) if self_drawn else WonOnDiscard(from_="b", **fields)  # type: ignore[arg-type]
    )
    context = WinContext(
        winner="a",
        discarder=None if isinstance(event, SelfDrawn) else "b",
        self_drawn=isinstance(event, SelfDrawn),
        kong_bloom=draw(st.booleans()),
        last_tile=event.last_tile,
        seat_wind=draw(st.sampled_from(["east", "south", "west", "north"])),
        round_wind=draw(st.sampled_from(["east", "south"])),
        void_suit=None if honours else draw(st.sampled_from([None, "m", "p", "s"])),
    )
    return event, context


SICHUAN_TABLES = [
    table_of("sichuan", SichuanRules(), PLAYERS),
    table_of("sichuan", SichuanRules(all_258_pungs=True, terminals_in_all=True), PLAYERS),
]
HONGKONG_TABLES = [
    table_of("hongkong", HongKongRules(), PLAYERS),
    table_of("hongkong", HongKongRules(seven_pairs=True), PLAYERS),
]


@given(win_lines(honours=False), st.sampled_from(SICHUAN_TABLES))
def test_a_sichuan_win_derives_as_it_did_when_counted_twice(
    line: tuple[WonOnDiscard | SelfDrawn, WinContext], table: BaseRuleset
) -> None:
    event, context = line
    assert _outcome(lambda: derive_win(table, event, context)) == _outcome(
        lambda: _previous(table, event, context)
    )


@given(win_lines(honours=True), st.sampled_from(HONGKONG_TABLES))
def test_a_hongkong_win_derives_as_it_did_when_counted_twice(
    line: tuple[WonOnDiscard | SelfDrawn, WinContext], table: BaseRuleset
) -> None:
    event, context = line
    assert _outcome(lambda: derive_win(table, event, context)) == _outcome(
        lambda: _previous(table, event, context)
    )


class _Neutral(BaseRuleset):
    name = "neutral-counted"
    rules_class = SichuanRules


@given(win_lines(honours=True))
def test_the_neutral_tables_win_derives_as_it_did_when_counted_twice(
    line: tuple[WonOnDiscard | SelfDrawn, WinContext],
) -> None:
    event, context = line
    table = _Neutral().bind(SichuanRules(), PLAYERS)
    assert _outcome(lambda: derive_win(table, event, context)) == _outcome(
        lambda: _previous(table, event, context)
    )


@given(win_lines(honours=True), st.booleans())
def test_each_evaluator_given_the_counts_evaluates_as_counting_itself(
    line: tuple[WonOnDiscard | SelfDrawn, WinContext], sichuan: bool
) -> None:
    event, context = line
    assert event.tiles is not None
    assert event.winning_tile is not None
    tiles = parse_tiles(event.tiles)
    winning = Tile.parse(event.winning_tile)
    melds = melds_of(event.melds)
    counts = tally((*tiles, winning))
    if sichuan:
        rules = SichuanRules()
        evaluate = sichuan_fan.evaluate_sichuan_win
        given_counts = _outcome(
            lambda: evaluate(tiles, winning, melds, context, rules, counts=tuple(counts))
        )
        assert given_counts == _outcome(lambda: evaluate(tiles, winning, melds, context, rules))
    else:
        hk = HongKongRules(seven_pairs=True)
        hk_evaluate = hongkong_fan.evaluate_hongkong_win
        given_counts = _outcome(
            lambda: hk_evaluate(tiles, winning, melds, context, hk, counts=counts)
        )
        assert given_counts == _outcome(lambda: hk_evaluate(tiles, winning, melds, context, hk))


class _Before(BaseRuleset):
    """A rule set whose ``evaluate_win`` was written before it took ``counts``."""

    name = "before-counts"
    rules_class = SichuanRules
    seen: list[int]

    def evaluate_win(
        self, tiles: Sequence[Tile], winning_tile: Tile, melds: Sequence[Meld], context: WinContext
    ) -> FanResult:
        self.seen.append(len(tiles))
        return super().evaluate_win(tiles, winning_tile, melds, context)


def test_a_rule_set_whose_evaluate_win_takes_no_counts_is_still_called() -> None:
    table = _Before().bind(SichuanRules(), PLAYERS)
    table.seen = []
    event = SelfDrawn(player="a", tiles="123m456m789m1122p", winning_tile="2p")
    assert derive_win(table, event, WinContext(winner="a", self_drawn=True)).fan == 0
    assert table.seen == [13]
    assert _Before.evaluate_win.__name__ == "evaluate_win"  # wrapped, its name kept
