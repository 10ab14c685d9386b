"""A match's corrections stream (``corrections/{match}``) and each corrected hand's stream:
their ids, and the log the corrections stream folds into (:class:`CorrectionLog`). What
correcting does with them is :mod:`mjledger.store.corrections`; verify on read, the audit and
the re-derivation only need the ids and the rows, from here.
"""

from __future__ import annotations

import uuid
from collections.abc import Iterable, Sequence
from typing import Any

from attrs import frozen

from mjledger.store.events import HandCorrected, HandVoided
from mjledger.store.records import Recorded
from mjledger.store.streams import _NAMESPACE


def corrections_stream(match_id: str) -> uuid.UUID:
    return uuid.uuid5(_NAMESPACE, f"corrections/{match_id}")


def correction_stream(match_id: str, number: int, correction: int) -> uuid.UUID:
    return uuid.uuid5(_NAMESPACE, f"hand/{match_id}/{number}/correction/{correction}")


@frozen
class Correction:
    """One row of a match's corrections stream, with when it was stored."""

    version: int
    when: str
    event: HandCorrected | HandVoided

    @property
    def number(self) -> int:
        return self.event.number

    @property
    def kind(self) -> str:
        return "corrected" if isinstance(self.event, HandCorrected) else "voided"

    def note(self, players: Sequence[str]) -> dict[str, Any]:
        """What ``history --json`` shows of it: kind, when, by, reason, the nets around it."""
        e = self.event
        net = e.net if isinstance(e, HandCorrected) else dict.fromkeys(players, 0)
        return {
            "kind": self.kind,
            "when": self.when,
            "by": e.by,
            "reason": e.reason,
            "original_net": dict(e.original_net),
            "net": dict(net),
        }


@frozen
class CorrectionLog:
    version: int
    digest: str
    entries: tuple[Correction, ...] = ()

    def latest(self, number: int, before: int | None = None) -> Correction | None:
        """The correction in force for hand ``number`` (only those below version ``before``)."""
        found = None
        for c in self.entries:
            if c.number == number and (before is None or c.version < before):
                found = c
        return found

    def of(self, number: int) -> tuple[Correction, ...]:
        return tuple(c for c in self.entries if c.number == number)


def project_corrections(
    record: CorrectionLog | None, stored: Iterable[Recorded]
) -> CorrectionLog | None:
    for r in stored:
        entry = Correction(r.originator_version, r.recorded_at, r.event)
        previous = record.entries if record is not None else ()
        record = CorrectionLog(r.originator_version, r.digest, (*previous, entry))
    return record
