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
import json
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
from mjledger.log.codec import canonical_bytes, parse_log
from mjledger.log.events import Discarded, PlayerAtWallEnd, WallExhausted
from mjledger.log.reader import iter_text
from mjledger.store import importer
from mjledger.store.audit import audit
from mjledger.store.head import HeadRecorder, stored_events
from mjledger.store.importer import check_log
from mjledger.store.records import TOPICS, RecordMapper, converter_form, row_decoder, stored_form
from mjledger.store.signing import keygen, load_verifier
from mjledger.store.streams import hand_stream, hand_stream_hex

from ..store_logs import sichuan_match
from ..strategies import corrupted_log_texts, legal_logs, log_text, sichuan_rules
from ..unit.test_quick_fold import bench_lines, damaged_bench_logs
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


def own_forms(events: list[Any]) -> list[tuple[str, bytes]]:
    return [(TOPICS[type(e)], canonical_bytes(stored_form(e))) for e in events]


@given(match_logs, st.integers(1, 12))
def test_stored_forms_kept_by_identity_are_each_events_own(lines: list[Line], kept: int) -> None:
    """The check pass's stored forms, kept for the events the fast decoder gives again (the
    same object for the same line), are each event's own topic and canonical JSON: for the
    decoder's events and the strict codec's, twice over, and with the forms kept forgotten
    again and again (at most ``kept`` of them)."""
    text = log_text(lines)
    decoded = [event for _, event in iter_text(text)][1:]
    parsed = [event for _, event in parse_log(text)][1:]
    with (
        mock.patch.object(importer, "KEPT_FORMS", kept),
        mock.patch.object(importer, "_KEPT_FORMS", {}),
    ):
        for events in (decoded, parsed, decoded + parsed + decoded):
            assert importer.stored_forms(events) == own_forms(events)
        assert len(importer._KEPT_FORMS) <= kept


def test_a_kept_form_is_never_another_objects() -> None:
    """A kept form holds its event, so an object made later never has the id of one whose
    form is kept (CPython gives a freed object's address to the next one of its size)."""
    for n in range(200):
        event = Discarded(player=f"p{n}", tile=f"{n % 9 + 1}m")
        assert importer.stored_forms([event]) == own_forms([event])
        del event


def test_an_event_that_does_not_hash_is_not_kept() -> None:
    """An event holding a dict could be changed in place: its form is laid out each time."""
    event = WallExhausted(remaining={"ana": PlayerAtWallEnd(ready=False)})
    assert importer.stored_forms([event]) == own_forms([event])
    assert event.remaining is not None
    event.remaining["bo"] = PlayerAtWallEnd(flower_pig=True)
    assert importer.stored_forms([event]) == own_forms([event])


def shape(data: Any) -> Any:
    """A stored form with the type of every value, lists and tuples told apart."""
    if isinstance(data, dict):
        return [(k, shape(v)) for k, v in data.items()]
    if isinstance(data, list | tuple):
        return (type(data), [shape(v) for v in data])
    return (type(data), data)


@given(match_logs)
def test_stored_forms_are_the_converters(lines: list[Line]) -> None:
    """``stored_form`` (generated code) gives what the store converter's unstructuring gives,
    key order and value types included: each log event, and each record recording seals
    (stand-alone starts with house rules, closings, the match start)."""
    text = log_text(lines)
    events = [event for _, event in parse_log(text)]
    events += [r.event for batch, _ in check_log(text).batches() for r in batch]
    for event in events:
        assert shape(stored_form(event)) == shape(converter_form(event))


@given(match_logs)
def test_the_spool_is_read_again_identically(lines: list[Line]) -> None:
    checked = check_log(log_text(lines))
    first = [b[1:] for b in checked.rows()]  # recorded_at differs between reads
    again = [b[1:] for b in checked.rows()]
    assert [[r[:3] for r in b] for b in first] == [[r[:3] for r in b] for b in again]
    assert checked.spool.hands == sum(1 for line in lines if line["type"] == "hand_started")


@pytest.mark.parametrize("memory", [0, 4096])
def test_a_long_log_spools_to_a_file_and_records_as_sealed(memory: int) -> None:
    """Past the spool's memory the hands go to a temporary file (the first ones stay in
    memory, if any fit); what is recorded is still exactly what sealing each event gives,
    and everything is recorded."""
    text = sichuan_match(400, seed=3, match_id=None)
    with mock.patch.object(importer, "SPOOL_MEMORY", memory):
        spooled, sealed = spooled_and_sealed(text)
        checked = check_log(text)
        kept = checked.spool.hands - checked.spool.spilled
        assert (kept == 0) if memory == 0 else (0 < kept < checked.spool.hands)
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


@settings(max_examples=25)
@given(
    kept=st.integers(0, 3),
    spilled=st.sampled_from([0, 1, 63, 64, 65, 128, 130]),
)
def test_the_spool_gives_back_every_hand_in_order_across_its_chunks(
    kept: int, spilled: int
) -> None:
    """The hands past the spool's memory go to its file a chunk at a time (a chunk not yet
    full waits in memory): whatever the count, every hand comes back once, in order, equal
    to what was added, and again on a second read. A mutant dropping the waiting chunk fails
    it wherever the count is not a whole number of chunks; one writing a chunk twice, from
    64 spilled hands on."""
    text = b'{"type":"x"}'
    hands = [(n, {"n": n}, [("topic", text), ("topic", text)], None) for n in range(kept + spilled)]
    each = importer._HAND_BYTES + 2 * (importer._EVENT_BYTES + len(text))  # as the spool reckons
    with mock.patch.object(importer, "SPOOL_MEMORY", kept * each):
        spool = importer.HandSpool()
    try:
        for hand in hands:
            spool.add(hand)
        assert spool.spilled == spilled
        assert list(spool) == hands
        assert list(spool) == hands  # reading changes nothing
    finally:
        spool.close()


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


@pytest.mark.parametrize("tampered", [False, True])
@pytest.mark.parametrize("signed", [False, True])
def test_the_writer_moves_the_head_another_writer_moved(
    tmp_path: Path, signed: bool, tampered: bool
) -> None:
    """The writer moves the head it left without reading it (compare and set); when another
    writer has moved it in between, or the head row was changed, it reads the head as it
    stands and moves that: ids, head and signatures are those of inserting every batch
    through eventsourcing's pooled connections in the same order."""
    key, public = keygen(tmp_path / "signing.pem") if signed else (None, None)
    first, other = sichuan_match(4, seed=5), sichuan_match(3, seed=6, match_id="other")
    with mock.patch.object(importer, "now", return_value="2026-01-01T00:00:00.000000+00:00"):
        mine, theirs = list(check_log(first).rows()), list(check_log(other).rows())
    order = [(True, mine[0]), (True, mine[1]), (False, theirs[0]), (True, mine[2])]
    order += [(False, theirs[1]), (False, theirs[2]), (True, mine[3]), (True, mine[4])]
    stores = {}
    for name in ("writer", "pool"):
        ledger = Ledger(tmp_path / f"{name}.sqlite", signing_key=key)
        recorder = ledger.recorder
        assert isinstance(recorder, HeadRecorder)
        ids = []
        with recorder.writer() as write:
            for by_writer, rows in order:
                if by_writer and name == "writer":
                    ids.append(write(rows))
                else:
                    ids.append(recorder.insert_events(stored_events(rows)))
                if tampered and rows is mine[2] and name == "writer":  # changed behind its back
                    db = sqlite3.connect(tmp_path / f"{name}.sqlite")
                    db.execute("UPDATE ledger_head SET digest = 'x' || digest")
                    db.commit()
                    db.close()
        ledger.close()
        stores[name] = (table_and_head(tmp_path / f"{name}.sqlite"), ids)
    (rows, head), ids = stores["writer"]
    assert [i for batch in ids for i in batch or ()] == [row[0] for row in rows]
    assert head[0][1:3] == (len(rows), rows[-1][0])
    assert rows == stores["pool"][0][0]
    verifier = None if public is None else load_verifier(public)
    assert audit(tmp_path / "pool.sqlite", public_key=verifier).clean
    # A changed head is moved as it stands (as any writer would), so the audit sees it.
    assert (head == stores["pool"][0][1]) is not tampered
    assert audit(tmp_path / "writer.sqlite", public_key=verifier).clean is not tampered


@given(st.text(st.characters(exclude_categories=("Cs",))), st.integers(1, 10**12))
def test_hand_stream_ids_are_spelled_as_uuid5_spells_them(match_id: str, number: int) -> None:
    assert hand_stream_hex(match_id, number) == hand_stream(match_id, number).hex


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


def _checked_rows(text: str, *, quick: bool) -> Any:
    """The rows recording ``text`` writes from its spool, or its error, with the check pass
    settling hands as ``replay --json`` does (``quick``) or through the match fold."""
    with (
        mock.patch.object(importer, "now", return_value="2026-01-01T00:00:00.000000+00:00"),
        mock.patch.object(
            importer, "quick_hands_of", importer.quick_hands_of if quick else lambda _: None
        ),
    ):
        try:
            checked = check_log(text)
            return [list(batch) for batch in checked.rows()], checked.hands, checked.events
        except MjledgerError as exc:
            return type(exc).__name__, str(exc), getattr(exc, "line", None)


@given(st.integers(0, 10_000), sichuan_rules(), st.booleans())
def test_a_quick_fold_table_spools_the_sealed_rows(seed: int, rules: Any, named: bool) -> None:
    """The check pass of a table with a quick fold (the benchmark's Sichuan logs) spools
    what the match fold's check pass spools, and the rows are the sealed rows."""
    lines = bench_lines(seed, 8, rules)
    if not named:
        first = json.loads(lines[0])
        del first["match"]
        lines[0] = json.dumps(first)
    text = "\n".join(lines)
    with mock.patch.object(importer, "_Hands", side_effect=AssertionError("the match fold")):
        quick = _checked_rows(text, quick=True)
    assert quick == _checked_rows(text, quick=False)
    spooled, sealed = spooled_and_sealed(text)
    assert spooled == sealed


@given(st.one_of(damaged_bench_logs(), corrupted_log_texts(ruleset="sichuan")))
def test_a_quick_fold_table_is_checked_as_the_match_fold_checks_it(text: Any) -> None:
    text = text.decode() if isinstance(text, bytes) else text
    assert _checked_rows(text, quick=True) == _checked_rows(text, quick=False)
