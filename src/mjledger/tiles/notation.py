"""Tiles and melds as values, with the compact notation logs and tests use both ways.

A tile is ``(suit, rank)``: suits ``m`` (characters), ``p`` (dots), ``s`` (bamboo) ranks 1-9,
and ``z`` honours 1-7 (east, south, west, north, white, green, red). Tiles order as the
34-slot count vectors of the decomposer do (``m``, ``p``, ``s``, ``z``), so sorting a hand and
indexing a count vector never disagree.
"""

from __future__ import annotations

import re
from collections.abc import Iterable
from functools import lru_cache
from typing import Final, Literal, cast

import attrs

from mjledger._checks import TILE_GROUP
from mjledger._text import compiled_when_used
from mjledger.errors import TileError

__all__ = [
    "HONOUR_NAMES",
    "SUITS",
    "TILES",
    "WINDS",
    "Meld",
    "MeldKind",
    "Tile",
    "Wind",
    "format_tiles",
    "parse_tiles",
]

SUITS = "mpsz"
HONOUR_NAMES = ("east", "south", "west", "north", "white", "green", "red")

# The four winds, the first four honours: a seat's, and the round's (rules.md, "Seats").
Wind = Literal["east", "south", "west", "north"]
WINDS: tuple[Wind, ...] = ("east", "south", "west", "north")

MeldKind = Literal["chow", "pung", "kong"]
_MELD_KINDS: tuple[MeldKind, ...] = ("chow", "pung", "kong")

_GROUP = compiled_when_used(r"\s*([0-9]+)([a-z])\s*")  # read where not well formed


def _check_suit(_instance: object, _attribute: object, suit: str) -> None:
    if suit not in SUITS:
        raise TileError(f"unknown suit {suit!r}: expected one of m, p, s, z")


def _check_rank(instance: Tile, _attribute: object, rank: int) -> None:
    top = 7 if instance.suit == "z" else 9
    if not 1 <= rank <= top:
        raise TileError(f"no tile {rank}{instance.suit}: ranks run 1-{top} in suit {instance.suit}")


@attrs.frozen(repr=False)
class Tile:
    """One tile; equal tiles are interchangeable, so a value object is all a hand needs.

    ``index`` (its slot in a 34-slot count vector) is kept on the value, not computed: the
    decomposer reads it for every tile of every hand. Tiles order by it, which is the order
    of ``(suit, rank)`` since the suits' letters run m, p, s, z; comparing one int is what
    sorting a hand costs. :func:`parse_tiles` hands out the 34 values of :data:`TILES`
    rather than making new ones.
    """

    suit: str = attrs.field(validator=_check_suit)
    rank: int = attrs.field(validator=_check_rank)
    index: int = attrs.field(init=False, eq=False, order=False, hash=False, repr=False)

    def __attrs_post_init__(self) -> None:
        object.__setattr__(self, "index", SUITS.index(self.suit) * 9 + self.rank - 1)

    def __lt__(self, other: object) -> bool:
        if other.__class__ is not Tile:
            return NotImplemented
        return self.index < other.index

    def __le__(self, other: object) -> bool:
        if other.__class__ is not Tile:
            return NotImplemented
        return self.index <= other.index

    def __gt__(self, other: object) -> bool:
        if other.__class__ is not Tile:
            return NotImplemented
        return self.index > other.index

    def __ge__(self, other: object) -> bool:
        if other.__class__ is not Tile:
            return NotImplemented
        return self.index >= other.index

    @classmethod
    def parse(cls, text: str) -> Tile:
        """Read one tile such as ``"5m"`` or ``"7z"``."""
        tile = _BY_TEXT.get(text)
        if tile is not None:
            return tile
        tiles = parse_tiles(text)
        if len(tiles) != 1:
            raise TileError(f"expected one tile, got {text!r}")
        return tiles[0]

    @classmethod
    def from_index(cls, index: int) -> Tile:
        """The tile at slot ``index`` (0-33) of a count vector."""
        if not 0 <= index < 34:
            raise TileError(f"no tile at index {index}: indices run 0-33")
        return TILES[index]

    @property
    def is_honour(self) -> bool:
        return self.suit == "z"

    @property
    def is_terminal(self) -> bool:
        """A suited 1 or 9 (honours are not terminals)."""
        return self.suit != "z" and self.rank in (1, 9)

    def __str__(self) -> str:
        return f"{self.rank}{self.suit}"

    def __repr__(self) -> str:
        return f"Tile.parse('{self}')"


TILES: tuple[Tile, ...] = tuple(
    Tile(suit, rank) for suit in "mps" for rank in range(1, 10)
) + tuple(Tile("z", rank) for rank in range(1, 8))

# The tiles by suit letter and rank digit, and by their two-character notation: parsing hands
# out these values (equal to new ones, and already made).
_BY_DIGIT: dict[str, dict[str, Tile]] = {
    suit: {str(t.rank): t for t in TILES if t.suit == suit} for suit in SUITS
}
_BY_TEXT: dict[str, Tile] = {str(t): t for t in TILES}


def parse_tiles(text: str) -> tuple[Tile, ...]:
    """Read compact notation (``"123m456p11z"``), keeping the written order.

    Spaces between groups are allowed. The error quotes the whole text and the part that
    could not be read, because the text usually comes from a log line a person must fix.
    """
    return _parsed(text)


@lru_cache(maxsize=64)
def _parsed(text: str) -> tuple[Tile, ...]:
    """:func:`parse_tiles`, kept for texts met again (under blood flow a winner shows the
    same hand again, in later wins and at the empty wall: 56% of the look-ups of a 3,000-hand
    log, a Sichuan log 2%). They come again within the hand: the 64 texts read last keep
    15,208 of the 15,501 hits that 4,096 kept did, and the collector walks 4,032 fewer."""
    if _WELL_FORMED.fullmatch(text) is None:
        return _read(text)
    # Only groups whose every digit is a rank of its suit: each group's tiles, looked up by
    # its suit's table in one ``map`` (in C, no step of Python a tile).
    tiles: list[Tile] = []
    for digits, suit in _DIGITS_AND_SUIT.findall(text):
        tiles += map(_RANK_OF[suit], digits)
    return tuple(tiles)


# A text of groups of ranks that their suits have, and spaces (as a log's writer writes a
# hand): :func:`_read` would read its groups one after the other, and nothing is wrong.
_WELL_FORMED: Final = re.compile(rf"\s*(?:{TILE_GROUP})(?:\s*(?:{TILE_GROUP}))*\s*")
_DIGITS_AND_SUIT: Final = re.compile(r"([0-9]+)([a-z])")


# Each suit's tile by rank digit, as one call: a well-formed group's tiles are these of its
# digits. (Groups were kept once read, but a hand's suit recurs in fewer than half of the
# groups of a log, and the mapping costs less than a look-up in the kept ones did.)
_RANK_OF: Final = {suit: ranks.__getitem__ for suit, ranks in _BY_DIGIT.items()}


def _read(text: str) -> tuple[Tile, ...]:
    """:func:`parse_tiles` group by group: what any text reads as, or the first thing wrong
    with it."""
    tiles: list[Tile] = []
    pos = 0
    while pos < len(text):
        match = _GROUP().match(text, pos)
        if match is None:
            if text[pos:].strip() == "":
                break
            raise TileError(f"bad tile notation {text!r}: cannot read {text[pos:]!r}")
        digits, suit = match.groups()
        ranks = _BY_DIGIT.get(suit)
        if ranks is None:
            raise TileError(
                f"bad tile notation {text!r}: unknown suit {suit!r} in {match.group(0).strip()!r}"
            )
        for digit in digits:
            tile = ranks.get(digit)
            tiles.append(_bad_rank(text, suit, digit) if tile is None else tile)
        pos = match.end()
    if not tiles:
        raise TileError(f"bad tile notation {text!r}: no tiles")
    return tuple(tiles)


def _bad_rank(text: str, suit: str, digit: str) -> Tile:
    """The tile a digit names in a suit that has no such rank: raises the value's own error."""
    try:
        return Tile(suit, int(digit))
    except TileError as error:
        raise TileError(f"bad tile notation {text!r}: {error}") from None


def format_tiles(tiles: Iterable[Tile]) -> str:
    """Compact notation, sorted and grouped by suit, so equal hands print equally."""
    out: list[str] = []
    previous = ""
    for tile in sorted(tiles):
        if previous and tile.suit != previous:
            out.append(previous)
        out.append(str(tile.rank))
        previous = tile.suit
    if previous:
        out.append(previous)
    return "".join(out)


def _check_meld(instance: Meld, _attribute: object, tiles: tuple[Tile, ...]) -> None:
    kind = instance.kind
    shown = format_tiles(tiles) if tiles else "(no tiles)"
    if kind == "chow":
        ordered = sorted(tiles)
        if (
            len(ordered) != 3
            or ordered[0].is_honour
            or any(t.suit != ordered[0].suit for t in ordered)
            or [t.rank for t in ordered] != list(range(ordered[0].rank, ordered[0].rank + 3))
        ):
            raise TileError(f"a chow is three consecutive tiles of one suit, not {shown}")
    else:
        size = 3 if kind == "pung" else 4
        if len(tiles) != size or any(t != tiles[0] for t in tiles):
            raise TileError(f"a {kind} is {size} identical tiles, not {shown}")


def _check_kind(_instance: object, _attribute: object, kind: str) -> None:
    if kind not in _MELD_KINDS:
        raise TileError(f"unknown meld kind {kind!r}: expected chow, pung or kong")


def _check_concealed(instance: Meld, _attribute: object, concealed: bool) -> None:
    if concealed and instance.kind != "kong":
        raise TileError(f"only a kong can be concealed, not a {instance.kind}")


def _sorted_tiles(tiles: Iterable[Tile]) -> tuple[Tile, ...]:
    return tuple(sorted(tiles))


@attrs.frozen(repr=False)
class Meld:
    """A set declared before the win (claimed, or a kong), as it lies face up on the table.

    ``concealed`` marks a concealed kong; it is the only meld that keeps a hand concealed in
    Hong Kong and the one that pays double in Sichuan, hence a flag and not a fourth kind.
    """

    kind: MeldKind = attrs.field(validator=_check_kind)
    tiles: tuple[Tile, ...] = attrs.field(converter=_sorted_tiles, validator=_check_meld)
    concealed: bool = attrs.field(default=False, validator=_check_concealed)

    @classmethod
    def parse(cls, kind: str, text: str, *, concealed: bool = False) -> Meld:
        """A meld from its kind and compact notation, e.g. ``Meld.parse("pung", "555p")``."""
        if kind not in _MELD_KINDS:
            raise TileError(f"unknown meld kind {kind!r}: expected chow, pung or kong")
        if cls is not Meld:
            return cls(kind, parse_tiles(text), concealed)
        return _meld(kind, text, concealed)

    @property
    def first(self) -> Tile:
        """The lowest tile, which with ``kind`` identifies the set."""
        return self.tiles[0]

    def __str__(self) -> str:
        return format_tiles(self.tiles)

    def __repr__(self) -> str:
        extra = ", concealed=True" if self.concealed else ""
        return f"Meld.parse('{self.kind}', '{self}'{extra})"


@lru_cache(maxsize=1024)
def _meld(kind: str, text: str, concealed: bool) -> Meld:
    """:meth:`Meld.parse` of a known kind, kept: melds are values, and the same few recur
    in every hand."""
    return Meld(cast(MeldKind, kind), parse_tiles(text), concealed)
