"""One hand as a fold: ``evolve_hand(state, event, line) -> state``, settling as it goes.

Each accepted event adds its transfers at once (settlement is online: a backend can read the
payouts after every line), except the two things the rules settle later — kong money passing,
settled when a run of wins on one discard closes, and the end-of-wall checks.

The hand in play is one mutable working state, :class:`~mjledger.fold.in_play.HandFold`,
changed in place by each event (:func:`apply_event`, :func:`run_hand`), and frozen into a
:class:`HandState` wherever a hand leaves the fold. Within an event every check runs before
anything changes, so a refused event changes nothing but the closing of an open run of wins
that it does not continue (which the fold settles before the event, as the pure
:func:`evolve_hand` does on its own copy; a refused log is not folded further).

This module is the fold's dispatch: each kind of event goes to its handler — a win to
:mod:`.wins`, the others to :mod:`.plays` —, which pays through :mod:`.dues` and refuses
through :mod:`.refusals`. The fold knows the order of play; what anything is worth, and who
pays it, it asks the hand's rule set bound to its table
(:class:`~mjledger.rules.base.BaseRuleset`). Transfers are recorded one per payer and payee,
each with the log line that caused it, which is what a support person replaying a disputed
hand reads step by step.
"""

from __future__ import annotations

from collections.abc import Callable, Iterator
from typing import Any, Final

from mjledger.errors import RuleError
from mjledger.fold.dues import close_open_wins, close_wins_in_place
from mjledger.fold.in_play import HandFold
from mjledger.fold.plays import (
    discarded,
    false_win,
    kong_declared,
    void_suit_chosen,
    wall_exhausted,
)
from mjledger.fold.refusals import continues_wins, located, refusal
from mjledger.fold.wins import win_fan, won
from mjledger.log.events import (
    Discarded,
    Event,
    FalseWin,
    KongDeclared,
    SelfDrawn,
    VoidSuitChosen,
    WallExhausted,
    WonOnDiscard,
)
from mjledger.rules.state import HandState
from mjledger.rules.values import (
    REASONS,
    KongPayment,
    OpenWins,
    Outcome,
    Reason,
    Transfer,
    net_of,
)

__all__ = [
    "HAND_EVENT_TYPES",
    "REASONS",
    "HandEvent",
    "HandState",
    "KongPayment",
    "OpenWins",
    "Outcome",
    "Reason",
    "Transfer",
    "apply_event",
    "close_hand",
    "close_open_wins",
    "close_wins",
    "evolve_hand",
    "net_of",
    "run_hand",
    "win_fan",
]


HandEvent = (
    VoidSuitChosen | Discarded | KongDeclared | WonOnDiscard | SelfDrawn | WallExhausted | FalseWin
)

# Each in-hand event class and how it is folded (a dictionary: one lookup per event).
_HANDLERS: Final[dict[type[Any], Callable[[HandFold, Any, int | None], None]]] = {
    Discarded: discarded,
    KongDeclared: kong_declared,
    WonOnDiscard: won,
    SelfDrawn: won,
    WallExhausted: wall_exhausted,
    VoidSuitChosen: void_suit_chosen,
    FalseWin: false_win,
}
HAND_EVENT_TYPES: Final = frozenset(_HANDLERS)


def apply_event(hand: HandFold, event: HandEvent, line: int | None = None) -> None:
    """Fold ``event`` into the hand in play, or raise a :class:`RuleError` naming the line
    and the problem."""
    if hand.ended:
        raise refusal(
            event,
            line,
            f"hand {hand.number} has already ended ({hand.outcome})",
            "hand_not_in_play",
        )
    if hand.open_wins is not None and not continues_wins(hand.open_wins, event, line):
        close_wins_in_place(hand)
    handler = _HANDLERS.get(type(event))
    if handler is None:
        raise refusal(event, line, "this event does not belong inside a hand", "wrong_event_type")
    try:
        handler(hand, event, line)
    except RuleError as exc:
        raise located(exc, event, line) from None


def run_hand(
    hand: HandFold, events: Iterator[tuple[int | None, Event]]
) -> tuple[int | None, Event] | None:
    """:func:`apply_event` to the events drawn from ``events`` until the hand ends or the
    stream does (None), or an event arrives that no hand holds (returned, undrawn by the hand:
    a ``hand_started``, say, is the match's). One loop over a hand's events instead of a call
    per event through the match fold: replay's hot path."""
    handlers = _HANDLERS
    for line, event in events:
        handler = handlers.get(type(event))
        if handler is None:
            return line, event
        run = hand.open_wins
        if run is not None and not continues_wins(run, event, line):
            close_wins_in_place(hand)
        try:
            handler(hand, event, line)
        except RuleError as exc:
            raise located(exc, event, line) from None
        if hand.ended:
            return None
    return None


def evolve_hand(hand: HandState, event: HandEvent, line: int | None = None) -> HandState:
    """The hand after ``event``, or a :class:`RuleError` naming the line and the problem
    (``hand`` itself never changes)."""
    fold = HandFold.thaw(hand)
    apply_event(fold, event, line)
    return fold.freeze()


def close_hand(hand: HandState) -> HandState:
    """Settle what the end of the log closes: an open run of wins (its kong money passing)."""
    return close_wins(hand) if hand.open_wins is not None else hand


def close_wins(hand: HandState) -> HandState:
    """Close the open run of wins: the discarder's run of kongs ends, and its money may pass."""
    fold = HandFold.thaw(hand)
    close_wins_in_place(fold)
    return fold.freeze()
