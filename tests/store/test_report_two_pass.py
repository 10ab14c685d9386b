"""``report MATCH`` of a stored match in two passes (issue 25): the nets its closings record
(or the correction in force) first, then each hand settled, checked against that net, written
and dropped. The page must be the one every hand settled at once gives
(``render_report(report_from_store(...))``), byte for byte, on random legal matches with
corrections and voids, with a hand in play, and on damaged stores, where the command falls
back to the general path and gives its page or its error, writing nothing else.
"""

from __future__ import annotations

import json
import sqlite3
from contextlib import suppress
from pathlib import Path

import pytest
from click.testing import CliRunner
from hypothesis import given, settings
from hypothesis import strategies as st

from mjledger import MjledgerError
from mjledger.cli import main
from mjledger.cli.outputs import write_output_pieces
from mjledger.explain.i18n import LANGUAGES
from mjledger.explain.report import render_report
from mjledger.explain.stored import NotFromClosingsError, report_from_store, stored_page
from mjledger.ledger import Ledger
from mjledger.log.codec import dumps_event
from mjledger.store.corrections import correct, void
from mjledger.store.streams import hand_stream, match_stream
from tests.conftest import EXAMPLES
from tests.store.recorded import recorded_match
from tests.strategies import legal_logs

SC = EXAMPLES / "sichuan-match.jsonl"
SC_ID = "chengdu-teahouse-t12-2026-12-06"


def two_pass(ledger: Ledger, match: str, lang: str) -> str:
    page, nets, hands = stored_page(ledger, match)
    return "".join(page.chunks(lang, nets, hands))


def report_cli(folder: Path, match: str, *args: str) -> tuple[int, str]:
    result = CliRunner().invoke(
        main,
        [
            "report",
            match,
            "--store",
            str(folder / "s.sqlite"),
            "--html",
            str(folder / "page.html"),
            *args,
        ],
        catch_exceptions=False,
    )
    return result.exit_code, result.output


@settings(max_examples=30, deadline=None)
@given(legal_logs(max_hands=5), st.data())
def test_the_two_passes_give_the_page_of_every_hand_settled(
    lines: list, data: st.DataObject
) -> None:
    """Random legal matches (a last hand possibly still in play), some hands corrected or
    voided, in any language: the same page, and the cache holds no hand after it."""
    if lines[0]["type"] != "match_started":
        return
    with recorded_match(lines) as (ledger, match):
        closed = len(ledger.match(match).closed)
        for number in data.draw(st.lists(st.integers(1, max(closed, 1)), max_size=3)):
            if number > closed:
                break
            events = ledger.hand_events(match, number)
            text = "".join(dumps_event(e) + "\n" for e in events)
            with suppress(MjledgerError):  # a refused one (voided twice, stakes) changes nothing
                if data.draw(st.booleans()):
                    void(ledger, match, number, reason="r", by="s")
                else:
                    correct(ledger, match, number, text, reason="r", by="s")
        lang = data.draw(st.sampled_from(sorted(LANGUAGES)))
        page = two_pass(ledger, match, lang)
        for number in range(1, ledger.hands_in(match) + 1):  # no hand kept after it
            with pytest.raises(KeyError):
                ledger.repository.cache.get(hand_stream(match, number))
        assert page == render_report(report_from_store(ledger, match), lang)


@pytest.fixture
def folder(tmp_path: Path) -> Path:
    ledger = Ledger(tmp_path / "s.sqlite")
    ledger.record_log(SC.read_text(encoding="utf-8"))
    ledger.close()
    return tmp_path


def _edit_row(folder: Path, stream: object, version: int, edit: dict) -> None:
    with sqlite3.connect(folder / "s.sqlite") as db:
        where = "originator_id = ? AND originator_version = ?"
        key = (str(stream).replace("-", ""), version)
        (state,) = db.execute(f"SELECT state FROM stored_events WHERE {where}", key).fetchone()
        row = json.loads(state)
        row.update(edit)
        db.execute(f"UPDATE stored_events SET state = ? WHERE {where}", (json.dumps(row), *key))


def _closing_version(folder: Path, number: int) -> tuple[int, dict]:
    with sqlite3.connect(folder / "s.sqlite") as db:
        found = db.execute(
            "SELECT originator_version, state FROM stored_events WHERE originator_id = ?",
            (str(match_stream(SC_ID)).replace("-", ""),),
        ).fetchall()
    for version, state in found:
        row = json.loads(state)
        if row.get("number") == number and "net" in row:
            return version, row
    raise AssertionError("no closing")


def test_a_closing_that_disagrees_falls_back_to_every_hand_settled(folder: Path) -> None:
    version, row = _closing_version(folder, 2)
    players = list(row["net"])
    _edit_row(folder, match_stream(SC_ID), version, {"net": dict.fromkeys(players, 0)})
    ledger = Ledger(folder / "s.sqlite")
    try:
        page, nets, hands = stored_page(ledger, SC_ID)
        assert nets[1] == dict.fromkeys(players, 0)
        with pytest.raises(NotFromClosingsError, match="hand 2"):
            "".join(page.chunks("en", nets, hands))
        expected = render_report(report_from_store(ledger, SC_ID), "en")
    finally:
        ledger.close()
    code, output = report_cli(folder, SC_ID)
    assert code == 0, output
    assert (folder / "page.html").read_text(encoding="utf-8") == expected
    assert [p.name for p in folder.iterdir() if p.name.endswith(".part")] == []


def test_a_hand_that_cannot_be_settled_gives_the_general_error_and_writes_nothing(
    folder: Path,
) -> None:
    _edit_row(folder, hand_stream(SC_ID, 2), 2, {"player": "nobody"})
    ledger = Ledger(folder / "s.sqlite")
    try:
        with pytest.raises(MjledgerError) as general:
            report_from_store(ledger, SC_ID)
    finally:
        ledger.close()
    code, output = report_cli(folder, SC_ID)
    assert code == 2
    assert str(general.value) in output
    assert not (folder / "page.html").exists()
    (folder / "page.html").write_text("mine", encoding="utf-8")
    assert report_cli(folder, SC_ID, "--force")[0] == 2
    assert (folder / "page.html").read_text(encoding="utf-8") == "mine"
    assert sorted(p.name for p in folder.iterdir() if p.suffix == ".part") == []


def _pieces_then_failure() -> object:
    yield "half a page"
    raise MjledgerError("stored hand 2 cannot be settled", code="store_damaged")


def test_pieces_that_fail_leave_the_file_as_it_was(tmp_path: Path) -> None:
    target = tmp_path / "page.html"
    with pytest.raises(MjledgerError, match="cannot be settled"):
        write_output_pieces(target, _pieces_then_failure(), force=False)  # type: ignore[arg-type]
    assert list(tmp_path.iterdir()) == []
    target.write_text("mine", encoding="utf-8")
    target.chmod(0o640)
    with pytest.raises(MjledgerError, match="cannot be settled"):
        write_output_pieces(target, _pieces_then_failure(), force=True)  # type: ignore[arg-type]
    assert target.read_text(encoding="utf-8") == "mine"
    write_output_pieces(target, iter(["a", "é\n"]), force=True)
    assert target.read_bytes() == "aé\n".encode()
    assert target.stat().st_mode & 0o777 == 0o640  # a replaced file keeps its mode
    assert [p.name for p in tmp_path.iterdir()] == ["page.html"]


def test_pieces_go_through_a_link_to_the_file_it_names(tmp_path: Path) -> None:
    (tmp_path / "real.html").write_text("mine", encoding="utf-8")
    (tmp_path / "page.html").symlink_to("real.html")
    write_output_pieces(tmp_path / "page.html", iter(["new"]), force=True)
    assert (tmp_path / "page.html").is_symlink()
    assert (tmp_path / "real.html").read_text(encoding="utf-8") == "new"


def test_pieces_refuse_an_existing_file_without_force(tmp_path: Path) -> None:
    (tmp_path / "page.html").write_text("mine", encoding="utf-8")
    with pytest.raises(MjledgerError, match="exists already"):
        write_output_pieces(tmp_path / "page.html", iter(["new"]), force=False)
    assert (tmp_path / "page.html").read_text(encoding="utf-8") == "mine"
