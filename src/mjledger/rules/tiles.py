"""Facts derived from tiles when a log carries them (log-format.md, "Tiles (optional)").

A backend may assert a win's fan and, at an empty wall, who is ready and how big their best
hand is; with tiles, mjledger derives those facts instead of trusting them. This module is the
bridge between the log's records (compact strings, ``MeldRecord``) and a rule set's evaluator
(:meth:`BaseRuleset.evaluate_win`, bound to the table): it reads the tiles a line shows and
refuses what no wall holds.
"""

from __future__ import annotations

from collections.abc import Iterable, Sequence
from typing import Final

from mjledger.errors import TileError
from mjledger.log.events import MeldRecord, SelfDrawn, WonOnDiscard
from mjledger.rules.base import BaseRuleset
from mjledger.rules.protocol import WinContext
from mjledger.tiles.decompose import tally, with_melds
from mjledger.tiles.fan import FanResult
from mjledger.tiles.notation import TILES, WINDS, Meld, Tile, format_tiles, parse_tiles


def melds_of(records: Iterable[MeldRecord] | None) -> tuple[Meld, ...]:
    if not records:  # most lines show no melds
        return ()
    return tuple(
        [Meld.parse(record.kind, record.tiles, concealed=record.concealed) for record in records]
    )


def shown_tiles(
    concealed: tuple[Tile, ...], winning: Tile | None, melds: tuple[Meld, ...]
) -> list[Tile]:
    """The tiles a line shows, read already: in hand, the winning tile, in melds."""
    shown = list(concealed)
    if winning is not None:
        shown.append(winning)
    for meld in melds:
        shown.extend(meld.tiles)
    return shown


def check_no_fifth_copy(tiles: Iterable[Tile]) -> None:
    """rules.md: a line that shows a tile more than four times is an error."""
    check_shown_counts(tally(tiles))


def check_shown_counts(counts: Sequence[int]) -> None:
    """:func:`check_no_fifth_copy` of a line whose tiles are counted already (``counts``)."""
    if _AT_MOST_FOUR.issuperset(counts):
        return
    first = next(i for i, n in enumerate(counts) if n > 4)  # the lowest tile shown too often
    raise TileError(
        f"the line shows {format_tiles([TILES[first]])} {counts[first]} times; "
        "there are only four of each tile"
    )


_AT_MOST_FOUR: Final = frozenset(range(5))


def seat_wind(players: tuple[str, ...], dealer: str, player: str) -> str:
    """The dealer sits east; the seats after the dealer in turn order are south, west, north."""
    return WINDS[(players.index(player) - players.index(dealer)) % 4]


def derive_win(
    table: BaseRuleset, event: WonOnDiscard | SelfDrawn, context: WinContext
) -> FanResult:
    """The fan of a win that carries its tiles (TileError when the tiles cannot win).

    The tiles are read once and counted once: the count of the hand (and the winning tile),
    with the melds' added, is the line's check of copies, and the hand's is given to the
    evaluator (``counts``), which would otherwise count the same tiles again."""
    if event.tiles is None or event.winning_tile is None:
        raise TileError("a win with tiles needs both 'tiles' and 'winning_tile'")
    melds = melds_of(event.melds)
    concealed = parse_tiles(event.tiles)  # read once, in the order of the line's errors
    winning = Tile.parse(event.winning_tile)
    counts = tally(concealed)
    counts[winning.index] += 1
    held = tuple(counts)
    check_shown_counts(with_melds(held, melds) if melds else counts)
    return table.evaluate_win(concealed, winning, melds, context, counts=held)
