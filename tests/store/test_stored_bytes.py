"""The stored bytes of random logs against a reference written from docs/store.md.

Recording a log (``Ledger.record_log`` on SQLite: the check pass's spool, the generated stored
forms, msgspec's encoder, the recorder's writer and its store head, signatures) must store
exactly what a reference built without any of those stores: each record of the log's
batches (the match fold, one event at a time) laid out by the store's cattrs converter,
encoded with :func:`json.dumps` (sorted keys, no spaces), chained, stamped, signed and folded
into the head by the formulas of docs/store.md, spelled out here. Rows, heads and signatures
byte for byte, with and without a match id, with variants and table stakes.
"""

from __future__ import annotations

import hashlib
import json
import sqlite3
import tempfile
from pathlib import Path
from typing import Any
from unittest import mock

from hypothesis import given, settings
from hypothesis import strategies as st

from mjledger.ledger import Ledger
from mjledger.store import importer
from mjledger.store.records import TOPICS, converter_form
from mjledger.store.signing import Signer, keygen, load_signer
from mjledger.store.streams import match_stream

from ..strategies import legal_logs, log_text
from ..variant_strategies import variant_logs

Line = dict[str, Any]
STAMP = "2026-01-01T00:00:00.000000+00:00"
GENESIS = ""  # what a stream chains from, and the head before any row
SIGNED = {"hand_closed", "hand_corrected", "hand_voided"}

match_logs = st.one_of(legal_logs(max_hands=5), variant_logs(max_hands=5)).filter(
    lambda lines: lines[0]["type"] == "match_started"
)


def reference(text: str, signer: Signer) -> tuple[list[tuple[Any, ...]], tuple[Any, ...]]:
    """The rows (stream, version, topic, state) and the head row (rows, notification, digest,
    signature) docs/store.md gives for the log ``text``."""
    rows: list[tuple[Any, ...]] = []
    last: dict[str, str] = {}  # each stream's last digest
    checked = importer.check_log(text)
    match = match_stream(checked.match).hex
    for batch, _lines in checked.batches():
        for record in batch:
            stream = record.originator_id.hex
            form = converter_form(record.event)
            canonical = json.dumps(form, ensure_ascii=False, sort_keys=True, separators=(",", ":"))
            # A stream's first row chains from its match's digest (the match's: from zero).
            previous = last.get(stream, last.get(match, GENESIS))
            digest = hashlib.sha256((previous + canonical).encode("utf-8")).hexdigest()
            last[stream] = digest
            state = canonical[:-1] + f',"recorded_at":"{STAMP}","digest":"{digest}"}}'
            if form["type"] in SIGNED:
                signature = signer.sign(f"mjledger-hand:{digest}".encode("ascii"))
                state = state[:-1] + f',"signature":"{signature}"}}'
            topic = TOPICS[type(record.event)]
            rows.append((stream, record.originator_version, topic, state.encode("utf-8")))
    head = GENESIS
    for stream, version, topic, state in rows:
        step = hashlib.sha256(f"{head} {stream} {version} {topic}\n".encode() + state)
        head = step.hexdigest()
    signature = signer.sign(f"mjledger-head:{len(rows)}:{head}".encode("ascii"))
    return rows, (len(rows), len(rows), head, signature)


def stored(path: Path) -> tuple[list[tuple[Any, ...]], tuple[Any, ...]]:
    db = sqlite3.connect(path)
    try:
        rows = db.execute(
            "SELECT originator_id, originator_version, topic, state FROM stored_events "
            "ORDER BY rowid"
        ).fetchall()
        head = db.execute(
            "SELECT rows, notification, digest, signature FROM ledger_head"
        ).fetchone()
    finally:
        db.close()
    return [(s, v, t, bytes(b)) for s, v, t, b in rows], tuple(head)


@settings(max_examples=20, deadline=None)
@given(match_logs, st.booleans())
def test_rows_heads_and_signatures_are_the_references(lines: list[Line], named: bool) -> None:
    if not named:
        lines = [{k: v for k, v in lines[0].items() if k != "match"}, *lines[1:]]
    text = log_text(lines)
    with (
        tempfile.TemporaryDirectory() as tmp,
        mock.patch.object(importer, "now", return_value=STAMP),
    ):
        private, _public = keygen(Path(tmp) / "signing.pem")
        store = Path(tmp) / "store.sqlite"
        with Ledger(store, signing_key=private) as ledger:
            ledger.record_log(text)
        want_rows, want_head = reference(text, load_signer(private))
        rows, head = stored(store)
    assert rows == want_rows
    assert head == want_head
