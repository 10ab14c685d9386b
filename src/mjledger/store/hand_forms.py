"""A hand's first and last stored rows: the stand-alone ``hand_started`` (the hand's whole
context, so its stream replays on its own) and the ``hand_closed`` (its result and the rotation
after it), as events and in their stored forms; and a hand's lines moved into the match's
export. Recording (:mod:`mjledger.store.importer`), the ledger's verbs and the audit build
them here, so that each is stated once.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any, Final

import attrs

from mjledger._checks import ids_as_stored
from mjledger._replace import constructor
from mjledger.fold.hand import HandState, Transfer
from mjledger.fold.match import MatchState, streak_after
from mjledger.log.events import HandStarted
from mjledger.rules.protocol import QuickHand
from mjledger.rules.registry import find_ruleset
from mjledger.store.events import HandClosed
from mjledger.store.records import Recorded, stored_form, stored_form_of


def shift_lines(hand: HandState, offset: int) -> HandState:
    """Hand-stream positions to line numbers of the match's export."""
    return attrs.evolve(
        hand,
        transfers=tuple(
            Transfer(t.payer, t.payee, t.amount, t.reason, (t.line or 0) + offset)
            for t in hand.transfers
        ),
    )


def in_match_form(event: HandStarted) -> HandStarted:
    return HandStarted(dealer=event.dealer)


def stand_alone_start(state: MatchState, hand: HandState, *, rules: bool = True) -> HandStarted:
    """The hand's first stored event: the whole context, so its stream replays on its own
    (without ``rules``: all but the house rules, the same for every hand of the match). Its
    ids are the match's, as stored: kept, whenever they were recorded."""
    stakes = None if hand.stakes is None else hand.stakes.as_dict()
    values = (hand.number, hand.dealer, hand.dealer_streak, hand.round_wind, stakes)
    with ids_as_stored():
        return _start(state, *values, rules=rules)


def _start(
    state: MatchState,
    number: int,
    dealer: str,
    streak: int,
    round_wind: str,
    stakes: dict[str, int] | None,
    *,
    rules: bool,
    make: Callable[..., HandStarted] = HandStarted,
) -> HandStarted:
    return make(
        dealer=dealer,
        ruleset=state.ruleset,
        players=state.players,
        rules=state.rules if rules else None,
        match=state.match_id,
        number=number,
        dealer_streak=streak,
        round_wind=round_wind if find_ruleset(state.ruleset).round_winds else None,
        stakes=stakes,  # the balances the hand starts from: its stream settles them alone
    )


def stored_start(state: MatchState, hand: HandState | QuickHand) -> dict[str, Any]:
    """The hand's first row as recording spools it: the stored form of its stand-alone start
    without the house rules (the same in every hand of the match, added as each hand is
    written), the event built without its validators (they would only check again what the
    fold has checked). A quick fold's hand starts without stakes (its table plays none)."""
    stakes = None if isinstance(hand, QuickHand) or hand.stakes is None else hand.stakes.as_dict()
    values = (hand.number, hand.dealer, hand.dealer_streak, hand.round_wind, stakes)
    return _START_FORM(_start(state, *values, rules=False, make=_TRUSTED_START))


_TRUSTED_START: Final = constructor(HandStarted, trusted=True)
_START_FORM: Final = stored_form_of(HandStarted)


def closing_of(hand: HandState, rotated: MatchState, events: int, digest: str) -> HandClosed:
    assert hand.outcome != "unfinished"
    return HandClosed(
        number=hand.number,
        events=events,
        hand_digest=digest,
        dealer=hand.dealer,
        dealer_streak=hand.dealer_streak,
        round_wind=hand.round_wind,
        outcome=hand.outcome,
        winners=hand.winners,
        net=hand.net(),
        next_dealer=rotated.next_dealer,
        next_streak=rotated.next_streak,
        next_round_wind=rotated.round_wind,
        match_over=rotated.over,
        balances=None if hand.stakes is None else hand.stakes.as_dict(),
        bust=() if hand.stakes is None else tuple(p for p in hand.players if p in hand.stakes.bust),
    )


def quick_table_closing(hand: HandState | QuickHand, events: int) -> dict[str, Any]:
    """The stored form of the closing of a hand settled at a table with a quick fold
    (:class:`~mjledger.rules.protocol.QuickHands`: its round wind never changes, its match
    ends only with its log, no stakes), where the rotation is the hand's next dealer alone;
    its ``hand_digest`` is filled in as it is written (see :func:`stored_closing`)."""
    assert hand.outcome != "unfinished"
    assert hand.next_dealer is not None
    dealer, streak, wind = hand.dealer, hand.dealer_streak, hand.round_wind
    net = hand.net if isinstance(hand, QuickHand) else hand.net()
    closing = _MAKE_CLOSING(
        hand.number, events, "", dealer, streak, wind, hand.outcome, tuple(hand.winners), net,
        hand.next_dealer, streak_after(dealer, streak, hand.next_dealer), wind,
    )  # fmt: skip
    return _CLOSING_FORM(closing)


_MAKE_CLOSING: Final = constructor(HandClosed)
_CLOSING_FORM: Final = stored_form_of(HandClosed)


def comparable(record: Recorded) -> dict[str, Any]:
    return stored_form(record.event)


def stored_closing(hand: HandState, rotated: MatchState, events: int) -> dict[str, Any]:
    """The stored form of the hand's closing as recording spools it, its ``hand_digest``
    empty: the hand's digest is known only once the match id is (filled in as it is
    written)."""
    return _CLOSING_FORM(closing_of(hand, rotated, events, ""))
