"""The audit's comparisons of a quick fold's hand in the stored forms find exactly what the
general comparisons find.

Two shortcuts are tried here, each with a switch the tests turn off:
``closings.SEALED`` — a sealed closing of a hand the quick fold settled is passed when its
canonical text is the closing recording writes of the hand (fingerprint and all), and a
sealed row's type and signature are read from the row itself (its event, its metadata tail)
instead of its decoded object; ``views.QUICK_ROWS`` — the hand's read-model rows are compared
field by field before any dict is built. Every store is audited with both on and both off
(with the public key where it is signed), and the two reports must be equal, finding for
finding, summary and all (or the audit fail with the same error both ways): benchmark
matches under random house rules, random legal matches, each with its closings tampered
(a value changed, a key dropped or added, the text made non-canonical, the chain
recomputed or not, closings swapped), its read-model rows tampered (a cell changed, a row
deleted or added), its signatures tampered (changed, removed, moved from another row), and
the rows tampered as ``test_audit_quick`` tampers them.
"""

from __future__ import annotations

import json
import sqlite3
import tempfile
from collections.abc import Iterator
from contextlib import contextmanager, suppress
from pathlib import Path
from typing import Any
from unittest import mock

from hypothesis import given
from hypothesis import strategies as st

from mjledger.ledger import Ledger
from mjledger.store.audit import audit, closings, views
from mjledger.store.events import HandClosed
from mjledger.store.records import topic_of
from mjledger.store.signing import Verifier, keygen, load_verifier
from mjledger.store.views import views_path
from tests.store.test_audit_decoders import _TMP, _body, _hand_rows, _sealed, recorded
from tests.store.test_audit_quick import _edit_rows, _values, bench_text, sichuan_matches
from tests.strategies import log_text, sichuan_rules

_CLOSED = topic_of(HandClosed)


def assert_same(store: Path, verifier: Verifier | None = None) -> Any:
    """Both audits give the same report, or fail with the same error; the report."""
    outcomes = []
    for fast in (True, False):
        with (
            mock.patch.object(closings, "SEALED", fast),
            mock.patch.object(views, "QUICK_ROWS", fast),
        ):
            try:
                report = audit(store, public_key=verifier)
            except Exception as exc:  # the general path's own faults: the same either way
                outcomes.append((type(exc), str(exc)))
            else:
                outcomes.append((report.findings, report.summary))
    assert outcomes[0] == outcomes[1]
    return outcomes[0]


@contextmanager
def signed(text: str) -> Iterator[tuple[Path, Verifier]]:
    with tempfile.TemporaryDirectory(prefix="mjledger-audit-", dir=_TMP) as tmp:
        key, _ = keygen(Path(tmp) / "k.pem")
        store = Path(tmp) / "store.sqlite"
        ledger = Ledger(store, signing_key=key)
        ledger.record_log(text)
        ledger.views.catch_up()
        ledger.close()
        yield store, load_verifier(Path(tmp) / "k.pem.pub")


def _closings(store: Path) -> list[tuple[int, str, str, bytes]]:
    return [row for row in _hand_rows(store) if row[2] == _CLOSED]


def _edit_closings(
    store: Path, data: st.DataObject, rows: list[tuple[int, str, str, bytes]] | None = None
) -> None:
    """One or two of the store's hand_closed rows (``rows``: as recorded) tampered with."""
    rows = _closings(store) if rows is None else rows
    if not rows:
        return
    db = sqlite3.connect(store, isolation_level=None)
    for _ in range(data.draw(st.integers(1, 2), label="tampers")):
        rowid, previous, _topic, state = data.draw(st.sampled_from(rows), label="closing")
        kind = data.draw(
            st.sampled_from(("edit", "drop", "add", "spaced", "swap", "signature")), label="kind"
        )
        text = state.decode("utf-8")
        row = json.loads(_body(state))
        tail = text[len(_body(state)) - 1 :]
        if kind == "swap":
            other = data.draw(st.sampled_from(rows), label="other")
            db.execute("UPDATE stored_events SET state = ? WHERE rowid = ?", (other[3], rowid))
            db.execute("UPDATE stored_events SET state = ? WHERE rowid = ?", (state, other[0]))
            continue
        if kind == "signature":  # the metadata tail's signature changed, dropped or moved
            whole = json.loads(text)
            choice = data.draw(st.sampled_from(("change", "drop", "other", "number")))
            if choice == "drop":
                whole.pop("signature", None)
            elif choice == "other":
                whole["signature"] = json.loads(data.draw(st.sampled_from(rows))[3]).get(
                    "signature"
                )
            elif choice == "number":
                whole["signature"] = 7
            else:
                signature = whole.get("signature") or ""
                whole["signature"] = signature[::-1] if signature else "ab" * 32
            if whole.get("signature") is None:
                whole.pop("signature", None)
            sealed = json.dumps(whole, ensure_ascii=False, separators=(",", ":")).encode()
            db.execute("UPDATE stored_events SET state = ? WHERE rowid = ?", (sealed, rowid))
            continue
        if kind == "add":
            row[data.draw(st.sampled_from(("bust", "balances", "match_over", "zz")))] = data.draw(
                st.sampled_from([[], {}, True, False, None, 0, "x"])
            )
        else:
            key = data.draw(st.sampled_from(sorted(row)), label="key")
            if kind == "drop":
                del row[key]
            elif kind == "edit":
                row[key] = _values(data.draw, row[key])
        separators = (", ", ": ") if kind == "spaced" else (",", ":")
        body = json.dumps(row, ensure_ascii=False, sort_keys=True, separators=separators)
        recompute = data.draw(st.booleans(), label="recompute the chain")
        sealed = _sealed(body, previous if recompute else "not the previous digest")
        if "signature" in tail and data.draw(st.booleans(), label="keep the signature"):
            signature = json.loads(text)["signature"]
            sealed = sealed[:-1] + f',"signature":"{signature}"}}'.encode()
        db.execute("UPDATE stored_events SET state = ? WHERE rowid = ?", (sealed, rowid))
    db.close()


_VIEW_VALUES = st.one_of(
    st.sampled_from(["ana", "bo", "east", "won", "drawn", '["ana"]', "[]", "", "sichuan"]),
    st.sampled_from(['["bo","ana"]', '"ana"', "not json", "hongkong", None]),
    st.integers(-3, 20),
)


def _edit_views(store: Path, data: st.DataObject) -> None:
    """One to three of the read models' hand rows tampered with."""
    db = sqlite3.connect(views_path(store), isolation_level=None)
    hands = db.execute("SELECT rowid, * FROM view_hands").fetchall()
    nets = db.execute("SELECT rowid, * FROM view_hand_net").fetchall()
    hand_columns = [r[1] for r in db.execute("PRAGMA table_info(view_hands)")]
    net_columns = [r[1] for r in db.execute("PRAGMA table_info(view_hand_net)")]
    for _ in range(data.draw(st.integers(1, 3), label="view tampers")):
        table, rows, columns = data.draw(
            st.sampled_from(
                (("view_hands", hands, hand_columns), ("view_hand_net", nets, net_columns))
            ),
            label="table",
        )
        if not rows:
            continue
        row = data.draw(st.sampled_from(rows), label="view row")
        kind = data.draw(st.sampled_from(("edit", "delete", "copy")), label="view kind")
        if kind == "delete":
            db.execute(f"DELETE FROM {table} WHERE rowid = ?", (row[0],))
        elif kind == "copy":  # another hand's or player's row, as this one's
            column = (
                "number"
                if table == "view_hands"
                else data.draw(st.sampled_from(("number", "player")), label="copied key")
            )
            value = data.draw(_VIEW_VALUES, label="key value")
            values = dict(zip(columns, row[1:], strict=True))
            values[column] = value
            names = ", ".join(values)
            marks = ", ".join("?" * len(values))
            with suppress(sqlite3.IntegrityError):  # a key NULL: not a row they can hold
                db.execute(
                    f"INSERT OR REPLACE INTO {table} ({names}) VALUES ({marks})",
                    tuple(values.values()),
                )
        else:
            column = data.draw(
                st.sampled_from([c for c in columns if c not in ("match",)]), label="column"
            )
            value = data.draw(_VIEW_VALUES, label="cell")
            with suppress(sqlite3.IntegrityError):  # NOT NULL, a key repeated: not a view row
                db.execute(f"UPDATE {table} SET {column} = ? WHERE rowid = ?", (value, row[0]))
    db.close()


def test_an_untouched_store_takes_both_shortcuts() -> None:
    """Not vacuous: an untouched benchmark store's closings and view rows are all passed by
    the shortcuts (the general comparisons never run)."""
    with (
        recorded(bench_text(3, 6, {})) as store,
        mock.patch.object(
            closings, "_check_fingerprint", side_effect=AssertionError("general closing")
        ),
        mock.patch.object(views.MatchView, "_differs", side_effect=AssertionError("general view")),
    ):
        assert audit(store).findings == ()


@given(st.integers(0, 10_000), sichuan_rules(), st.data())
def test_tampered_closings_give_the_same_findings_both_ways(
    seed: int, rules: dict[str, Any], data: st.DataObject
) -> None:
    with recorded(bench_text(seed, 3, rules)) as store:
        _edit_closings(store, data)
        assert_same(store)


@given(st.integers(0, 10_000), st.data())
def test_tampered_signed_closings_give_the_same_findings_both_ways(
    seed: int, data: st.DataObject
) -> None:
    with signed(bench_text(seed, 3, {})) as (store, verifier):
        findings, summary = assert_same(store, verifier)
        assert findings == ()
        assert summary.signed_hands == 3
        if data.draw(st.booleans(), label="closings, or any rows"):
            _edit_closings(store, data)
        else:  # a hand's row swapped into a closing's place, among others
            _edit_rows(store, data)
        assert_same(store, verifier)
        assert_same(store)


_HAND_COLUMNS = ("number", "ruleset", "dealer", "dealer_streak", "round_wind", "outcome")
_NET_COLUMNS = ("number", "player", "ruleset", "amount")


@given(
    st.integers(0, 10_000),
    st.sampled_from(
        [("view_hands", c) for c in (*_HAND_COLUMNS, "winners", "next_dealer")]
        + [("view_hand_net", c) for c in _NET_COLUMNS]
    ),
    _VIEW_VALUES,
    st.integers(1, 3),
)
def test_each_view_cell_tampered_gives_the_same_findings_both_ways(
    seed: int, cell: tuple[str, str], value: Any, hand: int
) -> None:
    table, column = cell
    with recorded(bench_text(seed, 3, {})) as store:
        db = sqlite3.connect(views_path(store), isolation_level=None)
        try:
            db.execute(
                f"UPDATE {table} SET {column} = ? WHERE rowid = "
                f"(SELECT rowid FROM {table} WHERE number = ? LIMIT 1)",
                (value, hand),
            )
        except sqlite3.IntegrityError:
            return  # NOT NULL or a key repeated: not a row the read models can hold
        finally:
            db.close()
        assert_same(store)


@given(st.integers(0, 10_000), sichuan_rules(), st.data())
def test_tampered_view_rows_give_the_same_findings_both_ways(
    seed: int, rules: dict[str, Any], data: st.DataObject
) -> None:
    with recorded(bench_text(seed, 3, rules)) as store:
        _edit_views(store, data)
        assert_same(store)


@given(sichuan_matches, st.data())
def test_tampered_legal_stores_give_the_same_findings_both_ways(
    lines: list[dict[str, Any]], data: st.DataObject
) -> None:
    with recorded(log_text(lines)) as store:
        assert_same(store)
        which = data.draw(st.sampled_from(("rows", "closings", "views", "all")), label="what")
        recorded_closings = _closings(store)
        if which in ("rows", "all"):
            _edit_rows(store, data)
        if which in ("closings", "all"):
            _edit_closings(store, data, recorded_closings)
        if which in ("views", "all"):
            _edit_views(store, data)
        assert_same(store)
