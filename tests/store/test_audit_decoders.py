"""The audit's fast reading of sealed rows (:mod:`mjledger.store.canonical_rows`) finds exactly
what the general reading finds (strict JSON, the converter, canonical JSON encoded again).

Every tamper here is audited twice — as it is, and with the fast reader declining every row —
and the two reports must be equal, finding for finding. Tampers include rows with their chain
recomputed, so that only the reading of the row can tell them apart: repeated keys, keys out of
order, spaces, escapes, unknown fields, numbers spelled otherwise, values of the wrong type.
"""

from __future__ import annotations

import hashlib
import json
import re
import sqlite3
import tempfile
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path
from typing import Any
from unittest import mock

import pytest
from hypothesis import given
from hypothesis import strategies as st

from mjledger.ledger import Ledger
from mjledger.store.audit import AuditReport, audit
from mjledger.store.audit.chains import read_stream
from mjledger.store.audit.report import AuditSummary
from mjledger.store.audit.run import Run
from mjledger.store.records import GENESIS
from mjledger.store.signing import keygen, load_verifier
from tests.store.test_audit_properties import match_logs
from tests.store_logs import sichuan_match
from tests.strategies import log_text

_TMP = "/dev/shm" if Path("/dev/shm").is_dir() else None


class _Declines:
    """A reader that leaves every row to the general path: it reads no topic."""

    readers: dict[str, Any] = {}  # noqa: RUF012 (never written)

    def event(self, topic: str, body: bytes, reader: Any) -> None:
        raise AssertionError("a row of no topic read")


def audit_both(store: Path) -> tuple[AuditReport, AuditReport]:
    fast = audit(store)
    with mock.patch("mjledger.store.audit.run.canonical_rows", _Declines):
        general = audit(store)
    return fast, general


def assert_same(store: Path) -> AuditReport:
    fast, general = audit_both(store)
    assert fast.findings == general.findings
    assert fast.summary == general.summary
    return fast


def _hand_rows(store: Path) -> list[tuple[int, str, str, bytes]]:
    """Rows after a match's first (hand_started and the hand's events, hand_closed), with the
    digest each links from: the row before in its stream, or for a hand's first row the match
    stream's latest digest when the hand began (one match per store here)."""
    db = sqlite3.connect(store)
    rows = db.execute(
        "SELECT rowid, originator_id, originator_version, topic, state FROM stored_events "
        "ORDER BY originator_id, originator_version"
    ).fetchall()
    db.close()
    (first,) = [i for _r, i, _v, t, _s in rows if t.endswith(":MatchStarted")]
    match = {v: json.loads(s)["digest"] for _r, i, v, _t, s in rows if i == first}
    out = []
    previous: dict[str, str] = {}
    for rowid, stream, version, topic, state in rows:
        data = json.loads(state)
        if version == 1 and topic.endswith(":HandStarted"):
            out.append((rowid, match[data["number"]], topic, state))
        elif stream in previous:
            out.append((rowid, previous[stream], topic, state))
        previous[stream] = data["digest"]
    return out


def _set(store: Path, rowid: int, state: bytes, topic: str | None = None) -> None:
    db = sqlite3.connect(store, isolation_level=None)
    db.execute("UPDATE stored_events SET state = ? WHERE rowid = ?", (state, rowid))
    if topic is not None:
        db.execute("UPDATE stored_events SET topic = ? WHERE rowid = ?", (topic, rowid))
    db.close()


def _sealed(body: str, previous: str, recorded_at: str = "2026-01-01T00:00:00+00:00") -> bytes:
    """``body`` (the event's JSON as written, canonical or not) sealed as the ledger seals,
    its digest the SHA-256 of ``previous`` and ``body`` itself."""
    digest = _digest(previous, body)
    return f'{body[:-1]},"recorded_at":"{recorded_at}","digest":"{digest}"}}'.encode()


def _digest(previous: str, body: str) -> str:
    return hashlib.sha256((previous + body).encode("utf-8")).hexdigest()


def _body(state: bytes) -> str:
    text = state.decode("utf-8")
    return text[: text.rindex(',"recorded_at":"')] + "}"


# Rewrites of an event's canonical JSON text: each either canonical again or not.
_REWRITES: dict[str, Any] = {
    "key repeated": lambda b: '{"type":"x",' + b[1:],
    "same key repeated": lambda b: b[:-1] + "," + b[1:],
    "keys reordered": lambda b: json.dumps(
        dict(reversed(json.loads(b).items())), separators=(",", ":"), ensure_ascii=False
    ),
    "spaced": lambda b: json.dumps(json.loads(b), ensure_ascii=False, sort_keys=True),
    "escaped": lambda b: json.dumps(
        json.loads(b), ensure_ascii=True, sort_keys=True, separators=(",", ":")
    ).replace('"type"', '"typ\\u0065"'),
    "unknown field": lambda b: b[:-1] + ',"zz":1}',
    "signature inside": lambda b: b[:-1] + ',"signature":"00"}',
    "number as float": lambda b: re.sub(r'"number":(\d+)', r'"number":\1.0', b),
    "number negative zero": lambda b: re.sub(r'"number":\d+', '"number":-0', b),
    "integer beyond 64 bits": lambda b: re.sub(
        r":(\d+)([,}])", r":1\g<1>000000000000000000\g<2>", b, count=1
    ),
    "string as number": lambda b: re.sub(r':"([a-z]+)"', r":7", b, count=1),
    "nested": lambda b: b[:-1] + ',"zz":[[[[[[[[[1]]]]]]]]]}',
    "type changed": lambda b: re.sub(r'"type":"[a-z_]+"', '"type":"discarded"', b),
    "trailing space": lambda b: b + " ",
    "canonical": lambda b: b,
}


def _is_json(text: str) -> bool:
    try:
        return isinstance(json.loads(text), dict)
    except ValueError:
        return False


@contextmanager
def recorded(text: str) -> Iterator[Path]:
    with tempfile.TemporaryDirectory(prefix="mjledger-audit-", dir=_TMP) as tmp:
        store = Path(tmp) / "store.sqlite"
        ledger = Ledger(store)
        ledger.record_log(text)
        ledger.views.catch_up()
        ledger.close()
        yield store


@contextmanager
def drawn_row(
    lines: list[dict[str, Any]], data: st.DataObject
) -> Iterator[tuple[Path, int, str, bytes] | None]:
    """A store of ``lines`` recorded, and one of its hand rows drawn with the digest it links
    from (None when the store has no hand row)."""
    with recorded(log_text(lines)) as store:
        rows = _hand_rows(store)
        if not rows:
            yield None
            return
        rowid, previous, _topic, state = data.draw(st.sampled_from(rows), label="row")
        yield store, rowid, previous, state


@pytest.mark.parametrize("rewrite", sorted(_REWRITES))
def test_a_rewritten_row_with_its_chain_recomputed_reads_the_same_both_ways(rewrite: str) -> None:
    with recorded(sichuan_match(2, seed=5, match_id="dec")) as store:
        rows = _hand_rows(store)
        assert_same(store)
        for rowid, previous, _topic, state in rows[::7]:
            body = _REWRITES[rewrite](_body(state))
            _set(store, rowid, _sealed(body, previous))
            report = assert_same(store)
            if rewrite == "canonical":  # a new recorded_at: only the head tells
                assert [f.code for f in report.findings] == ["head_mismatch"]
            _set(store, rowid, state)  # put it back for the next row


def test_damaged_metadata_reads_the_same_both_ways() -> None:
    with recorded(sichuan_match(1, seed=2, match_id="meta")) as store:
        rowid, previous, _topic, state = _hand_rows(store)[3]
        body = _body(state)
        digest = _digest(previous, body)
        for tail in (
            f',"recorded_at":"x\ty","digest":"{digest}"}}',
            f',"recorded_at":"2026","digest":"{digest.upper()}"}}',
            f',"recorded_at":"2026","digest":"{digest}","digest":"{digest}"}}',
            f',"recorded_at":"2026","digest":"{digest}"}}\n',
            f',"recorded_at":"2026","digest":"{digest}"',
            f',"recorded_at":"2026","digest":{json.dumps(digest)}}}',
            ',"recorded_at":"2026","digest":7}',
            f',"recorded_at":"\u00e9","digest":"{digest}"}}',
        ):
            _set(store, rowid, (body[:-1] + tail).encode())
            assert_same(store)
        _set(store, rowid, (body[:-1] + "\udcff").encode("utf-8", "surrogateescape"))
        assert_same(store)
        _set(store, rowid, state, topic="mjledger.events:Discarded")
        assert_same(store)


@given(match_logs, st.data())
def test_random_tampering_gives_the_same_findings_through_both_readers(
    lines: list[dict[str, Any]], data: st.DataObject
) -> None:
    with drawn_row(lines, data) as drawn:
        if drawn is None:
            return
        store, rowid, previous, state = drawn
        body = _body(state)
        how = data.draw(st.sampled_from(sorted(_REWRITES)), label="rewrite")
        body = _REWRITES[how](body)
        if _is_json(body) and data.draw(st.booleans(), label="edit a value"):
            row = json.loads(body)
            key = data.draw(st.sampled_from(sorted(row)), label="key")
            row[key] = data.draw(
                st.one_of(
                    st.integers(-3, 3),
                    st.sampled_from(["", "ana", "east", "b1", "\u00e9", None, True, [], {}]),
                ),
                label="value",
            )
            body = json.dumps(row, ensure_ascii=False, separators=(",", ":"))
        recompute = data.draw(st.booleans(), label="recompute the chain")
        sealed = _sealed(body, previous if recompute else "not the previous digest")
        _set(store, rowid, sealed)
        assert_same(store)


def test_a_hand_started_s_house_rules_read_the_same_both_ways() -> None:
    with recorded(sichuan_match(2, seed=6, match_id="rules")) as store:
        starts = [r for r in _hand_rows(store) if r[2].endswith(":HandStarted")]
        assert len(starts) == 2
        rowid, previous, _topic, state = starts[1]
        row = json.loads(_body(state))
        for rules in (
            {"zz": 1},
            {"base": "1"},
            {"base": 1.0},
            {"base": True},
            {"base": 10**20},
            {},
            None,
            "sichuan",
            [],
            {"base": 2},
            row["rules"],
        ):
            for ruleset in (row["ruleset"], "hongkong", None):
                edited = {**row, "rules": rules, "ruleset": ruleset}
                body = json.dumps(edited, ensure_ascii=False, sort_keys=True, separators=(",", ":"))
                _set(store, rowid, _sealed(body, previous))
                report = assert_same(store)
                if rules != row["rules"] or ruleset != row["ruleset"]:
                    assert report.findings


def test_a_match_start_is_read_in_one_step_at_its_class_s_version_only() -> None:
    """match_started is stored at class_version 2: such a row is read in one step; one of
    version 1 (its rules to be upcast), of no version or of any other is read the general
    way, and every edit of the row, its chain recomputed, reports the same both ways."""
    with recorded(sichuan_match(2, seed=6, match_id="v2")) as store:
        db = sqlite3.connect(store)
        rowid, topic, state = db.execute(
            "SELECT rowid, topic, state FROM stored_events WHERE topic LIKE '%:MatchStarted'"
        ).fetchone()
        db.close()
        run = Run(mock.Mock(), AuditSummary(str(store)), None, None)
        (read,) = read_stream(run, [(rowid, 1, topic, state)], GENESIS, "s", lambda _v: {})
        assert read.decoded is None
        assert read.event is not None
        assert list(run.flush()) == []
        row = json.loads(_body(state))
        assert row["class_version"] == 2
        partial = {"base": row["rules"]["base"]}
        for version in (None, 1, 2, 3, "2", 2.0, True):
            for rules in (row["rules"], partial):
                edited = {**row, "class_version": version, "rules": rules}
                if version is None:
                    del edited["class_version"]
                body = json.dumps(edited, ensure_ascii=False, sort_keys=True, separators=(",", ":"))
                sealed = _sealed(body, GENESIS)
                run = Run(mock.Mock(), AuditSummary(str(store)), None, None)
                (one,) = read_stream(run, [(rowid, 1, topic, sealed)], GENESIS, "s", lambda _v: {})
                assert (one.decoded is None) == (version == 2 and type(version) is int)
                _set(store, rowid, sealed)
                report = assert_same(store)
                assert report.findings  # the head at least: the row is not the one recorded
        # Its house rules, read once a table (kept by their text): every edit the same both ways.
        for rules in ({"zz": 1}, {"base": "1"}, {"base": True}, {}, None, [], "sichuan"):
            for ruleset in (row["ruleset"], "hongkong"):
                edited = {**row, "rules": rules, "ruleset": ruleset}
                body = json.dumps(edited, ensure_ascii=False, sort_keys=True, separators=(",", ":"))
                _set(store, rowid, _sealed(body, GENESIS))
                assert_same(store)


def test_signatures_read_the_same_both_ways(tmp_path: Path) -> None:
    private, public = keygen(tmp_path / "k.pem")
    store = tmp_path / "signed.sqlite"
    ledger = Ledger(store, signing_key=private)
    ledger.record_log(sichuan_match(2, seed=4, match_id="sig"))
    ledger.views.catch_up()
    ledger.close()
    verifier = load_verifier(public)
    closings = [r for r in _hand_rows(store) if r[2].endswith(":HandClosed")]
    assert closings
    rowid, _previous, _topic, state = closings[0]
    signature = json.loads(state)["signature"]
    for signed in (
        state,
        state.replace(signature.encode(), signature[::-1].encode()),
        state.replace(f',"signature":"{signature}"'.encode(), b""),
        state.replace(f'"{signature}"'.encode(), b"7"),
        state.replace(f'"{signature}"'.encode(), b'"\\u0041"'),
        state.replace(f',"signature":"{signature}"'.encode(), b',"signature":"a","zz":"b"'),
    ):
        _set(store, rowid, signed)
        fast = audit(store, public_key=verifier)
        with mock.patch("mjledger.store.audit.run.canonical_rows", _Declines):
            general = audit(store, public_key=verifier)
        assert fast.findings == general.findings
        assert fast.summary == general.summary
        if signed == state:
            assert fast.findings == ()


def test_the_fast_reader_takes_the_rows_it_is_for() -> None:
    """Not a vacuous property: an untouched store's hand events are read by the fast path
    (in one step, not decoded the general way), each linking from the digest before it."""
    with recorded(sichuan_match(1, seed=2, match_id="taken")) as store:
        rows = _hand_rows(store)
        assert any(topic.endswith(":HandStarted") for _r, _p, topic, _s in rows)
        for rowid, previous, topic, state in rows:
            run = Run(mock.Mock(), AuditSummary(str(store)), None, None)
            (row,) = read_stream(run, [(rowid, 1, topic, state)], previous, "s", lambda _v: {})
            assert row.decoded is None
            assert row.event is not None
            assert list(run.flush()) == []


# Pieces of the metadata after a row's event: the recorder's own, and what a tamperer adds.
# (Half of them as the recorder writes them, so that the fast reader takes many tails.)
_VALUES = st.text(st.sampled_from("2026-01T:+ "), max_size=6) | st.text(
    st.sampled_from('2026-01T:+ "\\\t\n\u00e9\x7f,}{'), max_size=6
)
_ENDS = st.just('"}') | st.sampled_from(('"}', '"', '"}\n', '"} ', '"}}', "}", '","zz":"1"}'))


@given(match_logs, st.data())
def test_random_metadata_gives_the_same_findings_through_both_readers(
    lines: list[dict[str, Any]], data: st.DataObject
) -> None:
    """The fast reader matches the whole metadata tail in one step (recorded_at, digest, an
    optional signature, the end): any tail, well formed or not, reads as the general path
    reads it."""
    with drawn_row(lines, data) as drawn:
        if drawn is None:
            return
        store, rowid, previous, state = drawn
        body = _body(state)
        digest = _digest(previous, body)
        for _ in range(3):  # a few tails a store: recording one is the slow part
            parts = [
                ',"recorded_at":"' + data.draw(_VALUES, label="recorded_at"),
                '","digest":"'
                + data.draw(st.sampled_from([digest, digest.upper(), ""]) | _VALUES, label="d"),
            ]
            if data.draw(st.booleans(), label="signed"):
                parts.append('","signature":"' + data.draw(_VALUES, label="signature"))
            parts.append(data.draw(_ENDS, label="end"))
            if data.draw(st.booleans(), label="a piece more"):
                at = data.draw(st.integers(0, len(parts)), label="at")
                parts.insert(at, data.draw(_ENDS | _VALUES, label="piece"))
            _set(store, rowid, (body[:-1] + "".join(parts)).encode())
            assert_same(store)
