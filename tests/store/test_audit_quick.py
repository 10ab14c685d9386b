"""The audit's replay by the quick fold (:meth:`mjledger.store.audit.replays.MatchAudit._quick`)
finds exactly what the replay by the general fold finds.

Every store here is audited twice — as it is, and with every hand left to the general fold
(``replays.QUICK`` off) — and the two reports must be equal, finding for finding, summary and
all. The stores are random legal Sichuan matches, matches with table variants, the
benchmark's matches under random house rules, and each of those tampered with: a hand's row
edited (its event's values changed, its chain recomputed or not, so that the replay reads
the edited event), deleted, swapped, duplicated onto its stream's end; a closing or a start
edited. A test also checks that an untouched store's hands are settled by the quick fold,
so that the comparison is not vacuous.
"""

from __future__ import annotations

import json
import random
import sqlite3
from pathlib import Path
from typing import Any
from unittest import mock

import pytest
from hypothesis import given
from hypothesis import strategies as st

from mjledger.store.audit import AuditReport, audit, replays
from tests.store.test_audit_decoders import _body, _hand_rows, _sealed, recorded
from tests.strategies import legal_logs, log_text, sichuan_rules
from tests.unit.test_benchmark_logs import bench_replay
from tests.variant_strategies import variant_logs

BENCH = bench_replay()

sichuan_matches = legal_logs(ruleset="sichuan", max_hands=4).filter(
    lambda lines: lines[0]["type"] == "match_started"
)
variant_matches = variant_logs(ruleset="sichuan", max_hands=3).filter(
    lambda lines: lines[0]["type"] == "match_started"
)


def bench_text(seed: int, hands: int, rules: dict[str, Any]) -> str:
    """The benchmark's Sichuan match of asserted facts under ``rules``."""
    lines = BENCH.sichuan_log(random.Random(seed), hands).splitlines()
    first = json.loads(lines[0])
    first["rules"] = rules
    return "\n".join([json.dumps(first), *lines[1:]]) + "\n"


def general_audit(store: Path) -> AuditReport:
    with mock.patch.object(replays, "QUICK", False):
        return audit(store)


def assert_same(store: Path) -> AuditReport:
    quick = audit(store)
    general = general_audit(store)
    assert quick.findings == general.findings
    assert quick.summary == general.summary
    return quick


def assert_same_outcome(store: Path) -> None:
    """Both audits give the same report, or fail with the same error."""
    outcomes = []
    for quick in (True, False):
        with mock.patch.object(replays, "QUICK", quick):
            try:
                report = audit(store)
            except Exception as exc:  # the general path's own faults: the same either way
                outcomes.append((type(exc), str(exc)))
            else:
                outcomes.append((report.findings, report.summary))
    assert outcomes[0] == outcomes[1]


def _values(draw: st.DrawFn, value: Any) -> Any:
    """A value to put in place of ``value``: near it, of another type, or one of the log's."""
    near: list[Any] = []
    if isinstance(value, bool):
        near = [not value]
    elif isinstance(value, int):
        near = [value + 1, value - 1, value + 7, 0, 12, 13]
    elif isinstance(value, str):
        near = [value + "x", ""]
    elif isinstance(value, (list, dict)):
        near = [value[::-1] if isinstance(value, list) else {}, None]
    return draw(
        st.sampled_from(near or [None])
        | st.sampled_from(["ana", "east", "b1", "c5", "d9", "exposed", "concealed", None, True])
        | st.integers(-2, 20),
        label="value",
    )


def _edit_rows(store: Path, data: st.DataObject) -> None:
    """Up to three of the store's rows after its match's first, tampered with."""
    rows = _hand_rows(store)  # as recorded: a row deleted before is updated in vain
    if not rows:
        return
    db = sqlite3.connect(store, isolation_level=None)
    for _ in range(data.draw(st.integers(1, 3), label="tampers")):
        rowid, previous, _topic, state = data.draw(st.sampled_from(rows), label="row")
        kind = data.draw(st.sampled_from(("edit", "drop", "delete", "swap", "duplicate")))
        if kind in ("edit", "drop"):
            row = json.loads(_body(state))
            keys = sorted(k for k in row if k != "type")
            if not keys:
                continue
            key = data.draw(st.sampled_from(keys), label="key")
            if kind == "drop":
                del row[key]
            else:
                row[key] = _values(data.draw, row[key])
            body = json.dumps(row, ensure_ascii=False, sort_keys=True, separators=(",", ":"))
            recompute = data.draw(st.booleans(), label="recompute the chain")
            sealed = _sealed(body, previous if recompute else "not the previous digest")
            db.execute("UPDATE stored_events SET state = ? WHERE rowid = ?", (sealed, rowid))
        elif kind == "delete":
            db.execute("DELETE FROM stored_events WHERE rowid = ?", (rowid,))
        elif kind == "swap":
            other = data.draw(st.sampled_from(rows), label="other")
            db.execute("UPDATE stored_events SET state = ? WHERE rowid = ?", (other[3], rowid))
            db.execute("UPDATE stored_events SET state = ? WHERE rowid = ?", (state, other[0]))
        else:
            db.execute(
                "INSERT INTO stored_events SELECT originator_id, "
                "(SELECT MAX(originator_version) + 1 FROM stored_events s "
                " WHERE s.originator_id = e.originator_id), topic, state "
                "FROM stored_events e WHERE rowid = ?",
                (rowid,),
            )
    db.close()


@given(sichuan_matches)
def test_legal_sichuan_matches_audit_the_same_both_ways(lines: list[dict[str, Any]]) -> None:
    with recorded(log_text(lines)) as store:
        assert assert_same(store).findings == ()


@given(variant_matches)
def test_matches_with_table_variants_audit_the_same_both_ways(
    lines: list[dict[str, Any]],
) -> None:
    with recorded(log_text(lines)) as store:
        assert_same(store)


@given(sichuan_matches, st.data())
def test_tampered_sichuan_stores_give_the_same_findings_both_ways(
    lines: list[dict[str, Any]], data: st.DataObject
) -> None:
    with recorded(log_text(lines)) as store:
        _edit_rows(store, data)
        assert_same(store)


@given(st.integers(0, 10_000), sichuan_rules(), st.data())
def test_tampered_benchmark_stores_give_the_same_findings_both_ways(
    seed: int, rules: dict[str, Any], data: st.DataObject
) -> None:
    with recorded(bench_text(seed, 3, rules)) as store:
        assert_same(store)
        _edit_rows(store, data)
        assert_same(store)


@given(variant_matches, st.data())
def test_tampered_variant_stores_give_the_same_findings_both_ways(
    lines: list[dict[str, Any]], data: st.DataObject
) -> None:
    with recorded(log_text(lines)) as store:
        _edit_rows(store, data)
        assert_same(store)


def _every_hand_row(store: Path) -> list[tuple[int, str, str, bytes]]:
    return [r for r in _hand_rows(store) if not r[2].endswith(":HandClosed")]


@pytest.mark.parametrize("seed", [1, 2])
def test_each_event_of_a_hand_edited_with_its_chain_recomputed(seed: int) -> None:
    """Every value of every event of a hand changed in turn, the row sealed again on its
    link: the replay reads the edited event, whichever fold replays it."""
    with recorded(bench_text(seed, 2, {})) as store:
        db = sqlite3.connect(store, isolation_level=None)
        rng = random.Random(seed)
        for rowid, previous, _topic, state in _every_hand_row(store):
            row = json.loads(_body(state))
            for key in sorted(k for k in row if k != "type"):
                value = row[key]
                for new in (
                    (value + rng.choice((-1, 1, 5)) if isinstance(value, int) else "ana"),
                    None,
                ):
                    body = json.dumps(
                        {**row, key: new}, ensure_ascii=False, sort_keys=True, separators=(",", ":")
                    )
                    sealed = _sealed(body, previous)
                    db.execute(
                        "UPDATE stored_events SET state = ? WHERE rowid = ?", (sealed, rowid)
                    )
                    assert_same(store)
            db.execute("UPDATE stored_events SET state = ? WHERE rowid = ?", (state, rowid))
        db.close()


def test_the_quick_fold_settles_an_untouched_store_s_hands() -> None:
    """Not a vacuous comparison: the benchmark's hands (and the legal ones that play asserted
    facts) are settled by the quick fold, none replayed by the general fold."""
    general = mock.patch.object(
        replays.MatchAudit, "_replay", autospec=True, side_effect=replays.MatchAudit._replay
    )
    with recorded(bench_text(3, 20, {})) as store, general as replayed:
        report = audit(store)
        assert report.findings == ()
        assert report.summary.hands == 20
        assert replayed.call_count == 0
    with recorded(bench_text(3, 20, {})) as store, general as replayed:
        with mock.patch.object(replays, "QUICK", False):
            audit(store)
        assert replayed.call_count == 20


def _seal(db: sqlite3.Connection, row: tuple[int, str, str, bytes], data: dict[str, Any]) -> None:
    """Store ``data`` in place of ``row``, sealed again on the row's own link."""
    body = json.dumps(data, ensure_ascii=False, sort_keys=True, separators=(",", ":"))
    db.execute(
        "UPDATE stored_events SET state = ? WHERE rowid = ?", (_sealed(body, row[1]), row[0])
    )


def _tamper_closing(store: Path, rotation: dict[str, Any]) -> dict[str, Any]:
    """Hand 1 made not to replay (a discard by nobody) and its hand_closed's fields set to
    ``rotation``; the closing as it was."""
    rows = sorted(_hand_rows(store))  # in the order recorded: hand 1's rows first
    hand = next(r for r in rows if r[2].endswith(":Discarded"))  # a discard in hand 1
    db = sqlite3.connect(store, isolation_level=None)
    _seal(db, hand, {**json.loads(_body(hand[3])), "player": "nobody"})
    closing = next(r for r in rows if r[2].endswith(":HandClosed"))
    row = json.loads(_body(closing[3]))
    assert row["number"] == 1
    if rotation.get("next_dealer") == "other":
        rotation = {"next_dealer": next(p for p in ("ana", "bo") if p != row["next_dealer"])}
    _seal(db, closing, {**row, **rotation})
    db.close()
    return row


# Closings whose rotation no match of the table can have, and the fields each names.
UNUSABLE: list[tuple[dict[str, Any], set[str], str]] = [
    ({"next_dealer": "nobody"}, {"next_dealer"}, "'nobody' is not at the table"),
    ({"next_dealer": None}, {"next_dealer"}, "no next_dealer, though the match is not over"),
    ({"match_over": True}, {"next_dealer"}, "though the match is over"),
    ({"next_streak": -1}, {"next_streak"}, "next_streak -1 is negative"),
    ({"dealer": "nobody"}, {"dealer"}, "dealer 'nobody' is not at the table"),  # the first
    ({"next_dealer": "nobody", "next_streak": -3}, {"next_dealer", "next_streak"}, "; "),
]


@pytest.mark.parametrize(("rotation", "fields", "why"), UNUSABLE)
def test_a_closing_s_rotation_that_cannot_be_gone_on_from(
    rotation: dict[str, Any], fields: set[str], why: str
) -> None:
    """A hand that does not replay leaves the rotation to its hand_closed; one that states no
    rotation of the table (a dealer not at the table, none while the match goes on, …) is a
    ``rotation_unusable`` finding on that closing, and the rotation is lost as after a hand
    with no closing: the next hand is not replayed, and the one after it goes on from the
    next hand's closing. Never an error, and the same both ways."""
    with recorded(bench_text(4, 3, {})) as store:
        closed = {**_tamper_closing(store, rotation), **rotation}
        report = assert_same(store)
        (finding,) = [f for f in report.findings if f.code == "rotation_unusable"]
        assert (finding.hand, finding.version) == (1, 2)  # the match stream's hand_closed
        assert finding.found == {f: closed[f] for f in fields}
        assert why in finding.message
        assert finding.line == 1 + len(_hands(store)[0][0])  # the closing's export line
        assert report.summary.hands == 3
        # Hand 2 is not replayed (nothing found of it but the resealed rows' links), hand 3
        # is, from hand 2's closing.
        chains = ("chain_broken", "head_mismatch")
        assert {f.hand for f in report.findings if f.code not in chains} == {1}
        numbers = []
        replay = replays.MatchAudit._replay

        def replayed(self: replays.MatchAudit, hand: Any) -> Any:
            numbers.append(self.number)
            return replay(self, hand)

        with mock.patch.object(replays.MatchAudit, "_replay", replayed):
            general_audit(store)
        assert numbers == [1, 3]


def _with_stakes(text: str, balance: int) -> str:
    lines = text.splitlines()
    first = json.loads(lines[0])
    first["stakes"] = dict.fromkeys(first["players"], balance)
    return "\n".join([json.dumps(first), *lines[1:]]) + "\n"


@pytest.mark.parametrize(
    ("balances", "why"),
    [
        (None, ""),  # as stored: the hands after go on from its balances
        ({"ana": 5000}, "balances not of the table's players"),
        ("drop", "balances not of the table's players"),
        ("negative", "a balance is negative"),
        ("bust", "bust names a player not at the table"),
    ],
)
def test_with_table_stakes_the_next_hand_plays_from_the_closing_s_balances(
    balances: Any, why: str
) -> None:
    """Under table stakes the next hand plays from the balances a closing states: the
    hands after a hand that does not replay are audited from them (the balances before that
    hand would make every later closing differ), and balances not of the table's players
    are ``rotation_unusable``."""
    with recorded(_with_stakes(bench_text(4, 3, {}), 5000)) as store:
        closed = {}
        if balances == "drop":
            closed = _tamper_closing(store, {"balances": None})
        elif balances == "bust":
            closed = _tamper_closing(store, {"bust": ["nobody"]})
        elif balances == "negative":
            row = _tamper_closing(store, {})
            closed = _tamper_closing(store, {"balances": {**row["balances"], "ana": -1}})
        else:
            closed = _tamper_closing(store, {} if balances is None else {"balances": balances})
        assert closed["balances"] is not None  # a table with stakes
        report = assert_same(store)
        chains = ("chain_broken", "head_mismatch")
        assert {f.hand for f in report.findings if f.code not in chains} == {1}
        unusable = [f for f in report.findings if f.code == "rotation_unusable"]
        if why:
            (finding,) = unusable
            assert why in finding.message
            assert set(finding.found) == {"bust" if balances == "bust" else "balances"}
        else:
            assert unusable == []


@pytest.mark.parametrize(
    "rotation",
    [
        {"next_round_wind": "south"},
        {"match_over": True},
        {"match_over": True, "next_dealer": None},
        {"next_dealer": "other"},  # another player of the table
        {"next_dealer": "nobody"},  # not at the table: a finding (rotation_unusable)
        {"next_dealer": None},  # the match not over: a finding (rotation_unusable)
        {"next_streak": 5},
        {"number": 0},
        {"next_round_wind": "south", "next_streak": 2},
    ],
)
def test_a_rotation_only_a_closing_gives(rotation: dict[str, Any]) -> None:
    """A hand that does not replay leaves the rotation to its hand_closed: whatever that
    (tampered) closing states, the hands after it are audited as the general fold audits
    them (a round wind, an end of the match, another dealer or streak) — or, where it states
    none the table can have (a dealer not at the table, none while the match goes on, one
    though it is over), the closing is ``rotation_unusable`` and the next hand not replayed.
    Never an error (main's audit crashed on those: docs/performance.md, "Fifth round: the
    audit"), and the same both ways."""
    with recorded(bench_text(4, 3, {})) as store:
        row = _tamper_closing(store, rotation)
        report = assert_same(store)
        codes = {f.code for f in report.findings}
        assert "replay_refused" in codes
        assert "context_differs" not in codes  # the hands' numbers are their places, not its
        if rotation in ({"next_dealer": "nobody"}, {"next_dealer": None}, {"match_over": True}):
            (finding,) = [f for f in report.findings if f.code == "rotation_unusable"]
            assert finding.found == {"next_dealer": rotation.get("next_dealer", row["next_dealer"])}
        else:
            assert "rotation_unusable" not in codes
        if rotation == {"match_over": True, "next_dealer": None}:  # hand 2 refused: over
            assert any(f.code == "replay_refused" and f.hand == 2 for f in report.findings)


def _hands(store: Path) -> list[tuple[list[tuple[int, str, str, bytes]], Any]]:
    """Each closed hand's rows (in the order recorded) and its hand_closed row."""
    hands, rows = [], []
    for row in sorted(_hand_rows(store)):
        if row[2].endswith(":HandClosed"):
            hands.append((rows, row))
            rows = []
        else:
            rows.append(row)
    return [(rows, closing) for rows, closing in hands if rows]


def _closing_value(draw: st.DrawFn, key: str, value: Any, players: list[str]) -> Any:
    """A value for a hand_closed's ``key``: one of the table's, or none it can have."""
    if key in ("next_dealer", "dealer"):
        return draw(st.sampled_from([*players, "nobody", None, ""]), label=key)
    if key == "next_round_wind":
        return draw(st.sampled_from(["east", "south", "west", "north", "up", None]), label=key)
    if key in ("match_over",):
        return draw(st.sampled_from([True, False, None, 1]), label=key)
    if key == "balances" and isinstance(value, dict):
        some = dict(list(value.items())[1:])
        wrong = [some, {**value, players[0]: -1}, {**value, "nobody": 1}, {}, None]
        return draw(st.sampled_from([*wrong, dict.fromkeys(value, 0)]), label=key)
    if key == "bust":
        return draw(st.sampled_from([[], players[:1], ["nobody"], None]), label=key)
    return _values(draw, value)


def _unreplayable_closing(store: Path, data: st.DataObject) -> None:
    """One closed hand made not to replay — its stream emptied, its last row deleted (a cut
    hand), or a second hand_started put in it (refused) — and up to four fields of its
    hand_closed tampered with (one to three of its rotation's, up to two of any), sealed on
    its link."""
    hands = _hands(store)
    if not hands:
        return
    rows, closing = data.draw(st.sampled_from(hands), label="hand")
    db = sqlite3.connect(store, isolation_level=None)
    how = data.draw(st.sampled_from(("empty", "cut", "refused")), label="how")
    if how == "empty":
        for row in rows:
            db.execute("DELETE FROM stored_events WHERE rowid = ?", (row[0],))
    elif how == "cut":
        db.execute("DELETE FROM stored_events WHERE rowid = ?", (rows[-1][0],))
    elif len(rows) > 1:
        _seal(db, rows[1], json.loads(_body(rows[0][3])))
    closed = json.loads(_body(closing[3]))
    players = sorted(closed["net"])
    rotation = (
        *("dealer", "next_dealer", "next_streak", "next_round_wind", "match_over"),
        *(("balances", "bust") if closed.get("balances") is not None else ()),
    )
    keys = data.draw(st.lists(st.sampled_from(rotation), min_size=1, max_size=3), label="keys")
    others = sorted(k for k in closed if k != "type")
    keys += data.draw(st.lists(st.sampled_from(others), max_size=2), label="other keys")
    for key in keys:
        closed[key] = _closing_value(data.draw, key, closed.get(key), players)
    _seal(db, closing, closed)
    db.close()


@given(st.integers(0, 10_000), st.integers(2, 4), st.data())
def test_a_tampered_closing_of_a_hand_that_does_not_replay_is_a_report(
    seed: int, hands: int, data: st.DataObject
) -> None:
    """Whatever a closing the audit must go on from states, the audit reports (never an
    error), and the same both ways."""
    with recorded(bench_text(seed, hands, {})) as store:
        _unreplayable_closing(store, data)
        assert_same(store)


hongkong_matches = legal_logs(ruleset="hongkong", max_hands=4).filter(
    lambda lines: lines[0]["type"] == "match_started"
)


@given(st.one_of(hongkong_matches, sichuan_matches, variant_matches), st.data())
def test_a_tampered_closing_of_a_legal_match_is_a_report(
    lines: list[dict[str, Any]], data: st.DataObject
) -> None:
    """The same on random legal matches of both rule sets (Hong Kong's round winds and end
    of the match, its first dealer) and with table variants (stakes, bust)."""
    with recorded(log_text(lines)) as store:
        _unreplayable_closing(store, data)
        assert_same(store)
