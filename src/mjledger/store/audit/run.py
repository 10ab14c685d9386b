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
from mjledger.store.integrity import HEAD_GENESIS
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
        self.head = HeadSoFar()
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


# Whether the chains pass folds the head as it reads (the tests audit every store both ways
# and require the same report).
FOLD_HEAD = True


class HeadSoFar:
    """The store head (docs/store.md) folded over the rows as the chains pass reads them, for
    as long as they come in commit order: a store recorded a match at a time is read by its
    streams in the very order it was committed, and the head pass then need not read every
    row again. What it folded counts only where it is every row up to the last of them
    (:meth:`covered`: the rows the store holds up to there, counted in the same snapshot);
    the head pass folds the rows after them, or all of them, as it always has.

    A row out of order, or one the head's formula cannot take (a state of no bytes), ends
    the fold there: the head pass meets that row itself, and does with it what it does.
    The fold is the chains pass's loop (:func:`mjledger.store.audit.chains.read_chain`),
    which holds this state while it reads a stream; :data:`FOLD_HEAD` off, nothing is
    folded (the tests' general path)."""

    __slots__ = ("digest", "last", "open", "rows")

    def __init__(self) -> None:
        self.digest = HEAD_GENESIS
        self.rows = 0
        self.last = 0  # the notification of the last row folded
        self.open = FOLD_HEAD

    def covered(self, rows: AuditRows) -> tuple[int, str, int]:
        """How many rows, the head after them and the last one's notification: the rows
        folded where they are all the store holds up to the last of them (so in commit order,
        none left out), else none (0, the empty head, 0)."""
        if self.rows and rows.rows_through(self.last) == self.rows:
            return self.rows, self.digest, self.last
        return 0, HEAD_GENESIS, 0
