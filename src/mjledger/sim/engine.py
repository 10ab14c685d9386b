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

This module is the turns (the deal, draw, kong, discard and claims, the end of the wall) and
the match; the hand's state is :mod:`.hand`, what the players choose :mod:`.decisions`, the
wins :mod:`.wins`, what was played :mod:`.played`.
"""

from __future__ import annotations

import random
from collections.abc import Sequence
from typing import Final

from mjledger.errors import SimulationError
from mjledger.log.events import (
    WINDS,
    Discarded,
    Event,
    HandStarted,
    KongDeclared,
    MatchStarted,
    PlayerAtWallEnd,
    RulesetName,
    VoidSuitChosen,
    WallExhausted,
)
from mjledger.rules.base import SimulatedPlay
from mjledger.rules.names import DEFAULT_RULESET
from mjledger.rules.protocol import HouseRules
from mjledger.rules.registry import find_ruleset, rulesets
from mjledger.sim import policy
from mjledger.sim.decisions import choose_claim, choose_discard, choose_kong
from mjledger.sim.hand import Hand
from mjledger.sim.played import SimulatedMatch, WallRecord, WallStatusName, WinRecord
from mjledger.sim.policy import SimMeld
from mjledger.sim.table import SUIT_LETTERS, Seat, Table, notation, tile_meld, tiles_of
from mjledger.sim.wins import discard_wins, self_draw, winners_on
from mjledger.tiles.notation import TILES

__all__ = ["DEFAULT_PLAYERS", "playable_rulesets", "simulate_match", "simulated_play"]


def play_hand(hand: Hand) -> None:
    """Play ``hand`` from the deal to its end: turns of draw, self-draw or kong, discard and
    the claims on it, until a win ends it or the wall runs out."""
    hand.events.append(HandStarted(dealer=hand.table.players[hand.dealer]))
    deal(hand)
    current = hand.dealer
    mode = "drawn"
    tile = hand.dealer_tile
    replacement = False
    while not hand.ended:
        seat = hand.seats[current]
        if mode == "draw":
            if hand.wall.playable == 0:
                wall_end(hand)
                break
            tile = hand.wall.draw()
            seat.counts[tile] += 1
            seat.drawn = tile
            seat.draws += 1
            replacement = False
            mode = "drawn"
        if mode == "drawn":
            if self_draw(hand, current, tile, replacement):
                if not hand.ended:
                    current, mode = hand.next_in(current), "draw"
                continue
            kong = choose_kong(hand, current)
            if kong is not None:
                kind, slot = kong
                if kind == "added":
                    robbers = winners_on(hand, current, slot, robbing=True)
                    if robbers:
                        seat.counts[slot] -= 1
                        hand.refresh_mask(seat)
                        hand.kongs["robbed"] += 1
                        discard_wins(hand, current, slot, robbers, robbing=True)
                        if not hand.ended:
                            current, mode = hand.next_in(robbers[-1][0]), "draw"
                        continue
                declare_kong(hand, current, kind, slot, None)
                tile = hand.wall.draw_replacement()
                seat.counts[tile] += 1
                seat.drawn = tile
                replacement = True
                continue
        # A discard: from a drawn hand, or right after claiming a pung or a chow.
        current, mode, tile, replacement = discard(hand, current)


def deal(hand: Hand) -> None:
    """Thirteen tiles each and the dealer's fourteenth, then the void suits (Sichuan)."""
    for _ in range(13):
        for k in range(4):
            seat = hand.seats[(hand.dealer + k) % 4]
            seat.counts[hand.wall.draw()] += 1
    dealer = hand.seats[hand.dealer]
    hand.dealer_tile = hand.wall.draw()
    dealer.counts[hand.dealer_tile] += 1
    dealer.draws = 1
    for k in range(4):
        index = (hand.dealer + k) % 4
        seat = hand.seats[index]
        if hand.voids:
            seat.void = policy.choose_void(seat.counts)
            hand.events.append(
                VoidSuitChosen(
                    player=hand.table.players[index],
                    suit=SUIT_LETTERS[seat.void],  # type: ignore[arg-type]
                )
            )
        if index != hand.dealer:
            hand.refresh_mask(seat)


def discard(hand: Hand, current: int) -> tuple[int, str, int, bool]:
    """Discard, then settle the claims on it; returns who acts next and how."""
    seat = hand.seats[current]
    slot = choose_discard(hand, current)
    seat.counts[slot] -= 1
    hand.refresh_mask(seat)
    last = hand.wall.playable == 0
    winners = winners_on(hand, current, slot, robbing=False, last=last)
    if winners:
        discard_wins(hand, current, slot, winners, robbing=False, last=last)
        return hand.next_in(winners[-1][0]), "draw", slot, False
    seat.kong_run = False
    claim = None if last else choose_claim(hand, current, slot)
    if claim is not None and claim[1] == "kong":
        who = claim[0]
        declare_kong(hand, who, "exposed", slot, current)
        tile = hand.wall.draw_replacement()
        hand.seats[who].counts[tile] += 1
        hand.seats[who].drawn = tile
        return who, "drawn", tile, True
    hand.events.append(Discarded(player=hand.table.players[current], tile=str(TILES[slot])))
    hand.visible[slot] += 1
    if claim is None:
        return hand.next_in(current), "draw", slot, False
    who, kind, low = claim
    claimer = hand.seats[who]
    meld = SimMeld(kind, low)  # type: ignore[arg-type]
    taken = list(meld.slots)
    taken.remove(slot)  # the discard itself; the rest come from the claimer's hand
    for s in taken:
        claimer.counts[s] -= 1
        hand.visible[s] += 1
    claimer.melds.append(meld)
    hand.untouched = False
    return who, "claimed", slot, False


def declare_kong(hand: Hand, index: int, kind: str, slot: int, discarder: int | None) -> None:
    """A kong made and logged: the meld, the tiles in sight, the hand's new waits."""
    seat = hand.seats[index]
    if kind == "added":
        seat.melds = [SimMeld("kong", slot) if m.tile == slot else m for m in seat.melds]
        seat.counts[slot] -= 1
        hand.visible[slot] += 1
    else:
        seat.counts[slot] -= 4 if kind == "concealed" else 3
        seat.melds.append(SimMeld("kong", slot, concealed=kind == "concealed"))
        hand.visible[slot] += 4
    # The hand changed: its waits are those of the hand after the kong. (A stale mask let a
    # player who then won on the replacement tile stay in, under blood flow, waiting on
    # tiles the hand no longer takes, and claim a win that was none.)
    hand.refresh_mask(seat)
    hand.events.append(
        KongDeclared(
            player=hand.table.players[index],
            kind=kind,  # type: ignore[arg-type]
            from_=None if discarder is None else hand.table.players[discarder],
            tile=str(TILES[slot]),
            from_hand=from_hand(hand, seat, kind, slot),
        )
    )
    hand.kongs[kind] += 1
    seat.kong_run = True
    hand.untouched = False
    if discarder is not None:
        hand.seats[discarder].kong_run = False


def from_hand(hand: Hand, seat: Seat, kind: str, slot: int) -> bool | None:
    """``from_hand`` of an added kong made with a tile held before this draw (variants.md,
    "Added kong from hand"), where the rule set's logs mark it; else None (not said)."""
    if kind != "added" or not hand.table.play.marks_kongs_from_hand:
        return None
    return True if seat.drawn != slot else None


def wall_end(hand: Hand) -> None:
    """The wall is empty: the hand ends, with the players the rule set checks shown."""
    hand.ended = True
    if not hand.table.ruleset.wall_remaining:
        hand.events.append(WallExhausted())
        return
    remaining: dict[str, PlayerAtWallEnd] = {}
    checked = hand.table.ruleset.wall_players(hand.view())
    for index, seat in enumerate(hand.seats):
        name = hand.table.players[index]
        if seat.out or name not in checked:
            continue
        remaining[name] = PlayerAtWallEnd(tiles=notation(seat.counts), melds=hand.melds_of(seat))
        assert seat.void is not None
        status = hand.table.ruleset.evaluate_wall(
            tiles_of(seat.counts),
            tuple(tile_meld(m.kind, m.tile, m.concealed) for m in seat.melds),
            SUIT_LETTERS[seat.void],
        )
        what: WallStatusName = (
            "flower_pig" if status.flower_pig else "ready" if status.ready else "not_ready"
        )
        hand.walls.append(WallRecord(hand.number, name, what, status.best_fan))
    hand.events.append(WallExhausted(remaining=remaining))


DEFAULT_PLAYERS: Final = ("ana", "bo", "cy", "di")


def _table(ruleset: str, rules: HouseRules, players: tuple[str, ...]) -> Table:
    """The table the simulator plays: the rule set bound to it, and how it is played."""
    play = simulated_play(ruleset)
    bound = find_ruleset(ruleset).bind(rules, players)
    return Table(bound, play, players, rules, bound.shapes(), not bound.winners_leave())


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
        hand = Hand(table, rng, played + 1, dealer, wind)
        play_hand(hand)
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
