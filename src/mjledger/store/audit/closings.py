"""A hand's first and closing rows against its replay: the hand_started's context and
rotation as the match gives them, and the hand_closed as the replay closes the hand (both
compared in their stored form, :func:`mjledger.store.records.stored_form`).
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any, Final

import msgspec
import msgspec.structs

from mjledger.fold.hand import HandState
from mjledger.fold.match import MatchState
from mjledger.log.jsontext import canonical_bytes
from mjledger.rules.protocol import QuickHand
from mjledger.rules.registry import find_ruleset
from mjledger.store.audit.chains import Row
from mjledger.store.audit.run import Run
from mjledger.store.events import HandClosed
from mjledger.store.hand_forms import closing_of, quick_table_closing, stand_alone_start
from mjledger.store.integrity import META_KEYS
from mjledger.store.records import stored_form

_HAND_FIELDS: Final = ("number", "events", "hand_digest")
_ROTATION_FIELDS: Final = ("dealer", "dealer_streak", "round_wind")
_TABLE_FIELDS: Final = ("match", "ruleset", "players", "rules")
# What check_context compares of a hand_started row, and the finding each group gives.
_CONTEXT_CHECKS: Final = (
    ("rotation_differs", _ROTATION_FIELDS),
    ("context_differs", ("number", *_TABLE_FIELDS)),
)


class TableContext:
    """A match's table in a hand's stored context, unstructured once per match."""

    def __init__(self) -> None:
        self._kept: tuple[tuple[Any, ...], dict[str, Any]] | None = None

    def of(self, state: MatchState, hand: HandState) -> dict[str, Any]:
        """The compared fields of ``stored_form(stand_alone_start(state, hand))``: the table's
        (match, ruleset, players, rules: the rules through ``rules_to_json``) and the hand's
        own (plain strings and integers, None where the stored form leaves a field out)."""
        table = (state.match_id, state.ruleset, state.players, state.rules)
        kept = self._kept
        if kept is None or any(a is not b for a, b in zip(kept[0], table, strict=True)):
            full = stored_form(stand_alone_start(state, hand))
            kept = self._kept = (table, {f: full.get(f) for f in _TABLE_FIELDS})
        round_winds = find_ruleset(state.ruleset).round_winds
        return {
            **kept[1],
            "dealer": hand.dealer,
            "dealer_streak": hand.dealer_streak,
            "round_wind": hand.round_wind if round_winds else None,
            "number": hand.number,
        }


def check_context(
    run: Run, first: Row, expected: dict[str, Any], where: Callable[[], dict[str, Any]]
) -> None:
    """The hand_started row's rotation and table against ``expected`` (:class:`TableContext`);
    ``where`` says where the row is, for a finding."""
    found = _context(first)
    for code, fields in _CONTEXT_CHECKS:
        wrong = [f for f in fields if expected.get(f) != found.get(f)]
        if wrong:
            run.find(
                code,
                f"hand_started: {', '.join(wrong)} not as the match gives",
                expected={f: expected.get(f) for f in wrong},
                found={f: found.get(f) for f in wrong},
                **where(),
            )


# The fields check_context compares, as a struct: each as msgspec.json.decode gives it in the
# row's object, None where the row has none (what ``dict.get`` gives there).
_CONTEXT_FIELDS: Final = tuple(f for _code, fields in _CONTEXT_CHECKS for f in fields)
_Context: Final = msgspec.defstruct("_Context", [(f, Any, None) for f in _CONTEXT_FIELDS])
_DECODE_CONTEXT: Final = msgspec.json.Decoder(_Context).decode


def _context(first: Row) -> dict[str, Any]:
    """The compared fields of a hand's first row (none of them a metadata key). A row read
    in one step is canonical JSON, no key repeated: those fields alone are decoded, as
    decoding the whole object would give them (half the time of the whole)."""
    if first.decoded is None and first.tail is not None:
        return msgspec.structs.asdict(_DECODE_CONTEXT(first.state))
    return first.data


def check_closing(
    run: Run,
    closing: Row,
    replayed: HandState | QuickHand | None,
    state: MatchState,
    hand: list[Row],
    match_id: str | None,
    number: int,
    stream: str,
    end: int,
) -> None:
    """The hand_closed row: its fingerprint of the hand's stream, and (the hand replayed) its
    result as the replay closes the hand (a quick fold's hand: as recording stores its
    closing, :func:`~mjledger.store.hand_forms.quick_table_closing`)."""
    expected: dict[str, Any] | None = None
    if isinstance(replayed, QuickHand):
        expected = quick_closing(replayed, number, hand)
        if SEALED and (text := closing.text) is not None and text == canonical_bytes(expected):
            return  # the very closing recording writes of the hand: nothing differs
    where = {
        "match": match_id,
        "hand": number,
        "stream": stream,
        "version": closing.version,
        "line": end,
    }
    found = {k: v for k, v in closing.data.items() if k not in META_KEYS}
    _check_fingerprint(run, found, hand, number, where)
    if replayed is None:
        return
    if isinstance(replayed, HandState):
        if not replayed.ended:
            run.find(
                "replay_differs",
                f"hand_closed for hand {number}, which replays as unfinished",
                expected={"outcome": "unfinished"},
                found={"outcome": found.get("outcome")},
                **where,
            )
            return
        expected = stored_form(closing_of(replayed, state, 0, ""))
    assert expected is not None  # a quick fold's hand: its closing, above
    wrong = [
        f for f in {*expected, *found} if f not in _HAND_FIELDS and expected.get(f) != found.get(f)
    ]
    if wrong:
        wrong.sort()
        run.find(
            "replay_differs",
            f"hand_closed's {', '.join(wrong)} not as the replay gives",
            expected={f: expected.get(f) for f in wrong},
            found={f: found.get(f) for f in wrong},
            **where,
        )


def quick_closing(hand: QuickHand, number: int, rows: list[Row]) -> dict[str, Any]:
    """The stored form of the closing recording writes of a hand the quick fold settled
    (:func:`~mjledger.store.hand_forms.quick_table_closing`), with the fingerprint of the
    hand's stream (``rows``) as :func:`_check_fingerprint` requires it: every value a string,
    an integer, a list or an object of those, so that its canonical text decodes to it again.
    A closing whose canonical text is this one's has nothing that differs from it."""
    expected = quick_table_closing(hand, len(rows))
    expected["number"], expected["hand_digest"] = number, rows[-1].digest
    return expected


# Whether a sealed closing of a hand the quick fold settled is compared by its canonical
# text first (the tests audit every store both ways and require the same report).
SEALED = True


def _check_fingerprint(
    run: Run, found: dict[str, Any], hand: list[Row], number: int, where: dict[str, Any]
) -> None:
    """The hand_closed's number, events and hand_digest against the hand's stream."""
    fingerprint = {
        "type": HandClosed.TYPE,
        "number": number,
        "events": len(hand),
        "hand_digest": hand[-1].digest,
    }
    wrong = [f for f in _HAND_FIELDS if fingerprint[f] != found.get(f)]
    if wrong:
        run.find(
            "closing_differs",
            f"hand_closed does not fit hand {number}'s stream ({', '.join(wrong)})",
            expected={f: fingerprint[f] for f in wrong},
            found={f: found.get(f) for f in wrong},
            **where,
        )
