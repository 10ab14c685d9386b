"""One simulated hand's state, from the deal to its end: the table, the wall, the four seats,
the tiles in sight, and the events and records written so far — with what every part of the
play reads of it (who is next, what a win is worth, a player's plan, the hand as the rule
set's hooks see it). What the players choose is :mod:`.decisions`; the wins, :mod:`.wins`;
the turns, :mod:`.engine`, which plays a hand through them."""

from __future__ import annotations

import random
from collections.abc import Sequence
from typing import Final

from mjledger.log.events import WINDS, Event, MeldRecord
from mjledger.rules.protocol import WinContext, first_turn_wins
from mjledger.rules.state import HandState
from mjledger.sim import policy
from mjledger.sim.played import WallRecord, WinRecord
from mjledger.sim.table import SUIT_LETTERS, Seat, Table, meld_record, tile_meld, tiles_of
from mjledger.sim.wall import Wall
from mjledger.tiles.decompose import waits_from_counts
from mjledger.tiles.fan import FanResult
from mjledger.tiles.notation import TILES

__all__ = ["Hand"]

DRAGONS: Final = (1 << 31) | (1 << 32) | (1 << 33)


class Hand:
    """One hand from the deal to its end (mutable: the hand is one simulation);
    :func:`~mjledger.sim.engine.play_hand` fills ``events`` and the records."""

    def __init__(
        self, table: Table, rng: random.Random, number: int, dealer: int, wind: int
    ) -> None:
        self.table = table
        self.voids = table.ruleset.void_suits
        self.number = number
        self.dealer = dealer
        self.wind = wind
        self.wall = Wall(rng, table.play)
        self.seats = [Seat() for _ in range(4)]
        self.visible = [0] * 34
        self.untouched = True  # nothing claimed, konged or won yet: first turns still on
        self.events: list[Event] = []
        self.wins: list[WinRecord] = []
        self.walls: list[WallRecord] = []
        self.kongs = {"exposed": 0, "added": 0, "concealed": 0, "robbed": 0}
        self.winners: list[int] = []
        self.first_winners: tuple[int, ...] = ()
        self.first_from: int | None = None
        self.ended = False
        self.dealer_tile = -1
        self.new_discard_wins = 0  # wins marked new_discard (a deal-in right after a deal-in)

    def next_in(self, after: int) -> int:
        for step in range(1, 5):
            index = (after + step) % 4
            if not self.seats[index].out:
                return index
        raise AssertionError("nobody left in the hand")  # pragma: no cover

    def evaluate(
        self,
        index: int,
        counts: Sequence[int],
        tile: int,
        *,
        self_drawn: bool,
        bloom: bool = False,
        cannon: bool = False,
        robbing: bool = False,
        last: bool = False,
        first_turn: bool = False,
    ) -> FanResult:
        seat = self.seats[index]
        melds = tuple(tile_meld(m.kind, m.tile, m.concealed) for m in seat.melds)
        heavenly, earthly = first_turn_wins(first_turn, index == self.dealer and self_drawn)
        context = WinContext(
            winner=self.table.players[index],
            self_drawn=self_drawn,
            kong_bloom=bloom,
            kong_cannon=cannon,
            robbing_kong=robbing,
            last_tile=last,
            heavenly=heavenly,
            earthly=earthly,
            seat_wind=WINDS[(index - self.dealer) % 4],
            round_wind=WINDS[self.wind],
            void_suit=None if seat.void is None else SUIT_LETTERS[seat.void],
        )
        return self.table.ruleset.evaluate_win(tiles_of(counts), TILES[tile], melds, context)

    def enough(self, result: FanResult) -> bool:
        """A win reaches the table minimum (Hong Kong's ``min_fan``), or is a limit hand."""
        return result.limit or result.fan >= self.table.ruleset.minimum_fan()

    def melds_of(self, seat: Seat) -> tuple[MeldRecord, ...] | None:
        return tuple(meld_record(m) for m in seat.melds) or None

    def plan(self, index: int) -> policy.Plan:
        seat = self.seats[index]
        return policy.choose_plan(
            seat.counts,
            seat.melds,
            void=seat.void,
            value_tiles=self.value_tiles(index),
            seven_pairs=self.table.shapes.seven_pairs,
            aims_for_minimum=self.table.play.aims_for_minimum,
        )

    def value_tiles(self, index: int) -> int:
        if self.table.play.tile_kinds < 34:  # no honours in the wall
            return 0
        seat_wind = 27 + (index - self.dealer) % 4
        return DRAGONS | (1 << seat_wind) | (1 << (27 + self.wind))

    def refresh_mask(self, seat: Seat) -> None:
        seat.mask = waits_from_counts(seat.counts, len(seat.melds), self.table.shapes)

    def view(self) -> HandState:
        """The hand so far as the rule set's hooks read it: who has won, and the first win's
        winners and discarder (what ends a hand and moves the deal)."""
        players = self.table.players
        return HandState(
            ruleset=self.table.ruleset.name,
            rules=self.table.rules,
            players=players,
            number=self.number,
            dealer=players[self.dealer],
            winners=tuple(dict.fromkeys(players[i] for i in self.winners)),
            first_winners=tuple(players[i] for i in self.first_winners),
            first_discarder=None if self.first_from is None else players[self.first_from],
        )

    def next_dealer(self) -> int:
        """Who deals next, as the rule set says (``dealer_after``): every simulated
        ``hand_started`` names its dealer, so a replay checks the match fold's rotation
        against it."""
        return self.table.players.index(self.table.ruleset.dealer_after(self.view()))
