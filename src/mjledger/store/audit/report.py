"""What an audit reports: findings as values with stable codes, and a summary of what it read.

:data:`CODES` is the list of every finding the audit can give (docs/store.md shows it); the
passes add a :class:`Finding` through :meth:`mjledger.store.audit.run.Run.find`, which refuses
a code not listed here.
"""

from __future__ import annotations

import json
from collections.abc import Callable
from typing import Any, Final

import attrs
from attrs import define, frozen

CODES: Final[dict[str, str]] = {
    "row_unreadable": "a stored row is not JSON, or not an event of its type",
    "topic_mismatch": "a row's topic column names another class than its (chained) type",
    "row_missing": "a stream skips a version: a row was removed from its middle",
    "chain_broken": "a row's digest is not the link the chain gives after the row before it",
    "row_misplaced": "a row whose type does not belong at its place in its stream",
    "context_differs": "a hand's first row names another match, number or table than its match",
    "rotation_differs": "a hand's dealer, streak or round wind is not the rotation's",
    "replay_refused": "a hand does not replay: an illegal event, or a fan or wall fact its tiles "
    "contradict",
    "not_zero_sum": "a hand's settlement does not sum to zero",
    "replay_differs": "a hand_closed's result (dealer, streak, outcome, winners, net, rotation) "
    "is not the replay's",
    "closing_differs": "a hand_closed's fingerprint (number, events, hand_digest) is not its "
    "hand's",
    "rotation_unusable": "a hand that does not replay leaves the rotation to its hand_closed, "
    "which states none a match of its table can have: the hands after it are not replayed "
    "until a later hand_closed gives one",
    "closing_missing": "a hand ended but its match has no hand_closed for it",
    "hand_missing": "a hand_closed names a hand whose stream is empty",
    "hand_extra": "a hand stream after the match's last hand (or after an unfinished one)",
    "match_missing": "a table names a match the store does not hold",
    "stray_rows": "rows that belong to no stream of any match or table",
    "view_behind": "the read models have not applied every stored row",
    "view_differs": "a read-model row is not what the replays give",
    "head_missing": "the store has no head row",
    "head_mismatch": "the store head is not the head of the rows stored",
    "signature_invalid": "a signature does not verify with the public key",
    "unsigned_hand": "a hand_closed without a signature (with --public-key)",
    "unsigned_head": "the store head without a signature (with --public-key)",
    "head_rolled_back": "fewer rows than a saved head covers (--since): rows were removed, the "
    "store rolled back or its newest rows deleted",
    "head_rewritten": "the first rows are not those a saved head covers (--since): history "
    "rewritten, or another store's",
}


@frozen
class Finding:
    """One thing the audit found wrong: where (match, hand, stream position, export line),
    what (a stable ``code`` and a sentence) and, where it applies, expected versus found."""

    code: str
    message: str
    match: str | None = None
    hand: int | None = None
    stream: str | None = None
    version: int | None = None
    line: int | None = None
    expected: Any = None
    found: Any = None

    def to_json(self) -> dict[str, Any]:
        return attrs.asdict(self)

    def __str__(self) -> str:
        where = []
        if self.match is not None:
            where.append(f"match {self.match}")
        if self.hand is not None:
            where.append(f"hand {self.hand}")
        if self.line is not None:
            where.append(f"line {self.line}")
        if self.stream is not None:
            version = f" v{self.version}" if self.version is not None else ""
            where.append(f"stream {self.stream[:8]}{version}")
        text = f"{self.code}: {', '.join(where) + ': ' if where else ''}{self.message}"
        return text + self._versus()

    def _versus(self) -> str:
        """The expected and found values, as far as the finding has them: a finding that
        only states what it found (a hand's net that is not zero-sum) shows no "expected
        null", which would read as if null had been expected."""
        if self.expected is None and self.found is None:
            return ""
        if self.expected is None:
            return f" (found {_show(self.found)})"
        return f" (expected {_show(self.expected)}, found {_show(self.found)})"


def _show(value: Any) -> str:
    return json.dumps(value, ensure_ascii=False, sort_keys=True)


@define
class AuditSummary:
    """What the audit went through (filled in as it runs)."""

    store: str
    matches: int = 0
    hands: int = 0
    tables: int = 0
    rows: int = 0
    signed_hands: int = 0
    head: str | None = None
    head_signed: bool = False
    signatures_checked: bool = False
    views: str = "not compared"

    def to_json(self) -> dict[str, Any]:
        return attrs.asdict(self)


@frozen
class AuditReport:
    """The findings (empty: the store is clean) and the summary of one audit."""

    findings: tuple[Finding, ...]
    summary: AuditSummary

    @property
    def clean(self) -> bool:
        return not self.findings

    def to_json(self) -> dict[str, Any]:
        counts: dict[str, int] = {}
        for f in self.findings:
            counts[f.code] = counts.get(f.code, 0) + 1
        return {
            "clean": self.clean,
            "summary": self.summary.to_json(),
            "counts": counts,
            "findings": [f.to_json() for f in self.findings],
        }


# Called with (rows done, rows in all) as the audit goes.
Progress = Callable[[int, int], None]
