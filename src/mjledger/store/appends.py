"""What the ledger's verbs append, built from what they have read: one recorded event (the
event validated against the hand in play, sealed onto the hand's stream, and, when it ends the
hand, the hand's closing sealed onto the match's stream), a table's opening, a match opened at
a table; and house rules as the verbs take them. Pure: nothing is read or written here (the
application does both, :class:`mjledger.store.application.Ledger`).
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

from mjledger.errors import ConcurrencyError, FormatError, LogError, RuleError, StoreError
from mjledger.fold.hand import HandEvent, evolve_hand
from mjledger.fold.match import rotate
from mjledger.log.events import HandStarted, MatchStarted
from mjledger.rules.house import default_rules, rules_from_json
from mjledger.rules.protocol import HouseRules
from mjledger.store.events import MatchOpened, TableOpened
from mjledger.store.hand_forms import closing_of, shift_lines
from mjledger.store.projectors import HandRecord, MatchRecord, TableRecord
from mjledger.store.records import Recorded, seal
from mjledger.store.streams import hand_stream, match_stream, table_stream


def appended(
    match_id: str,
    number: int,
    match: MatchRecord,
    hand: HandRecord,
    event: HandEvent,
    expected_version: int | None = None,
) -> list[Recorded]:
    """The records ``event`` adds to hand ``number`` as it stands (a :class:`RuleError` when
    the fold refuses it, its problem naming the line of the match's export; a
    :class:`ConcurrencyError` when the hand is no longer at ``expected_version``)."""
    if expected_version is not None and expected_version != hand.version:
        raise ConcurrencyError(
            f"hand {number} of match {match_id!r} is at version {hand.version}, "
            f"not {expected_version}: reload and retry"
        )
    version = hand.version + 1
    # A stored hand has no log of its own: the event's line is the one it takes in the
    # match's export, named after the problem (docs/library.md).
    line = match.first_line(number) - 1 + version
    try:
        state = evolve_hand(shift_lines(hand.state, match.first_line(number) - 1), event, line)
    except LogError as exc:
        raise exc.in_stored_hand(number, line) from None
    saved = [seal(hand_stream(match_id, number), version, event, hand.digest)]
    if state.ended:
        rotated = rotate(match.state, state)
        closing = closing_of(state, rotated, version, saved[0].digest)
        saved.append(seal(match_stream(match_id), match.version + 1, closing, match.digest))
    return saved


def refuse_outside_hand(event: Any) -> None:
    """A match's or a hand's start is not an event inside a hand (a :class:`RuleError`)."""
    if isinstance(event, (MatchStarted, HandStarted)):
        raise RuleError(
            "record() takes the events inside a hand; use start_match/start_hand",
            event_type=type(event).TYPE,
            code="wrong_event_type",
        )


def house_rules(ruleset: str, rules: HouseRules | dict[str, Any] | None) -> HouseRules:
    """``rules`` as the rule set's house-rules object (None: its defaults; a dict: its JSON
    form), refusing another rule set's class with a :class:`FormatError`."""
    if rules is None:
        return default_rules(ruleset)
    if isinstance(rules, dict):
        return rules_from_json(ruleset, rules)
    expected = type(default_rules(ruleset))
    if not isinstance(rules, expected):
        raise FormatError(f"{ruleset} needs {expected.__name__}, not {type(rules).__name__}")
    return rules


def table_opened(
    table_id: str, ruleset: str, players: Sequence[str], rules: HouseRules | dict[str, Any] | None
) -> TableOpened:
    """A table's first event (the rule set and players checked as a match_started's are)."""
    event = MatchStarted(ruleset=ruleset, players=tuple(players))  # type: ignore[arg-type]
    return TableOpened(
        table=table_id,
        ruleset=event.ruleset,
        players=event.players,
        rules=house_rules(event.ruleset, rules),
    )


def opened_at(
    table: TableRecord, match_id: str, ruleset: str | None, players: Sequence[str] | None
) -> Recorded:
    """The table's record of a match it opens, refusing another rule set or other players."""
    if ruleset not in (None, table.ruleset) or players not in (
        None,
        list(table.players),
        table.players,
    ):
        raise StoreError(
            f"table {table.table!r} plays {table.ruleset} with {', '.join(table.players)}",
            code="bad_parameter",
        )
    return seal(table_stream(table.table), table.version + 1, MatchOpened(match_id), table.digest)
