"""The signatures pass: each signed row's signature against the public key given.

A hand_closed (or a correction) signs its own digest
(:func:`mjledger.store.integrity.hand_message`); the store head's signature is checked with
the head (:mod:`mjledger.store.audit.head`).
"""

from __future__ import annotations

from typing import Any

from mjledger.store.audit import closings
from mjledger.store.audit.chains import Row
from mjledger.store.audit.run import Run
from mjledger.store.events import HandClosed
from mjledger.store.integrity import hand_message


def check_signature(
    run: Run, closing: Row, match_id: str | None, number: int, stream: str, line: int | None
) -> None:
    """Count a signed hand_closed; with a public key, say where a signature is missing or
    does not verify."""
    if closing.tail is not None and closings.SEALED:
        # Read in its sealed form: its type its event's, its signature in its metadata tail.
        kind: Any = closing.event.TYPE
        signature: Any = closing.signature
    else:
        kind = closing.data.get("type", "row")
        signature = closing.data.get("signature")
    if signature is not None and kind == HandClosed.TYPE:
        run.summary.signed_hands += 1
    if run.verifier is None:
        return
    where = {
        "match": match_id,
        "hand": number,
        "stream": stream,
        "version": closing.version,
        "line": line,
    }
    if signature is None:
        run.find("unsigned_hand", f"hand {number}'s {kind} is not signed", **where)
    elif not isinstance(signature, str) or not run.verifier.verify(
        signature, hand_message(closing.digest)
    ):
        run.find(
            "signature_invalid",
            f"hand {number}'s {kind} signature does not verify",
            **where,
        )
