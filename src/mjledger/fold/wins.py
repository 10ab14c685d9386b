"""A win folded into the hand in play: how it happened and the fan it is paid on (stated
once, for this fold and the quick folds alike, in :mod:`mjledger.rules.wins`), the first-turn
flag checked against the hand, and the win recorded (a run of wins on one discard, the
winners, who is still in). What the win is worth and who pays it, the rule set answers."""

from __future__ import annotations

from typing import Final

from mjledger._replace import constructor, replacer
from mjledger.fold.dues import close_open_wins, pay, transfers_of
from mjledger.fold.in_play import HandFold
from mjledger.fold.refusals import check_in_play, refusal
from mjledger.log.events import SelfDrawn, WonOnDiscard
from mjledger.rules.registry import table_of
from mjledger.rules.state import HandState
from mjledger.rules.table import FirstTurnFacts, first_turn_problem
from mjledger.rules.values import HandView, OpenWins, Reason, still_in_of
from mjledger.rules.wins import fan_of, win_context

__all__ = ["win_fan", "won"]

_replace_run: Final = replacer(OpenWins)
# The run of wins a win opens, built without running attrs' ``__init__``.
_new_run: Final = constructor(OpenWins)


def win_fan(
    hand: HandState, event: WonOnDiscard | SelfDrawn, line: int | None = None
) -> tuple[int | None, bool]:
    """The fan ``event`` is paid on in ``hand`` (derived from its tiles where it shows them)
    and whether it is a limit hand — exactly what the fold settles it on. A hook for
    explanations (:mod:`mjledger.explain`), which rebuild the arithmetic of each step."""
    table = table_of(hand.ruleset, hand.rules, hand.players)
    return fan_of(table, event, win_context(hand, event), line)


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
    context = win_context(hand, event)
    fan, limit = fan_of(table, event, context, line)
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
