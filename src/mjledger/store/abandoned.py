"""The void of an abandoned hand, in one transaction (http-api.md, "An abandoned hand").

A table that broke up, or a backend that lost its hand, leaves a hand in play that nobody will
finish. Staff void it so that the match can go on: it is stored as the void of a finished
hand — first, at the hand's next position, the empty wall with the ``hand_closed`` that
``record`` writes for it, then the ``hand_voided`` row — and all three rows go into the store
in one transaction, so that no crash or race leaves the hand ended but not voided.

The void's own checks and figures are :func:`mjledger.store.corrections.void`'s, run against
the ledger as it reads with the wall appended (:class:`_WithWall`): the rule of a void is
stated once, there.
"""

from __future__ import annotations

import uuid
from collections.abc import Iterator, Sequence
from typing import Any

from mjledger.errors import RuleError
from mjledger.fold.hand import HandState
from mjledger.log.events import Event, PlayerAtWallEnd, WallExhausted
from mjledger.store.appends import appended
from mjledger.store.corrections import CorrectionResult, void
from mjledger.store.projectors import HandRecord, MatchRecord, project_hand, project_match
from mjledger.store.reads import RowsChecker, StoredEvents, StoredLedger
from mjledger.store.records import Recorded
from mjledger.store.settled import settled_hand


def void_abandoned(
    ledger: StoredLedger,
    match_id: str,
    number: int,
    *,
    reason: str,
    by: str,
    correction: int | None = None,
) -> CorrectionResult:
    """Void hand ``number``: a finished hand as :func:`~mjledger.store.corrections.void`
    does, a hand in play by ending it with the empty wall and voiding it in one transaction
    (a :class:`~mjledger.errors.ConcurrencyError` when another writer got there first:
    nothing is written)."""
    match = ledger.match(match_id)
    if number <= len(match.closed) or number > ledger.hands_in(match_id):
        return void(ledger, match_id, number, reason=reason, by=by, correction=correction)
    hand = ledger.hand(match_id, number)
    with_wall = _WithWall(ledger, match_id, number, _empty_wall(match_id, number, match, hand))
    result = void(with_wall, match_id, number, reason=reason, by=by, correction=correction)
    ledger._save(with_wall.pending)
    return result


def _empty_wall(match_id: str, number: int, match: MatchRecord, hand: HandRecord) -> list[Recorded]:
    """The records that end the hand with the empty wall: the plain ``wall_exhausted``, or,
    where the rule set needs to know who was still in, one naming every such player not
    ready (the rule set decides which: the first the fold accepts; its refusal if neither)."""
    walls = (
        WallExhausted(),
        WallExhausted(remaining={p: PlayerAtWallEnd(ready=False) for p in hand.state.still_in}),
    )
    for wall in walls:
        try:
            return appended(match_id, number, match, hand, wall, hand.version)
        except RuleError:
            if wall is walls[-1]:
                raise
    raise AssertionError("unreachable")  # pragma: no cover - the loop returns or raises


class _WithWall:
    """The ledger as it reads with the empty wall's records appended to one hand (and that
    hand's closing to its match), keeping what is saved through it so that the caller writes
    it all at once."""

    def __init__(
        self, ledger: StoredLedger, match_id: str, number: int, records: list[Recorded]
    ) -> None:
        self._ledger = ledger
        self._key = (match_id, number)
        wall, closing = records
        found_hand = project_hand(ledger.hand(match_id, number), [wall])
        found_match = project_match(ledger.match(match_id), [closing])
        assert found_hand is not None
        assert found_match is not None
        self._hand, self._match = found_hand, found_match
        self.pending: list[Recorded] = list(records)

    @property
    def verifier(self) -> RowsChecker | None:
        return self._ledger.verifier

    @property
    def events(self) -> StoredEvents:
        return self._ledger.events

    def _get(self, stream: uuid.UUID, *, version: int | None = None, projector_func: Any) -> Any:
        return self._ledger._get(stream, version=version, projector_func=projector_func)

    def _save(self, records: Sequence[Recorded], exists: str | None = None) -> None:
        self.pending.extend(records)

    def match(self, match_id: str) -> MatchRecord:
        return self._match if match_id == self._key[0] else self._ledger.match(match_id)

    def hand(self, match_id: str, number: int, *, version: int | None = None) -> HandRecord:
        if (match_id, number) == self._key and version is None:
            return self._hand
        return self._ledger.hand(match_id, number, version=version)

    def hands_in(self, match_id: str) -> int:
        return self._ledger.hands_in(match_id)

    def hand_events(self, match_id: str, number: int) -> list[Event]:
        if (match_id, number) == self._key:
            return list(self._hand.events)
        return self._ledger.hand_events(match_id, number)

    def settlement(self, match_id: str, number: int) -> HandState:
        return settled_hand(self, match_id, number)

    def export_events(self, match_id: str, *, corrected: bool = True) -> Iterator[Event]:
        return self._ledger.export_events(match_id, corrected=corrected)
