"""What the passes of one audit share: the rows they read, the findings they add, the summary
they fill in, and the progress they report.

Each pass (chains, replays, corrections, views, head) is handed one :class:`Run` and nothing
else; findings wait in it until the driver (:class:`mjledger.store.audit.Auditor`) yields them,
a match or a table at a time.
"""

from __future__ import annotations

from collections.abc import Iterator
from typing import Any

from mjledger.store.audit.report import CODES, AuditSummary, Finding, Progress
from mjledger.store.audit.rows import AuditRows
from mjledger.store.canonical_rows import canonical_rows
from mjledger.store.signing import Verifier


class Run:
    """One audit as it goes: the store's rows (``views``: the same source when the read models
    are compared, else None), the public key, the findings not yet yielded and the counts."""

    def __init__(
        self,
        rows: AuditRows,
        summary: AuditSummary,
        verifier: Verifier | None,
        progress: Progress | None,
    ) -> None:
        self.rows = rows
        self.summary = summary
        self.verifier = verifier
        self.progress = progress
        self.views: AuditRows | None = None
        self.canonical = canonical_rows()
        self.corrected_streams = 0  # corrected hands' streams (each starts a view_hand_ids row)
        self._pending: list[Finding] = []
        self._done = 0
        self.total = 0

    def find(self, code: str, message: str, **where: Any) -> None:
        assert code in CODES, code
        self._pending.append(Finding(code, message, **where))

    def flush(self) -> Iterator[Finding]:
        """The findings added since the last flush, in the order they were found."""
        pending, self._pending = self._pending, []
        return iter(pending)

    def advance(self, rows: int) -> None:
        self._done += rows
        if self.progress is not None and (self._done & 1023) < rows:
            self.progress(self._done, self.total)

    def finish(self) -> None:
        if self.progress is not None:
            self.progress(self.total, self.total)
