"""Whole logs into the store: a log becomes batches of sealed records, one transaction per hand,
validated by the match fold as they are drawn (so a refused line writes nothing)."""

from __future__ import annotations

import uuid
from collections.abc import Iterable, Iterator
from typing import Any

import attrs
from attrs import frozen

from mjledger.fold.hand import HandState, Transfer
from mjledger.fold.match import MatchState, evolve, start
from mjledger.log.events import Event, HandStarted, MatchStarted
from mjledger.rules.registry import find_ruleset
from mjledger.store.events import HandClosed
from mjledger.store.records import GENESIS, Recorded, now, seal, stored_form
from mjledger.store.streams import hand_stream, match_stream


@frozen
class RecordResult:
    """What ``record`` did with a log: the match id and how many hands/events it wrote."""

    match: str
    status: str  # "recorded", "unchanged" or "resumed"
    hands: int
    events: int
    id_assigned: bool = False


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


def stand_alone_start(state: MatchState, hand: HandState) -> HandStarted:
    """The hand's first stored event: the whole context, so its stream replays on its own."""
    return HandStarted(
        dealer=hand.dealer,
        ruleset=state.ruleset,  # type: ignore[arg-type]
        players=state.players,
        rules=state.rules,
        match=state.match_id,
        number=hand.number,
        dealer_streak=hand.dealer_streak,
        round_wind=hand.round_wind if find_ruleset(state.ruleset).round_winds else None,
    )


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
    )


def comparable(record: Recorded) -> dict[str, Any]:
    return stored_form(record.event)


def new_match_id() -> str:
    return "m-" + uuid.uuid4().hex[:16]


def batches_of_log(
    first: MatchStarted, events: Iterable[tuple[int, Event]]
) -> Iterator[list[Recorded]]:
    """The records of a match log, one batch per transaction: the match's start, then each
    hand with its closing (a whole hand, or nothing, survives a crash).

    Every event goes through the match fold here, so drawing all the batches is the log's
    validation: a rejected line raises (naming its line) before anything is written.
    """
    stamp = now()
    state = start(first, 1)
    match_id = state.match_id or ""
    m_stream = match_stream(match_id)
    m_record = seal(m_stream, 1, first, GENESIS, stamp)
    m_version, m_digest = 1, m_record.digest
    yield [m_record]
    batch: list[Recorded] = []
    h_stream, h_version, h_digest = m_stream, 0, ""
    for line, event in events:
        state = evolve(state, event, line)
        hand = state.hand
        assert hand is not None
        if isinstance(event, HandStarted):
            if batch:
                yield batch
            h_stream = hand_stream(match_id, hand.number)
            h_record = seal(h_stream, 1, stand_alone_start(state, hand), m_digest, stamp)
            h_version, h_digest, batch = 1, h_record.digest, [h_record]
            continue
        h_version += 1
        record = seal(h_stream, h_version, event, h_digest, stamp)
        h_digest = record.digest
        batch.append(record)
        if hand.ended:  # this event ended the hand: the fold has rotated the deal already
            m_version += 1
            closed = seal(
                m_stream, m_version, closing_of(hand, state, h_version, h_digest), m_digest, stamp
            )
            m_digest = closed.digest
            batch.append(closed)
    if batch:
        yield batch
