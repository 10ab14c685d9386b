"""The per-suit tables the decomposer reads: every split of a suit's counts, and the waits
folded per key, built once by :func:`built` and read back through :mod:`.prebuilt`.

A suit's part of a hand is nine counts (seven for honours), and that tuple is its key. The
builder generates every way up to four sets and at most one pair can lie in one suit: that
gives for each key its splits into sets only and into sets plus the pair, and, by taking one
tile back out, which ranks would complete a key one tile short. This module is the builder
whose source names a tables file (:func:`.prebuilt.digest`): change it and every stored
table is rebuilt.
"""

from __future__ import annotations

from collections.abc import Iterable, Sequence
from functools import cache
from itertools import combinations_with_replacement
from typing import Any, Final, TypeVar

import attrs

_T = TypeVar("_T")

# A suit's counts, as the tuple that keys the tables (a tuple of nine small ints hashes in C,
# which is what makes a lookup cheaper than packing the counts into one int in Python).
Key = tuple[int, ...]
# A set inside one suit: (is_chow, lowest rank 0-8).
_Set = tuple[bool, int]
Split = tuple[_Set, ...]


@attrs.frozen
class SuitTable:
    sets: dict[Key, tuple[Split, ...]]  # every split into sets only
    pair: dict[Key, tuple[tuple[int, Split], ...]]  # every split into (pair rank, sets)
    wait_sets: dict[Key, int]  # one short -> bitmask of ranks completing it into sets
    wait_pair: dict[Key, int]  # one short -> bitmask of ranks completing it into sets + pair


@attrs.frozen
class SuitSplits:
    """What arrangements read of a suit's table (the waits are folded into :data:`WaitInfo`,
    so only the builder keeps them apart, and the file does not carry them twice), each
    split packed into one int (:func:`packed`), a pair's rank with it (:func:`pair_split`)."""

    sets: dict[Key, tuple[int, ...]]
    pair: dict[Key, tuple[int, ...]]


def packed(split: Split) -> int:
    """A split as one int: each set's code (its lowest rank times two, plus one for a chow)
    plus one, in five bits, the first set lowest (:func:`set_codes` reads them back).

    A value of the tables is then a tuple of ints, which the collector stops walking at the
    first collection that meets it; as tuples of tuples of tuples it stayed tracked one
    collection per level of nesting: about 47,000 objects of the tables walked again by the
    collections of a process that replays a tile log, its last one at shut-down included."""
    code = 0
    for i, (is_chow, low) in enumerate(split):
        code |= (low * 2 + is_chow + 1) << _SET_BITS * i
    return code


def set_codes(split: int) -> list[int]:
    """The codes of a :func:`packed` split's sets, in the split's order."""
    codes = []
    while split:
        codes.append((split & _SET_MASK) - 1)
        split >>= _SET_BITS
    return codes


def pair_split(entry: int) -> tuple[int, int]:
    """An entry of :attr:`SuitSplits.pair`: the pair's rank, and the :func:`packed` split of
    the sets beside it."""
    return entry & _RANK_MASK, entry >> _RANK_BITS


_SET_BITS: Final = 5  # a set's code plus one is at most 17 (a chow from rank 7, plus one)
_SET_MASK: Final = (1 << _SET_BITS) - 1
_RANK_BITS: Final = 4  # a pair's rank is at most 8
_RANK_MASK: Final = (1 << _RANK_BITS) - 1


def _build(ranks: int, chows: bool) -> SuitTable:
    """Generate every split of up to four sets (and at most one pair) within four copies.

    Generating from the sets, rather than searching each count vector, visits each split once;
    the waits follow by taking one tile back out of every complete key.
    """
    kinds: list[_Set] = [(False, r) for r in range(ranks)]
    if chows:
        kinds += [(True, r) for r in range(ranks - 2)]
    sets_lists: dict[Key, list[Split]] = {}
    pair_lists: dict[Key, list[tuple[int, Split]]] = {}
    for size in range(5):
        for split in combinations_with_replacement(kinds, size):
            counts = [0] * ranks
            for is_chow, low in split:
                if is_chow:
                    counts[low] += 1
                    counts[low + 1] += 1
                    counts[low + 2] += 1
                else:
                    counts[low] += 3
            if max(counts, default=0) > 4:
                continue
            sets_lists.setdefault(tuple(counts), []).append(split)
            for pair in range(ranks):
                if counts[pair] <= 2:
                    counts[pair] += 2
                    pair_lists.setdefault(tuple(counts), []).append((pair, split))
                    counts[pair] -= 2
    wait_sets: dict[Key, int] = {}
    wait_pair: dict[Key, int] = {}
    for source, target in ((sets_lists, wait_sets), (pair_lists, wait_pair)):
        for key in source:
            for rank in range(ranks):
                if key[rank]:
                    short = (*key[:rank], key[rank] - 1, *key[rank + 1 :])
                    target[short] = target.get(short, 0) | (1 << rank)
    return SuitTable(
        sets={k: tuple(v) for k, v in sets_lists.items()},
        pair={k: tuple(v) for k, v in pair_lists.items()},
        wait_sets=wait_sets,
        wait_pair=wait_pair,
    )


# The tables file holds them a part at a time, each read only when first needed: the honours'
# splits, their wait information and the plans (small), then the suited splits and the suited
# wait information one part per key size (how many tiles of the suit a hand holds). A hand
# reads the sizes its suits have: a short log of a few hands never reads most of the file.
_HONOUR_SPLITS, _HONOUR_INFO, _PLANS = 0, 1, 2
_SIZES: Final = 15  # a suit holds 0 to 14 tiles of a hand
_SUITED_SPLITS, _SUITED_INFO = 3, 3 + _SIZES
# Hands a wait reader answers a size at a time before it reads every size.
_WHOLE_AFTER: Final = 256


@cache
def splits_of(honours: bool, size: int) -> SuitSplits:
    """The splits of the keys holding ``size`` tiles of the honours (all of them, whatever the
    size: they are few) or of a suit."""
    if honours:
        return SuitSplits(*_stored_part(_HONOUR_SPLITS))
    return SuitSplits(*_stored_part(_SUITED_SPLITS + size))


def suit_splits() -> tuple[SuitSplits, SuitSplits]:
    """The suited and honour splits, whole: read back where they were built before
    (prebuilt.py), else built on first use (about a second, with the wait information)."""
    parts = [splits_of(False, size) for size in range(_SIZES)]
    suited = SuitSplits(_merged(p.sets for p in parts), _merged(p.pair for p in parts))
    return suited, splits_of(True, 0)


class WaitTables:
    """The wait information as the wait search reads it (:data:`WaitInfo`), read a key size at
    a time: :meth:`for_keys` makes sure the sizes of a hand's three suits are in the suited
    table before the hand looks them up (a key of a size read is found, or absent, exactly as
    in the whole table), and ``whole`` is set once every size is in."""

    def __init__(self) -> None:
        self.whole: WaitInfo | None = None
        self._suited: dict[Key, SuitInfo] = {}
        self._sizes_read = [False] * _SIZES
        self._partial: WaitInfo | None = None
        self._asked = 0

    def for_keys(self, held: Sequence[int]) -> WaitInfo:
        """The tables, holding at least the sizes of ``held``'s three suits (every size once
        asked this :data:`_WHOLE_AFTER` times: a process that asks that often is a long one,
        and its lookups should go straight to the table)."""
        if self._partial is None:
            self._partial = (self._suited, self._suited, self._suited, *_honours_and_plans())
        self._asked += 1
        sizes = (
            range(_SIZES)
            if self._asked >= _WHOLE_AFTER
            else (sum(held[0:9]), sum(held[9:18]), sum(held[18:27]))
        )
        read = self._sizes_read
        for size in sizes:
            if size < _SIZES and not read[size]:
                self._suited.update(_stored_part(_SUITED_INFO + size))
                read[size] = True
                if all(read):
                    self.whole = self._partial
        return self._partial


def _honours_and_plans() -> tuple[dict[Key, SuitInfo], Plans]:
    return _stored_part(_HONOUR_INFO), _stored_part(_PLANS)


WAIT_TABLES: Final = WaitTables()


def wait_info() -> WaitInfo:
    """:func:`_fold_wait_info` of the tables, whole, read back or built as
    :func:`suit_splits`."""
    for size in range(_SIZES):
        WAIT_TABLES.for_keys((size, *[0] * 26))
    assert WAIT_TABLES.whole is not None
    return WAIT_TABLES.whole


def stored() -> tuple[tuple[SuitSplits, SuitSplits], WaitInfo]:
    """Both parts, as this process reads them."""
    return suit_splits(), wait_info()


def built() -> tuple[tuple[SuitSplits, SuitSplits], WaitInfo]:
    """The builder: both suits' splits and the wait information made from their tables."""
    tables = _build(9, chows=True), _build(7, chows=False)
    splits = tuple(_packed_splits(table) for table in tables)
    return (splits[0], splits[1]), _fold_wait_info(tables)


def _packed_splits(table: SuitTable) -> SuitSplits:
    """A suit table's splits as arrangements read them: each split :func:`packed`, in the
    table's order (the order of a hand's readings)."""
    sets = {key: tuple(map(packed, splits)) for key, splits in table.sets.items()}
    pair = {
        key: tuple(rank | packed(split) << _RANK_BITS for rank, split in entries)
        for key, entries in table.pair.items()
    }
    return SuitSplits(sets, pair)


@cache
def _stored_part(part: int) -> Any:
    from mjledger.tiles import prebuilt

    found = prebuilt.load(part)
    return _built_and_kept()[part] if found is None else found


@cache
def _built_and_kept() -> list[Any]:
    """The tables built in this process (once, whichever part was asked for first) and kept
    for the next process (in the user's cache, if it can be written)."""
    from mjledger.tiles import prebuilt

    plain = plain_tables(*built())
    prebuilt.save(plain)
    return plain


def plain_tables(tables: tuple[SuitSplits, SuitSplits], info: WaitInfo) -> list[Any]:
    """The tables as plain values (tuples, dicts, ints), a part each as prebuilt.py keeps
    them (the parts above)."""
    suited, honours = tables
    parts: list[Any] = [attrs.astuple(honours, recurse=False), info[3], info[4]]
    parts += [(_sized(suited.sets, n), _sized(suited.pair, n)) for n in range(_SIZES)]
    parts += [_sized(info[0], n) for n in range(_SIZES)]
    return parts


def _sized(table: dict[Key, _T], size: int) -> dict[Key, _T]:
    return {key: value for key, value in table.items() if sum(key) == size}


def _merged(parts: Iterable[dict[Key, _T]]) -> dict[Key, _T]:
    merged: dict[Key, _T] = {}
    for part in parts:
        merged.update(part)
    return merged


# What the wait search needs of one suit's key, in one lookup: its code (below); whether it
# splits into sets and a pair; the ranks completing it into sets; the ranks completing it into
# sets and a pair; the ranks it holds an odd number of times; whether it holds some rank three
# or four times. A key absent from this table takes part in no standard-shape wait.
SuitInfo = tuple[int, bool, int, int, int, bool]

# A key's kind: its count mod 3, except that a key of sets only is 0 and any other key whose
# count is a multiple of three is 3 (it cannot stand beside the suit that takes the tile).
_SETS, _ONE_SHORT_OF_PAIR, _ONE_SHORT_OF_SETS, _STUCK = 0, 1, 2, 3
# A key's code is its kind plus, in the next two bits, how many ranks it holds an odd number of
# times (0, 1, or 2 for more): seven pairs one tile short have exactly one such rank in all.
_ODD_SHIFT = 2


def _plan(code: int) -> tuple[int, int, int]:
    """What the four suits' codes allow: where the missing tile of a standard hand can go —
    one suit a tile short of sets and a pair with the rest sets (``first``, ``-1``), or two
    suits a tile short of sets, either taking the tile while the other holds the pair
    (``first``, ``second``), or nowhere (``-1``, ``-1``) — and which suit holds the one odd
    rank of a seven-pairs wait (``-1`` if none can)."""
    kinds = [code >> 4 * suit & 3 for suit in range(4)]
    odds = [code >> 4 * suit + _ODD_SHIFT & 3 for suit in range(4)]
    first = second = -1
    if kinds.count(_ONE_SHORT_OF_PAIR) == 1 and kinds.count(_SETS) == 3:
        first = kinds.index(_ONE_SHORT_OF_PAIR)
    elif kinds.count(_ONE_SHORT_OF_SETS) == 2 and kinds.count(_SETS) == 2:
        first = kinds.index(_ONE_SHORT_OF_SETS)
        second = kinds.index(_ONE_SHORT_OF_SETS, first + 1)
    odd_suit = odds.index(1) if sorted(odds) == [0, 0, 0, 1] else -1
    return first, second, odd_suit


Plans = tuple[tuple[int, int, int], ...]


WaitInfo = tuple[
    dict[Key, SuitInfo],
    dict[Key, SuitInfo],
    dict[Key, SuitInfo],
    dict[Key, SuitInfo],
    Plans,
]


def _fold_wait_info(tables: tuple[SuitTable, SuitTable]) -> WaitInfo:
    """Per suit position (m, p, s, z): every key the tables know, folded into one value, so the
    hot path makes one dictionary lookup per suit instead of up to four; and the plan of every
    combination of the four suits' codes, indexed by ``m | p << 4 | s << 8 | z << 12``."""
    # Equal values are kept as one object: the file then holds each once (marshal refers back
    # to it), which is most of what reading the tables costs.
    one: dict[Any, Any] = {}
    infos = []
    for table in tables:
        keys = set(table.sets) | set(table.pair) | set(table.wait_sets) | set(table.wait_pair)
        infos.append({key: _once(one, _suit_info(table, key)) for key in keys})
    suited, honours = infos
    plans = tuple(_once(one, _plan(code)) for code in range(1 << 16))
    return suited, suited, suited, honours, plans


def _once(one: dict[Any, Any], value: _T) -> _T:
    """``value``, or the equal value met before."""
    return one.setdefault(value, value)  # type: ignore[no-any-return]


def _suit_info(table: SuitTable, key: Key) -> SuitInfo:
    return (
        (_SETS if key in table.sets else sum(key) % 3 or _STUCK)
        | min(2, sum(count % 2 for count in key)) << _ODD_SHIFT,
        key in table.pair,
        table.wait_sets.get(key, 0),
        table.wait_pair.get(key, 0),
        sum(1 << rank for rank, count in enumerate(key) if count % 2),
        max(key) >= 3,
    )
