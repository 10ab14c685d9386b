"""Play whole hands and matches tile by tile, and write down what the log contract records.

One hand is a small state machine over a seeded :class:`~mjledger.sim.wall.Wall`: deal, void
suits (Sichuan), then turns of draw → self-draw or kong → discard → claims (wins first, then
an exposed kong or a pung, then a Hong Kong chow). What the contract records goes into the log
as events, each win and each Sichuan wall entry with its tiles, so that every fan and every
end-of-wall fact in a simulated log is derived by mjledger, never asserted:

* every discard nobody claims, and every discard claimed for a pung or a chow (those claims
  are not events, the discard is); a discard claimed for a win or an exposed kong is implied
  by that line, as the contract says;
* every kong, in Hong Kong too; a robbed kong is not logged (the robbing win stands for it);
* ``last_tile`` on a win on the wall's last tile (or on the discard after drawing it).

Under Sichuan blood flow (variants.md, ``blood_flow``) nobody leaves: a winner's winning tile
is set aside face up, and they play on with the hand they won with — the drawn tile goes
straight back out, unless it wins again or makes a kong that keeps the very same waits — until
the wall is empty, where all four players' hands are shown.

Wins are decided with the project's own evaluator (a Hong Kong win must reach ``min_fan``);
first-turn wins are counted only when nothing at all has been claimed yet, never more often
than the ledger infers them from the log, so a win the simulator declares is always legal.
The simulator does not replay its own output: the tests do.
"""

from __future__ import annotations

import random
from collections.abc import Sequence
from functools import cache
from typing import Final, Literal

import attrs

from mjledger.errors import SimulationError
from mjledger.log.codec import dumps_event
from mjledger.log.events import (
    WINDS,
    Discarded,
    Event,
    HandStarted,
    KongDeclared,
    MatchStarted,
    MeldRecord,
    PlayerAtWallEnd,
    RulesetName,
    SelfDrawn,
    VoidSuitChosen,
    WallExhausted,
    WonOnDiscard,
)
from mjledger.rules.base import BaseRuleset, SimulatedPlay
from mjledger.rules.names import DEFAULT_RULESET
from mjledger.rules.protocol import HouseRules, WinContext
from mjledger.rules.registry import find_ruleset, rulesets
from mjledger.rules.state import HandState
from mjledger.sim import policy
from mjledger.sim.policy import SimMeld, suit_mask
from mjledger.sim.wall import Wall
from mjledger.tiles.decompose import Shapes, waits_from_counts
from mjledger.tiles.fan import FanResult
from mjledger.tiles.notation import TILES, Meld, Tile, format_tiles

SUIT_LETTERS: Final = "mps"
DRAGONS: Final = (1 << 31) | (1 << 32) | (1 << 33)

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


@cache
def _meld(kind: str, slot: int, concealed: bool) -> Meld:
    return Meld.parse(kind, _notation_of(SimMeld(kind, slot, concealed).slots), concealed=concealed)  # type: ignore[arg-type]


def _notation_of(slots: Sequence[int]) -> str:
    return format_tiles(TILES[s] for s in slots)


def _tiles_of(counts: Sequence[int]) -> tuple[Tile, ...]:
    return tuple(TILES[i] for i in range(34) for _ in range(counts[i]))


def _notation(counts: Sequence[int]) -> str:
    return format_tiles(_tiles_of(counts))


def _meld_record(meld: SimMeld) -> MeldRecord:
    return MeldRecord(meld.kind, _notation_of(meld.slots), meld.concealed)


class _Seat:
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
class _Table:
    ruleset: BaseRuleset  # bound to the table
    play: SimulatedPlay
    players: tuple[str, ...]
    rules: HouseRules
    shapes: Shapes
    blood_flow: bool = False  # winners stay in until the wall is empty (Sichuan 血流成河)


class _Hand:
    """One hand from the deal to its end; :meth:`play` fills ``events`` and the records."""

    def __init__(
        self, table: _Table, rng: random.Random, number: int, dealer: int, wind: int
    ) -> None:
        self.table = table
        self.voids = table.ruleset.void_suits
        self.number = number
        self.dealer = dealer
        self.wind = wind
        self.wall = Wall(rng, table.play)
        self.seats = [_Seat() for _ in range(4)]
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
        self._dealer_tile = -1
        self.new_discard_wins = 0  # wins marked new_discard (a deal-in right after a deal-in)

    # --- the flow of a hand -------------------------------------------------------------------

    def play(self) -> None:
        self.events.append(HandStarted(dealer=self.table.players[self.dealer]))
        self._deal()
        current = self.dealer
        mode = "drawn"
        tile = self._dealer_tile
        replacement = False
        while not self.ended:
            seat = self.seats[current]
            if mode == "draw":
                if self.wall.playable == 0:
                    self._wall_end()
                    break
                tile = self.wall.draw()
                seat.counts[tile] += 1
                seat.drawn = tile
                seat.draws += 1
                replacement = False
                mode = "drawn"
            if mode == "drawn":
                if self._self_draw(current, tile, replacement):
                    if not self.ended:
                        current, mode = self._next_in(current), "draw"
                    continue
                kong = self._choose_kong(current)
                if kong is not None:
                    kind, slot = kong
                    if kind == "added":
                        robbers = self._winners_on(current, slot, robbing=True)
                        if robbers:
                            seat.counts[slot] -= 1
                            self._refresh_mask(seat)
                            self.kongs["robbed"] += 1
                            self._discard_wins(current, slot, robbers, robbing=True)
                            if not self.ended:
                                current, mode = self._next_in(robbers[-1][0]), "draw"
                            continue
                    self._declare_kong(current, kind, slot, None)
                    tile = self.wall.draw_replacement()
                    seat.counts[tile] += 1
                    seat.drawn = tile
                    replacement = True
                    continue
            # A discard: from a drawn hand, or right after claiming a pung or a chow.
            current, mode, tile, replacement = self._discard(current)

    def _deal(self) -> None:
        for _ in range(13):
            for k in range(4):
                seat = self.seats[(self.dealer + k) % 4]
                seat.counts[self.wall.draw()] += 1
        dealer = self.seats[self.dealer]
        self._dealer_tile = self.wall.draw()
        dealer.counts[self._dealer_tile] += 1
        dealer.draws = 1
        for k in range(4):
            index = (self.dealer + k) % 4
            seat = self.seats[index]
            if self.voids:
                seat.void = policy.choose_void(seat.counts)
                self.events.append(
                    VoidSuitChosen(
                        player=self.table.players[index],
                        suit=SUIT_LETTERS[seat.void],  # type: ignore[arg-type]
                    )
                )
            if index != self.dealer:
                self._refresh_mask(seat)

    def _discard(self, current: int) -> tuple[int, str, int, bool]:
        """Discard, then settle the claims on it; returns who acts next and how."""
        seat = self.seats[current]
        slot = self._choose_discard(current)
        seat.counts[slot] -= 1
        self._refresh_mask(seat)
        last = self.wall.playable == 0
        winners = self._winners_on(current, slot, robbing=False, last=last)
        if winners:
            self._discard_wins(current, slot, winners, robbing=False, last=last)
            return self._next_in(winners[-1][0]), "draw", slot, False
        seat.kong_run = False
        claim = None if last else self._claim(current, slot)
        if claim is not None and claim[1] == "kong":
            who = claim[0]
            self._declare_kong(who, "exposed", slot, current)
            tile = self.wall.draw_replacement()
            self.seats[who].counts[tile] += 1
            self.seats[who].drawn = tile
            return who, "drawn", tile, True
        self.events.append(Discarded(player=self.table.players[current], tile=str(TILES[slot])))
        self.visible[slot] += 1
        if claim is None:
            return self._next_in(current), "draw", slot, False
        who, kind, low = claim
        claimer = self.seats[who]
        meld = SimMeld(kind, low)  # type: ignore[arg-type]
        taken = list(meld.slots)
        taken.remove(slot)  # the discard itself; the rest come from the claimer's hand
        for s in taken:
            claimer.counts[s] -= 1
            self.visible[s] += 1
        claimer.melds.append(meld)
        self.untouched = False
        return who, "claimed", slot, False

    def _next_in(self, after: int) -> int:
        for step in range(1, 5):
            index = (after + step) % 4
            if not self.seats[index].out:
                return index
        raise AssertionError("nobody left in the hand")  # pragma: no cover

    # --- wins ---------------------------------------------------------------------------------

    def _evaluate(
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
        melds = tuple(_meld(m.kind, m.tile, m.concealed) for m in seat.melds)
        context = WinContext(
            winner=self.table.players[index],
            self_drawn=self_drawn,
            kong_bloom=bloom,
            kong_cannon=cannon,
            robbing_kong=robbing,
            last_tile=last,
            heavenly=first_turn and index == self.dealer,
            earthly=first_turn and index != self.dealer,
            seat_wind=WINDS[(index - self.dealer) % 4],
            round_wind=WINDS[self.wind],
            void_suit=None if seat.void is None else SUIT_LETTERS[seat.void],
        )
        return self.table.ruleset.evaluate_win(_tiles_of(counts), TILES[tile], melds, context)

    def _enough(self, result: FanResult) -> bool:
        """A win reaches the table minimum (Hong Kong's ``min_fan``), or is a limit hand."""
        return result.limit or result.fan >= self.table.ruleset.minimum_fan()

    def _self_draw(self, index: int, tile: int, replacement: bool) -> bool:
        seat = self.seats[index]
        if seat.void_tiles():
            return False
        seat.counts[tile] -= 1
        mask = waits_from_counts(seat.counts, len(seat.melds), self.table.shapes)
        if not mask >> tile & 1:
            seat.counts[tile] += 1
            return False
        first_turn = self.untouched and seat.draws == 1 and not replacement
        result = self._evaluate(
            index,
            seat.counts,
            tile,
            self_drawn=True,
            bloom=replacement,
            last=self.wall.playable == 0,
            first_turn=first_turn,
        )
        if not self._enough(result):
            seat.counts[tile] += 1
            return False
        self.events.append(
            SelfDrawn(
                player=self.table.players[index],
                tiles=_notation(seat.counts),
                winning_tile=str(TILES[tile]),
                melds=self._melds_of(seat),
                last_tile=self.wall.playable == 0,
                first_turn=first_turn,
            )
        )
        self._record_win(index, "self_drawn", result)
        self._won(index, None, continuing=False)
        if self.table.blood_flow:
            self.visible[tile] += 1  # set aside face up; the hand it won with plays on
        return True

    def _winners_on(
        self, discarder: int, tile: int, *, robbing: bool, last: bool = False
    ) -> list[tuple[int, FanResult]]:
        """Who wins on ``tile``, in turn order after the discarder (only the first where the
        rule set has one winner per discard)."""
        cannon = not robbing and self.seats[discarder].kong_run
        found: list[tuple[int, FanResult]] = []
        for step in range(1, 4):
            index = (discarder + step) % 4
            seat = self.seats[index]
            if seat.out or not seat.mask >> tile & 1 or seat.void_tiles():
                continue
            result = self._evaluate(
                index,
                seat.counts,
                tile,
                self_drawn=False,
                cannon=bool(cannon),
                robbing=robbing,
                last=last,
            )
            if self._enough(result):
                found.append((index, result))
                if self.table.play.one_winner_per_discard:
                    break
        return found

    def _follows_a_run(self, discarder: int) -> bool:
        """Whether the log's line before is a win on ``discarder``'s tile: the discarder drew
        again right after it (the turn passed to them), so wins on this tile must say they
        are a new discard (log-format.md, "Several winners on one discard")."""
        previous = self.events[-1]
        return (
            isinstance(previous, WonOnDiscard) and previous.from_ == self.table.players[discarder]
        )

    def _discard_wins(
        self,
        discarder: int,
        tile: int,
        winners: list[tuple[int, FanResult]],
        *,
        robbing: bool,
        last: bool = False,
    ) -> None:
        how: WinHow = "robbing_kong" if robbing else "discard"
        new_discard = self._follows_a_run(discarder)
        if new_discard:
            self.new_discard_wins += len(winners)
        for k, (index, result) in enumerate(winners):
            seat = self.seats[index]
            self.events.append(
                WonOnDiscard(
                    player=self.table.players[index],
                    from_=self.table.players[discarder],
                    robbing_kong=robbing,
                    tiles=_notation(seat.counts),
                    winning_tile=str(TILES[tile]),
                    melds=self._melds_of(seat),
                    last_tile=last,
                    new_discard=new_discard and k == 0,
                )
            )
            self._record_win(index, how, result)
            self._won(index, discarder, continuing=k > 0)
        self.seats[discarder].kong_run = False
        if self.table.blood_flow:
            self.visible[tile] += 1  # the one tile, set aside face up by its winner(s)

    def _melds_of(self, seat: _Seat) -> tuple[MeldRecord, ...] | None:
        return tuple(_meld_record(m) for m in seat.melds) or None

    def _record_win(self, index: int, how: WinHow, result: FanResult) -> None:
        self.wins.append(
            WinRecord(
                self.number, self.table.players[index], how, result.fan, result.limit, result.codes
            )
        )

    def _won(self, index: int, discarder: int | None, *, continuing: bool) -> None:
        seat = self.seats[index]
        seat.wins += 1
        if self.table.blood_flow:
            # The winner stays in with the hand they won with (the winning tile set aside).
            seat.locked = waits_from_counts(seat.counts, len(seat.melds), self.table.shapes)
        else:
            seat.out = True
        self.winners.append(index)
        self.untouched = False
        if not self.first_winners:
            self.first_winners = (index,)
            self.first_from = discarder
        elif continuing and len(self.winners) == len(self.first_winners) + 1:
            self.first_winners = (*self.first_winners, index)
        if self.table.ruleset.hand_ends_after_win(self.view()):
            self.ended = True

    # --- kongs and claims ---------------------------------------------------------------------

    def _keeps_ready(self, seat: _Seat, remove: int, slot: int, melds: int) -> bool:
        """Whether a ready hand stays ready when ``remove`` copies of ``slot`` go to a kong
        (``melds``: how many melds it then has). On one's own turn the hand holds a tile
        more, and is ready when some discard leaves it ready."""
        counts = seat.counts
        own_turn = sum(counts) + 3 * len(seat.melds) == 14
        if own_turn:
            candidates = [s for s in range(34) if counts[s]]
            shapes = self.table.shapes
            ready = bool(policy.ready_discards(counts, len(seat.melds), shapes, candidates))
        else:
            ready = bool(seat.mask)
        if not ready:
            return True
        counts[slot] -= remove
        after = waits_from_counts(counts, melds, self.table.shapes)
        counts[slot] += remove
        return bool(after)

    def _keeps_waits(self, seat: _Seat, remove: int, slot: int, melds: int) -> bool:
        """Blood flow: whether a winner's kong of ``slot`` (``remove`` copies from the hand,
        ``melds`` melds after it) leaves exactly the waits they won with."""
        seat.counts[slot] -= remove
        after = waits_from_counts(seat.counts, melds, self.table.shapes)
        seat.counts[slot] += remove
        return after == seat.locked

    def _winner_kong(self, seat: _Seat) -> tuple[str, int] | None:
        """A winner (blood flow) may kong only the tile just drawn, and only if the hand they
        won with keeps its waits; the hand itself never changes."""
        slot = seat.drawn
        if any(m.kind == "pung" and m.tile == slot for m in seat.melds):
            return "added", slot
        if (
            seat.counts[slot] == 4
            and len(seat.melds) < 4
            and self._keeps_waits(seat, 4, slot, len(seat.melds) + 1)
        ):
            return "concealed", slot
        return None

    def _choose_kong(self, index: int) -> tuple[str, int] | None:
        seat = self.seats[index]
        if self.wall.playable == 0:
            return None
        if seat.wins and self.table.blood_flow:
            return self._winner_kong(seat)
        for meld in seat.melds:
            if (
                meld.kind == "pung"
                and seat.counts[meld.tile]
                and self._keeps_ready(seat, 1, meld.tile, len(seat.melds))
            ):
                return "added", meld.tile
        if len(seat.melds) == 4:
            return None
        for slot in range(34):
            if seat.counts[slot] == 4:
                if seat.void is not None and slot // 9 == seat.void:
                    continue
                if self._plan(index).shape == "pairs":
                    continue
                if self._keeps_ready(seat, 4, slot, len(seat.melds) + 1):
                    return "concealed", slot
        return None

    def _declare_kong(self, index: int, kind: str, slot: int, discarder: int | None) -> None:
        seat = self.seats[index]
        if kind == "added":
            seat.melds = [SimMeld("kong", slot) if m.tile == slot else m for m in seat.melds]
            seat.counts[slot] -= 1
            self.visible[slot] += 1
        else:
            seat.counts[slot] -= 4 if kind == "concealed" else 3
            seat.melds.append(SimMeld("kong", slot, concealed=kind == "concealed"))
            self.visible[slot] += 4
        # The hand changed: its waits are those of the hand after the kong. (A stale mask let a
        # player who then won on the replacement tile stay in, under blood flow, waiting on
        # tiles the hand no longer takes, and claim a win that was none.)
        self._refresh_mask(seat)
        self.events.append(
            KongDeclared(
                player=self.table.players[index],
                kind=kind,  # type: ignore[arg-type]
                from_=None if discarder is None else self.table.players[discarder],
                tile=str(TILES[slot]),
                from_hand=self._from_hand(seat, kind, slot),
            )
        )
        self.kongs[kind] += 1
        seat.kong_run = True
        self.untouched = False
        if discarder is not None:
            self.seats[discarder].kong_run = False

    def _from_hand(self, seat: _Seat, kind: str, slot: int) -> bool | None:
        """``from_hand`` of an added kong made with a tile held before this draw (variants.md,
        "Added kong from hand"), where the rule set's logs mark it; else None (not said)."""
        if kind != "added" or not self.table.play.marks_kongs_from_hand:
            return None
        return True if seat.drawn != slot else None

    def _claim(self, discarder: int, slot: int) -> tuple[int, str, int] | None:
        """An exposed kong or a pung by whoever holds the tile, else a chow where the rule set
        has them."""
        for step in range(1, 4):
            index = (discarder + step) % 4
            seat = self.seats[index]
            held = seat.counts[slot]
            if seat.out or held < 2 or (seat.void is not None and slot // 9 == seat.void):
                continue
            if seat.wins and self.table.blood_flow:
                # A winner's hand does not change: a kong that keeps its waits, never a pung.
                if (
                    held == 3
                    and self.wall.playable > 0
                    and len(seat.melds) < 4
                    and self._keeps_waits(seat, 3, slot, len(seat.melds) + 1)
                ):
                    return index, "kong", slot
                return None
            plan = self._plan(index)
            if plan.shape == "pairs" or len(seat.melds) == 4:
                return None
            if (
                held == 3
                and self.wall.playable > 0
                and self._keeps_ready(seat, 3, slot, len(seat.melds) + 1)
            ):
                return index, "kong", slot
            if seat.mask or not plan.keep >> slot & 1:
                return None
            if self._wants_pung(seat, slot, plan):
                return index, "pung", slot
            return None
        if not self.table.play.chows:
            return None
        index = (discarder + 1) % 4
        seat = self.seats[index]
        if seat.mask or len(seat.melds) == 4:
            return None
        low = policy.chow_claim(seat.counts, slot, self._plan(index))
        return None if low is None else (index, "chow", low)

    def _wants_pung(self, seat: _Seat, slot: int, plan: policy.Plan) -> bool:
        if plan.shape == "pungs" or plan.name in ("full_flush", "mixed_one_suit"):
            return True
        if slot >= 27:
            return True
        rank = slot % 9
        below = rank > 0 and seat.counts[slot - 1]
        above = rank < 8 and seat.counts[slot + 1]
        lonely = not below and not above
        pairs = sum(1 for c in seat.counts if c >= 2)
        return lonely or pairs >= 3

    # --- discards -----------------------------------------------------------------------------

    def _value_tiles(self, index: int) -> int:
        if self.table.play.tile_kinds < 34:  # no honours in the wall
            return 0
        seat_wind = 27 + (index - self.dealer) % 4
        return DRAGONS | (1 << seat_wind) | (1 << (27 + self.wind))

    def _plan(self, index: int) -> policy.Plan:
        seat = self.seats[index]
        return policy.choose_plan(
            seat.counts,
            seat.melds,
            void=seat.void,
            value_tiles=self._value_tiles(index),
            seven_pairs=self.table.shapes.seven_pairs,
            aims_for_minimum=self.table.play.aims_for_minimum,
        )

    def _choose_discard(self, index: int) -> int:
        seat = self.seats[index]
        if seat.wins and self.table.blood_flow:
            # Blood flow: a winner plays on with the hand they won with; what they draw goes.
            assert seat.counts[seat.drawn] > 0
            return seat.drawn
        counts = seat.counts
        candidates = [s for s in range(34) if counts[s]]
        if seat.void_tiles():
            voids = [s for s in candidates if s // 9 == seat.void]
            others = [s for s in candidates if s // 9 != seat.void]
            if others and self._dangerous(index, seat.void):  # type: ignore[arg-type]
                return policy.heuristic_discard(counts, others, self._plan(index))
            return min(voids, key=lambda s: (counts[s], s))
        ready = policy.ready_discards(counts, len(seat.melds), self.table.shapes, candidates)
        best: tuple[tuple[int, ...], int] | None = None
        for slot, mask in ready:
            key = self._ready_value(index, slot, mask)
            if key is not None and (best is None or key > best[0]):
                best = (key, slot)
        if best is not None:
            return best[1]
        return policy.heuristic_discard(
            counts, candidates, self._plan(index), self._value_tiles(index)
        )

    def _ready_value(self, index: int, slot: int, mask: int) -> tuple[int, ...] | None:
        """How good the ready hand left by discarding ``slot`` is: (wins on a discard, fan,
        live waits); ``None`` if no wait wins at all (Hong Kong, below the minimum)."""
        seat = self.seats[index]
        seat.counts[slot] -= 1
        live = 0
        best_fan = -1
        on_discard = 0
        try:
            for wait in range(34):
                if not mask >> wait & 1:
                    continue
                unseen = 4 - seat.counts[wait] - self.visible[wait]
                if unseen <= 0:
                    continue
                result = self._evaluate(index, seat.counts, wait, self_drawn=False)
                fan = 99 if result.limit else result.fan
                if not self._enough(result):
                    drawn = self._evaluate(index, seat.counts, wait, self_drawn=True)
                    if not self._enough(drawn):
                        continue
                else:
                    on_discard = 1
                live += unseen
                best_fan = max(best_fan, fan)
        finally:
            seat.counts[slot] += 1
        if best_fan < 0:
            return None
        return (on_discard, best_fan, live, -slot)

    def _dangerous(self, index: int, suit: int) -> bool:
        """A void tile is held back (at the risk of ending a flower pig) while an opponent
        still in shows three or more melds, all of that suit: a flush is being built."""
        mask = suit_mask(suit)
        for other, seat in enumerate(self.seats):
            if other == index or seat.out or len(seat.melds) < 3:
                continue
            if all(mask >> m.tile & 1 for m in seat.melds):
                return True
        return False

    def _refresh_mask(self, seat: _Seat) -> None:
        seat.mask = waits_from_counts(seat.counts, len(seat.melds), self.table.shapes)

    # --- the end of the wall ------------------------------------------------------------------

    def _wall_end(self) -> None:
        self.ended = True
        if not self.table.ruleset.wall_remaining:
            self.events.append(WallExhausted())
            return
        remaining: dict[str, PlayerAtWallEnd] = {}
        checked = self.table.ruleset.wall_players(self.view())
        for index, seat in enumerate(self.seats):
            name = self.table.players[index]
            if seat.out or name not in checked:
                continue
            remaining[name] = PlayerAtWallEnd(
                tiles=_notation(seat.counts), melds=self._melds_of(seat)
            )
            assert seat.void is not None
            status = self.table.ruleset.evaluate_wall(
                _tiles_of(seat.counts),
                tuple(_meld(m.kind, m.tile, m.concealed) for m in seat.melds),
                SUIT_LETTERS[seat.void],
            )
            what: WallStatusName = (
                "flower_pig" if status.flower_pig else "ready" if status.ready else "not_ready"
            )
            self.walls.append(WallRecord(self.number, name, what, status.best_fan))
        self.events.append(WallExhausted(remaining=remaining))

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


DEFAULT_PLAYERS: Final = ("ana", "bo", "cy", "di")


def _table(ruleset: str, rules: HouseRules, players: tuple[str, ...]) -> _Table:
    """The table the simulator plays: the rule set bound to it, and how it is played."""
    play = simulated_play(ruleset)
    bound = find_ruleset(ruleset).bind(rules, players)
    return _Table(bound, play, players, rules, bound.shapes(), not bound.winners_leave())


def simulated_play(ruleset: str) -> SimulatedPlay:
    """How the simulator plays ``ruleset``: :class:`UnknownRulesetError` for a name nobody
    registered, as everywhere, and :class:`SimulationError` for a rule set that offers no
    simulated play."""
    play = find_ruleset(ruleset).simulated_play
    if play is None:
        raise SimulationError(
            "the simulator plays rule sets with a simulated play "
            f"({', '.join(playable_rulesets())}), not {ruleset!r}"
        )
    return play


def playable_rulesets() -> tuple[str, ...]:
    """The rule sets the simulator plays (those with a simulated play), the default first."""
    names = [r.name for r in rulesets() if r.simulated_play is not None]
    return tuple(sorted(names, key=lambda name: name != DEFAULT_RULESET))


def simulate_match(
    ruleset: str,
    *,
    hands: int,
    rng: random.Random,
    match_id: str,
    players: Sequence[str] = DEFAULT_PLAYERS,
    rules: HouseRules,
) -> SimulatedMatch:
    """Play one match: ``hands`` hands in Sichuan; in Hong Kong until the north round ends,
    at most ``hands`` hands. The log names every house rule, defaults included."""
    table = _table(ruleset, rules, tuple(players))
    events: list[Event] = [
        MatchStarted(
            ruleset=RulesetName(ruleset), players=table.players, match=match_id, rules=rules
        )
    ]
    wins: list[WinRecord] = []
    walls: list[WallRecord] = []
    kongs = {"exposed": 0, "added": 0, "concealed": 0, "robbed": 0}
    dealer = 0
    wind = 0
    played = 0
    void_hands = 0
    new_discard_wins = 0
    while played < hands:
        hand = _Hand(table, rng, played + 1, dealer, wind)
        hand.play()
        played += 1
        events.extend(hand.events)
        wins.extend(hand.wins)
        walls.extend(hand.walls)
        for kind, count in hand.kongs.items():
            kongs[kind] += count
        void_hands += not hand.winners
        new_discard_wins += hand.new_discard_wins
        following = hand.next_dealer()
        if table.ruleset.round_ends(hand.view(), table.players[following], table.players[0]):
            if wind == len(WINDS) - 1:
                break
            wind += 1
        dealer = following
    return SimulatedMatch(
        match=match_id,
        ruleset=ruleset,
        events=tuple(events),
        hands=played,
        wins=tuple(wins),
        walls=tuple(walls),
        kongs=tuple(kongs.items()),
        void_hands=void_hands,
        new_discard_wins=new_discard_wins,
    )
