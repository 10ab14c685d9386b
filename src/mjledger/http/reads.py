"""What the API reads, shaped as http-api.md gives it: settlements with lines of the match as
recorded, hands, corrections, explanations.

The library's own settlements number lines as the (corrected) export does; the API numbers
them as the match was recorded, so a line never moves. Each function here re-bases what the
library gives, and computes no figure of its own.
"""

from __future__ import annotations

from typing import Any, cast

import attrs

from mjledger.explain.i18n import hand_json
from mjledger.explain.stored import explain_stored
from mjledger.fold.hand import HandState
from mjledger.fold.replay import hand_to_json, replay_events
from mjledger.log.codec import event_to_json
from mjledger.log.events import HandStarted, WonOnDiscard
from mjledger.rules.house import default_rules, rules_to_json
from mjledger.store.application import Ledger
from mjledger.store.corrections import (
    Correction,
    CorrectionLog,
    corrected_events,
    correction_log,
    first_line,
)
from mjledger.store.events import HandCorrected
from mjledger.store.hand_forms import in_match_form, shift_lines


def _in_force(log: CorrectionLog | None, number: int) -> Correction | None:
    return log.latest(number) if log is not None else None


def settlement_state(ledger: Ledger, match_id: str, number: int) -> tuple[HandState, int | None]:
    """Hand ``number`` settled with its latest correction in force, lines re-based to the
    match as recorded (a corrected hand's: lines of its correction's log); and the number of
    the correction in force."""
    state = ledger.settlement(match_id, number)
    log = correction_log(ledger, match_id)
    if log is None:
        return state, None
    match = ledger.match(match_id)
    exported = first_line(match, log, number)
    entry = _in_force(log, number)
    if entry is None:
        return shift_lines(state, match.first_line(number) - exported), None
    if isinstance(entry.event, HandCorrected):
        return shift_lines(state, 1 - exported), entry.version
    return attrs.evolve(state, transfers=()), entry.version


def settlement(ledger: Ledger, match_id: str, number: int) -> dict[str, Any]:
    """``GET …/settlement``: the replay output's hand, with ``correction`` and ``open_run``."""
    state, correction = settlement_state(ledger, match_id, number)
    hand = ledger.hand(match_id, number)
    last = hand.events[-1] if hand.events else None
    open_run = not hand.state.ended and isinstance(last, WonOnDiscard)
    return {**hand_to_json(state), "correction": correction, "open_run": open_run}


def match_output(ledger: Ledger, match_id: str) -> dict[str, Any]:
    """``GET /v1/matches/{match}``: the replay output, corrections applied, lines as recorded."""
    record = ledger.match(match_id)
    started = record.started
    hands = [settlement(ledger, match_id, n) for n in range(1, ledger.hands_in(match_id) + 1)]
    totals = dict.fromkeys(started.players, 0)
    for hand in hands:
        for player, amount in hand["net"].items():
            totals[player] += amount
    out: dict[str, Any] = {
        "ruleset": started.ruleset,
        "match": match_id,
        "players": list(started.players),
        "rules": rules_to_json(started.rules or default_rules(started.ruleset)),
        "hands": hands,
        "totals": totals,
    }
    if started.stakes is not None:
        out["stakes"] = {p: started.stakes[p] for p in started.players}
    return out


def recorded_events(ledger: Ledger, match_id: str, number: int) -> list[dict[str, Any]]:
    """The hand's events as the export writes them (its ``hand_started`` in match form)."""
    events = ledger.hand_events(match_id, number)
    first = events[0]
    assert isinstance(first, HandStarted)
    return [event_to_json(in_match_form(first)), *map(event_to_json, events[1:])]


def hand_body(ledger: Ledger, match_id: str, number: int) -> dict[str, Any]:
    """``GET …/hands/{number}``: position, events as recorded, settlement, corrections."""
    record = ledger.hand(match_id, number)
    out: dict[str, Any] = {
        "match": match_id,
        "number": number,
        "position": record.version,
        "ended": record.state.ended,
        "events": recorded_events(ledger, match_id, number),
        "settlement": settlement(ledger, match_id, number),
    }
    log = correction_log(ledger, match_id)
    if log is not None and log.of(number):
        out["corrections"] = [correction_detail(ledger, match_id, c) for c in log.of(number)]
    return out


def correction_detail(ledger: Ledger, match_id: str, entry: Correction) -> dict[str, Any]:
    """One correction of a hand as ``GET …/hands/{number}`` lists it."""
    players = ledger.match(match_id).started.players
    event = entry.event
    out = {"correction": entry.version, **entry.note(players)}
    if isinstance(event, HandCorrected):
        events = corrected_events(ledger, event)
        fixed = replay_events(enumerate(events, 1)).hands[0]
        return {
            **out,
            "keep_later_hands": event.keep_later_hands,
            "outcome": event.outcome,
            "winners": list(event.winners),
            "events": [event_to_json(e) for e in events],
            "transfers": hand_to_json(fixed)["transfers"],
        }
    recorded = ledger.settlement(match_id, event.number)  # a void keeps the recorded outcome
    return {
        **out,
        "keep_later_hands": False,
        "outcome": recorded.outcome,
        "winners": list(recorded.winners),
        "events": None,
        "transfers": [],
    }


def correction_answer(ledger: Ledger, match_id: str, entry: Correction) -> dict[str, Any]:
    """What a correction's PUT answers, and ``GET …/corrections`` lists."""
    players = ledger.match(match_id).started.players
    note = entry.note(players)
    return {
        "match": match_id,
        "number": entry.number,
        "correction": entry.version,
        "kind": note["kind"],
        "when": note["when"],
        "by": note["by"],
        "reason": note["reason"],
        "original_net": note["original_net"],
        "net": note["net"],
    }


def explanation(ledger: Ledger, match_id: str, number: int, lang: str) -> dict[str, Any]:
    """``explain --json`` of the stored hand, each step's line re-based as the settlement's."""
    data = hand_json(explain_stored(ledger, match_id, number), lang)
    log = correction_log(ledger, match_id)
    if log is None:
        return data
    match = ledger.match(match_id)
    exported = first_line(match, log, number)
    entry = _in_force(log, number)
    corrected = entry is not None and isinstance(entry.event, HandCorrected)
    shift = (1 if corrected else match.first_line(number)) - exported
    for step in cast(list[Any], data["steps"]):
        if isinstance(step, dict) and isinstance(step.get("line"), int):
            step["line"] += shift
    return data
