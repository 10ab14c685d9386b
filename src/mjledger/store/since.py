"""``audit --since HEAD_FILE``: does today's store extend a head saved earlier?

The store head (docs/store.md, "The store head") is a hash chain over every row in commit
order: the head after ``n`` rows is a digest of the head after ``n - 1`` and row ``n``. So a
head saved at ``n`` rows (what ``audit --head --json`` printed then) is a commitment to those
``n`` rows in that order, as a transparency log's signed tree head is (RFC 9162). Today's store
is consistent with it when folding its first ``n`` rows gives the saved digest again: the same
rows in the same order, then more. Anything else is a finding:

* fewer rows than the saved head covered: rows were removed — the store was rolled back to an
  earlier copy, or its newest rows deleted and an older (validly signed) head row put back,
  which an audit of the store alone cannot see;
* the first ``n`` rows fold to another digest: history was rewritten, or this is another
  store's history.

The check reads the rows once, through the audit's own row sources (SQLite or PostgreSQL), and
never through the application.
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any, Final

from attrs import frozen

from mjledger.errors import MjledgerError
from mjledger.store.audit import Finding, open_rows
from mjledger.store.integrity import HEAD_GENESIS, head_message, head_step
from mjledger.store.signing import Verifier

_HEX: Final = frozenset("0123456789abcdef")


@frozen
class SavedHead:
    """A head an auditor kept: how many rows it covers and their digest (the ``rows`` and
    ``head`` of ``audit --head --json``), with the stored head's signature if it had one."""

    rows: int
    digest: str
    stored: tuple[int, str] | None = None  # the head row then: (rows, digest)
    signature: str | None = None


@frozen
class Consistency:
    """What comparing today's store with a saved head found: the rows today, the digest of
    today's first ``saved.rows`` rows (None when there are fewer rows), and the findings
    (none: the store extends the saved one)."""

    saved: SavedHead
    rows: int
    digest_then: str | None
    findings: tuple[Finding, ...]

    @property
    def consistent(self) -> bool:
        return not self.findings

    def to_json(self) -> dict[str, Any]:
        return {
            "rows": self.saved.rows,
            "head": self.saved.digest,
            "rows_now": self.rows,
            "added": max(self.rows - self.saved.rows, 0),
            "consistent": self.consistent,
        }


def read_saved_head(path: str | Path) -> SavedHead:
    """The head in ``path``, as ``audit --head --json`` printed it; a :class:`MjledgerError`
    naming the file and the problem when it cannot be one."""
    try:
        text = Path(path).read_text(encoding="utf-8")
    except (OSError, UnicodeDecodeError) as exc:
        why = getattr(exc, "strerror", None) or "not UTF-8 text"
        raise MjledgerError(
            f"cannot read the saved head {path}: {why}", code="bad_parameter"
        ) from None
    try:
        data = json.loads(text)
    except ValueError:
        raise MjledgerError(
            f"the saved head {path} is not JSON (save what audit --head --json prints)",
            code="bad_parameter",
        ) from None
    problem = _head_problem(data)
    if problem is not None:
        raise MjledgerError(
            f"the saved head {path} is not audit --head --json's: {problem}", code="bad_parameter"
        )
    stored = data.get("stored")
    kept = None if stored is None else (stored["rows"], stored["head"])
    return SavedHead(data["rows"], data["head"], kept, data.get("signature"))


def _is_digest(value: object) -> bool:
    return isinstance(value, str) and len(value) == 64 and set(value) <= _HEX


def _head_problem(data: object) -> str | None:
    if not isinstance(data, dict):
        return "not a JSON object"
    rows = data.get("rows")
    if type(rows) is not int or rows < 0:
        return "'rows' must be a whole number"
    if not _is_digest(data.get("head")):
        return "'head' must be 64 hex digits"
    stored = data.get("stored")
    if stored is not None and not (
        isinstance(stored, dict)
        and _is_digest(stored.get("head"))
        and type(stored.get("rows")) is int
    ):
        return "'stored' must be null or hold 'head' (64 hex digits) and 'rows'"
    signature = data.get("signature")
    if signature is not None and not isinstance(signature, str):
        return "'signature' must be null or a string"
    return None


def check_since(source: Any, saved: SavedHead, public_key: Verifier | None = None) -> Consistency:
    """Compare the rows of ``source`` (an audit row source: ``all_rows`` in commit order)
    with ``saved``: findings for a rollback, a rewrite, or a saved head whose signature does
    not verify with ``public_key``."""
    digest, count = HEAD_GENESIS, 0
    then = HEAD_GENESIS if saved.rows == 0 else None
    for _rowid, stream, version, topic, state in source.all_rows():
        if isinstance(state, str):
            state = state.encode("utf-8")
        digest = head_step(digest, stream, version, topic, state)
        count += 1
        if count == saved.rows:
            then = digest
    findings: list[Finding] = []
    if (
        public_key is not None
        and saved.signature is not None
        and not _signature_verifies(saved, public_key)
    ):
        findings.append(
            Finding(
                "signature_invalid",
                "the saved head's signature does not verify with the public key",
            )
        )
    if count < saved.rows:
        findings.append(
            Finding(
                "head_rolled_back",
                f"the store holds {count} rows, fewer than the {saved.rows} the saved head "
                "covers: rows were removed since (the store rolled back, or its newest rows "
                "deleted)",
                expected=saved.rows,
                found=count,
            )
        )
    elif then != saved.digest:
        findings.append(
            Finding(
                "head_rewritten",
                f"the store's first {saved.rows} rows are not the rows the saved head covers: "
                "history was rewritten, or this is another store",
                expected=saved.digest,
                found=then,
            )
        )
    return Consistency(saved, count, then, tuple(findings))


def _signature_verifies(saved: SavedHead, public_key: Verifier) -> bool:
    """The saved head's signature is the store's, over the head row it was saved with."""
    if saved.signature is None or saved.stored is None:
        return False  # a signature without the head row it signs verifies nothing
    rows, digest = saved.stored
    return public_key.verify(saved.signature, head_message(rows, digest))


def since(store: Any, saved: SavedHead, public_key: Verifier | None = None) -> Consistency:
    """:func:`check_since` on the store named ``store`` (a SQLite path or a PostgreSQL URL),
    read through one read-only snapshot of its rows."""
    source = open_rows(store)
    try:
        return check_since(source, saved, public_key)
    except source.failures as exc:
        raise source.failure(exc) from None
    finally:
        source.close()
