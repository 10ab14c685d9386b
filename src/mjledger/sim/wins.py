"""Wins in a simulated hand: a self-draw taken when the evaluator says it reaches the table
minimum, who wins on a discard (in turn order; only the first where the rule set has one
winner per discard), and each win written as the log line that records it and counted as
:class:`~mjledger.sim.played.WinRecord`. Under blood flow a winner stays in, locked to the
waits of the hand they won with."""

from __future__ import annotations

from mjledger.log.events import SelfDrawn, WonOnDiscard
from mjledger.sim.hand import Hand
from mjledger.sim.played import WinHow, WinRecord
from mjledger.sim.table import notation
from mjledger.tiles.decompose import waits_from_counts
from mjledger.tiles.fan import FanResult
from mjledger.tiles.notation import TILES

__all__ = ["discard_wins", "self_draw", "winners_on"]


def self_draw(hand: Hand, index: int, tile: int, replacement: bool) -> bool:
    seat = hand.seats[index]
    if seat.void_tiles():
        return False
    seat.counts[tile] -= 1
    mask = waits_from_counts(seat.counts, len(seat.melds), hand.table.shapes)
    if not mask >> tile & 1:
        seat.counts[tile] += 1
        return False
    first_turn = hand.untouched and seat.draws == 1 and not replacement
    result = hand.evaluate(
        index,
        seat.counts,
        tile,
        self_drawn=True,
        bloom=replacement,
        last=hand.wall.playable == 0,
        first_turn=first_turn,
    )
    if not hand.enough(result):
        seat.counts[tile] += 1
        return False
    hand.events.append(
        SelfDrawn(
            player=hand.table.players[index],
            tiles=notation(seat.counts),
            winning_tile=str(TILES[tile]),
            melds=hand.melds_of(seat),
            last_tile=hand.wall.playable == 0,
            first_turn=first_turn,
        )
    )
    record_win(hand, index, "self_drawn", result)
    won(hand, index, None, continuing=False)
    if hand.table.blood_flow:
        hand.visible[tile] += 1  # set aside face up; the hand it won with plays on
    return True


def winners_on(
    hand: Hand, discarder: int, tile: int, *, robbing: bool, last: bool = False
) -> list[tuple[int, FanResult]]:
    """Who wins on ``tile``, in turn order after the discarder (only the first where the
    rule set has one winner per discard)."""
    cannon = not robbing and hand.seats[discarder].kong_run
    found: list[tuple[int, FanResult]] = []
    for step in range(1, 4):
        index = (discarder + step) % 4
        seat = hand.seats[index]
        if seat.out or not seat.mask >> tile & 1 or seat.void_tiles():
            continue
        result = hand.evaluate(
            index,
            seat.counts,
            tile,
            self_drawn=False,
            cannon=bool(cannon),
            robbing=robbing,
            last=last,
        )
        if hand.enough(result):
            found.append((index, result))
            if hand.table.play.one_winner_per_discard:
                break
    return found


def follows_a_run(hand: Hand, discarder: int) -> bool:
    """Whether the log's line before is a win on ``discarder``'s tile: the discarder drew
    again right after it (the turn passed to them), so wins on this tile must say they
    are a new discard (log-format.md, "Several winners on one discard")."""
    previous = hand.events[-1]
    return isinstance(previous, WonOnDiscard) and previous.from_ == hand.table.players[discarder]


def discard_wins(
    hand: Hand,
    discarder: int,
    tile: int,
    winners: list[tuple[int, FanResult]],
    *,
    robbing: bool,
    last: bool = False,
) -> None:
    how: WinHow = "robbing_kong" if robbing else "discard"
    new_discard = follows_a_run(hand, discarder)
    if new_discard:
        hand.new_discard_wins += len(winners)
    for k, (index, result) in enumerate(winners):
        seat = hand.seats[index]
        hand.events.append(
            WonOnDiscard(
                player=hand.table.players[index],
                from_=hand.table.players[discarder],
                robbing_kong=robbing,
                tiles=notation(seat.counts),
                winning_tile=str(TILES[tile]),
                melds=hand.melds_of(seat),
                last_tile=last,
                new_discard=new_discard and k == 0,
            )
        )
        record_win(hand, index, how, result)
        won(hand, index, discarder, continuing=k > 0)
    hand.seats[discarder].kong_run = False
    if hand.table.blood_flow:
        hand.visible[tile] += 1  # the one tile, set aside face up by its winner(s)


def record_win(hand: Hand, index: int, how: WinHow, result: FanResult) -> None:
    hand.wins.append(
        WinRecord(
            hand.number, hand.table.players[index], how, result.fan, result.limit, result.codes
        )
    )


def won(hand: Hand, index: int, discarder: int | None, *, continuing: bool) -> None:
    seat = hand.seats[index]
    seat.wins += 1
    if hand.table.blood_flow:
        # The winner stays in with the hand they won with (the winning tile set aside).
        seat.locked = waits_from_counts(seat.counts, len(seat.melds), hand.table.shapes)
    else:
        seat.out = True
    hand.winners.append(index)
    hand.untouched = False
    if not hand.first_winners:
        hand.first_winners = (index,)
        hand.first_from = discarder
    elif continuing and len(hand.winners) == len(hand.first_winners) + 1:
        hand.first_winners = (*hand.first_winners, index)
    if hand.table.ruleset.hand_ends_after_win(hand.view()):
        hand.ended = True
