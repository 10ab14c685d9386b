"""Fan tables as data: a row per pattern, scored by one function every rule set shares.

A rule set's table lists its patterns top to bottom; its detector says which rows a hand shows;
:func:`score_patterns` drops the rows others replace and totals the rest. The result types
here are what every rule set's evaluator returns, so the fold and the CLI read them alike.
"""

from __future__ import annotations

from collections.abc import Iterable, Sequence

import attrs

from mjledger.tiles.decompose import Arrangement
from mjledger.tiles.notation import Tile

__all__ = [
    "FanResult",
    "PatternRow",
    "PatternScore",
    "WallStatus",
    "pattern_row",
    "score_patterns",
]


@attrs.frozen
class PatternRow:
    """One row of a fan table.

    ``per`` rows score their fan once per occurrence (根, 番子); ``option`` names the house
    rule that switches an optional row on (``None``: always on); ``replaces`` lists the codes
    this row stands in place of when both apply; ``limit`` (Hong Kong) makes the hand a limit
    hand.
    """

    code: str
    name: str
    fan: int
    replaces: frozenset[str] = frozenset()
    option: str | None = None
    per: bool = False
    limit: bool = False


def pattern_row(
    code: str,
    name: str,
    fan: int,
    *,
    replaces: Iterable[str] = (),
    option: str | None = None,
    per: bool = False,
    limit: bool = False,
) -> PatternRow:
    return PatternRow(code, name, fan, frozenset(replaces), option, per, limit)


@attrs.frozen
class PatternScore:
    """One line of a fan breakdown: ``fan`` is the line's total (``count`` times the row)."""

    code: str
    name: str
    fan: int
    count: int = 1
    limit: bool = False


@attrs.frozen
class FanResult:
    """The evaluated hand: its fan, the breakdown, and the arrangement that scored best.

    ``limit`` is Hong Kong's limit hand (worth the limit whatever ``fan`` is); for Sichuan it
    is always false.
    """

    fan: int
    patterns: tuple[PatternScore, ...]
    arrangement: Arrangement
    limit: bool = False

    @property
    def codes(self) -> tuple[str, ...]:
        return tuple(p.code for p in self.patterns)


@attrs.frozen
class WallStatus:
    """What an empty wall's checks need about one player (rules.md "When the wall runs out").

    ``best_fan`` is the highest pattern fan + 根 over the waits, without situational add-ons;
    ``None`` when not ready.
    """

    flower_pig: bool
    ready: bool
    best_fan: int | None
    waits: tuple[Tile, ...] = ()


def score_patterns(
    table: Sequence[PatternRow], detected: dict[str, int]
) -> tuple[PatternScore, ...]:
    """Drop every detected row another detected row replaces, then score in table order."""
    replaced: set[str] = set()
    for code in detected:
        replaced |= _row_of(table, code).replaces
    scores: list[PatternScore] = []
    for row in table:
        count = detected.get(row.code, 0)
        if count and row.code not in replaced:
            scores.append(PatternScore(row.code, row.name, row.fan * count, count, row.limit))
    return tuple(scores)


def _row_of(table: Sequence[PatternRow], code: str) -> PatternRow:
    for row in table:
        if row.code == code:
            return row
    raise KeyError(code)  # pragma: no cover - a programming error, not bad input
