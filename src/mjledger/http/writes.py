"""The write path: each write names the place it fills, so a retry is answered as the first
request was and a race has one winner (http-api.md, "Writes are PUTs to the place they fill").

Every function takes the decoded request, asks the ledger, and either returns ``(status,
body)`` or raises a :class:`Problem`; nothing is written unless the answer is 201.
"""

from __future__ import annotations

import typing
from typing import Any

import attrs

from mjledger.errors import ConcurrencyError, LogError, MjledgerError, StoreError
from mjledger.fold.hand import HandEvent
from mjledger.http import reads
from mjledger.http.problems import Problem, problem_of
from mjledger.log.codec import event_to_json, parse_log
from mjledger.log.events import Event, HandStarted, MatchStarted
from mjledger.rules.house import default_rules
from mjledger.store.abandoned import void_abandoned
from mjledger.store.application import Ledger
from mjledger.store.corrections import correct, corrected_events, correction_log
from mjledger.store.events import HandCorrected, HandVoided

_HAND_EVENTS: typing.Final = tuple(
    cls for cls in typing.get_args(HandEvent) if cls is not HandStarted
)


def _stored_form(event: MatchStarted, match_id: str) -> dict[str, Any]:
    """A ``match_started`` as the store compares it: the id given, house rules filled in."""
    rules = event.rules or default_rules(event.ruleset)
    return event_to_json(attrs.evolve(event, match=match_id, rules=rules, format=None))


def put_match(ledger: Ledger, match_id: str, event: Event) -> tuple[int, dict[str, Any]]:
    """``PUT /v1/matches/{match}``: 201 new, 200 the same as stored, 409 another."""
    if not isinstance(event, MatchStarted):
        raise Problem(
            "wrong_event_type",
            f"this endpoint takes match_started, not {event.TYPE}",
            line=1,
            event_type=event.TYPE,
        )
    if event.match is not None and event.match != match_id:
        raise Problem(
            "match_id_mismatch",
            f"the body's match {event.match!r} is not the path's",
            line=1,
            event_type=event.TYPE,
        )
    for attempt in range(2):
        if ledger.has_match(match_id):
            stored = ledger.match(match_id).started
            if _stored_form(stored, match_id) != _stored_form(event, match_id):
                raise Problem(
                    "match_exists",
                    f"match {match_id!r} exists with another match_started",
                    line=1,
                    event_type=event.TYPE,
                )
            return 200, reads.match_output(ledger, match_id)
        try:
            ledger.start_match(
                event.ruleset, event.players, event.rules, match_id=match_id, stakes=event.stakes
            )
        except StoreError as exc:
            if attempt or "already exists" not in str(exc):
                raise
            continue  # another writer created it first: compare with what it stored
        except LogError as exc:
            raise problem_of(exc.at(1, event.TYPE)) from None
        return 201, reads.match_output(ledger, match_id)
    raise AssertionError("unreachable")  # pragma: no cover


def put_hand(
    ledger: Ledger, match_id: str, number: int, event: Event
) -> tuple[int, dict[str, Any]]:
    """``PUT …/hands/{number}``: start hand ``number``, exactly once."""
    if not isinstance(event, HandStarted):
        raise Problem(
            "wrong_event_type",
            f"this endpoint takes hand_started, not {event.TYPE}",
            event_type=event.TYPE,
        )
    if event != HandStarted(dealer=event.dealer):
        raise Problem(
            "bad_format", "in a match, hand_started carries at most 'dealer'", event_type=event.TYPE
        )
    for attempt in range(2):
        record = ledger.match(match_id)
        started = ledger.hands_in(match_id)
        if number <= started:
            first = ledger.hand_events(match_id, number)[0]
            assert isinstance(first, HandStarted)
            if event.dealer in (None, first.dealer):
                return 200, reads.hand_body(ledger, match_id, number)
        if number != started + 1:
            raise Problem(
                "conflict",
                f"match {match_id!r} has started {started} hands: the next is hand {started + 1}",
                hands=started,
            )
        if started > len(record.closed):
            raise Problem(
                "hand_in_play", f"hand {started} of match {match_id!r} is in play", hands=started
            )
        if record.state.over:
            raise Problem("match_over", f"match {match_id!r} is over", hands=started)
        line = record.first_line(number)
        try:
            ledger.start_hand(match_id, event.dealer)
        except ConcurrencyError:
            if attempt:
                raise
            continue
        except LogError as exc:
            raise problem_of(exc.at(line, event.TYPE)) from None
        return 201, reads.hand_body(ledger, match_id, number)
    raise AssertionError("unreachable")  # pragma: no cover


def put_event(
    ledger: Ledger, match_id: str, number: int, seq: int, event: Event
) -> tuple[int, dict[str, Any]]:
    """``PUT …/events/{seq}``: steps 1–5 of the spec, then again if another writer won."""
    match = ledger.match(match_id)
    line = match.first_line(number) - 1 + seq
    if not isinstance(event, _HAND_EVENTS):
        raise Problem(
            "wrong_event_type",
            f"this endpoint takes the events inside a hand, not {event.TYPE}",
            line=line,
            event_type=event.TYPE,
        )
    for _attempt in range(2):
        hand = ledger.hand(match_id, number)
        position = hand.version
        if seq <= position and hand.events[seq - 1] == event:
            return 200, _appended(ledger, match_id, number, seq, replayed=True)
        if seq != position + 1:
            raise Problem(
                "conflict",
                f"hand {number} is at position {position}: the next event "
                f"goes to seq {position + 1}",
                line=line,
                event_type=event.TYPE,
                position=position,
            )
        if hand.state.ended:
            raise Problem(
                "hand_not_in_play",
                f"hand {number} of match {match_id!r} has ended",
                line=line,
                event_type=event.TYPE,
                position=position,
            )
        try:
            ledger.record(
                match_id, number, typing.cast(HandEvent, event), expected_version=position
            )
        except ConcurrencyError:
            continue  # another writer filled seq first: answer as it left the hand
        except LogError as exc:
            raise problem_of(exc, line=line, event_type=event.TYPE, position=position) from None
        return 201, _appended(ledger, match_id, number, seq, replayed=False)
    hand = ledger.hand(match_id, number)
    raise Problem(
        "conflict",
        f"hand {number} is at position {hand.version}",
        line=line,
        event_type=event.TYPE,
        position=hand.version,
    )


def _appended(
    ledger: Ledger, match_id: str, number: int, seq: int, *, replayed: bool
) -> dict[str, Any]:
    hand = ledger.hand(match_id, number)
    return {
        "match": match_id,
        "number": number,
        "seq": seq,
        "position": hand.version,
        "replayed": replayed,
        "ended": hand.state.ended,
        "settlement": reads.settlement(ledger, match_id, number),
    }


# --- corrections -----------------------------------------------------------------------------

_CORRECTION_MEMBERS: typing.Final = {
    "correct": {"action", "number", "log", "reason", "keep_later_hands"},
    "void": {"action", "number", "reason"},
}


@attrs.frozen
class CorrectionRequest:
    """A correction's PUT body, checked member by member (``bad_format`` otherwise)."""

    action: str
    number: int
    reason: str
    log: str | None = None
    keep_later_hands: bool = False

    @classmethod
    def from_json(cls, obj: dict[str, Any]) -> CorrectionRequest:
        action = obj.get("action")
        if not isinstance(action, str) or action not in _CORRECTION_MEMBERS:
            raise Problem("bad_format", "'action' is 'correct' or 'void'")
        unknown = sorted(set(obj) - _CORRECTION_MEMBERS[action])
        if unknown:
            raise Problem("bad_format", f"a {action} takes no member {unknown[0]!r}")
        number, reason = obj.get("number"), obj.get("reason")
        if type(number) is not int or number < 1:
            raise Problem("bad_format", "'number' is a hand number (a positive integer)")
        if not isinstance(reason, str) or not 1 <= len(reason) <= 500 or not reason.strip():
            raise Problem("bad_format", "'reason' is a string of 1 to 500 characters")
        keep = obj.get("keep_later_hands", False)
        if type(keep) is not bool:
            raise Problem("bad_format", "'keep_later_hands' is true or false")
        log = obj.get("log")
        if action == "correct" and not isinstance(log, str):
            raise Problem("bad_format", "a correction's 'log' is the hand's log as a string")
        return cls(action, number, reason, log, keep)

    def same_as(self, ledger: Ledger, entry_event: HandCorrected | HandVoided) -> bool:
        """Whether this request is the correction on record (``by``, ``when`` not compared)."""
        if entry_event.number != self.number or entry_event.reason != self.reason:
            return False
        if isinstance(entry_event, HandVoided):
            return self.action == "void"
        if self.action != "correct" or (entry_event.keep_later_hands and not self.keep_later_hands):
            return False
        assert self.log is not None
        try:
            given = [e for _, e in parse_log(self.log)]
        except MjledgerError:
            return False
        return given[1:] == corrected_events(ledger, entry_event)[1:]


def put_correction(
    ledger: Ledger, match_id: str, correction: int, request: CorrectionRequest, by: str
) -> tuple[int, dict[str, Any]]:
    """``PUT …/corrections/{correction}``: correction ``correction`` exactly once."""
    for _attempt in range(2):
        log = correction_log(ledger, match_id)
        count = log.version if log is not None else 0
        if log is not None and correction <= count:
            entry = log.entries[correction - 1]
            if request.same_as(ledger, entry.event):
                return 200, reads.correction_answer(ledger, match_id, entry)
        if correction != count + 1:
            raise Problem(
                "conflict",
                f"match {match_id!r} has {count} corrections: the next is correction {count + 1}",
                corrections=count,
            )
        try:
            _apply(ledger, match_id, correction, request, by)
        except ConcurrencyError:
            continue
        except Problem as exc:
            # A refusal read against a correction log another writer has just moved on
            # (say the hand it voids was voided a moment ago) is that writer's win: look again.
            overtaken = _corrections_on_record(ledger, match_id) != count
            if exc.code == "correction_refused" and overtaken:
                continue
            raise
        log = correction_log(ledger, match_id)
        assert log is not None
        return 201, reads.correction_answer(ledger, match_id, log.entries[correction - 1])
    count = _corrections_on_record(ledger, match_id)
    raise Problem("conflict", f"match {match_id!r} has {count} corrections", corrections=count)


def _corrections_on_record(ledger: Ledger, match_id: str) -> int:
    log = correction_log(ledger, match_id)
    return log.version if log is not None else 0


def _apply(
    ledger: Ledger, match_id: str, correction: int, request: CorrectionRequest, by: str
) -> None:
    """Write the correction or void; a refusal of the rules of corrections is
    ``correction_refused``, a refused line of the correction's log that line's own code."""
    if request.number > ledger.hands_in(match_id):
        raise Problem("no_hand", f"match {match_id!r} has no hand {request.number}")
    try:
        if request.action == "void":
            # A hand in play (abandoned) is ended by the empty wall and voided at once.
            void_abandoned(
                ledger,
                match_id,
                request.number,
                reason=request.reason,
                by=by,
                correction=correction,
            )
        else:
            assert request.log is not None
            correct(
                ledger,
                match_id,
                request.number,
                request.log,
                reason=request.reason,
                by=by,
                keep_later_hands=request.keep_later_hands,
                correction=correction,
            )
    except (ConcurrencyError, Problem):
        raise
    except LogError as exc:
        raise problem_of(exc) from None
    except StoreError as exc:
        if "still in progress" in str(exc):
            raise Problem("correction_refused", str(exc)) from None
        raise
    except MjledgerError as exc:
        raise Problem("correction_refused", str(exc)) from None
