"""Stored hands explained and reported: the store's corrections on record, in the explanation
(each correction in the summary, a void as a step that gives every payment back) and in the
HTML report (corrected hands marked)."""

from __future__ import annotations

from collections.abc import Iterator, Mapping, Sequence
from typing import Any, cast

import attrs

from mjledger.errors import MjledgerError
from mjledger.explain.report import Page, ReportData
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
from mjledger.store.events import HandClosed, HandCorrected
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


class NotFromClosingsError(Exception):
    """The page of a stored match cannot be written from its closings: a hand settles to a net
    its closing (or the correction in force) does not record, or reading the match failed. The
    caller writes it from every hand settled at once instead (:func:`report_from_store`),
    which gives the page, or the error, the store has."""


def stored_page(
    ledger: Ledger, match_id: str
) -> tuple[Page, list[dict[str, int]], Iterator[HandState]]:
    """The report of a stored match in two passes (:class:`Page`): each hand's net as its
    closing records it (or the correction in force), then each hand settled as it is written,
    checked against that net and dropped (:class:`NotFromClosingsError` where they differ)."""
    try:
        record = ledger.match(match_id)
        found = notes(ledger, match_id)
        nets = [_recorded_net(c, found.get(n, ())) for n, c in enumerate(record.closed, 1)]
        if ledger.hands_in(match_id) > len(nets):  # the hand in play has no closing yet
            nets.append(ledger.settlement(match_id, len(nets) + 1).net())
    except MjledgerError as exc:
        raise NotFromClosingsError(str(exc)) from exc
    corrections = {n: [CorrectionNote(**note) for note in f] for n, f in found.items()}
    started = record.started
    page = Page(started.ruleset, match_id, started.players, corrections)
    return page, nets, _settled_as_recorded(ledger, match_id, nets)


def _recorded_net(closed: HandClosed, corrections: Sequence[Mapping[str, Any]]) -> dict[str, int]:
    """A closed hand's net: the last correction's (a void's is all zeros), else its closing's."""
    return dict(corrections[-1]["net"] if corrections else closed.net)


def _settled_as_recorded(
    ledger: Ledger, match_id: str, nets: Sequence[Mapping[str, int]]
) -> Iterator[HandState]:
    for number, net in enumerate(nets, 1):
        try:
            hand = ledger.settlement(match_id, number)
        except MjledgerError as exc:
            raise NotFromClosingsError(str(exc)) from exc
        ledger.forget_hand(match_id, number)
        if hand.net() != net:
            raise NotFromClosingsError(f"hand {number} settles to {hand.net()}, recorded {net}")
        yield hand
