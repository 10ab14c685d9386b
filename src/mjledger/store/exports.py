"""A stored match as a log: as recorded, and the plain export with its corrections applied,
every line where the recorded log has it (docs/store.md, "Corrections"). The ledger's
``export`` verbs (:class:`mjledger.store.application.Ledger`) read through here; correcting a
hand, and the export with its correction lines, is :mod:`mjledger.store.corrections`.
"""

from __future__ import annotations

from collections.abc import Iterable, Iterator

from mjledger._checks import ids_as_stored
from mjledger.log.codec import dumps_event
from mjledger.log.events import Event, HandStarted, PlayerAtWallEnd, WallExhausted
from mjledger.rules.registry import find_ruleset
from mjledger.store.correction_log import CorrectionLog
from mjledger.store.corrections import corrected_events, first_line
from mjledger.store.events import HandCorrected, HandVoided
from mjledger.store.hand_forms import in_match_form
from mjledger.store.reads import StoredLedger
from mjledger.store.records import with_rules


def recorded_export(ledger: StoredLedger, match_id: str) -> Iterator[Event]:
    """The match's events as recorded (no correction applied): ``match_started`` with every
    house rule, then each hand's events, its start in the match's form."""
    yield with_rules(ledger.match(match_id).started)
    for number in range(1, ledger.hands_in(match_id) + 1):
        events = ledger.hand_events(match_id, number)
        first = events[0]
        assert isinstance(first, HandStarted)
        yield in_match_form(first)
        yield from events[1:]


def export_text(lines: Iterable[tuple[int, Event]]) -> str:
    """Numbered events as a log's text, each on its line: blank lines stand where a
    correction left a hand shorter than recorded, so that every line keeps its number."""
    out: list[str] = []
    last = 0
    for line, event in lines:
        out.append("\n" * (line - last - 1) + dumps_event(event) + "\n")
        last = line
    return "".join(out)


def corrected_export(
    ledger: StoredLedger, match_id: str, log: CorrectionLog
) -> Iterator[tuple[int, Event]]:
    """The match as a plain log with its corrections applied, each event with its line: a
    corrected hand's own events in place of the original's; a voided hand as its start and an
    empty wall (no money) on the hand's first and last recorded lines, the lines between left
    blank, so that every later line is the line of the log as recorded (a corrected hand
    shorter than the recorded one is padded the same way).

    After a void, or a correction that kept the recorded rotation although the hand would
    deal otherwise, later ``hand_started`` lines leave the dealer out: the record's dealer
    may not be the one the corrected log's rotation gives, and the money does not depend on
    it (rules.md), so the log replays to the corrected totals.
    """
    match = ledger.match(match_id)
    yield 1, with_rules(match.started)
    free_dealer = False
    for number in range(1, ledger.hands_in(match_id) + 1):
        entry = log.latest(number)
        original = ledger.hand_events(match_id, number)
        if entry is None:
            events = original
        elif isinstance(entry.event, HandCorrected):
            events = corrected_events(ledger, entry.event)
            free_dealer = free_dealer or entry.event.keep_later_hands
        else:
            events = [original[0], _empty_wall(original[0])]
        first = events[0]
        assert isinstance(first, HandStarted)
        line = first_line(match, log, number)
        with ids_as_stored():  # the stored dealer, kept as recorded
            yield line, HandStarted(dealer=None if free_dealer else first.dealer)
        if entry is not None and isinstance(entry.event, HandVoided):
            yield line + len(original) - 1, events[1]  # the hand's last recorded line
            free_dealer = True
            continue
        for offset, event in enumerate(events[1:], 1):
            yield line + offset, event


def _empty_wall(start_event: Event) -> WallExhausted:
    """The wall of a voided hand: nobody ready, where the rule set's wall names who is in."""
    assert isinstance(start_event, HandStarted)
    assert start_event.ruleset is not None
    if find_ruleset(start_event.ruleset).wall_remaining:
        assert start_event.players is not None
        return WallExhausted({p: PlayerAtWallEnd(ready=False) for p in start_event.players})
    return WallExhausted()


__all__ = ["corrected_export", "export_text", "recorded_export"]
