"""Corrections as compensating events (issue 13): ``correct`` and ``void`` on a stored match.

Nothing stored is edited or deleted; a correction is appended atomically, chained into the
digest chain; read models and running scores follow it exactly once; ``history``, ``explain``,
``export`` and ``report`` show it; refusals change nothing.
"""

from __future__ import annotations

import json
import sqlite3
import tempfile
from pathlib import Path

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from mjledger import MjledgerError, replay
from mjledger.explain import explain_log, money_by_player
from mjledger.explain.report import render_report
from mjledger.explain.stored import explain_stored, report_from_store
from mjledger.ledger import Ledger
from mjledger.log.codec import dumps_event, parse_log
from mjledger.store.corrections import (
    correct,
    correction_log,
    correction_stream,
    corrections_stream,
    export_with_corrections,
    void,
)
from mjledger.store.records import RecordMapper, chain, converter_form, stored_form
from tests.conftest import EXAMPLES
from tests.store.recorded import recorded_match
from tests.strategies import legal_log_text, legal_logs

SC = EXAMPLES / "sichuan-match.jsonl"
SC_ID = "chengdu-teahouse-t12-2026-12-06"
DISPUTED = (EXAMPLES / "disputed-hand.jsonl").read_text(encoding="utf-8")  # hand 3 of SC
# jing's win on line 14 was 2 fan, not 1: the discarder wei pays 2 less, jing gets 2 less.
FIXED = DISPUTED.replace(
    '"player": "jing", "from": "wei", "fan": 2', '"player": "jing", "from": "wei", "fan": 1'
)
# Without jing's win, hua alone wins first and would deal hand 4 (the record says wei).
ONE_WINNER = "".join(
    line for line in DISPUTED.splitlines(keepends=True) if '"player": "jing", "from"' not in line
).replace('"wei": {"ready": false}}', '"wei": {"ready": false}, "jing": {"ready": false}}')


@pytest.fixture
def ledger(tmp_path: Path):
    ledger = Ledger(tmp_path / "s.sqlite")
    ledger.record_log(SC.read_text(encoding="utf-8"))
    yield ledger
    ledger.close()


def rows(ledger: Ledger) -> list[tuple]:
    with sqlite3.connect(ledger.path) as db:
        return db.execute(
            "SELECT originator_id, originator_version, topic, state FROM stored_events "
            "ORDER BY rowid"
        ).fetchall()


def totals_of_settlements(ledger: Ledger, match: str) -> dict[str, int]:
    out: dict[str, int] = {}
    for n in range(1, ledger.hands_in(match) + 1):
        for p, a in ledger.settlement(match, n).net().items():
            out[p] = out.get(p, 0) + a
    return out


def test_a_correction_replaces_the_money_and_everything_follows(ledger: Ledger) -> None:
    before_rows = rows(ledger)
    before = ledger.views.scores_by_match()[SC_ID]
    result = correct(ledger, SC_ID, 3, FIXED, reason="fan miscounted", by="staff7")
    assert result.original_net == {"ming": 3, "hua": 2, "wei": -10, "jing": 5}
    assert result.net == {"ming": 3, "hua": 2, "wei": -8, "jing": 3}
    # appended only: every earlier row is still there, unchanged and in order
    after_rows = rows(ledger)
    assert after_rows[: len(before_rows)] == before_rows
    assert len(after_rows) > len(before_rows)
    # the settlement, the running scores (once, not twice), and a rebuilt view agree
    assert ledger.settlement(SC_ID, 3).net() == result.net
    scores = ledger.views.scores_by_match()[SC_ID]
    assert scores["wei"] == before["wei"] + 2
    assert scores["jing"] == before["jing"] - 2
    assert scores == totals_of_settlements(ledger, SC_ID)
    ledger.views.catch_up()
    assert ledger.views.scores_by_match()[SC_ID] == scores
    ledger.views.rebuild()
    assert ledger.views.scores_by_match()[SC_ID] == scores
    # the plain export replays to the corrected totals; the rotation is as recorded
    exported = replay(ledger.export(SC_ID))
    assert exported.totals() == scores
    assert [h.dealer for h in exported.hands] == [e.dealer for e in ledger.views.history(SC_ID)]
    assert ledger.replay_all()[SC_ID].totals() == scores


def test_the_correction_is_chained_into_the_digest_chain(ledger: Ledger) -> None:
    match_digest = ledger.match(SC_ID).digest
    correct(ledger, SC_ID, 3, FIXED, reason="fan miscounted", by="staff7")
    stream = list(ledger.events.get(correction_stream(SC_ID, 3, 1)))
    previous = match_digest
    for r in stream:
        assert r.digest == chain(previous, stored_form(r.event))
        previous = r.digest
    (entry,) = list(ledger.events.get(corrections_stream(SC_ID)))
    assert entry.digest == chain(match_digest, stored_form(entry.event))
    assert entry.event.hand_digest == stream[-1].digest
    assert entry.event.events == len(stream)
    # the stored hand itself is untouched
    assert ledger.hand_events(SC_ID, 3)[1:] == [e for _, e in parse_log(DISPUTED)[1:]]
    assert ledger.match(SC_ID).digest == match_digest


def test_a_correction_of_a_correction(ledger: Ledger) -> None:
    first = correct(ledger, SC_ID, 3, FIXED, reason="fan miscounted", by="staff7")
    second = correct(ledger, SC_ID, 3, DISPUTED, reason="first fix was wrong", by="staff9")
    assert second.original_net == first.net
    assert second.net == first.original_net
    assert ledger.settlement(SC_ID, 3).net() == first.original_net
    log = correction_log(ledger, SC_ID)
    assert log is not None
    assert [c.event.by for c in log.of(3)] == ["staff7", "staff9"]
    assert ledger.views.scores_by_match()[SC_ID] == totals_of_settlements(ledger, SC_ID)
    assert replay(ledger.export(SC_ID)).totals() == totals_of_settlements(ledger, SC_ID)


def test_a_changed_next_dealer_is_refused_unless_later_hands_keep_theirs(ledger: Ledger) -> None:
    before = rows(ledger)
    with pytest.raises(MjledgerError, match=r"changes the next dealer to hua.*hand 4 is recorded"):
        correct(ledger, SC_ID, 3, ONE_WINNER, reason="jing did not win", by="staff7")
    assert rows(ledger) == before
    dealers = [e.dealer for e in ledger.views.history(SC_ID)]
    result = correct(
        ledger, SC_ID, 3, ONE_WINNER, reason="jing did not win", by="staff7", keep_later_hands=True
    )
    assert result.keep_later_hands
    history = ledger.views.history(SC_ID)
    assert [e.dealer for e in history] == dealers  # the rotation stays as recorded
    assert history[2].next_dealer == "wei"
    assert history[2].winners == ("hua",)
    scores = ledger.views.scores_by_match()[SC_ID]
    assert replay(ledger.export(SC_ID)).totals() == scores == totals_of_settlements(ledger, SC_ID)


@pytest.mark.parametrize(
    ("change", "problem"),
    [
        (
            (
                '"players": ["ming", "hua", "wei", "jing"]',
                '"players": ["ming", "wei", "hua", "jing"]',
            ),
            "players",
        ),
        (('"base": 1,', '"base": 2,'), "house rules"),
        (('"dealer": "ming"', '"dealer": "hua"'), "dealer"),
        (('"dealer_streak": 0', '"dealer_streak": 1'), "dealer streak"),
        (('"number": 3', '"number": 4'), "names hand 4"),
        (('"match": "chengdu-teahouse-t12-2026-12-06"', '"match": "other"'), "names match"),
    ],
)
def test_a_corrected_hand_must_be_the_same_hand(ledger: Ledger, change, problem: str) -> None:
    text = FIXED.replace(*change, 1)
    assert text != FIXED
    before = rows(ledger)
    with pytest.raises(MjledgerError, match=problem):
        correct(ledger, SC_ID, 3, text, reason="r", by="s")
    assert rows(ledger) == before


def test_other_refusals(ledger: Ledger) -> None:
    before = rows(ledger)
    unfinished = "".join(FIXED.splitlines(keepends=True)[:14])
    with pytest.raises(MjledgerError, match="does not end"):
        correct(ledger, SC_ID, 3, unfinished, reason="r", by="s")
    with pytest.raises(MjledgerError, match="stand-alone hand"):
        correct(ledger, SC_ID, 3, SC.read_text(encoding="utf-8"), reason="r", by="s")
    with pytest.raises(MjledgerError, match="no hand 99"):
        correct(ledger, SC_ID, 99, FIXED, reason="r", by="s")
    with pytest.raises(MjledgerError, match="needs a reason"):
        void(ledger, SC_ID, 3, reason=" ", by="s")
    with pytest.raises(MjledgerError, match="line 13: won_on_discard"):  # names its line
        correct(ledger, SC_ID, 3, FIXED.replace('"fan": 1}', '"fan": true}', 1), reason="r", by="s")
    assert rows(ledger) == before


def test_a_hand_in_progress_cannot_be_corrected(tmp_path: Path) -> None:
    ledger = Ledger(tmp_path / "p.sqlite")
    try:
        match = ledger.start_match("sichuan", ["ming", "hua", "wei", "jing"], match_id="m")
        ledger.start_hand(match)
        with pytest.raises(MjledgerError, match="still in progress"):
            void(ledger, "m", 1, reason="r", by="s")
    finally:
        ledger.close()


def test_void_annuls_the_money_and_keeps_the_rotation(ledger: Ledger) -> None:
    dealers = [(e.dealer, e.next_dealer) for e in ledger.views.history(SC_ID)]
    original = ledger.settlement(SC_ID, 3).net()
    result = void(ledger, SC_ID, 3, reason="wrong table", by="staff7")
    assert result.original_net == original
    assert ledger.settlement(SC_ID, 3).transfers == ()
    history = ledger.views.history(SC_ID)
    assert [(e.dealer, e.next_dealer) for e in history] == dealers
    assert history[2].net == dict.fromkeys(original, 0)
    scores = ledger.views.scores_by_match()[SC_ID]
    assert scores == totals_of_settlements(ledger, SC_ID)
    assert replay(ledger.export(SC_ID)).totals() == scores
    with pytest.raises(MjledgerError, match="already voided"):
        void(ledger, SC_ID, 3, reason="again", by="staff7")
    # explain shows what was played, then gives it all back
    explained = explain_stored(ledger, SC_ID, 3)
    assert explained.steps[-1].event == "hand_voided"
    assert money_by_player(explained) == explained.net == dict.fromkeys(original, 0)
    assert explained.corrections[0].original_net == original
    # a correction after a void brings money back
    correct(ledger, SC_ID, 3, FIXED, reason="it was played after all", by="staff9")
    assert ledger.settlement(SC_ID, 3).net() == {"ming": 3, "hua": 2, "wei": -8, "jing": 3}


def test_explain_and_report_show_the_correction(ledger: Ledger) -> None:
    correct(ledger, SC_ID, 3, FIXED, reason="fan miscounted", by="staff7")
    explained = explain_stored(ledger, SC_ID, 3)
    assert (
        money_by_player(explained) == explained.net == {"ming": 3, "hua": 2, "wei": -8, "jing": 3}
    )
    (note,) = explained.corrections
    assert (note.kind, note.by, note.reason) == ("corrected", "staff7", "fan miscounted")
    assert note.original_net == {"ming": 3, "hua": 2, "wei": -10, "jing": 5}
    page = render_report(report_from_store(ledger, SC_ID), "es")
    assert 'class="hand corrected" id="hand-3"' in page
    assert "fan miscounted" in page
    assert "Corregida el" in page
    when = page.split("Corregida el", 1)[1][:60]
    assert note.when[:10] not in when  # a Spanish date, not ISO text
    assert " de 20" in when


def test_export_with_corrections_adds_documented_lines(ledger: Ledger) -> None:
    correct(ledger, SC_ID, 3, FIXED, reason="fan miscounted", by="staff7")
    void(ledger, SC_ID, 5, reason="wrong table", by="staff8")
    lines = [json.loads(line) for line in export_with_corrections(ledger, SC_ID).splitlines()]
    extensions = [line for line in lines if line["type"] in ("hand_corrected", "hand_voided")]
    assert [(e["type"], e["number"], e["by"]) for e in extensions] == [
        ("hand_corrected", 3, "staff7"),
        ("hand_voided", 5, "staff8"),
    ]
    assert extensions[0]["events"][0]["type"] == "hand_started"
    assert extensions[0]["net"] == {"ming": 3, "hua": 2, "wei": -8, "jing": 3}
    # without the extension lines, it is the match as recorded
    plain = "".join(json.dumps(line) + "\n" for line in lines if line not in extensions)
    assert replay(plain).totals() == replay(SC.read_text(encoding="utf-8")).totals()


@settings(max_examples=20, deadline=None)
@given(legal_logs(max_hands=4), st.data())
def test_void_then_restore_on_random_matches(lines: list, data: st.DataObject) -> None:
    """Any closed hand of any legal match: a void takes exactly its net out of the running
    scores, a correction with its own events puts it back; export and views agree."""
    if lines[0]["type"] != "match_started":
        return
    with recorded_match(lines) as (ledger, match):
        closed = len(ledger.match(match).closed)
        if not closed:
            return
        number = data.draw(st.integers(1, closed))
        scores = ledger.views.scores_by_match()[match]
        net = ledger.settlement(match, number).net()
        stand_alone = "".join(dumps_event(e) + "\n" for e in ledger.hand_events(match, number))
        void(ledger, match, number, reason="r", by="s")
        voided = ledger.views.scores_by_match()[match]
        assert voided == {p: scores[p] - net[p] for p in scores}
        assert replay(ledger.export(match)).totals() == voided
        correct(ledger, match, number, stand_alone, reason="r", by="s")
        assert ledger.views.scores_by_match()[match] == scores
        assert replay(ledger.export(match)).totals() == scores
        ledger.views.rebuild()
        assert ledger.views.scores_by_match()[match] == scores


@settings(max_examples=25)
@given(legal_log_text())
def test_stored_hands_are_explained_like_their_export(text: str) -> None:
    """A recorded match's hands, explained from the store, tie to the store's settlement."""
    if not text.startswith('{"type": "match_started"'):
        return
    with tempfile.TemporaryDirectory() as folder:
        ledger = Ledger(Path(folder) / "s.sqlite")
        try:
            match = ledger.record_log(text).match
            exported = {h.number: h for h in explain_log(ledger.export(match))}
            for number in range(1, ledger.hands_in(match) + 1):
                hand = explain_stored(ledger, match, number)
                settled = ledger.settlement(match, number)
                assert money_by_player(hand) == settled.net() == hand.net
                assert [s.to_json() for s in hand.steps] == [
                    s.to_json() for s in exported[number].steps
                ]
        finally:
            ledger.close()


STAKES_MATCH = "\n".join(
    [
        '{"type": "match_started", "match": "hk-stakes-c", "ruleset": "hongkong", '
        '"players": ["ana", "bo", "cy", "di"], '
        '"stakes": {"ana": 100, "bo": 1000, "cy": 1000, "di": 1000}}',
        '{"type": "hand_started", "dealer": "ana"}',
        '{"type": "self_drawn", "player": "bo", "fan": 3}',
        '{"type": "hand_started"}',
        '{"type": "self_drawn", "player": "cy", "fan": 3}',
        "",
    ]
)
HAND_TWO = (
    '{"type": "hand_started", "ruleset": "hongkong", "players": ["ana", "bo", "cy", "di"], '
    '"dealer": "bo"}\n{"type": "self_drawn", "player": "cy", "fan": FAN}\n'
)


def test_with_table_stakes_only_the_last_hand_can_be_corrected(tmp_path: Path) -> None:
    """Issue 13: "In a match with table stakes, only the last hand can be corrected" — later
    hands were capped by the balances it left. Nor may a correction take more from a player
    than they held before the hand (ana: 100 - 8 = 92 before hand 2)."""
    with Ledger(tmp_path / "s.sqlite") as ledger:
        ledger.record_log(STAKES_MATCH)
        before = rows(ledger)
        with pytest.raises(MjledgerError, match="only the last hand"):
            correct(ledger, "hk-stakes-c", 1, HAND_TWO.replace("FAN", "4"), reason="r", by="s")
        with pytest.raises(MjledgerError, match="only the last hand"):
            void(ledger, "hk-stakes-c", 1, reason="r", by="s")
        # 10 fan half-spicy = 128 units from each of three: more than ana's 92
        with pytest.raises(MjledgerError, match="ana would pay 128 but held only 92"):
            correct(ledger, "hk-stakes-c", 2, HAND_TWO.replace("FAN", "10"), reason="r", by="s")
        assert rows(ledger) == before
        done = correct(ledger, "hk-stakes-c", 2, HAND_TWO.replace("FAN", "4"), reason="r", by="s")
        assert done.net == {"ana": -16, "bo": -16, "cy": 48, "di": -16}
        assert ledger.settlement("hk-stakes-c", 2).net() == done.net


def test_every_stored_event_has_the_converters_stored_form(ledger: Ledger) -> None:
    """``stored_form`` (code generated per class) lays out every kind of row the store holds,
    corrections and tables too, exactly as the store converter does, key order included."""
    correct(ledger, SC_ID, 3, FIXED, reason="fan miscounted", by="staff7")
    void(ledger, SC_ID, 2, reason="wrong table", by="staff7")
    ledger.open_table("t1", "sichuan", ["a", "b", "c", "d"])
    ledger.change_rules("t1", {"fan_cap": 3})
    mapper = RecordMapper()
    seen = set()
    for row in ledger.recorder.select_notifications(1, 100_000):
        event = mapper.to_domain_event(row).event
        assert list(stored_form(event).items()) == list(converter_form(event).items())
        seen.add(type(event).TYPE)
    assert {"hand_corrected", "hand_voided", "table_opened", "rules_changed"} <= seen
