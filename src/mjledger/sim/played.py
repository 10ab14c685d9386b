"""What a simulated match played: its log events in order, and the records of its wins, its
walls and its kongs that ``simulate --stats`` counts (:mod:`.stats`). Plain values, so that
the statistics need nothing of how the hands were played."""

from __future__ import annotations

from typing import Literal

import attrs

from mjledger.log.codec import dumps_event
from mjledger.log.events import Event

__all__ = ["SimulatedMatch", "WallRecord", "WallStatusName", "WinHow", "WinRecord"]

WinHow = Literal["discard", "self_drawn", "robbing_kong"]
WallStatusName = Literal["flower_pig", "ready", "not_ready"]


@attrs.frozen
class WinRecord:
    """One simulated win as the simulator scored it (the ledger derives the same from the log,
    or more where it infers a first-turn win the simulator did not count)."""

    hand: int
    player: str
    how: WinHow
    fan: int
    limit: bool
    codes: tuple[str, ...]


@attrs.frozen
class WallRecord:
    """A Sichuan player still in when the wall ran out, as the evaluator sees their tiles."""

    hand: int
    player: str
    status: WallStatusName
    best_fan: int | None


@attrs.frozen
class SimulatedMatch:
    """A simulated match: its log events in order, and what happened, for statistics."""

    match: str
    ruleset: str
    events: tuple[Event, ...]
    hands: int
    wins: tuple[WinRecord, ...]
    walls: tuple[WallRecord, ...]
    kongs: tuple[tuple[str, int], ...]  # (kind, count) for exposed, added, concealed, robbed
    void_hands: int = 0  # hands nobody won
    new_discard_wins: int = 0  # wins on a discarder's next discard after a win on their last

    def text(self) -> str:
        """The log: JSON Lines, one event a line, as the contract writes them."""
        return "".join(dumps_event(e) + "\n" for e in self.events)
