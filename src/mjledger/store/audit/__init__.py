"""The audit: re-derive everything in a store from its raw rows and say what does not agree.

It reads the store's rows directly (read-only, one snapshot: a SQLite file or a PostgreSQL
schema, through :mod:`mjledger.store.audit.rows`), never through the ledger's caches, folds or
read models, and streams: one match stream and one hand at a time, each read straight from the
database in stream order, and one pass in commit order for the store head. What
it checks, per match: every row's link in its stream's digest chain, its topic against its
``type``, no version missing; each hand chained into its match; each hand replayed under the
match's rules (legal, zero-sum, fans and wall facts from tiles where tiles are logged) and its
``hand_closed`` equal to the replay; numbering, rotation, streaks and round winds; the read
models row by row against the replays; signatures (with a public key); and the store head
against every row. It never repairs anything: a damaged view is a finding like any other.

Findings are values (:class:`Finding`) with stable codes (:data:`CODES`).

The audit is one driver (:class:`Auditor`) over its passes, a module each: ``rows`` (where the
rows come from: :class:`~mjledger.store.audit.rows.AuditRows`, a SQLite source there and a
PostgreSQL one in ``postgres``), ``chains`` (links, topics, versions; table streams),
``replays`` (a match and its hands; ``closings``, ``signatures`` and ``corrections`` beside
it), ``views`` (the read models), ``head`` (the store head, stray rows) and ``report``
(findings with stable codes, :data:`CODES`, and the summary). The passes share one
:class:`~mjledger.store.audit.run.Run`.
"""

from __future__ import annotations

from collections.abc import Iterable, Iterator, Sequence
from pathlib import Path

from mjledger.log.events import MatchStarted
from mjledger.store.audit.chains import audit_table
from mjledger.store.audit.head import StoreHead, check_head, check_strays, store_head
from mjledger.store.audit.replays import audit_match
from mjledger.store.audit.report import CODES, AuditReport, AuditSummary, Finding, Progress
from mjledger.store.audit.rows import AuditRows, SqliteRows
from mjledger.store.audit.run import Run
from mjledger.store.audit.sources import open_rows
from mjledger.store.audit.views import check_view_counts, check_views_position
from mjledger.store.events import TableOpened
from mjledger.store.integrity import topic_of
from mjledger.store.location import StoreLocation, store_location
from mjledger.store.signing import Verifier
from mjledger.store.streams import match_stream

__all__ = [
    "CODES",
    "AuditReport",
    "AuditRows",
    "AuditSummary",
    "Auditor",
    "Finding",
    "Progress",
    "SqliteRows",
    "StoreHead",
    "audit",
    "open_rows",
    "store_head",
]


def audit(
    path: str | Path | None = None,
    *,
    matches: Sequence[str] | None = None,
    public_key: Verifier | None = None,
    progress: Progress | None = None,
) -> AuditReport:
    """Audit a store (see the module's docstring); findings in the order they were found."""
    auditor = Auditor(path, matches=matches, public_key=public_key, progress=progress)
    findings = tuple(auditor.run())
    return AuditReport(findings, auditor.summary)


class Auditor:
    """One audit of one store; :meth:`run` yields findings as it streams through."""

    def __init__(
        self,
        path: str | Path | StoreLocation | None = None,
        *,
        matches: Sequence[str] | None = None,
        public_key: Verifier | None = None,
        progress: Progress | None = None,
    ) -> None:
        self.location = store_location(path)
        self.only = list(matches) if matches is not None else None
        self.verifier = public_key
        self.progress = progress
        self.summary = AuditSummary(
            store=str(self.location), signatures_checked=public_key is not None
        )

    def run(self) -> Iterator[Finding]:
        source = open_rows(self.location)
        try:
            run = Run(source, self.summary, self.verifier, self.progress)
            source.open_views()
            self.summary.views = source.views_status
            run.views = source if source.views_status == "compared" else None
            if source.views_problem is not None:
                run.find("view_differs", source.views_problem)
            yield from self._passes(run)
        except source.failures as exc:
            raise source.failure(exc) from None
        finally:
            source.close()

    def _passes(self, run: Run) -> Iterator[Finding]:
        """Matches, tables, the head, then stray rows and the read models' counts (the last
        two only when the whole store is audited)."""
        run.total = 2 * run.rows.last_notification()
        yield from check_views_position(run)
        if self.only is None:
            discovered = run.rows.starting(topic_of(MatchStarted.TYPE))
            matches: Iterable[tuple[str, str | None]] = ((s, None) for s in discovered)
        else:
            matches = [(match_stream(m).hex, m) for m in self.only]
        for stream, match_id in matches:
            audit_match(run, stream, match_id)
            yield from run.flush()
        if self.only is None:
            # A first row stored under another topic leaves its stream to the stray check.
            for stream in run.rows.starting(topic_of(TableOpened.TYPE)):
                audit_table(run, stream)
                yield from run.flush()
        yield from check_head(run)
        if self.only is None:
            check_strays(run)
            check_view_counts(run)
            yield from run.flush()
        run.finish()
