"""Stored hands explained and reported: the store's corrections on record, in the explanation
(each correction in the summary, a void as a step that gives every payment back) and in the
HTML report (corrected hands marked)."""

from __future__ import annotations

from typing import cast

import attrs

from mjledger.explain.report import ReportData
from mjledger.explain.steps import (
    N_,
    CorrectionNote,
    HandExplanation,
    Moment,
    Net,
    Payment,
    Sentence,
    Step,
    explain_hand,
)
from mjledger.fold.hand import HandEvent, HandState, close_hand
from mjledger.fold.match import start
from mjledger.store.application import Ledger
from mjledger.store.correction_log import Correction
from mjledger.store.corrections import (
    corrected_events,
    correction_log,
    first_line,
    notes,
    settle_corrected,
)
from mjledger.store.events import HandCorrected
from mjledger.store.hand_forms import shift_lines
from mjledger.store.projectors import MatchRecord

HAND_VOIDED: str = N_("hand_voided")


def explain_stored(ledger: Ledger, match_id: str, number: int) -> HandExplanation:
    """The explanation of stored hand ``number`` of ``match_id``, corrections included:
    lines as in the match's (corrected) export, each correction in the summary."""
    match = ledger.match(match_id)
    settled = ledger.settlement(match_id, number)  # refuses a hand the match does not have
    log = correction_log(ledger, match_id)
    players = match.started.players
    entry = log.latest(number) if log is not None else None
    history = [CorrectionNote(**c.note(players)) for c in log.of(number)] if log is not None else []
    first = first_line(match, log, number)
    if entry is not None and isinstance(entry.event, HandCorrected):
        events = corrected_events(ledger, entry.event)
    else:
        events = ledger.hand_events(match_id, number)
        if entry is not None:  # voided: explain what it was, then annul it
            settled = settle_corrected(
                ledger, match, number, _original(ledger, match, number), before=entry.version
            )
    state = start(events[0], first).hand
    assert state is not None
    numbered = [(first + i, cast(HandEvent, e)) for i, e in enumerate(events[1:], 1)]
    explained = explain_hand(
        state,
        numbered,
        settled,
        start_line=first,
        match=match_id,
        corrections=history,
    )
    if entry is None or isinstance(entry.event, HandCorrected):
        return explained
    return _voided(explained, entry)


def _original(ledger: Ledger, match: MatchRecord, number: int) -> HandState:
    recorded = close_hand(ledger.hand(match.match_id, number).state)
    state = shift_lines(recorded, match.first_line(number) - 1)
    return attrs.evolve(state, next_dealer=match.closed[number - 1].next_dealer)


def _voided(explained: HandExplanation, entry: Correction) -> HandExplanation:
    """A voided hand: its steps as played, then one step that gives every payment back."""
    players = explained.players
    back = tuple(
        Payment(p.payee, p.payer, p.amount) for step in explained.steps for p in step.money
    )
    zero = dict.fromkeys(players, 0)
    step = Step(
        line=None,
        event="hand_voided",
        reason="hand_voided",
        sentences=(
            Sentence(
                HAND_VOIDED,
                {
                    "when": Moment(entry.when),
                    "by": entry.event.by,
                    "reason": entry.event.reason,
                    "original": Net.of(players, explained.net),
                },
            ),
        ),
        operands={
            "original_net": explained.net,
            "by": entry.event.by,
            "reason": entry.event.reason,
        },
        computed=back,
        money=back,
        net_after=zero,
    )
    return attrs.evolve(explained, steps=(*explained.steps, step), net=zero)


def report_from_store(ledger: Ledger, match_id: str) -> ReportData:
    """The report's data for a stored match: every hand as settled now, corrections marked."""
    record = ledger.match(match_id)
    started = record.started
    hands = tuple(ledger.settlement(match_id, n) for n in range(1, ledger.hands_in(match_id) + 1))
    corrections = {
        n: [CorrectionNote(**note) for note in found]
        for n, found in notes(ledger, match_id).items()
    }
    return ReportData(started.ruleset, match_id, started.players, hands, corrections)
