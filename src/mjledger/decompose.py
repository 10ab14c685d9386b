"""``mjledger.decompose`` as docs/tiles.md shows it: the decomposer of :mod:`mjledger.tiles`,
with shapes also named by any registered rule set's name."""

from __future__ import annotations

from collections.abc import Iterable, Sequence

from mjledger.rules.registry import find_ruleset
from mjledger.tiles import decompose as _d
from mjledger.tiles.decompose import (
    HONGKONG,
    SICHUAN,
    Arrangement,
    Shapes,
    counts_of,
    waits_from_counts,
)
from mjledger.tiles.notation import Meld, Tile

__all__ = [
    "HONGKONG",
    "SICHUAN",
    "Arrangement",
    "Shapes",
    "arrangements",
    "counts_of",
    "is_complete",
    "is_ready",
    "shapes_for",
    "waits",
    "waits_from_counts",
]


def shapes_for(ruleset: str | Shapes, *, seven_pairs: bool = False) -> Shapes:
    """The shapes of ``ruleset`` under its default house rules (``seven_pairs`` switched on if
    asked and the rule set has that option)."""
    if isinstance(ruleset, Shapes):
        return ruleset
    found = find_ruleset(ruleset)
    options = {"seven_pairs": True} if seven_pairs else {}
    return found.bind(found.rules_class(**options), ()).shapes()


def waits(
    concealed_tiles: Iterable[Tile], melds: Sequence[Meld] = (), ruleset: str | Shapes = SICHUAN
) -> tuple[Tile, ...]:
    return _d.waits(concealed_tiles, melds, shapes_for(ruleset))


def is_ready(
    concealed_tiles: Iterable[Tile], melds: Sequence[Meld] = (), ruleset: str | Shapes = SICHUAN
) -> bool:
    return _d.is_ready(concealed_tiles, melds, shapes_for(ruleset))


def arrangements(
    tiles: Iterable[Tile], melds: Sequence[Meld] = (), ruleset: str | Shapes = SICHUAN
) -> tuple[Arrangement, ...]:
    return _d.arrangements(tiles, melds, shapes_for(ruleset))


def is_complete(
    tiles: Iterable[Tile], melds: Sequence[Meld] = (), ruleset: str | Shapes = SICHUAN
) -> bool:
    return _d.is_complete(tiles, melds, shapes_for(ruleset))
