"""What the hand in play pays: a hook's payments as transfers, each batch of dues paid
through table stakes, and the kong money that passes when a run of wins on one discard
closes — the one settlement the fold makes after the event that caused it."""

from __future__ import annotations

from typing import Final

from mjledger._replace import constructor
from mjledger.fold.in_play import HandFold, end_kong_run
from mjledger.rules import explained
from mjledger.rules.protocol import Payments
from mjledger.rules.values import Reason, Transfer

__all__ = ["close_open_wins", "close_wins_in_place", "pay", "transfers_of"]

# A transfer, built without running attrs' ``__init__``: every win and kong makes some.
_new_transfer: Final = constructor(Transfer)


def transfers_of(
    payments: Payments, payee: str, reason: Reason, line: int | None
) -> tuple[Transfer, ...]:
    """A hook's payments as transfers, each with the event's reason unless it names its own."""
    new = _new_transfer  # its parameters are untyped: a third item is a Reason by contract
    return tuple([new(p[0], payee, p[1], p[2] if len(p) == 3 else reason, line) for p in payments])


def pay(hand: HandFold, dues: tuple[Transfer, ...]) -> tuple[Transfer, ...]:
    """Pay one batch of dues: all of it, or what table stakes let each payer pay (variants.md,
    "Each event settles as one batch"); what was paid."""
    paid = dues
    if hand.stakes is not None:
        paid, hand.stakes = hand.stakes.settle(dues, hand.rules)
    if paid:
        hand.transfers += paid
    notes = explained.notes()
    if notes is not None:  # an explanation is asked for: what was due, and what was paid
        notes.batch(dues, paid)
    return paid


def close_wins_in_place(hand: HandFold) -> None:
    """Close the open run of wins: the discarder's run of kongs ends, and its money may pass."""
    run = hand.open_wins
    assert run is not None
    run_kongs = hand.kong_runs[hand.players.index(run.discarder)]
    hand.open_wins = None
    end_kong_run(hand, run.discarder)
    hand.first_run_open = False
    if not run_kongs:
        return
    dues, passed = hand._table.kong_money_passing(hand, run, run_kongs)
    if not dues:
        return
    # Passed money is one batch (variants.md, "Table stakes").
    pay(hand, dues)
    hand.passed = hand.passed | frozenset(passed)


def close_open_wins(hand: HandFold) -> None:
    """:func:`~mjledger.fold.hand.close_hand` of the hand in play, in place."""
    if hand.open_wins is not None:
        close_wins_in_place(hand)
