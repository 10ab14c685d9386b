"""Disputed hands in the store: explaining a stored hand, and correcting the record.

Nothing stored is ever edited or deleted. An upheld dispute is recorded as new, compensating
events, in one transaction:

* ``hand_corrected`` — hand *n*'s settlement is replaced by a corrected hand, whose events go
  into a stream of their own, ``hand/{match}/{n}/correction/{k}`` (its first row the stored
  hand's own stand-alone ``hand_started``, so the context cannot drift);
* ``hand_voided`` — hand *n*'s transfers stop counting.

Both rows go into the match's **corrections stream**, ``corrections/{match}``, the *k*-th
correction at version *k*. Its digest chain starts from the match stream's latest digest
(as a hand does) and each row chains onto the one before; a correction's hand stream starts
from the same digest its ``hand_corrected`` row does, and that row carries the stream's last
digest and length — exactly the match/hand pattern of docs/store.md, one level down.

The rotation is never rewritten: later hands were dealt as recorded. A correction whose hand
would pass the deal to someone else than the record says is refused, unless the caller says
later hands keep their recorded dealer, streak and round wind (``keep_later_hands``): then
only money changes. A void keeps the rotation as recorded.

Table stakes (variants.md) cap each hand by the balances the hands before it left, so in a
match with stakes only the last hand can be corrected or voided, and a correction may not take
more from a player than they held before that hand (:func:`_stakes_refusal`).
"""

from __future__ import annotations

import uuid
from collections.abc import Iterable
from typing import Any, cast

import attrs
from attrs import frozen
from eventsourcing.application import AggregateNotFoundError

from mjledger.errors import ConcurrencyError, MjledgerError, StoreError
from mjledger.fold.hand import HandState, close_hand
from mjledger.fold.match import rotate
from mjledger.fold.replay import replay_events
from mjledger.log.codec import dumps_event, event_to_json, parse_log
from mjledger.log.events import Event, HandStarted
from mjledger.rules.house import rules_to_json
from mjledger.store.correction_log import (
    Correction,
    CorrectionLog,
    correction_stream,
    corrections_stream,
    project_corrections,
)
from mjledger.store.events import HandCorrected, HandVoided
from mjledger.store.hand_forms import shift_lines
from mjledger.store.projectors import MatchRecord, project_hand, project_match
from mjledger.store.reads import StoredLedger
from mjledger.store.records import Recorded, seal
from mjledger.store.streams import match_stream


@frozen
class CorrectionResult:
    """What ``correct``/``void`` recorded."""

    match: str
    number: int
    kind: str
    correction: int
    original_net: dict[str, int]
    net: dict[str, int]
    keep_later_hands: bool = False


# --- reading ----------------------------------------------------------------------------------


def correction_log(ledger: StoredLedger, match_id: str) -> CorrectionLog | None:
    try:
        log: CorrectionLog = ledger._get(
            corrections_stream(match_id), projector_func=project_corrections
        )
    except AggregateNotFoundError:
        return None
    return log


def corrected_events(ledger: StoredLedger, event: HandCorrected) -> list[Event]:
    stream = correction_stream(event.match, event.number, event.correction)
    return [cast(Recorded, r).event for r in _read(ledger, stream)]


def _read(ledger: StoredLedger, stream: uuid.UUID) -> Iterable[Any]:
    """A corrected hand's stored records (its chain checked first with ``verify=True``)."""
    if ledger.verifier is not None:
        ledger.verifier.check_rows(stream)
    return ledger.events.get(stream)


def _length(match: MatchRecord, log: CorrectionLog, number: int) -> int:
    """How many events hand ``number`` has in the corrected export."""
    c = log.latest(number)
    if c is None:
        return match.closed[number - 1].events
    if isinstance(c.event, HandCorrected):
        return c.event.events
    return 2  # a voided hand is exported as hand_started + an empty wall (see export_events)


def _overflow(match: MatchRecord, log: CorrectionLog, number: int) -> int:
    """How many lines a correction of hand ``number`` adds beyond the hand as recorded: a
    shorter corrected hand (a voided one is two lines) leaves its other lines blank, so only
    a corrected hand with more events than the recorded one moves the hands after it."""
    if log.latest(number) is None:
        return 0
    return max(0, _length(match, log, number) - match.closed[number - 1].events)


def first_line(match: MatchRecord, log: CorrectionLog | None, number: int) -> int:
    """The line of hand ``number``'s ``hand_started`` in the match's export: the line of the
    log as recorded (corrections renumber nothing), unless a correction before it holds more
    events than the hand it replaced."""
    if log is None:
        return match.first_line(number)
    return match.first_line(number) + sum(_overflow(match, log, n) for n in range(1, number))


def settle_corrected(
    ledger: StoredLedger,
    match: MatchRecord,
    number: int,
    original: HandState,
    *,
    before: int | None = None,
) -> HandState:
    """Hand ``number``'s settlement with the corrections in force (those below ``before``).

    ``original`` is the hand as recorded, lines of the uncorrected export, next dealer as
    recorded. A corrected hand takes the corrected hand's transfers; a voided one none; the
    recorded rotation stays either way.
    """
    log = correction_log(ledger, match.match_id)
    if log is None:
        return original
    first = first_line(match, log, number)
    entry = log.latest(number, before)
    if entry is None:
        return shift_lines(original, first - match.first_line(number))
    if isinstance(entry.event, HandVoided):
        return attrs.evolve(original, transfers=())
    stream = correction_stream(match.match_id, number, entry.event.correction)
    record = project_hand(None, (cast(Recorded, r) for r in _read(ledger, stream)))
    assert record is not None
    state = shift_lines(close_hand(record.state), first - 1)
    return attrs.evolve(state, next_dealer=original.next_dealer)


def notes(ledger: StoredLedger, match_id: str) -> dict[int, list[dict[str, Any]]]:
    """Every correction of the match, per hand, in the order they were made."""
    log = correction_log(ledger, match_id)
    if log is None:
        return {}
    players = ledger.match(match_id).started.players
    out: dict[int, list[dict[str, Any]]] = {}
    for c in log.entries:
        out.setdefault(c.number, []).append(c.note(players))
    return out


# --- writing ----------------------------------------------------------------------------------


def _closed_hand(ledger: StoredLedger, match_id: str, number: int) -> MatchRecord:
    match = ledger.match(match_id)
    if number > len(match.closed):
        if number <= ledger.hands_in(match_id):
            raise StoreError(
                f"hand {number} of match {match_id!r} is still in progress: "
                "only a finished hand can be corrected or voided",
                code="correction_refused",
            )
        raise StoreError(f"match {match_id!r} has no hand {number}", code="no_hand")
    return match


def _who(reason: str, by: str) -> None:
    if not reason.strip():
        raise MjledgerError("a correction needs a reason (--reason)", code="bad_parameter")
    if not by.strip():
        raise MjledgerError(
            "a correction needs the id of who makes it (--by)", code="bad_parameter"
        )


def _refusals_for(stored: HandStarted, fixed: HandStarted, fixed_hand: HandState) -> list[str]:
    """Why the corrected hand cannot stand in for the stored one (empty: it can)."""
    problems = []
    for name, mine, theirs in (
        ("rule set", fixed.ruleset, stored.ruleset),
        ("players", fixed.players, stored.players),
        ("house rules", rules_to_json(fixed_hand.rules), rules_to_json(stored.rules)),
        ("dealer", fixed.dealer, stored.dealer),
        ("dealer streak", fixed_hand.dealer_streak, stored.dealer_streak),
        ("round wind", fixed_hand.round_wind, stored.round_wind or "east"),
    ):
        if mine != theirs:
            problems.append(
                f"its {name} ({_show(mine)}) differ from the stored hand's ({_show(theirs)})"
            )
    if fixed.match is not None and fixed.match != stored.match:
        problems.append(f"it names match {fixed.match!r}, not {stored.match!r}")
    if fixed.number is not None and fixed.number != stored.number:
        problems.append(f"it names hand {fixed.number}, not {stored.number}")
    if fixed_hand.outcome == "unfinished":
        problems.append("the corrected hand does not end (no win that ends it, no empty wall)")
    return problems


def _stakes_refusal(
    ledger: StoredLedger, match_id: str, match: MatchRecord, number: int, net: dict[str, int]
) -> str | None:
    """Table stakes cap every later hand by the balances this hand left, so only the last
    hand of a match with stakes can be corrected, and not so that anyone pays more than they
    held before it (why a correction can be refused here: empty means it can stand)."""
    stakes = match.started.stakes
    if stakes is None:
        return None
    hands = ledger.hands_in(match_id)
    if number < hands:
        return (
            f"match {match_id!r} plays for table stakes, and hand {number} is followed by "
            f"{hands - number} more whose payments its balances capped: only the last hand "
            "can be corrected"
        )
    before = match.closed[number - 2].balances if number > 1 else stakes
    for player, amount in net.items():
        held = (before or {}).get(player, 0)
        if held + amount < 0:
            return f"{player} would pay {-amount} but held only {held} before the hand"
    return None


def _show(value: object) -> str:
    if isinstance(value, tuple):
        return ", ".join(map(str, value))
    if isinstance(value, dict):
        return ", ".join(f"{k}={v}" for k, v in value.items())
    return str(value)


def _previous_digest(ledger: StoredLedger, match: MatchRecord, log: CorrectionLog | None) -> str:
    return log.digest if log is not None else match.digest


def _checked_fix(
    ledger: StoredLedger, match_id: str, match: MatchRecord, number: int, fixed_text: str
) -> tuple[list[tuple[int, Event]], HandStarted, HandState]:
    """The corrected hand's log, the stored hand's start and the corrected hand settled;
    refused (a ``correction_refused`` error) unless it is a stand-alone hand log in the stored
    hand's context that ends, within the stakes the hands before it left."""
    events = parse_log(fixed_text)
    head = events[0][1]
    if not isinstance(head, HandStarted) or not head.stand_alone:
        raise MjledgerError(
            "the corrected hand must be a stand-alone hand log (its first line a hand_started "
            "carrying ruleset, players and dealer)",
            code="correction_refused",
        )
    fixed = replay_events(events).hands[0]
    stored = ledger.hand_events(match_id, number)[0]
    assert isinstance(stored, HandStarted)
    problems = _refusals_for(stored, head, fixed)
    stakes_problem = _stakes_refusal(ledger, match_id, match, number, fixed.net())
    if stakes_problem is not None:
        problems.append(stakes_problem)
    if problems:
        raise MjledgerError(
            f"correction of hand {number} refused: " + "; ".join(problems),
            code="correction_refused",
        )
    return events, stored, fixed


def correct(
    ledger: StoredLedger,
    match_id: str,
    number: int,
    fixed_text: str,
    *,
    reason: str,
    by: str,
    keep_later_hands: bool = False,
    correction: int | None = None,
) -> CorrectionResult:
    """Replace hand ``number``'s settlement by the corrected hand in ``fixed_text`` (a
    stand-alone hand log). Refused (nothing written) if its context differs from the stored
    hand's, if it does not end, or if it would deal the next hand to someone else than the
    record says and ``keep_later_hands`` is not given. ``correction``: the number it must
    get (else :class:`ConcurrencyError`, nothing written: another correction came first)."""
    _who(reason, by)
    match = _closed_hand(ledger, match_id, number)
    events, stored, fixed = _checked_fix(ledger, match_id, match, number, fixed_text)
    moved = _moves_the_deal(ledger, match_id, match, number, fixed, stored, keep_later_hands)
    log = correction_log(ledger, match_id)
    k = _next_number(log, correction)
    previous = _previous_digest(ledger, match, log)
    original_net = ledger.settlement(match_id, number).net()
    stream = correction_stream(match_id, number, k)
    rows = [seal(stream, 1, stored, previous)]
    for version, (_line, event) in enumerate(events[1:], 2):
        rows.append(seal(stream, version, event, rows[-1].digest, rows[0].recorded_at))
    entry = HandCorrected(
        match=match_id,
        number=number,
        correction=k,
        events=len(rows),
        hand_digest=rows[-1].digest,
        reason=reason,
        by=by,
        original_net=original_net,
        net=fixed.net(),
        outcome="won" if fixed.outcome == "won" else "void",
        winners=fixed.winners,
        keep_later_hands=moved,
    )
    rows.append(seal(corrections_stream(match_id), k, entry, previous, rows[0].recorded_at))
    ledger._save(rows)
    return CorrectionResult(match_id, number, "corrected", k, original_net, fixed.net(), moved)


def _next_number(log: CorrectionLog | None, expected: int | None) -> int:
    """The next correction's number in the match; a ConcurrencyError when it is not the one
    the caller expects (two staff correcting at once: the second is told, not renumbered)."""
    k = (log.version if log is not None else 0) + 1
    if expected is not None and k != expected:
        raise ConcurrencyError(f"the next correction is number {k}, not {expected}")
    return k


def _moves_the_deal(
    ledger: StoredLedger,
    match_id: str,
    match: MatchRecord,
    number: int,
    fixed: HandState,
    stored: HandStarted,
    keep_later_hands: bool,
) -> bool:
    """Whether the corrected hand deals the next hand to someone else than the record says
    (refused unless ``keep_later_hands``)."""
    recorded_next = match.closed[number - 1].next_dealer
    corrected_next = _next_dealer(ledger, match_id, number, fixed, stored)
    moved = corrected_next != recorded_next
    if moved and not keep_later_hands:
        later = (
            f"hand {number + 1} is recorded as dealt by {recorded_next}"
            if number < ledger.hands_in(match_id)
            else f"the record deals the next hand to {recorded_next}"
        )
        raise MjledgerError(
            f"correction of hand {number} refused: it changes the next dealer to "
            f"{corrected_next or 'nobody (the match would be over)'}, but {later}; pass "
            "--keep-later-hands to keep the recorded rotation and change only the money",
            code="correction_refused",
        )
    return moved


def _next_dealer(
    ledger: StoredLedger, match_id: str, number: int, fixed: HandState, stored: HandStarted
) -> str | None:
    """Who the corrected hand deals the next hand to, by the match's own rotation."""
    before: MatchRecord = ledger._get(
        match_stream(match_id), version=number, projector_func=project_match
    )
    state = before.state
    if state.first_dealer is None:
        state = attrs.evolve(state, first_dealer=stored.dealer)
    return rotate(state, fixed).next_dealer


def void(
    ledger: StoredLedger,
    match_id: str,
    number: int,
    *,
    reason: str,
    by: str,
    correction: int | None = None,
) -> CorrectionResult:
    """Annul hand ``number``'s settlement (its transfers stop counting; the rotation stays);
    ``correction`` as for :func:`correct`."""
    _who(reason, by)
    match = _closed_hand(ledger, match_id, number)
    stakes_problem = _stakes_refusal(ledger, match_id, match, number, {})
    if stakes_problem is not None:
        raise MjledgerError(
            f"void of hand {number} refused: {stakes_problem}", code="correction_refused"
        )
    log = correction_log(ledger, match_id)
    current = log.latest(number) if log is not None else None
    if current is not None and isinstance(current.event, HandVoided):
        raise MjledgerError(
            f"hand {number} of match {match_id!r} is already voided", code="correction_refused"
        )
    original_net = ledger.settlement(match_id, number).net()
    k = _next_number(log, correction)
    entry = HandVoided(match_id, number, reason, by, original_net)
    ledger._save(
        [seal(corrections_stream(match_id), k, entry, _previous_digest(ledger, match, log))]
    )
    zero = dict.fromkeys(original_net, 0)
    return CorrectionResult(match_id, number, "voided", k, original_net, zero)


# --- export -----------------------------------------------------------------------------------


def export_with_corrections(ledger: StoredLedger, match_id: str) -> str:
    """The match as recorded, line for line, followed by its ``hand_corrected`` and
    ``hand_voided`` extension lines (docs/store.md) in the order they were made: the whole
    record, for an audit, with every line where the recorded log has it. ``replay`` refuses
    these extension lines; the plain ``export`` is the log that replays."""
    log = correction_log(ledger, match_id)
    out = [dumps_event(e) for e in ledger.export_events(match_id, corrected=False)]
    if log is not None:
        out.extend(_extension_line(ledger, c) for c in log.entries)
    return "".join(line + "\n" for line in out)


def _extension_line(ledger: StoredLedger, c: Correction) -> str:
    """One correction as its extension line: the hand, when, who, why, and the hand's net
    before and after it (a void's: nobody pays)."""
    import json

    data: dict[str, Any] = {
        "type": c.event.TYPE,
        "number": c.number,
        "recorded_at": c.when,
        "by": c.event.by,
        "reason": c.event.reason,
        "original_net": c.event.original_net,
    }
    if isinstance(c.event, HandCorrected):
        data["net"] = c.event.net
        data["keep_later_hands"] = c.event.keep_later_hands
        data["events"] = [event_to_json(e) for e in corrected_events(ledger, c.event)]
    else:
        data["net"] = dict.fromkeys(c.event.original_net, 0)
    return json.dumps(data, ensure_ascii=False)


__all__ = [
    "Correction",
    "CorrectionLog",
    "CorrectionResult",
    "correct",
    "correction_log",
    "correction_stream",
    "corrections_stream",
    "export_with_corrections",
    "notes",
    "settle_corrected",
    "void",
]
