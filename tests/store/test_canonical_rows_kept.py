"""The events the one-step reader keeps for their canonical text
(:mod:`mjledger.store.canonical_rows`, read by the chains pass's loop) change nothing the
audit reports.

A row whose canonical text was read before is given the event read then, unread: the event is
a function of those bytes alone (the reader is chosen by the row's topic, and an event that
names a rule set or carries house rules, which the registry decides, is never kept). Every
store here is audited by a fresh reader that keeps nothing, by a fresh reader that keeps,
and by that reader again with everything it kept from the first audit (each row it can
give unread) — three equal reports, findings and summary. The stores are random legal
matches of both rule sets and with variants, and the benchmark's under random house rules,
tampered with as ``tests/store/test_audit_quick.py`` tampers: rows edited with their chain
recomputed or not, keys dropped, rows deleted, duplicated and swapped (a row's bytes under
another row's topic, which a reader keeping events by text alone would give unread).
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any
from unittest import mock

from hypothesis import given
from hypothesis import strategies as st

from mjledger.log.events import Discarded, HandStarted, MatchStarted
from mjledger.log.kept import kept_for_its_bytes, registry_fields
from mjledger.rules import registered
from mjledger.store import canonical_rows as module
from mjledger.store.audit import audit
from mjledger.store.audit.chains import Row, read_stream
from mjledger.store.audit.report import AuditSummary
from mjledger.store.audit.run import Run
from mjledger.store.canonical_rows import SEEN, CanonicalRows
from tests.store.test_audit_decoders import recorded
from tests.store.test_audit_quick import (
    _edit_rows,
    bench_text,
    hongkong_matches,
    sichuan_matches,
    variant_matches,
)
from tests.strategies import log_text, sichuan_rules
from tests.toy_ruleset import FLAT


def _audit(store: Path, reader: CanonicalRows, keep: bool) -> Any:
    kept = kept_for_its_bytes if keep else (lambda _event, _registry: False)
    with (
        mock.patch("mjledger.store.audit.run.canonical_rows", return_value=reader),
        mock.patch.object(module, "kept_for_its_bytes", kept),
    ):
        report = audit(store)
    return report.findings, report.summary


def assert_same(store: Path) -> None:
    reader = CanonicalRows()
    unkept = _audit(store, CanonicalRows(), False)
    assert _audit(store, reader, True) == unkept
    assert _audit(store, reader, True) == unkept  # the second time from what it kept


@given(st.one_of(sichuan_matches, variant_matches, hongkong_matches), st.data())
def test_legal_and_tampered_matches_read_the_same_with_events_kept(
    lines: list[dict[str, Any]], data: st.DataObject
) -> None:
    with recorded(log_text(lines)) as store:
        assert_same(store)
        _edit_rows(store, data)
        assert_same(store)


@given(st.integers(0, 10_000), sichuan_rules(), st.data())
def test_tampered_benchmark_stores_read_the_same_with_events_kept(
    seed: int, rules: dict[str, Any], data: st.DataObject
) -> None:
    with recorded(bench_text(seed, 3, rules)) as store:
        _edit_rows(store, data)
        assert_same(store)


def test_the_benchmark_s_rows_are_given_again_unread() -> None:
    """Not a vacuous comparison: the second audit of a store decodes only the rows whose
    events are not kept (the starts and closings, a wall's remaining hands)."""
    with recorded(bench_text(7, 5, {})) as store:
        reader = CanonicalRows()
        first = _audit(store, reader, True)
        assert first[0] == ()
        decoded = []
        real = reader._event

        def counted(*args: Any) -> Any:
            decoded.append(args[0])
            return real(*args)

        with mock.patch.object(reader, "_event", counted):
            assert _audit(store, reader, True) == first
        kept = {"mjledger.events:Discarded", "mjledger.events:VoidSuitChosen"}
        assert not kept & set(decoded)
        assert 0 < len(decoded) < first[1].rows / 2
        # A closing names its hand's digest: no two are alike, so none is kept for later.
        assert decoded.count("mjledger.store_events:HandClosed") == first[1].hands
        assert not reader.readers["mjledger.store_events:HandClosed"][SEEN]


def test_only_events_of_their_bytes_alone_are_kept() -> None:
    """A rule set's name or house rules are the registry's to read (a plug-in's rule set can
    come and go): such events are read each time; so is an event with a dict in it."""
    assert kept_for_its_bytes(Discarded(player="ana", tile="1m"), registry_fields(Discarded))
    started = HandStarted(dealer="ana", ruleset="sichuan", players=("ana", "bo", "cy", "di"))
    assert not kept_for_its_bytes(started, registry_fields(HandStarted))
    assert kept_for_its_bytes(HandStarted(dealer="ana"), registry_fields(HandStarted))
    match = MatchStarted(ruleset="sichuan", players=("ana", "bo", "cy", "di"))
    assert not kept_for_its_bytes(match, registry_fields(MatchStarted))
    staked = HandStarted(stakes={"ana": 1, "bo": 1, "cy": 1, "di": 1})
    assert not kept_for_its_bytes(staked, ())


def test_a_start_naming_a_plug_in_s_rule_set_is_read_again_once_it_is_gone() -> None:
    """The same bytes, read while a plug-in's rule set is registered and after: the second
    read is what a reader that never saw them gives (the general path's), not the event
    read while the rule set was there."""
    body = json.dumps(
        {"dealer": "ana", "ruleset": FLAT.name, "type": "hand_started"}, separators=(",", ":")
    )
    state = f'{body[:-1]},"recorded_at":"2026","digest":"{"0" * 64}"}}'.encode()
    topic = "mjledger.events:HandStarted"
    reader = CanonicalRows()
    with registered(FLAT):
        read = _read_row(reader, topic, state)
        assert read.event is not None
        assert read.event.ruleset == FLAT.name
        assert read.decoded is None  # read in one step, not the general way
    again = _read_row(reader, topic, state)
    assert again == _read_row(CanonicalRows(), topic, state)
    assert again.event is None  # the general path's: FLAT is not registered any more


def _read_row(reader: CanonicalRows, topic: str, state: bytes) -> Row:
    """One row read by the chains pass's loop with ``reader``."""
    run = Run(mock.Mock(), AuditSummary("store"), None, None)
    run.canonical = reader
    (row,) = read_stream(run, [(1, 1, topic, state)], "", "stream", lambda _v: {})
    return row
