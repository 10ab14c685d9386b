"""Which ways a hand splits into sets, and which tiles would complete a hand one tile short.

Everything is table-driven. A suit's part of a hand is nine counts (seven for honours), and
that tuple is its key. The first call builds, once, every way up to four sets and
at most one pair can lie in one suit: that gives for each key its splits into sets only and
into sets plus the pair, and, by taking one tile back out, which ranks would complete a key
one tile short. Checking a hand is then a dictionary lookup per suit instead of a search, which
is why finding all waits costs a few microseconds.

Shapes are rule-set data (each rule set says which it accepts, :meth:`Ruleset.shapes`): Sichuan
has seven pairs in which four identical tiles count as two pairs; Hong Kong has thirteen
orphans and (only as a house rule) seven distinct pairs. The two named sets are here because
the tests and the oracle comparisons use them.
"""

from __future__ import annotations

from collections.abc import Iterable, Sequence
from functools import cache, lru_cache
from itertools import product
from typing import Final, Literal

import attrs

from mjledger._replace import constructor
from mjledger._text import plural
from mjledger.errors import TileError
from mjledger.tiles.notation import TILES, Meld, Tile, format_tiles
from mjledger.tiles.tables import WAIT_TABLES, Key, pair_split, set_codes, splits_of

__all__ = [
    "HONGKONG",
    "SICHUAN",
    "Arrangement",
    "Shapes",
    "arrangements",
    "arrangements_of_counts",
    "check_copies",
    "counts_of",
    "is_complete",
    "is_ready",
    "tally",
    "waits",
    "waits_from_counts",
    "waits_of_counts",
    "with_melds",
]

ShapeName = Literal["standard", "seven_pairs", "thirteen_orphans"]


@attrs.frozen
class Shapes:
    """Which complete-hand shapes a rule set accepts besides four sets and a pair."""

    seven_pairs: bool
    quad_as_two_pairs: bool
    thirteen_orphans: bool


SICHUAN = Shapes(seven_pairs=True, quad_as_two_pairs=True, thirteen_orphans=False)
HONGKONG = Shapes(seven_pairs=False, quad_as_two_pairs=False, thirteen_orphans=True)


@attrs.frozen
class Arrangement:
    """One reading of a complete hand.

    ``melds`` are the sets declared before the win, as given; ``sets`` the sets formed in the
    concealed hand (winning tile included), sorted; ``pairs`` the pair's tile for the standard
    shape, the seven pair tiles for seven pairs (a quad's tile twice), and the doubled tile
    for thirteen orphans.
    """

    shape: ShapeName
    melds: tuple[Meld, ...]
    sets: tuple[Meld, ...]
    pairs: tuple[Tile, ...]

    @property
    def all_sets(self) -> tuple[Meld, ...]:
        return self.melds + self.sets

    def __str__(self) -> str:
        if self.shape == "thirteen_orphans":
            return f"thirteen orphans (pair {self.pairs[0]}{self.pairs[0]})"
        parts = [f"[{m}{' concealed' if m.concealed else ''}]" for m in self.melds]
        parts += [str(s) for s in self.sets]
        parts += [format_tiles((t, t)) for t in self.pairs]
        return " ".join(parts)


# Every arrangement, built without running attrs' ``__init__`` (a win reads several).
_new_arrangement: Final = constructor(Arrangement)

# ---------------------------------------------------------------------------------------
# Count vectors

_ORPHANS = (0, 8, 9, 17, 18, 26, 27, 28, 29, 30, 31, 32, 33)
_SUIT_LETTERS = "mpsz"


def counts_of(tiles: Iterable[Tile]) -> list[int]:
    """A 34-slot count vector; the fifth copy of a tile is refused here, once for all callers."""
    counts = tally(tiles)
    check_copies(counts)
    return counts


def tally(tiles: Iterable[Tile]) -> list[int]:
    """The 34-slot count vector of ``tiles``, unchecked: for a caller that counts a hand once
    and checks it where its own errors come (the loop is the cheapest form measured)."""
    counts = [0] * 34
    for tile in tiles:
        counts[tile.index] += 1
    return counts


def with_melds(counts: Sequence[int], melds: Sequence[Meld]) -> list[int]:
    """``counts`` (a hand's concealed tiles') with the tiles of its ``melds`` added."""
    total = list(counts)
    for meld in melds:
        for tile in meld.tiles:
            total[tile.index] += 1
    return total


_AT_MOST_FOUR: Final = frozenset(range(5))
_AT_MOST_THREE: Final = frozenset(range(4))


def check_copies(counts: Sequence[int]) -> None:
    """A count vector's fifth copy of a tile refused (the lowest such tile named)."""
    if _AT_MOST_FOUR.issuperset(counts):  # the common case, one scan in C
        return
    for index, count in enumerate(counts):
        if count > 4:
            raise TileError(f"{count} copies of {TILES[index]}: there are only four of each tile")


def _check_size(concealed: int, melds: Sequence[Meld], complete: bool) -> None:
    if len(melds) > 4:
        raise TileError(f"{plural(len(melds), 'meld')}: a hand has at most four")
    expected = (14 if complete else 13) - 3 * len(melds)
    if concealed != expected:
        what = "a complete hand" if complete else "a hand one tile short"
        raise TileError(
            f"{plural(concealed, 'concealed tile')} with {plural(len(melds), 'meld')}: "
            f"{what} has {expected}"
        )


# ---------------------------------------------------------------------------------------
# Waits


def waits_from_counts(counts: Sequence[int], melds: int = 0, shapes: Shapes = SICHUAN) -> int:
    """Bitmask over the 34 slots of the tiles completing ``counts`` (a hand one tile short).

    ``melds`` is how many sets were declared. A tile held four times *in hand* is never
    returned (no table key holds five); the caller removes tiles completed to four by melds.
    This is the hot path the benchmark measures, so it works on bare ints and tuples, inline.
    """
    held = tuple(counts)  # slices of a tuple are the keys themselves, with no copy between
    m, p, s, z, plans = WAIT_TABLES.whole or WAIT_TABLES.for_keys(held)
    # A suit whose counts the table does not hold takes part in no wait of four sets and a
    # pair: most hands asked about are not ready, and are turned away at their first such
    # suit, before the other suits are looked up.
    if (
        (a := m.get(held[0:9])) is None
        or (b := p.get(held[9:18])) is None
        or (c := s.get(held[18:27])) is None
        or (d := z.get(held[27:34])) is None
    ):
        if melds:
            return 0
        # Seven pairs: 13 tiles in at most seven distinct slots (one count of the empty
        # slots, the cheapest count, turns away almost every other hand); thirteen orphans.
        result = 0
        if shapes.seven_pairs and held.count(0) >= 27:
            result = _seven_pairs_waits(counts, shapes.quad_as_two_pairs)
        if shapes.thirteen_orphans:
            result |= _orphans_waits(counts)
        return result
    infos = (a, b, c, d)
    first, second, odd_suit = plans[a[0] | b[0] << 4 | c[0] << 8 | d[0] << 12]
    result = 0
    if first >= 0:
        x = infos[first]
        if second < 0:
            result = x[3] << 9 * first
        else:
            # Either suit a tile short of sets takes the tile while the other holds the pair.
            y = infos[second]
            if y[1]:
                result = x[2] << 9 * first
            if x[1]:
                result |= y[2] << 9 * second
    # Seven pairs: thirteen tiles with exactly one rank held an odd number of times are
    # that tile and six pairs' worth (a three is a pair and the odd tile, a quad two pairs).
    if (
        odd_suit >= 0
        and melds == 0
        and shapes.seven_pairs
        and (shapes.quad_as_two_pairs or not (a[5] or b[5] or c[5] or d[5]))
    ):
        result |= infos[odd_suit][4] << 9 * odd_suit
    if melds == 0 and shapes.thirteen_orphans:
        result |= _orphans_waits(counts)
    return result


def _seven_pairs_waits(counts: Sequence[int], quads: bool) -> int:
    """Six pairs and one odd tile wait on that tile: 13 tiles in at most seven distinct
    slots assumed, as the caller checks. Exactly one rank may be held an odd number of
    times (a three is a pair and the odd tile)."""
    singles = counts.count(1)
    threes = counts.count(3)
    if singles + threes != 1:
        return 0
    if quads:
        return 1 << (counts.index(3) if threes else counts.index(1))
    if threes or 4 in counts:
        return 0
    return 1 << counts.index(1)


def _orphans_waits(counts: Sequence[int]) -> int:
    held = [counts[i] for i in _ORPHANS]
    if sum(held) != 13:
        return 0
    if all(c == 1 for c in held):
        return sum(1 << i for i in _ORPHANS)
    if sorted(held) == [0] + [1] * 11 + [2]:
        return 1 << _ORPHANS[held.index(0)]
    return 0


def waits(
    concealed_tiles: Iterable[Tile],
    melds: Sequence[Meld] = (),
    shapes: Shapes = SICHUAN,
) -> tuple[Tile, ...]:
    """The tiles that complete a hand one tile short, in order.

    A tile the player already holds all four of (in hand and melds) is not a wait: rules.md,
    "ready". Whether a copy is still unseen does not matter.
    """
    tiles = tuple(concealed_tiles)
    if len(tiles) != 13 - 3 * len(melds):
        _check_size(len(tiles), melds, complete=False)
    counts = tally(tiles)
    if not melds and _AT_MOST_THREE.issuperset(counts):  # the common case, one scan in C:
        return _tiles_of(waits_from_counts(counts, 0, shapes))  # no fifth copy, no four held
    check_copies(counts)
    total = counts
    if melds:
        total = with_melds(counts, melds)
        check_copies(total)
    return waits_of_counts(counts, total, len(melds), shapes)


def waits_of_counts(
    counts: Sequence[int], total: Sequence[int], melds: int, shapes: Shapes = SICHUAN
) -> tuple[Tile, ...]:
    """:func:`waits` of a hand its caller has checked: ``counts`` its concealed tiles' (as
    many as its ``melds`` sets leave), ``total`` with the melds' tiles, none held five
    times."""
    found = _tiles_of(waits_from_counts(counts, melds, shapes))
    if _AT_MOST_THREE.issuperset(total):  # the common case, one scan in C: none held four
        return found
    return tuple(tile for tile in found if total[tile.index] < 4)  # four held: no wait


@lru_cache(maxsize=4096)
def _tiles_of(mask: int) -> tuple[Tile, ...]:
    """The tiles of the slots set in a 34-slot bitmask, in order (few masks recur: the
    waits of a ready hand are a handful of tiles)."""
    return tuple(TILES[i] for i in range(34) if mask >> i & 1)


def is_ready(
    concealed_tiles: Iterable[Tile], melds: Sequence[Meld] = (), shapes: Shapes = SICHUAN
) -> bool:
    """Whether some tile would complete the hand (rules.md "ready")."""
    return bool(waits(concealed_tiles, melds, shapes))


# ---------------------------------------------------------------------------------------
# Complete hands


def arrangements(
    tiles: Iterable[Tile],
    melds: Sequence[Meld] = (),
    shapes: Shapes = SICHUAN,
    *,
    counts: Sequence[int] | None = None,
) -> tuple[Arrangement, ...]:
    """Every reading of a complete hand; empty if it is not complete.

    ``tiles`` are the concealed tiles including the winning tile. The declared melds count
    among the four sets. ``counts``: those tiles' count vector (:func:`tally`) where the
    caller has made it, so that they are not counted again; checked here as ``tiles`` are.
    """
    hand = tuple(tiles)
    _check_size(len(hand), melds, complete=True)
    if counts is None:
        counts = tally(hand)
    check_copies(counts)
    if melds:
        check_copies(with_melds(counts, melds))
    return arrangements_of_counts(counts, tuple(melds), shapes)


def arrangements_of_counts(
    counts: Sequence[int], melds: tuple[Meld, ...], shapes: Shapes = SICHUAN
) -> tuple[Arrangement, ...]:
    """:func:`arrangements` of a hand its caller has checked: ``counts`` are its concealed
    tiles' (the winning tile included), as many as the melds leave, none held five times in
    hand and melds."""
    new = _new_arrangement
    found = _standard(counts, melds)
    if not melds:
        if shapes.seven_pairs and _is_seven_pairs(counts, shapes.quad_as_two_pairs):
            pairs = tuple(TILES[i] for i in range(34) for _ in range(counts[i] // 2))
            found.append(new("seven_pairs", (), (), pairs))
        if shapes.thirteen_orphans and _is_orphans(counts):
            doubled = next(TILES[i] for i in _ORPHANS if counts[i] == 2)
            found.append(new("thirteen_orphans", (), (), (doubled,)))
    return tuple(found)


def is_complete(
    tiles: Iterable[Tile], melds: Sequence[Meld] = (), shapes: Shapes = SICHUAN
) -> bool:
    return bool(arrangements(tiles, melds, shapes))


def _is_seven_pairs(counts: Sequence[int], quads: bool) -> bool:
    if counts.count(0) < 27:  # seven pairs are seven tiles at most (fewer with a quad)
        return False
    if quads:  # every count even: no count is above four, so none is 1 or 3
        return 1 not in counts and 3 not in counts and sum(counts) == 14
    return counts.count(2) == 7


def _is_orphans(counts: Sequence[int]) -> bool:
    held = sorted(counts[i] for i in _ORPHANS)
    return sum(counts) == 14 and held == [1] * 12 + [2]


def _standard(counts: Sequence[int], melds: tuple[Meld, ...]) -> list[Arrangement]:
    """The standard readings of a hand's concealed ``counts`` beside its ``melds``."""
    held = tuple(counts)
    readings: list[tuple[_SuitReading, ...]] = []
    pair_suits = 0
    ways = 1
    for base, end in _SUIT_SLICES:
        key = held[base:end]
        if any(key):  # an empty suit reads one way: no sets
            holds_pair, options = _suit_readings(base, key)
            if not options:
                return []
            pair_suits += holds_pair
            ways *= len(options)
            readings.append(options)
    if pair_suits != 1:
        return []
    if ways == 1:  # one reading of each suit, the common case
        return [_joined(melds, [options[0] for options in readings])]
    return [_joined(melds, choice) for choice in product(*readings)]


_SUIT_SLICES: Final = ((0, 9), (9, 18), (18, 27), (27, 34))  # each suit's slots, honours last

# One way a suit's tiles split: the pair (its tile, alone in a tuple as an arrangement holds
# it; empty: no pair) and the sets, sorted.
_SuitReading = tuple[tuple[Tile, ...], tuple[Meld, ...]]


def _joined(melds: tuple[Meld, ...], choice: Iterable[_SuitReading]) -> Arrangement:
    """One reading of each suit as one of the hand: the sets, sorted (each suit's are, and a
    suit's sets all sort before the next suit's), and the pair's tile."""
    sets: tuple[Meld, ...] = ()
    pairs: tuple[Tile, ...] = ()
    for pair, suit_sets in choice:
        if pair:
            pairs = pair
        sets += suit_sets
    return _new_arrangement("standard", melds, sets, pairs)


@lru_cache(maxsize=8192)
def _suit_readings(base: int, key: Key) -> tuple[bool, tuple[_SuitReading, ...]]:
    """How the counts ``key`` of the suit at slot ``base`` split: whether the suit must hold
    the pair, and each split in the table's order (see :data:`_SuitReading`). No split: an
    empty tuple."""
    size = sum(key)
    table = splits_of(base >= 27, size)
    if size % 3 == 0:
        return False, tuple(((), _sets(base, split)) for split in table.sets.get(key, ()))
    if size % 3 == 2:
        found = map(pair_split, table.pair.get(key, ()))
        return True, tuple(((TILES[base + pair],), _sets(base, split)) for pair, split in found)
    return False, ()


def _sets(base: int, split: int) -> tuple[Meld, ...]:
    """A split's sets (:func:`~mjledger.tiles.tables.packed`), sorted: lowest tile first, a
    pung before a chow starting on the same tile (by their codes, see :func:`_set_meld`)."""
    return tuple(map(_set_meld, sorted(base * 2 + code for code in set_codes(split))))


@cache
def _set_meld(code: int) -> Meld:
    """The set a code names: its lowest tile's slot times two, plus one for a chow (so codes
    sort as sets do)."""
    index, is_chow = divmod(code, 2)
    tile = TILES[index]
    if is_chow:
        return Meld("chow", (tile, TILES[index + 1], TILES[index + 2]))
    return Meld("pung", (tile, tile, tile))
