"""The head pass: every row in commit order folded into the store head (docs/store.md), against
the head row the store keeps and its signature; and the rows no stream leads to.
"""

from __future__ import annotations

from collections.abc import Iterator
from itertools import islice
from pathlib import Path
from typing import Any

from attrs import frozen

from mjledger.store.audit.report import Finding
from mjledger.store.audit.run import Run
from mjledger.store.audit.sources import open_rows
from mjledger.store.head import fold_head
from mjledger.store.integrity import head_message
from mjledger.store.location import StoreLocation

BLOCK = 4096  # rows folded between two progress reports


@frozen
class StoreHead:
    """The head recomputed from the rows, and the head row the store keeps."""

    rows: int
    digest: str
    stored_rows: int | None
    stored_digest: str | None
    signature: str | None

    @property
    def agrees(self) -> bool:
        return (self.stored_rows, self.stored_digest) == (self.rows, self.digest)

    def to_json(self) -> dict[str, Any]:
        """What ``audit --head --json`` prints and ``GET /v1/audit/head`` answers (the file
        ``audit --since`` reads back): stated once for both doors."""
        stored = None
        if self.stored_digest is not None:
            stored = {"head": self.stored_digest, "rows": self.stored_rows}
        return {
            "head": self.digest,
            "rows": self.rows,
            "stored": stored,
            "agrees": self.agrees,
            "signature": self.signature,
        }


def store_head(path: str | Path | StoreLocation | None = None) -> StoreHead:
    """The store's head digest by the formula of docs/store.md, recomputed from its rows."""
    source = open_rows(path)
    try:
        rows, _last, digest = fold_head(source.all_rows())
        stored = source.stored_head()
    except source.failures as exc:
        raise source.failure(exc) from None
    finally:
        source.close()
    if stored is None:
        return StoreHead(rows, digest, None, None, None)
    return StoreHead(rows, digest, stored[0], stored[2], stored[3])


def check_head(run: Run) -> Iterator[Finding]:
    """The head of every row against the stored head row, and the head's signature (the
    rows the chains pass folded in commit order not read again: :class:`~mjledger.store.
    audit.run.HeadSoFar`)."""
    rows, digest, last = run.head.covered(run.rows)  # the rows the chains pass folded
    run.advance(rows)
    every = run.rows.all_rows(last)
    while True:  # a block at a time, for the progress bar (not a generator per row)
        count, _last, digest = fold_head(islice(every, BLOCK), digest)
        rows += count
        run.advance(count)
        if count < BLOCK:
            break
    run.summary.rows = rows
    run.summary.head = digest
    stored = run.rows.stored_head()
    if stored is None:
        if rows:
            run.find("head_missing", "the store has rows but no head row (ledger_head)")
        return run.flush()
    if (stored[0], stored[2]) != (rows, digest):
        gap = stored[0] - rows
        why = (
            f"{gap} row(s) fewer than the head covers: rows removed (a truncated tail?)"
            if gap > 0
            else f"{-gap} row(s) more than the head covers: rows added behind the ledger"
            if gap < 0
            else "rows changed since the head was written"
        )
        run.find(
            "head_mismatch",
            f"the store head does not cover the rows stored: {why}",
            expected={"rows": stored[0], "digest": stored[2]},
            found={"rows": rows, "digest": digest},
        )
    signature = stored[3]
    run.summary.head_signed = signature is not None
    if run.verifier is not None:
        if signature is None:
            run.find("unsigned_head", "the store head is not signed")
        elif not run.verifier.verify(signature, head_message(stored[0], stored[2])):
            run.find("signature_invalid", "the store head's signature does not verify")
    return run.flush()


def check_strays(run: Run) -> None:
    """Rows of streams no match or table led to (the passes before marked theirs)."""
    for stream, count, version, topic in run.rows.strays():
        run.find(
            "stray_rows",
            f"{count} row(s) of a stream no match or table leads to (first: {topic})",
            stream=stream,
            version=version,
        )
