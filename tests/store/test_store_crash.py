"""Crash safety (issue 3): a process recording a large log is killed with SIGKILL part way.

Reopening the store must find whole hands only (each stored hand closed by its match, with
all its events and the matching digest; no hand stream left without its closing), an export
that replays, and read models that catch up exactly once: the child process was catching the
views up in a thread while it recorded, so part of the store was already applied when it died.
"""

from __future__ import annotations

import signal
import subprocess
import sys
import time
from pathlib import Path

import pytest

from mjledger import replay
from mjledger.store.application import Ledger, hand_stream, match_stream
from tests.backends import progress, raw_rows
from tests.store_logs import sichuan_match

pytestmark = pytest.mark.slow  # kills a recording process

HANDS = 1500
MATCH = "crash"

CHILD = """
import sys, threading
from mjledger.ledger import Ledger

ledger = Ledger(sys.argv[1])
text = open(sys.argv[2], encoding="utf-8").read()
views = ledger.views

def follow():
    while True:
        views.catch_up()

threading.Thread(target=follow, daemon=True).start()
ledger.record_log(text)
print("finished", flush=True)
"""


def test_a_killed_import_leaves_whole_hands_and_views_catch_up_once(
    any_store: str, tmp_path: Path
) -> None:
    text = sichuan_match(HANDS, seed=11, match_id=MATCH)
    full = replay(text).to_json()
    total_rows = len(text.strip().split("\n")) + HANDS  # every event, plus each hand's closing
    log = tmp_path / "big.jsonl"
    log.write_text(text, encoding="utf-8")
    store = any_store

    child = subprocess.Popen(
        [sys.executable, "-c", CHILD, store, str(log)],
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
    )
    try:
        # poll (no wall-clock assertion: the loop ends on progress or on the child's exit)
        while child.poll() is None:
            stored, tracked = progress(store)
            if stored >= total_rows // 4 and tracked > 0:
                break
            time.sleep(0.01)
        child.send_signal(signal.SIGKILL)
        child.wait()
        out, err = child.communicate()
    finally:
        if child.poll() is None:
            child.kill()
            child.wait()
    assert child.returncode == -signal.SIGKILL, (out, err)
    assert b"finished" not in out

    raw = raw_rows(store)
    assert 0 < len(raw) < total_rows, "the kill came after the import had finished"
    streams: dict[str, list[tuple[int, dict]]] = {}
    for _, stream, version, _, state in raw:
        streams.setdefault(stream, []).append((version, state))

    ledger = Ledger(store)
    try:
        match = ledger.match(MATCH)
        closed = match.closed
        k = len(closed)
        assert 0 < k < HANDS
        # every hand stream in the store is closed by its match, with all its events
        hand_ids = {hand_stream(MATCH, n).hex: n for n in range(1, HANDS + 1)}
        present = sorted(hand_ids[s] for s in streams if s in hand_ids)
        assert present == list(range(1, k + 1))
        assert set(streams) == {match_stream(MATCH).hex} | {
            hand_stream(MATCH, n).hex for n in present
        }
        for entry in closed:
            rows = streams[hand_stream(MATCH, entry.number).hex]
            assert [v for v, _ in rows] == list(range(1, entry.events + 1))
            assert rows[-1][1]["digest"] == entry.hand_digest
        assert ledger.hands_in(MATCH) == k
        # the export replays, hand for hand as the original log did
        exported = replay(ledger.export(MATCH)).to_json()
        assert exported["hands"] == full["hands"][:k]

        # the views catch up exactly once: what the child applied, plus the rest, once
        views = ledger.views
        already = views.position
        applied = views.catch_up()
        assert already + applied == len(raw) == views.position
        assert views.catch_up() == 0
        assert views.scores_by_match() == {MATCH: exported["totals"]}
        history = views.history(MATCH)
        assert [(e.number, e.dealer, e.outcome, e.net) for e in history] == [
            (h["number"], h["dealer"], h["outcome"], h["net"]) for h in exported["hands"]
        ]

        # recording the log again continues where the import stopped
        resumed = ledger.record_log(text)
        assert resumed.status == "resumed"
        assert resumed.hands == HANDS - k
        assert replay(ledger.export(MATCH)).to_json() == full
        assert views.catch_up() == total_rows - len(raw)
        assert views.applied == total_rows  # every stored event applied exactly once
        assert views.scores_by_match() == {MATCH: full["totals"]}
    finally:
        ledger.close()
