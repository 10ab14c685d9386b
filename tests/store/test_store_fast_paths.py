"""The store's fast paths (issue 10) give exactly what the general paths give.

* Recording from the spool: ``check_log`` encodes each hand once as it checks it, and the rows
  written from that spool are byte for byte the rows of the log's batches sealed one event at
  a time (``batches_of_log`` through the store's mapper), with and without a match id, with
  variants and table stakes.
* Re-deriving reads the ledger's own rows without running the attrs validators again: the
  values read are those the validating reader reads, and every hand settles as ``replay`` of
  the log settles it.
"""

from __future__ import annotations

import gc
import sqlite3
from pathlib import Path
from typing import Any
from unittest import mock

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from mjledger import replay
from mjledger.errors import MjledgerError
from mjledger.fold.replay import hand_to_json
from mjledger.ledger import Ledger
from mjledger.store import importer
from mjledger.store.audit import audit
from mjledger.store.head import HeadRecorder, stored_events
from mjledger.store.importer import check_log
from mjledger.store.records import TOPICS, RecordMapper, row_decoder
from mjledger.store.signing import keygen, load_verifier

from ..store_logs import sichuan_match
from ..strategies import legal_logs, log_text
from ..variant_strategies import variant_logs

Line = dict[str, Any]
Row = tuple[str, int, str, bytes]

match_logs = st.one_of(legal_logs(max_hands=6), variant_logs(max_hands=6)).filter(
    lambda lines: lines[0]["type"] == "match_started"
)


def without_id(lines: list[Line]) -> list[Line]:
    return [{k: v for k, v in lines[0].items() if k != "match"}, *lines[1:]]


def as_rows(stored: Any) -> list[Row]:
    return [(s.originator_id.hex, s.originator_version, s.topic, s.state) for s in stored]


def spooled_and_sealed(text: str) -> tuple[list[Row], list[Row]]:
    """The rows recording ``text`` writes from the spool, and the same log's batches sealed
    event by event, both stamped at the same moment."""
    with mock.patch.object(importer, "now", return_value="2026-01-01T00:00:00.000000+00:00"):
        checked = check_log(text)
        spooled = list(checked.rows())
        mapper = RecordMapper()
        sealed = [as_rows(map(mapper.to_stored_event, b)) for b, _ in checked.batches()]
    return [r for batch in spooled for r in batch], [r for batch in sealed for r in batch]


@given(match_logs, st.booleans())
def test_spooled_rows_are_the_sealed_rows_byte_for_byte(lines: list[Line], named: bool) -> None:
    text = log_text(lines if named else without_id(lines))
    spooled, sealed = spooled_and_sealed(text)
    assert spooled == sealed
    assert len(spooled) > 0


@given(match_logs)
def test_the_spool_is_read_again_identically(lines: list[Line]) -> None:
    checked = check_log(log_text(lines))
    first = [b[1:] for b in checked.rows()]  # recorded_at differs between reads
    again = [b[1:] for b in checked.rows()]
    assert [[r[:3] for r in b] for b in first] == [[r[:3] for r in b] for b in again]
    assert checked.spool.hands == sum(1 for line in lines if line["type"] == "hand_started")


def test_a_long_log_spools_to_a_file_and_records_as_sealed() -> None:
    """Past the spool's memory the hands go to a temporary file; what is recorded is still
    exactly what sealing each event gives, and everything is recorded."""
    text = sichuan_match(400, seed=3, match_id=None)
    with mock.patch.object(importer, "SPOOL_MEMORY", 4096):
        spooled, sealed = spooled_and_sealed(text)
        checked = check_log(text)
        assert checked.spool._file._rolled  # type: ignore[attr-defined]
    assert spooled == sealed
    ledger = Ledger(persistence="memory")
    try:
        result = ledger.record_checked(checked)
        assert (result.status, result.hands, result.events) == (
            "recorded",
            400,
            len(text.splitlines()),
        )
        stored = [
            (s.originator_id.hex, s.originator_version, s.topic)
            for s in ledger.recorder.select_notifications(1, 100_000)
        ]
        assert stored == [r[:3] for r in sealed]
        assert ledger.replay_match(result.match).to_json() == replay(text).to_json() | {
            "match": result.match
        }
    finally:
        ledger.close()


def table_and_head(path: Path) -> tuple[list[Any], list[Any]]:
    db = sqlite3.connect(path)
    try:
        rows = db.execute("SELECT rowid, * FROM stored_events ORDER BY rowid").fetchall()
        return rows, db.execute("SELECT * FROM ledger_head").fetchall()
    finally:
        db.close()


@pytest.mark.parametrize("signed", [False, True])
def test_the_writer_stores_what_the_recorder_stores(tmp_path: Path, signed: bool) -> None:
    """Recording a log on SQLite goes through the recorder's writer (one connection of its
    own for every hand): the rows, their ids, the head and the signatures are those of
    inserting each hand through eventsourcing's pooled connections, and the store audits
    clean. Each insert gives the ids of the rows it inserted."""
    key, public = keygen(tmp_path / "signing.pem") if signed else (None, None)
    text = sichuan_match(12, seed=5)
    with mock.patch.object(importer, "now", return_value="2026-01-01T00:00:00.000000+00:00"):
        ledger = Ledger(tmp_path / "writer.sqlite", signing_key=key)
        ledger.record_checked(check_log(text))
        ledger.close()
        ledger = Ledger(tmp_path / "pool.sqlite", signing_key=key)
        recorder = ledger.recorder
        assert isinstance(recorder, HeadRecorder)
        ids = [recorder.insert_events(stored_events(rows)) for rows in check_log(text).rows()]
        ledger.close()
    rows, head = table_and_head(tmp_path / "writer.sqlite")
    assert (rows, head) == table_and_head(tmp_path / "pool.sqlite")
    assert [i for batch in ids for i in batch or ()] == [row[0] for row in rows]
    assert head[0][1:3] == (len(rows), rows[-1][0])
    verifier = None if public is None else load_verifier(public)
    assert audit(tmp_path / "writer.sqlite", public_key=verifier).clean


def test_a_refused_log_is_refused_while_spooling() -> None:
    text = sichuan_match(3) + '{"type": "hand_started"}\n{"type": "discarded", "player": "x"}\n'
    with pytest.raises(MjledgerError, match="'x' is not at the table"):
        check_log(text)


@settings(max_examples=50)
@given(match_logs)
def test_rows_read_without_validators_are_the_validated_values(lines: list[Line]) -> None:
    text = log_text(lines)
    ledger = Ledger(persistence="memory")
    try:
        match = ledger.record_log(text).match
        class_of = {topic: cls for cls, topic in TOPICS.items()}
        for row in ledger.recorder.select_notifications(1, 100_000):
            strict = row_decoder(class_of[row.topic])
            trusted = row_decoder(class_of[row.topic], trusted=True)
            assert (strict is None) == (trusted is None)
            if strict is not None:
                assert trusted is not None
                assert trusted(row.state) == strict(row.state)
        expected = replay(text).to_json()["hands"]
        assert [hand_to_json(h) for m, h in ledger.rederive() if m == match] == expected
    finally:
        ledger.close()


@pytest.mark.parametrize("enabled", [True, False])
def test_replay_all_pauses_the_collector_and_leaves_it_as_it_found_it(enabled: bool) -> None:
    from mjledger.store import application

    during: list[bool] = []

    class Watched(application.Rederivation):  # type: ignore[misc]
        def __iter__(self) -> Any:
            for item in super().__iter__():
                during.append(gc.isenabled())
                yield item

    text = sichuan_match(3, seed=2)
    was = gc.isenabled()
    with Ledger(":memory:") as ledger, mock.patch.object(application, "Rederivation", Watched):
        ledger.record_log(text)
        (gc.enable if enabled else gc.disable)()
        try:
            replayed = ledger.replay_all()
            after = gc.isenabled()
        finally:
            (gc.enable if was else gc.disable)()
    assert during == [False, False, False]
    assert after is enabled
    (match,) = replayed.values()
    assert match.to_json() == replay(text).to_json()
