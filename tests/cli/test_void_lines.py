"""After a void (a staff annulment) or a correction, the line numbers of a stored match stay
those of the log as recorded, in every view and message; the annulled hand is marked where it
is shown, with its figures as recorded and as they stand now."""

from __future__ import annotations

import json
from pathlib import Path

from mjledger import replay
from tests.cli.test_cli_store import HK, HK_ID, ok

STORE = ("--store", "s.sqlite")


def transfer_lines(folder: Path, number: int) -> list[int]:
    hand = json.loads(ok("hand", HK_ID, str(number), "--json", *STORE, cwd=folder))
    return [t["line"] for t in hand["transfers"]]


def explained_lines(folder: Path, number: int) -> list[str]:
    text = ok("explain", HK_ID, str(number), *STORE, cwd=folder)
    return [line.split(" — ")[0] for line in text.splitlines() if line.startswith("line ")]


def test_a_void_renumbers_nothing(tmp_path: Path) -> None:
    ok("record", HK, *STORE, cwd=tmp_path)
    recorded = ok("export", HK_ID, *STORE, cwd=tmp_path)
    hands = len(replay(recorded).hands)
    before = {n: transfer_lines(tmp_path, n) for n in range(1, hands + 1)}
    explained = {n: explained_lines(tmp_path, n) for n in range(2, hands + 1)}
    assert before[1]  # hand 1 has payments: voiding it takes them away
    ok("void", HK_ID, "1", "--reason", "wrong tiles", "--by", "staff-9", *STORE, cwd=tmp_path)
    for n in range(2, hands + 1):
        assert transfer_lines(tmp_path, n) == before[n], n
        assert explained_lines(tmp_path, n) == explained[n], n
    assert transfer_lines(tmp_path, 1) == []
    # the log that replays keeps the recorded numbering: the void's lines stand blank
    exported = ok("export", HK_ID, *STORE, cwd=tmp_path)
    assert len(exported.splitlines()) == len(recorded.splitlines())
    again = replay(exported)
    for n in range(2, hands + 1):
        assert [t.line for t in again.hands[n - 1].transfers] == before[n]
    starts = [i for i, line in enumerate(recorded.splitlines(), 1) if "hand_started" in line]
    assert [
        i for i, line in enumerate(exported.splitlines(), 1) if "hand_started" in line
    ] == starts


def test_the_whole_record_keeps_the_recorded_lines_and_marks_the_void(tmp_path: Path) -> None:
    ok("record", HK, *STORE, cwd=tmp_path)
    recorded = ok("export", HK_ID, *STORE, cwd=tmp_path).splitlines()
    net = json.loads(ok("hand", HK_ID, "1", "--json", *STORE, cwd=tmp_path))["net"]
    ok("void", HK_ID, "1", "--reason", "wrong tiles", "--by", "staff-9", *STORE, cwd=tmp_path)
    whole = ok("export", HK_ID, "--with-corrections", *STORE, cwd=tmp_path).splitlines()
    assert whole[: len(recorded)] == recorded  # the log as recorded, line for line
    (voided,) = (json.loads(line) for line in whole[len(recorded) :])
    assert voided["type"] == "hand_voided"
    assert voided["number"] == 1
    assert voided["original_net"] == net
    assert voided["net"] == dict.fromkeys(net, 0)
    shown = ok("hand", HK_ID, "1", *STORE, cwd=tmp_path)
    assert "annulled by staff" in shown
    assert "wrong tiles" in shown
    assert "as recorded:" in shown
    assert "now:" in shown
