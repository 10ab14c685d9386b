"""A hand's first and last stored rows: the stand-alone ``hand_started`` (the hand's whole
context, so its stream replays on its own) and the ``hand_closed`` (its result and the rotation
after it), as events and in their stored forms; and a hand's lines moved into the match's
export. Recording (:mod:`mjledger.store.importer`), the ledger's verbs and the audit build
them here, so that each is stated once.
"""

from __future__ import annotations

from typing import Any

import attrs

from mjledger._checks import ids_as_stored
from mjledger.fold.hand import HandState, Transfer
from mjledger.fold.match import MatchState, streak_after
from mjledger.log.events import HandStarted
from mjledger.rules.protocol import HandJson
from mjledger.rules.registry import find_ruleset
from mjledger.store.events import HandClosed
from mjledger.store.records import Recorded, stored_form


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
    with ids_as_stored():
        return _stand_alone_start(state, hand, rules=rules)


def _stand_alone_start(state: MatchState, hand: HandState, *, rules: bool) -> HandStarted:
    return HandStarted(
        dealer=hand.dealer,
        ruleset=state.ruleset,  # type: ignore[arg-type]
        players=state.players,
        rules=state.rules if rules else None,
        match=state.match_id,
        number=hand.number,
        dealer_streak=hand.dealer_streak,
        round_wind=hand.round_wind if find_ruleset(state.ruleset).round_winds else None,
        # The balances the hand starts from: its stream then settles stakes on its own.
        stakes=None if hand.stakes is None else hand.stakes.as_dict(),
    )


def stored_start(state: MatchState, hand: HandState) -> dict[str, Any]:
    """``stored_form(stand_alone_start(state, hand, rules=False))`` without the event: its
    validators would only check again what the match fold has checked (recording builds one
    a hand). Keys as the converter lays them out, fields at their default (None) left out."""
    stakes = None if hand.stakes is None else hand.stakes.as_dict()
    return _start_form(state, hand.number, hand.dealer, hand.dealer_streak, hand.round_wind, stakes)


def output_start(state: MatchState, hand: HandJson) -> dict[str, Any]:
    """:func:`stored_start` of a hand given as the replay output writes it (a table without
    stakes)."""
    return _start_form(
        state, hand["number"], hand["dealer"], hand["dealer_streak"], hand["round_wind"], None
    )


def _start_form(
    state: MatchState,
    number: int,
    dealer: str,
    streak: int,
    round_wind: str,
    stakes: dict[str, int] | None,
) -> dict[str, Any]:
    data: dict[str, Any] = {
        "type": HandStarted.TYPE,
        "dealer": dealer,
        "ruleset": state.ruleset,
        "players": list(state.players),
    }
    if state.match_id is not None:
        data["match"] = state.match_id
    data["number"] = number
    data["dealer_streak"] = streak
    if find_ruleset(state.ruleset).round_winds:
        data["round_wind"] = round_wind
    if stakes is not None:
        data["stakes"] = stakes
    return data


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


def comparable(record: Recorded) -> dict[str, Any]:
    return stored_form(record.event)


def stored_closing(hand: HandState, rotated: MatchState, events: int) -> dict[str, Any]:
    """``stored_form(closing_of(hand, rotated, events, ""))`` without the event (recording
    builds one a hand). Keys as the converter lays them out, fields at their default left
    out (``match_over`` false, no ``balances``, an empty ``bust``)."""
    outcome = hand.outcome
    assert outcome != "unfinished"
    data = _closing_form(
        hand.number,
        events,
        hand.dealer,
        hand.dealer_streak,
        hand.round_wind,
        outcome,
        list(hand.winners),
        hand.net(),
        rotated.next_dealer,
        rotated.next_streak,
        rotated.round_wind,
    )
    if rotated.over:
        data["match_over"] = True
    stakes = hand.stakes
    if stakes is not None:
        data["balances"] = stakes.as_dict()
        bust = [p for p in hand.players if p in stakes.bust]
        if bust:
            data["bust"] = bust
    return data


def output_closing(hand: HandJson, events: int) -> dict[str, Any]:
    """:func:`stored_closing` of a hand given as the replay output writes it, at a table with
    a quick fold (:class:`~mjledger.rules.protocol.QuickHands`: the round wind never changes,
    the match never ends, no stakes), where the rotation is the hand's next dealer alone."""
    assert hand["outcome"] != "unfinished"
    dealer, streak, next_dealer = hand["dealer"], hand["dealer_streak"], hand["next_dealer"]
    return _closing_form(
        hand["number"],
        events,
        dealer,
        streak,
        hand["round_wind"],
        hand["outcome"],
        hand["winners"],
        hand["net"],
        next_dealer,
        streak_after(dealer, streak, next_dealer),
        hand["round_wind"],
    )


def _closing_form(
    number: int,
    events: int,
    dealer: str,
    streak: int,
    round_wind: str,
    outcome: str,
    winners: list[str],
    net: dict[str, int],
    next_dealer: str | None,
    next_streak: int,
    next_round_wind: str,
) -> dict[str, Any]:
    return {
        "type": HandClosed.TYPE,
        "number": number,
        "events": events,
        "hand_digest": "",
        "dealer": dealer,
        "dealer_streak": streak,
        "round_wind": round_wind,
        "outcome": outcome,
        "winners": winners,
        "net": net,
        "next_dealer": next_dealer,
        "next_streak": next_streak,
        "next_round_wind": next_round_wind,
    }
