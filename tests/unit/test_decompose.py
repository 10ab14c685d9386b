"""Decomposition, readiness and waits (rules.md "Fan from tiles" and "ready").

The PyPI ``mahjong`` package (riichi) is the oracle for standard hands. It requires seven
*different* pairs, while Sichuan counts four identical tiles as two of the seven pairs (notes/
fan-tables.md, "Decomposition facts"), so those waits are compared separately.
"""

from __future__ import annotations

import itertools
import random

import pytest
from hypothesis import assume, example, given
from hypothesis import strategies as st
from mahjong.agari import Agari

from mjledger.decompose import (
    HONGKONG,
    SICHUAN,
    Shapes,
    arrangements,
    counts_of,
    is_complete,
    is_ready,
    shapes_for,
    waits,
    waits_from_counts,
)
from mjledger.errors import TileError
from mjledger.tiles import TILES, Meld, Tile, parse_tiles
from mjledger.tiles.decompose import arrangements_of_counts
from mjledger.tiles.tables import pair_split, set_codes, splits_of

P = parse_tiles

SICHUAN_WALL = tuple(i for i in range(27) for _ in range(4))
HK_WALL = tuple(i for i in range(34) for _ in range(4))


# --- strategies ------------------------------------------------------------------------


@st.composite
def random_hands(draw: st.DrawFn, wall: tuple[int, ...] = SICHUAN_WALL) -> list[int]:
    """13 tiles off a seeded shuffle of the wall (the seed is what Hypothesis draws)."""
    seed = draw(st.integers(0, 2**32 - 1))
    rng = random.Random(seed)
    return sorted(rng.sample(wall, 13))


@st.composite
def ready_hands(draw: st.DrawFn, honours: bool = False) -> tuple[list[int], list[Meld]]:
    """A complete hand built set by set within four copies a tile, minus one tile.

    Returns the concealed tiles (as indices) and the declared melds; one in five hands is
    seven pairs, which may hold a quad (the 龙七对 cases).
    """
    top = 34 if honours else 27
    counts = [0] * 34
    if draw(st.integers(0, 4)) == 0:
        hand: list[int] = []
        for _ in range(7):
            tile = draw(st.sampled_from([i for i in range(top) if counts[i] <= 2]))
            counts[tile] += 2
            hand += [tile, tile]
        hand.remove(draw(st.sampled_from(hand)))
        return sorted(hand), []
    melds: list[Meld] = []
    hand = []
    n_melds = draw(st.integers(0, 4))
    for number in range(4):
        options: list[tuple[str, int]] = [("pung", i) for i in range(top) if counts[i] <= 1]
        options += [
            ("chow", i)
            for i in range(27)
            if i % 9 <= 6 and all(counts[i + k] < 4 for k in range(3))
        ]
        if number < n_melds:
            options += [("kong", i) for i in range(top) if counts[i] == 0]
        kind, low = draw(st.sampled_from(options))
        tiles = [low] * (4 if kind == "kong" else 3) if kind != "chow" else [low, low + 1, low + 2]
        for t in tiles:
            counts[t] += 1
        if number < n_melds:
            melds.append(Meld(kind, tuple(TILES[t] for t in tiles)))  # type: ignore[arg-type]
        else:
            hand += tiles
    pair = draw(st.sampled_from([i for i in range(top) if counts[i] <= 2]))
    hand += [pair, pair]
    hand.remove(draw(st.sampled_from(hand)))
    return sorted(hand), melds


def _tiles(indices: list[int]) -> tuple[Tile, ...]:
    return tuple(TILES[i] for i in indices)


def _held(hand: list[int], melds: list[Meld]) -> list[int]:
    counts = [0] * 34
    for i in hand:
        counts[i] += 1
    for meld in melds:
        for tile in meld.tiles:
            counts[tile.index] += 1
    return counts


def _completers(hand: list[int], melds: list[Meld], ruleset: str = "sichuan") -> set[Tile]:
    """Brute force: every tile (not already held four times) whose addition completes it."""
    held = _held(hand, melds)
    return {
        TILES[i]
        for i in range(34)
        if held[i] < 4 and is_complete(_tiles([*hand, i]), melds, ruleset)
    }


def _mahjong_waits(hand: list[int], melds: list[Meld], top: int = 27) -> set[Tile]:
    held = _held(hand, melds)
    concealed = [0] * 34
    for i in hand:
        concealed[i] += 1
    found = set()
    for i in range(top):
        if held[i] == 4:
            continue
        concealed[i] += 1
        if Agari.is_agari(concealed):
            found.add(TILES[i])
        concealed[i] -= 1
    return found


def _is_dragon_pairs(hand: list[int], tile: Tile) -> bool:
    """Hand + tile is seven pairs only because a quad counts as two pairs (龙七对)."""
    counts = counts_of([*_tiles(hand), tile])
    return sum(counts) == 14 and all(c % 2 == 0 for c in counts) and 4 in counts


# --- arrangements ----------------------------------------------------------------------


def test_every_arrangement_of_an_ambiguous_hand_is_found() -> None:
    found = {str(a) for a in arrangements(P("11122233344455m"))}
    assert found == {
        "111m 222m 333m 444m 55m",
        "111m 234m 234m 234m 55m",
        "111m 234m 345m 345m 22m",
        "123m 123m 123m 444m 55m",
    }


def test_declared_melds_count_among_the_four_sets() -> None:
    melds = (Meld.parse("pung", "555p"), Meld.parse("kong", "1111s", concealed=True))
    (only,) = arrangements(P("123m789m99p"), melds)
    assert only.melds == melds
    assert [str(s) for s in only.sets] == ["123m", "789m"]
    assert only.pairs == (Tile.parse("9p"),)


def test_sichuan_seven_pairs_count_a_quad_as_two_pairs() -> None:
    # rules.md "Fan from tiles": seven pairs 2 (four identical tiles count as two pairs)
    (only,) = arrangements(P("1111m4499m2266p88p"), (), "sichuan")
    assert only.shape == "seven_pairs"
    assert [str(t) for t in only.pairs] == ["1m", "1m", "4m", "9m", "2p", "6p", "8p"]


def test_hong_kong_has_no_seven_pairs_by_default_and_distinct_pairs_as_a_house_rule() -> None:
    hand = P("1199m1199p1199s11z")
    assert not is_complete(hand, (), "hongkong")
    assert is_complete(hand, (), shapes_for("hongkong", seven_pairs=True))
    # the house rule wants seven different pairs: a quad is not two of them
    assert not is_complete(P("1111m4499m2266p88p"), (), shapes_for("hongkong", seven_pairs=True))


def test_thirteen_orphans_is_hong_kong_only() -> None:
    # rules.md: "Hong Kong: a complete hand is four sets and a pair, or thirteen orphans"
    hand = P("19m19p19s12345677z")
    (only,) = arrangements(hand, (), "hongkong")
    assert only.shape == "thirteen_orphans"
    assert only.pairs == (Tile.parse("7z"),)
    assert not is_complete(hand, (), "sichuan")
    assert not is_complete(P("19m19p19s12345666z"), (), "hongkong")  # near miss: no red


def test_a_complete_hand_of_the_wrong_size_is_refused() -> None:
    with pytest.raises(TileError, match="12 concealed tiles with 0 melds"):
        arrangements(P("111222333444m"))
    with pytest.raises(TileError, match="at most four"):
        arrangements(P("11m"), [Meld.parse("pung", "222m")] * 5)


def test_a_fifth_copy_is_refused_even_across_melds() -> None:
    # rules.md: "a line that shows a tile more than four times" is an error
    with pytest.raises(TileError, match="5 copies of 5p"):
        arrangements(P("55p123m456m789m"), [Meld.parse("pung", "555p")])


# --- waits -----------------------------------------------------------------------------


def test_nine_gates_waits_on_every_tile_of_its_suit() -> None:
    assert waits(P("1112345678999m")) == tuple(P("123456789m"))


def test_thirteen_orphans_waits_on_thirteen_tiles() -> None:
    assert len(waits(P("19m19p19s1234567z"), (), "hongkong")) == 13
    assert waits(P("19m19p19s1234566z"), (), "hongkong") == (Tile.parse("7z"),)


def test_a_tile_already_held_four_times_is_not_a_wait() -> None:
    # rules.md "ready": "a tile the player already holds four of excepted"
    melds = [Meld.parse("pung", "555p"), Meld.parse("pung", "666p"), Meld.parse("pung", "777p")]
    assert waits(P("2223m"), melds) == (Tile.parse("1m"), Tile.parse("3m"), Tile.parse("4m"))
    # 1111m could only complete with a fifth 1m (111m + 11m): no wait at all
    assert waits_from_counts(counts_of(P("1111m")), 3, SICHUAN) == 0
    assert waits(P("1111m"), melds) == ()
    assert not is_ready(P("1111m"), melds)


def test_the_exception_counts_tiles_in_melds_too() -> None:
    # rules.md "ready": held "in hand and melds" — 46m99m waits only on 5m; a 5555m kong holds all
    melds = [Meld.parse("kong", "5555m"), Meld.parse("pung", "111p"), Meld.parse("pung", "999p")]
    assert waits(P("4699m"), [Meld.parse("pung", "555s"), *melds[1:]]) == (Tile.parse("5m"),)
    assert waits(P("4699m"), melds) == ()
    assert not is_ready(P("4699m"), melds)


def test_sichuan_waits_on_the_fourth_tile_for_dragon_seven_pairs() -> None:
    # rules.md: four identical tiles count as two pairs, so 111m waits on 1m (龙七对)
    hand = P("111m55m88m22p55p88p")
    assert waits(hand) == (Tile.parse("1m"),)
    # riichi (the mahjong package) does not accept a quad as two pairs: the filtered case
    assert _mahjong_waits([t.index for t in hand], []) == set()


def test_waits_refuse_a_hand_of_the_wrong_size() -> None:
    with pytest.raises(TileError, match="one tile short has 13"):
        waits(P("11122233344455m"))


# --- properties ------------------------------------------------------------------------


@given(ready_hands())
def test_ready_exactly_when_some_tile_completes_it(case: tuple[list[int], list[Meld]]) -> None:
    hand, melds = case
    assert is_ready(_tiles(hand), melds) == bool(_completers(hand, melds))


@given(random_hands())
def test_random_hands_ready_exactly_when_some_tile_completes_them(hand: list[int]) -> None:
    assert set(waits(_tiles(hand))) == _completers(hand, [])


@given(ready_hands(honours=True))
def test_hong_kong_waits_are_exactly_the_completing_tiles(
    case: tuple[list[int], list[Meld]],
) -> None:
    hand, melds = case
    found = waits(_tiles(hand), melds, "hongkong")
    assert set(found) == _completers(hand, melds, "hongkong")
    for tile in found:
        assert is_complete([*_tiles(hand), tile], melds, "hongkong")


@given(ready_hands())
def test_every_reported_wait_completes_the_hand(case: tuple[list[int], list[Meld]]) -> None:
    hand, melds = case
    for tile in waits(_tiles(hand), melds):
        assert is_complete([*_tiles(hand), tile], melds)


@given(st.one_of(ready_hands(), random_hands().map(lambda h: (h, []))))
def test_waits_agree_with_the_mahjong_package_outside_dragon_seven_pairs(
    case: tuple[list[int], list[Meld]],
) -> None:
    hand, melds = case
    ours = set(waits(_tiles(hand), melds))
    theirs = _mahjong_waits(hand, melds)
    # riichi's seven pairs are a subset of Sichuan's; the difference is exactly 龙七对.
    assert theirs <= ours
    assert all(_is_dragon_pairs(hand, tile) for tile in ours - theirs)
    if not melds and not any(_is_dragon_pairs(hand, tile) for tile in ours):
        assert ours == theirs


@given(ready_hands(honours=True))
def test_hong_kong_waits_agree_with_the_mahjong_package(
    case: tuple[list[int], list[Meld]],
) -> None:
    hand, melds = case
    ours = set(waits(_tiles(hand), melds, "hongkong"))
    theirs = _mahjong_waits(hand, melds, 34)
    # riichi has seven pairs, Hong Kong does not: drop riichi's seven-pairs-only completions.
    seven = {
        t
        for t in theirs
        if not melds
        and counts_of([*_tiles(hand), t]).count(2) == 7
        and not is_complete([*_tiles(hand), t], melds, "hongkong")
    }
    assert ours == theirs - seven


@given(ready_hands())
def test_dragon_seven_pairs_waits_are_the_only_difference_from_mahjong(
    case: tuple[list[int], list[Meld]],
) -> None:
    """The hands filtered out above, on their own: each extra wait is a 龙七对 completion."""
    hand, melds = case
    ours = set(waits(_tiles(hand), melds))
    extra = ours - _mahjong_waits(hand, melds)
    for tile in extra:
        assert not melds
        (shape,) = {a.shape for a in arrangements([*_tiles(hand), tile])}
        assert shape == "seven_pairs"
        assert 4 in counts_of([*_tiles(hand), tile])


def test_waits_from_counts_is_the_bitmask_of_waits() -> None:
    counts = counts_of(P("1112345678999m"))
    assert waits_from_counts(counts, 0, SICHUAN) == 0b111111111
    assert waits_from_counts(counts_of(P("19m19p19s1234567z")), 0, HONGKONG).bit_count() == 13


@given(
    st.one_of(ready_hands(honours=True), random_hands(HK_WALL).map(lambda h: (h, []))),
    st.booleans(),
    st.booleans(),
    st.booleans(),
)
def test_waits_are_the_completing_tiles_under_every_combination_of_shapes(
    case: tuple[list[int], list[Meld]], seven_pairs: bool, quads: bool, orphans: bool
) -> None:
    """The wait search reads seven pairs off each suit's odd ranks and the standard shape off
    a table of the suits' codes; brute force over ``arrangements`` is the reference, for
    every shape a rule set may accept (a house rule can turn each on)."""
    hand, melds = case
    shapes = Shapes(seven_pairs=seven_pairs, quad_as_two_pairs=quads, thirteen_orphans=orphans)
    held = _held(hand, melds)
    expected = {
        TILES[i]
        for i in range(34)
        if held[i] < 4 and arrangements(_tiles([*hand, i]), melds, shapes)
    }
    assert set(waits(_tiles(hand), melds, shapes)) == expected


def test_seven_distinct_pairs_never_wait_on_a_fourth_copy() -> None:
    """Under seven distinct pairs (Hong Kong's house rule) a three in hand is no pair-in-waiting:
    only when a quad counts as two pairs does 111m wait on the fourth 1m."""
    hand = P("11133m5577p1122z")
    distinct = Shapes(seven_pairs=True, quad_as_two_pairs=False, thirteen_orphans=False)
    quads = Shapes(seven_pairs=True, quad_as_two_pairs=True, thirteen_orphans=False)
    assert waits(hand, (), distinct) == ()
    assert waits(hand, (), quads) == P("1m")


# --- the standard readings against the path they replaced and a brute force --------------


def _readings_by_codes(counts: list[int]) -> list[tuple[tuple[Meld, ...], Tile]]:
    """The standard readings as the search made them before each suit's sets were kept
    sorted: every product of the suits' splits (the tables' order), the sets of a choice
    sorted by code (the lowest tile's slot times two, plus one for a chow)."""
    readings = []
    pair_suits = 0
    for base in (0, 9, 18, 27):
        key = tuple(counts[base : base + 9] if base < 27 else counts[27:34])
        if not any(key):
            continue
        size = sum(key)
        table = splits_of(base >= 27, size)
        if size % 3 == 0:
            options = [(-1, split) for split in table.sets.get(key, ())]
        elif size % 3 == 2:
            options = [
                (base + pair, split) for pair, split in map(pair_split, table.pair.get(key, ()))
            ]
            pair_suits += 1
        else:
            options = []
        if not options:
            return []
        readings.append([(slot, [base * 2 + c for c in set_codes(s)]) for slot, s in options])
    if pair_suits != 1:
        return []
    found = []
    for choice in itertools.product(*readings):
        codes = sorted(code for _, codes in choice for code in codes)
        pair = next(slot for slot, _ in choice if slot >= 0)
        sets = []
        for code in codes:
            index, chow = divmod(code, 2)
            shape = (index, index + 1, index + 2) if chow else (index,) * 3
            sets.append(Meld("chow" if chow else "pung", _tiles(list(shape))))
        found.append((tuple(sets), TILES[pair]))
    return found


def _brute_readings(counts: list[int]) -> set[tuple[tuple[tuple[str, int], ...], int]]:
    """Every standard reading by brute force: a pair, then sets taken off the lowest tile."""

    def sets_of(left: list[int]) -> list[list[tuple[str, int]]]:
        low = next((i for i, c in enumerate(left) if c), None)
        if low is None:
            return [[]]
        found = []
        if left[low] >= 3:
            left[low] -= 3
            found += [[("pung", low), *rest] for rest in sets_of(left)]
            left[low] += 3
        if low < 27 and low % 9 <= 6 and left[low + 1] and left[low + 2]:
            for k in range(3):
                left[low + k] -= 1
            found += [[("chow", low), *rest] for rest in sets_of(left)]
            for k in range(3):
                left[low + k] += 1
        return found

    readings = set()
    for pair in range(34):
        if counts[pair] >= 2:
            left = list(counts)
            left[pair] -= 2
            readings |= {(tuple(sorted(sets, key=_set_order)), pair) for sets in sets_of(left)}
    return readings


def _set_order(meld: tuple[str, int]) -> tuple[int, bool]:
    """Sets in order: lowest tile first, a pung before a chow starting on the same tile."""
    return meld[1], meld[0] == "chow"


@st.composite
def complete_counts(draw: st.DrawFn) -> tuple[list[int], tuple[Meld, ...]]:
    """A ready hand (honours or not) and a tile: one of its waits half the time, else any."""
    hand, melds = draw(ready_hands(honours=draw(st.booleans())))
    held = _held(hand, melds)
    completing = [t.index for t in waits(_tiles(hand), melds, HONGKONG)]
    if completing and draw(st.booleans()):
        tile = draw(st.sampled_from(completing))
    else:
        tile = draw(st.sampled_from([i for i in range(34) if held[i] < 4]))
    counts = [0] * 34
    for i in [*hand, tile]:
        counts[i] += 1
    return counts, tuple(melds)


@given(complete_counts())
def test_standard_readings_are_the_code_sorted_products_in_order(
    case: tuple[list[int], tuple[Meld, ...]],
) -> None:
    counts, melds = case
    found = [(a.sets, a.pairs[0]) for a in arrangements_of_counts(counts, melds, HONGKONG)]
    assert found == _readings_by_codes(counts)


@given(complete_counts())
def test_standard_readings_are_every_reading_once_sets_sorted(
    case: tuple[list[int], tuple[Meld, ...]],
) -> None:
    counts, melds = case
    found = [(a.sets, a.pairs[0]) for a in arrangements_of_counts(counts, melds, HONGKONG)]
    plain = [(tuple((s.kind, s.tiles[0].index) for s in sets), p.index) for sets, p in found]
    assert len(set(plain)) == len(plain)
    assert set(plain) == _brute_readings(counts)
    for sets, _ in plain:
        assert list(sets) == sorted(sets, key=_set_order)


@st.composite
def few_kinds(draw: st.DrawFn) -> tuple[list[int], tuple[Meld, ...]]:
    """Fourteen tiles of at most seven kinds, up to four of each: the counts that seven
    pairs' first filter lets through, odd counts among them."""
    kinds = draw(st.permutations(range(34)))
    counts = [0] * 34
    left = 14
    for kind in kinds[:7]:
        count = min(left, draw(st.sampled_from([2, 2, 3, 4, 1])))
        counts[kind] = count
        left -= count
    assume(left == 0)
    return counts, ()


def _counts(*held: int) -> tuple[list[int], tuple[Meld, ...]]:
    return [*held, *[0] * (34 - len(held))], ()


@given(st.one_of(complete_counts(), few_kinds()), st.booleans(), st.booleans())
@example(_counts(3, 3, 4, 4), True, True)  # no 1, but odd
@example(_counts(1, 1, 4, 4, 4), True, True)  # no 3, but odd
def test_seven_pairs_read_exactly_when_the_counts_are_seven_pairs(
    case: tuple[list[int], tuple[Meld, ...]], on: bool, quads: bool
) -> None:
    counts, melds = case
    shapes = Shapes(seven_pairs=on, quad_as_two_pairs=quads, thirteen_orphans=False)
    found = arrangements_of_counts(counts, melds, shapes)
    pairs = [a.pairs for a in found if a.shape == "seven_pairs"]
    even = all(c % 2 == 0 for c in counts) and sum(counts) == 14
    shaped = even if quads else counts.count(2) == 7
    tiles = tuple(TILES[i] for i in range(34) for _ in range(counts[i] // 2))
    assert pairs == ([tiles] if on and not melds and shaped else [])
