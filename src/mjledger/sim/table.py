"""The table a simulated hand is played at — the rule set bound to it, how the simulator plays
it, its shapes — and each player's seat (their tiles as counts per kind, melds, void suit,
waits). Tiles are counted by their index in :data:`~mjledger.tiles.notation.TILES`; the
helpers here turn counts and melds into the notation a log line writes."""

from __future__ import annotations

from collections.abc import Sequence
from functools import cache
from typing import Final

import attrs

from mjledger.log.events import MeldRecord
from mjledger.rules.base import BaseRuleset, SimulatedPlay
from mjledger.rules.protocol import HouseRules
from mjledger.sim.policy import SimMeld
from mjledger.tiles.decompose import Shapes
from mjledger.tiles.notation import TILES, Meld, Tile, format_tiles

__all__ = [
    "SUIT_LETTERS",
    "Seat",
    "Table",
    "meld_record",
    "notation",
    "notation_of",
    "tile_meld",
    "tiles_of",
]

SUIT_LETTERS: Final = "mps"


@cache
def tile_meld(kind: str, slot: int, concealed: bool) -> Meld:
    """A meld as the evaluator takes it (kept: a hand's melds are asked for at every win
    considered, and there are few kinds of meld)."""
    return Meld.parse(kind, notation_of(SimMeld(kind, slot, concealed).slots), concealed=concealed)  # type: ignore[arg-type]


def notation_of(slots: Sequence[int]) -> str:
    """Tiles given by their kinds' indices, in the log's notation."""
    return format_tiles(TILES[s] for s in slots)


def tiles_of(counts: Sequence[int]) -> tuple[Tile, ...]:
    """A hand held as counts per kind, as the tiles the evaluator reads (in kind order)."""
    return tuple(TILES[i] for i in range(34) for _ in range(counts[i]))


def notation(counts: Sequence[int]) -> str:
    """A hand held as counts per kind, in the log's notation (a win's ``tiles``)."""
    return format_tiles(tiles_of(counts))


def meld_record(meld: SimMeld) -> MeldRecord:
    """A meld as a log line records it."""
    return MeldRecord(meld.kind, notation_of(meld.slots), meld.concealed)


class Seat:
    """One player's side of the table during a hand (mutable: the hand is one simulation)."""

    __slots__ = (
        "counts",
        "drawn",
        "draws",
        "kong_run",
        "locked",
        "mask",
        "melds",
        "out",
        "void",
        "wins",
    )

    def __init__(self) -> None:
        self.counts = [0] * 34
        self.melds: list[SimMeld] = []
        self.void: int | None = None
        self.out = False
        self.draws = 0
        self.mask = 0  # the tiles that would complete the hand while it is one tile short
        self.kong_run = False  # a kong declared since this player's last discard
        self.drawn = -1  # the tile drawn last (a kong's replacement included)
        self.wins = 0
        self.locked = 0  # blood flow: the waits of the hand a player won with

    def void_tiles(self) -> int:
        if self.void is None:
            return 0
        return sum(self.counts[9 * self.void : 9 * self.void + 9])


@attrs.frozen
class Table:
    ruleset: BaseRuleset  # bound to the table
    play: SimulatedPlay
    players: tuple[str, ...]
    rules: HouseRules
    shapes: Shapes
    blood_flow: bool = False  # winners stay in until the wall is empty (Sichuan 血流成河)
