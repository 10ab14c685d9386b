"""Concurrency (issue 3): threads sharing one Ledger and processes sharing one store file record
different matches without errors or loss; two writers appending to one hand from the same
version get exactly one ConcurrencyError (and the loser can reload and retry); writers that
name no version lose and duplicate nothing."""

from __future__ import annotations

import subprocess
import sys
import threading
from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest

from mjledger import ConcurrencyError, Discarded, MjledgerError, parse_log, replay
from mjledger.fold.replay import hand_to_json
from mjledger.log.events import HandStarted, MatchStarted
from mjledger.store.application import Ledger, hand_stream
from tests.backends import raw_rows
from tests.conftest import ROOT
from tests.store_logs import PLAYERS, hongkong_match, sichuan_match

TILES = [f"{n}{s}" for s in "mps" for n in range(1, 10)]


def record_through_library(ledger: Ledger, text: str) -> str:
    """Feed a match log through the library calls a backend makes, event by event."""
    events = [e for _, e in parse_log(text)]
    head = events[0]
    assert isinstance(head, MatchStarted)
    match = ledger.start_match(head.ruleset, head.players, head.rules, match_id=head.match)
    number = 0
    for event in events[1:]:
        if isinstance(event, HandStarted):
            number = ledger.start_hand(match, event.dealer)
        else:
            version = ledger.hand(match, number).version
            assert ledger.record(match, number, event, expected_version=version) == version + 1
    return match


def assert_stored_as_replayed(ledger: Ledger, logs: dict[str, str]) -> None:
    assert set(ledger.matches()) == set(logs)
    assert len(ledger.matches()) == len(logs)
    for match, text in logs.items():
        expected = replay(text).to_json()
        assert replay(ledger.export(match)).to_json() == expected
        for n, hand in enumerate(expected["hands"], 1):
            assert hand_to_json(ledger.settlement(match, n)) == hand
    views = ledger.views
    views.catch_up()
    assert views.catch_up() == 0
    scores = views.scores_by_match()
    for match, text in logs.items():
        result = replay(text)
        if result.hands:
            assert scores[match] == result.totals()
    assert set(scores) == {m for m, t in logs.items() if replay(t).hands}


def run_threads(targets: list[Callable[[], Any]]) -> list[BaseException]:
    errors: list[BaseException] = []
    lock = threading.Lock()

    def wrap(target: Callable[[], Any]) -> Callable[[], None]:
        def run() -> None:
            try:
                target()
            except BaseException as exc:
                with lock:
                    errors.append(exc)

        return run

    threads = [threading.Thread(target=wrap(t)) for t in targets]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    return errors


# --- different matches ------------------------------------------------------------------------


def test_threads_sharing_one_ledger_record_different_matches(any_store: str) -> None:
    ledger = Ledger(any_store)
    logs: dict[str, str] = {}
    targets: list[Callable[[], Any]] = []
    for i in range(3):
        logs[f"log-{i}"] = text = sichuan_match(25, seed=i, match_id=f"log-{i}")
        targets.append(lambda text=text: ledger.record_log(text))
    for i in range(3):
        logs[f"lib-{i}"] = text = hongkong_match(12, seed=10 + i, match_id=f"lib-{i}")
        targets.append(lambda text=text: record_through_library(ledger, text))
    logs["lib-sc"] = text = sichuan_match(10, seed=99, match_id="lib-sc")
    targets.append(lambda text=text: record_through_library(ledger, text))
    done = threading.Event()

    def follow() -> None:  # a reader catching the views up while the writers write
        while not done.is_set():
            ledger.views.catch_up()
            ledger.views.scores_by_match()

    reader = threading.Thread(target=follow)
    reader.start()
    try:
        errors = run_threads(targets)
    finally:
        done.set()
        reader.join()
    try:
        assert errors == []
        assert_stored_as_replayed(ledger, logs)
        assert ledger.views.position == _row_count(ledger)
    finally:
        ledger.close()


def _row_count(ledger: Ledger) -> int:
    return len(raw_rows(ledger.location))


CHILD = """
import sys
sys.path.insert(0, sys.argv[3])
from mjledger.ledger import Ledger
from tests.store_logs import hongkong_match, sichuan_match
from tests.store.test_store_concurrency import record_through_library

ledger = Ledger(sys.argv[1])
i = int(sys.argv[2])
ledger.record_log(sichuan_match(20, seed=i, match_id=f"proc-log-{i}"))
record_through_library(ledger, hongkong_match(8, seed=i, match_id=f"proc-lib-{i}"))
ledger.views.catch_up()
ledger.close()
print("ok", i)
"""


@pytest.mark.slow
def test_processes_record_different_matches_into_one_store(any_store: str, tmp_path: Path) -> None:
    store = any_store
    Ledger(store).close()  # the tables exist before the writers race
    procs = [
        subprocess.Popen(
            [sys.executable, "-c", CHILD, store, str(i), str(ROOT)],
            stdout=subprocess.PIPE,
            stderr=subprocess.PIPE,
            cwd=tmp_path,
        )
        for i in range(4)
    ]
    results = [(p.wait(timeout=300), *p.communicate()) for p in procs]
    for i, (code, out, err) in enumerate(results):
        assert code == 0, err.decode()
        assert out.decode().strip() == f"ok {i}"
        assert err == b""
    logs = {}
    for i in range(4):
        logs[f"proc-log-{i}"] = sichuan_match(20, seed=i, match_id=f"proc-log-{i}")
        logs[f"proc-lib-{i}"] = hongkong_match(8, seed=i, match_id=f"proc-lib-{i}")
    ledger = Ledger(store)
    try:
        # the children caught the shared views up between them, each event exactly once
        assert ledger.views.catch_up() == 0
        assert ledger.views.position == _row_count(ledger)
        assert ledger.views.applied == _row_count(ledger)  # no batch applied twice
        assert_stored_as_replayed(ledger, logs)
    finally:
        ledger.close()


# --- one hand, two writers ---------------------------------------------------------------------


def _race_first_saves(ledgers: list[Ledger], parties: int) -> None:
    """Hold each thread's first save until ``parties`` threads have validated their event on
    the same version: a forced race. Later saves go through at once."""
    barrier = threading.Barrier(parties, timeout=30)
    local = threading.local()
    for led in {id(x): x for x in ledgers}.values():
        original = led._save

        def save(records: Any, exists: str | None = None, original: Any = original) -> None:
            if not getattr(local, "raced", False):
                local.raced = True
                barrier.wait()
            original(records, exists)

        led._save = save  # type: ignore[method-assign]


def _unrace(ledgers: list[Ledger]) -> None:
    for led in {id(x): x for x in ledgers}.values():
        vars(led).pop("_save", None)


@pytest.mark.parametrize("shared", [False, True], ids=["two-ledgers", "one-ledger"])
def test_two_writers_on_one_hand_and_version_exactly_one_concurrency_error(
    any_store: str, shared: bool
) -> None:
    store = any_store
    a = Ledger(store)
    b = a if shared else Ledger(store)
    match = a.start_match("sichuan", PLAYERS, match_id="race")
    a.start_hand(match)
    a.record(match, 1, Discarded(player="ana"))
    version = b.hand(match, 1).version
    assert a.hand(match, 1).version == version == 2
    _race_first_saves([a, b], 2)
    outcomes: dict[str, Any] = {}

    def write(name: str, led: Ledger, player: str) -> None:
        try:
            outcomes[name] = led.record(
                match, 1, Discarded(player=player), expected_version=version
            )
        except ConcurrencyError as exc:
            outcomes[name] = exc

    errors = run_threads([lambda: write("a", a, "bo"), lambda: write("b", b, "cy")])
    assert errors == []
    failures = [n for n, o in outcomes.items() if isinstance(o, ConcurrencyError)]
    assert len(failures) == 1, outcomes
    [loser] = failures
    [winner] = [n for n in outcomes if n != loser]
    assert outcomes[winner] == version + 1
    assert isinstance(outcomes[loser], MjledgerError)
    # the loser reloads and retries on top of the winner's event
    led = a if loser == "a" else b
    _unrace([a, b])
    fresh = led.hand(match, 1).version
    assert fresh == version + 1
    player = "bo" if loser == "a" else "cy"
    assert led.record(match, 1, Discarded(player=player), expected_version=fresh) == fresh + 1
    stored = list(a.hand(match, 1).events[1:])
    assert stored[0] == Discarded(player="ana")
    assert sorted(e.player for e in stored[1:]) == ["bo", "cy"]
    assert len(stored) == 3
    assert replay(a.export(match)).to_json()["hands"][0]["outcome"] == "unfinished"
    a.close()
    if not shared:
        b.close()


def test_a_stale_expected_version_is_refused_before_anything_is_written(any_store: str) -> None:
    a, b = Ledger(any_store), Ledger(any_store)
    try:
        match = a.start_match("hongkong", PLAYERS)
        a.start_hand(match)
        seen = b.hand(match, 1).version
        a.record(match, 1, Discarded(player="ana"), expected_version=seen)
        with pytest.raises(ConcurrencyError, match="reload and retry"):
            b.record(match, 1, Discarded(player="bo"), expected_version=seen)
        assert b.hand(match, 1).version == seen + 1
        assert b.record(match, 1, Discarded(player="bo"), expected_version=seen + 1) == seen + 2
        with pytest.raises(ConcurrencyError):
            a.record(match, 1, Discarded(player="cy"), expected_version=seen + 5)
        assert [e.player for e in a.hand(match, 1).events[1:]] == ["ana", "bo"]
    finally:
        a.close()
        b.close()


@pytest.mark.parametrize("shared", [False, True], ids=["separate-ledgers", "one-ledger"])
def test_writers_without_expected_version_lose_and_duplicate_nothing(
    any_store: str, shared: bool
) -> None:
    store = any_store
    first = Ledger(store)
    match = first.start_match("sichuan", PLAYERS, match_id="free-for-all")
    first.start_hand(match)
    writers = 4
    per_writer = 15
    ledgers = [first if shared or i == 0 else Ledger(store) for i in range(writers)]
    _race_first_saves(ledgers, writers)

    def write(i: int) -> None:
        led = ledgers[i]
        for k in range(per_writer):
            # no expected version: each append goes on top of whatever is there
            led.record(match, 1, Discarded(player=PLAYERS[i], tile=TILES[k]))

    errors = run_threads([lambda i=i: write(i) for i in range(writers)])
    try:
        assert errors == []
        events = first.hand(match, 1).events[1:]
        assert len(events) == writers * per_writer
        for i in range(writers):
            mine = [e.tile for e in events if e.player == PLAYERS[i]]
            assert mine == TILES[:per_writer]  # all of them, once each, in the writer's order
        versions = [v for (v,) in _versions(store, hand_stream(match, 1).hex)]
        assert versions == list(range(1, writers * per_writer + 2))
        out = replay(first.export(match)).to_json()
        assert out["hands"][0]["outcome"] == "unfinished"
        assert len(parse_log(first.export(match))) == 2 + writers * per_writer
    finally:
        for led in {id(x): x for x in ledgers}.values():
            led.close()


def _versions(store: str, stream: str) -> list[tuple[int]]:
    return sorted((v,) for _, s, v, _, _ in raw_rows(store) if s == stream)
