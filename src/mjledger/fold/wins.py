"""A win folded into the hand in play: how it happened (its :class:`WinContext`, read off
the hand so far, since the log never says it outright), the fan it is paid on — asserted,
or derived from its tiles, and held to the table's minimum in one place —, the first-turn
flag checked against the hand, and the win recorded (a run of wins on one discard, the
winners, who is still in). What the win is worth and who pays it, the rule set answers."""

from __future__ import annotations

from typing import Final

from mjledger._replace import constructor, replacer
from mjledger.errors import RuleError, TileError
from mjledger.fold.dues import close_open_wins, pay, transfers_of
from mjledger.fold.in_play import HandFold
from mjledger.fold.refusals import check_in_play, refusal
from mjledger.log.events import SelfDrawn, WonOnDiscard, win_has_tiles
from mjledger.rules.base import BaseRuleset
from mjledger.rules.protocol import WinContext, first_turn_wins
from mjledger.rules.registry import table_of
from mjledger.rules.state import HandState
from mjledger.rules.table import FirstTurnFacts, first_turn_problem
from mjledger.rules.tiles import derive_win, seat_wind
from mjledger.rules.values import HandView, OpenWins, Reason, still_in_of, void_suit_of

__all__ = ["win_fan", "won"]

_replace_run: Final = replacer(OpenWins)
# The values every win makes, built without running attrs' ``__init__``.
_new_context: Final = constructor(WinContext)
_new_run: Final = constructor(OpenWins)


def win_fan(
    hand: HandState, event: WonOnDiscard | SelfDrawn, line: int | None = None
) -> tuple[int | None, bool]:
    """The fan ``event`` is paid on in ``hand`` (derived from its tiles where it shows them)
    and whether it is a limit hand — exactly what the fold settles it on. A hook for
    explanations (:mod:`mjledger.explain`), which rebuild the arithmetic of each step."""
    table = table_of(hand.ruleset, hand.rules, hand.players)
    return _fan_of(table, hand, event, _win_context(hand, event), line)


def _win_context(hand: HandView, event: WonOnDiscard | SelfDrawn) -> WinContext:
    """How the win happened, read off the hand so far (the log never says it outright)."""
    winner = event.player
    if isinstance(event, SelfDrawn):
        self_drawn, discarder, kong_cannon, robbing_kong = True, None, False, False
        kong_bloom = hand.last_kong_by == winner
        # The replacement tile of the winner's exposed kong: that kong was the hand's last line.
        fed_by = hand.kongs[-1].fed_by if kong_bloom else None
        dealer_self_draw = winner == hand.dealer
    else:
        self_drawn, discarder, kong_bloom, fed_by = False, event.from_, False, None
        robbing_kong = event.robbing_kong
        kong_cannon = not robbing_kong and bool(hand.kong_runs[hand.players.index(discarder)])
        dealer_self_draw = False
    heavenly, earthly = first_turn_wins(event.first_turn, dealer_self_draw)
    return _new_context(
        winner=winner,
        discarder=discarder,
        self_drawn=self_drawn,
        kong_bloom=kong_bloom,
        kong_cannon=kong_cannon,
        robbing_kong=robbing_kong,
        last_tile=event.last_tile,
        heavenly=heavenly,
        earthly=earthly,
        liable=event.liable,
        fed_by=fed_by,
        seat_wind=seat_wind(hand.players, hand.dealer, winner),
        round_wind=hand.round_wind,
        void_suit=void_suit_of(hand.void_suits, winner),
    )


def _fan_of(
    table: BaseRuleset,
    hand: HandView,
    event: WonOnDiscard | SelfDrawn,
    context: WinContext,
    line: int | None,
) -> tuple[int | None, bool]:
    """The fan a win is paid on and whether it is a limit hand. The one place that holds
    every win to the table's minimum fan, asserted or from tiles (a limit hand always may)."""
    has_tiles = win_has_tiles(event)
    fan, limit = table.claimed_fan(event.fan, event.limit, has_tiles=has_tiles)
    if not has_tiles:
        minimum = table.minimum_fan()
        if not limit and fan is not None and fan < minimum:
            raise refusal(
                event,
                line,
                f"fan {fan} is below the table minimum of {minimum}",
                "below_minimum_fan",
            )
        return fan, limit
    return _fan_from_tiles(table, event, context, line)


def _fan_from_tiles(
    table: BaseRuleset, event: WonOnDiscard | SelfDrawn, context: WinContext, line: int | None
) -> tuple[int | None, bool]:
    """The fan a win with tiles is paid on: the tiles', which the log may only repeat."""

    def refuse(problem: str, code: str = "bad_tiles") -> RuleError:
        return refusal(event, line, problem, code)

    try:
        result = derive_win(table, event, context)
    except TileError as exc:
        raise refuse(str(exc)) from None
    breakdown = ", ".join(f"{p.code} {p.fan}" for p in result.patterns)
    if result.limit:
        # A limit hand is worth the limit "whatever its fan" (rules.md), so a fan given with
        # "limit": true is not compared; a fan given as a plain win contradicts the tiles.
        if event.fan is not None and not event.limit:
            raise refuse(
                f"the log gives fan {event.fan}, but the tiles make a limit hand ({breakdown})"
            )
        return result.fan, True
    if event.limit:
        raise refuse(
            f"the log claims a limit hand, but the tiles make {result.fan} fan ({breakdown})"
        )
    if event.fan is not None and event.fan != result.fan:
        raise refuse(
            f"the log gives fan {event.fan}, but the tiles make {result.fan} ({breakdown})"
        )
    minimum = table.minimum_fan()
    if result.fan < minimum:
        raise refuse(
            f"the tiles make {result.fan} fan ({breakdown}), below the table minimum of {minimum}",
            "below_minimum_fan",
        )
    return result.fan, False


def won(hand: HandFold, event: WonOnDiscard | SelfDrawn, line: int | None) -> None:
    """Fold a win (on a discard, or self-drawn): every check first, then it is paid as one
    batch, joins or opens the run of wins on its discard, and may end the hand."""
    still_in = hand.still_in
    if event.player not in still_in:
        check_in_play(hand, event.player, "player", event, line)
    discarder = event.from_ if type(event) is WonOnDiscard else None
    if discarder is not None:
        if discarder not in still_in:
            check_in_play(hand, discarder, "from", event, line)
        if discarder == event.player:
            raise refusal(
                event,
                line,
                "a player cannot win on their own discard ('from' names the winner)",
                "self_reference",
            )
    if event.liable is not None:
        _check_liable(hand, event, line)
    if event.first_turn:
        _check_first_turn(hand, event, line)
    table = hand._table
    context = _win_context(hand, event)
    fan, limit = _fan_of(table, hand, event, context, line)
    reason: Reason = "self_drawn" if discarder is None else "won_on_discard"
    payments = table.win_payments(hand, context, fan, limit)
    transfers = transfers_of(payments, event.player, reason, line)
    # Every check has run: from here on the hand changes.
    pay(hand, transfers)
    if discarder is not None:
        run = hand.open_wins
        if run is None:
            run = _new_run(
                discarder,
                context.robbing_kong,
                ((event.player, line),),
                winners_before=hand.winners,
                discarders_before=hand.discarders,
            )
        else:
            run = _replace_run(run, winners=(*run.winners, (event.player, line)))
    _record_win(hand, event.player, discarder)
    if discarder is not None:
        hand.open_wins = run
        if discarder not in hand.discarders:
            hand.discarders = hand.discarders | {discarder}
    if table.hand_ends_after_win(hand):
        close_open_wins(hand)
        hand.ended = True


def _check_liable(hand: HandView, event: WonOnDiscard | SelfDrawn, line: int | None) -> None:
    """The player a win names liable (a Hong Kong payer of the whole win) is another player
    at the table."""
    if event.liable not in hand.players:
        raise refusal(
            event,
            line,
            f"liable {event.liable!r} is not at the table ({', '.join(hand.players)})",
            "not_at_table",
        )
    if event.liable == event.player:
        raise refusal(
            event,
            line,
            f"liable {event.liable!r} is the winner; the liable player is someone else",
            "self_reference",
        )


def _check_first_turn(hand: HandView, event: WonOnDiscard | SelfDrawn, line: int | None) -> None:
    """variants.md, "First turn": refuse the flag where the log contradicts it. A later winner
    on the same discard is checked against the hand as it was before that discard's first win
    ("Several winners on the dealer's first discard may each carry it")."""
    discarder = event.from_ if isinstance(event, WonOnDiscard) else None
    run = hand.open_wins if discarder is not None else None
    facts = FirstTurnFacts(
        dealer=hand.dealer,
        winner=event.player,
        discarder=discarder,
        kongs=bool(hand.kongs),
        earlier_winners=hand.winners if run is None else run.winners_before,
        discarders=hand.discarders if run is None else run.discarders_before,
        has_melds=bool(event.melds),
    )
    problem = first_turn_problem(facts)
    if problem is not None:
        raise refusal(event, line, problem)


def _record_win(hand: HandFold, winner: str, discarder: str | None) -> None:
    # Blood flow keeps winners in: "`winners` lists each winner once, in order of their first win".
    if not hand.first_winners:
        hand.first_winners = (winner,)
        hand.first_discarder = discarder
        hand.first_run_open = discarder is not None
    elif hand.first_run_open and hand.open_wins is not None:
        hand.first_winners = (*hand.first_winners, winner)
    if winner not in hand.winners:
        hand.winners = (*hand.winners, winner)
        hand.still_in = still_in_of(hand.players, hand.winners, hand._winners_leave)
    hand.last_kong_by = None
