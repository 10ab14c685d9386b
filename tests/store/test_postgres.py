"""The ledger on a real PostgreSQL server (issue 11): load, races, kills, restarts, leaks.

Every test runs against the throwaway cluster of ``tests/pg.py`` (loopback only) and is bounded:
fixed numbers of processes, hands and iterations, and no assertion on wall-clock time.
"""

from __future__ import annotations

import signal
import subprocess
import sys
import threading
import time
from pathlib import Path
from typing import Any

import pytest

from mjledger import ConcurrencyError, Discarded, StoreConnectionError, replay
from mjledger.log.codec import parse_log
from mjledger.log.events import HandStarted, MatchStarted
from mjledger.store.application import Ledger
from tests import pg
from tests.backends import check_chain, raw_rows
from tests.conftest import ROOT
from tests.store_logs import sichuan_match

pytestmark = pytest.mark.slow

WRITERS = 8
HANDS = 200

# A writer process: opens its own Ledger, says it is ready, waits for the start signal (a file),
# then writes its match either through the importer (record_log) or event by event through the
# library (start_hand/record with expected versions), so both paths interleave on the server.
WRITER = """
import sys, time
from pathlib import Path
from mjledger.log.codec import parse_log
from mjledger.log.events import HandStarted, MatchStarted
from mjledger.store.application import Ledger

url, log, go, mode = sys.argv[1], sys.argv[2], Path(sys.argv[3]), sys.argv[4]
text = open(log, encoding="utf-8").read()
ledger = Ledger(url)
print("ready", flush=True)
while not go.exists():
    time.sleep(0.005)
if mode == "import":
    ledger.record_log(text)
else:
    events = [e for _, e in parse_log(text)]
    first = events[0]
    match = ledger.start_match(first.ruleset, first.players, first.rules, match_id=first.match)
    number = version = 0
    for event in events[1:]:
        if isinstance(event, HandStarted):
            number, version = ledger.start_hand(match, event.dealer), 1
        else:
            version = ledger.record(match, number, event, expected_version=version)
ledger.close()
print("done", flush=True)
"""


def _python(*args: str) -> list[str]:
    return [sys.executable, *args]


def _played(events: Any) -> list[Any]:
    """The events as played (without the match's and hands' starts, which the store
    completes with the table and the dealer)."""
    return [e for e in events if not isinstance(e, MatchStarted | HandStarted)]


def _expected_rows(text: str) -> int:
    """Rows a match log becomes: each event, plus one hand_closed per hand (all hands end)."""
    events = [e for _, e in parse_log(text)]
    return len(events) + sum(isinstance(e, HandStarted) for e in events)


def test_eight_writers_at_once_lose_and_duplicate_nothing(
    pg_cluster: pg.Cluster, pg_url: str, tmp_path: Path
) -> None:
    logs = {
        f"load-{i}": sichuan_match(HANDS, seed=100 + i, match_id=f"load-{i}")
        for i in range(WRITERS)
    }
    go = tmp_path / "go"
    children = []
    for i, (match, text) in enumerate(logs.items()):
        path = tmp_path / f"{match}.jsonl"
        path.write_text(text, encoding="utf-8")
        mode = "import" if i % 2 == 0 else "library"
        children.append(
            subprocess.Popen(
                _python("-c", WRITER, pg_url, str(path), str(go), mode),
                stdout=subprocess.PIPE,
                stderr=subprocess.PIPE,
                text=True,
                cwd=ROOT,
            )
        )
    try:
        for child in children:  # every writer is connected before any starts
            assert child.stdout is not None
            assert child.stdout.readline().strip() == "ready", child.stderr
        go.touch()
        results = [child.communicate(timeout=600) for child in children]
    finally:
        for child in children:
            if child.poll() is None:
                child.kill()
                child.wait()
    for child, (out, err) in zip(children, results, strict=True):
        assert child.returncode == 0, err
        assert out.strip() == "done"

    rows = raw_rows(pg_url)
    # 0 lost, 0 duplicated: exactly the rows of the eight logs, each (stream, version) once
    assert len(rows) == sum(_expected_rows(t) for t in logs.values())
    assert len({(s, v) for _, s, v, _, _ in rows}) == len(rows)
    assert len({n for n, _, _, _, _ in rows}) == len(rows)
    ledger = Ledger(pg_url)
    try:
        assert sorted(ledger.matches()) == sorted(logs)
        replays = ledger.replay_all()
        views = ledger.views
        by_match = views.scores_by_match()
        for match, text in logs.items():
            expected = replay(text).to_json()
            # each hand's order intact: the stored events are the log's, in the log's order
            assert _played(ledger.export_events(match)) == _played(e for _, e in parse_log(text))
            assert replay(ledger.export(match)).to_json() == expected
            assert replays[match].to_json() == expected
            assert check_chain(pg_url, match) == HANDS  # digest chains intact
            # read models equal the replays
            assert by_match[match] == expected["totals"]
            assert [(e.number, e.dealer, e.outcome, e.net) for e in views.history(match)] == [
                (h["number"], h["dealer"], h["outcome"], h["net"]) for h in expected["hands"]
            ]
        assert views.applied == len(rows)  # each notification applied exactly once
    finally:
        ledger.close()


RACES = 40


def test_racing_writers_exactly_one_loses_each_race_and_then_succeeds(pg_url: str) -> None:
    a, b = Ledger(pg_url), Ledger(pg_url)
    try:
        match = a.start_match("hongkong", ["ana", "bo", "cy", "di"], match_id="race")
        a.start_hand(match)
        barrier = threading.Barrier(2)
        outcomes: dict[str, list[str]] = {"a": [], "b": []}

        def writer(name: str, ledger: Ledger, player: str) -> None:
            for _ in range(RACES):
                seen = ledger.hand(match, 1).version
                barrier.wait()  # both have read the same version before either appends
                try:
                    ledger.record(match, 1, Discarded(player=player), expected_version=seen)
                    outcomes[name].append("won")
                except ConcurrencyError:
                    fresh = ledger.hand(match, 1)  # the loser re-reads and succeeds
                    ledger.record(
                        match, 1, Discarded(player=player), expected_version=fresh.version
                    )
                    outcomes[name].append("lost")
                barrier.wait()  # the next race starts from one settled version

        threads = [
            threading.Thread(target=writer, args=("a", a, "ana")),
            threading.Thread(target=writer, args=("b", b, "bo")),
        ]
        for t in threads:
            t.start()
        for t in threads:
            t.join(timeout=300)
        for race in range(RACES):
            assert sorted((outcomes["a"][race], outcomes["b"][race])) == ["lost", "won"]
        events = a.hand_events(match, 1)
        assert len(events) == 1 + 2 * RACES  # nothing lost, nothing doubled
        players = [e.player for e in events[1:]]  # type: ignore[attr-defined]
        for race in range(RACES):  # each race: the winner's discard, then the loser's
            pair = players[2 * race : 2 * race + 2]
            winner = "ana" if outcomes["a"][race] == "won" else "bo"
            assert pair == [winner, "bo" if winner == "ana" else "ana"]
        check_chain(pg_url, match)
    finally:
        a.close()
        b.close()


FOLLOWED_MATCHES = 4
FOLLOWED_HANDS = 150


def _follower(url: str) -> subprocess.Popen[str]:
    return subprocess.Popen(
        _python("-m", "mjledger", "project", "--follow", "--interval", "0.2", "--store", url),
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        text=True,
        cwd=ROOT,
    )


def test_a_killed_projection_process_resumes_exactly_once(pg_url: str, tmp_path: Path) -> None:
    logs = [
        sichuan_match(FOLLOWED_HANDS, seed=7 + i, match_id=f"followed-{i}")
        for i in range(FOLLOWED_MATCHES)
    ]
    ledger = Ledger(pg_url)
    views = ledger.views  # this process only reads and waits: the follower applies
    follower = _follower(pg_url)
    writing = threading.Thread(target=lambda: [ledger.record_log(t) for t in logs])
    try:
        writing.start()
        while views.position < 600 and follower.poll() is None:  # mid-stream
            time.sleep(0.01)
        follower.send_signal(signal.SIGKILL)
        follower.wait()
        assert follower.returncode == -signal.SIGKILL
        killed_at = views.position
        follower = _follower(pg_url)  # restarted: resumes after the last committed batch
        writing.join(timeout=300)
        views.wait_for(ledger.position, timeout=120)  # read-your-writes: all projected
        # Its first catch-up may have applied everything already: SIGTERM stops it cleanly
        # only once it follows (it says so), not while it still starts up.
        assert follower.stdout is not None
        for line in follower.stdout:
            if line.startswith("following "):
                break
        follower.send_signal(signal.SIGTERM)
        out, err = follower.communicate(timeout=60)
        assert follower.returncode == 0, err
        assert out.splitlines()[-1] == "stopped"
    finally:
        if follower.poll() is None:
            follower.kill()
            follower.wait()
    rows = raw_rows(pg_url)
    assert 0 < killed_at < rows[-1][0], "the kill did not come mid-stream"
    assert views.position == rows[-1][0]
    assert views.applied == len(rows)  # every notification applied exactly once
    assert views.catch_up() == 0
    by_match = views.scores_by_match()
    for text in logs:
        expected = replay(text).to_json()
        assert by_match[expected["match"]] == expected["totals"]
    ledger.close()


RESTART_HANDS = 1500


def test_a_server_restart_mid_import_fails_cleanly_and_the_import_resumes(
    pg_cluster: pg.Cluster, pg_database: str, tmp_path: Path
) -> None:
    url = pg_cluster.url(pg_database, timeout=1)
    text = sichuan_match(RESTART_HANDS, seed=3, match_id="restarted")
    log = tmp_path / "big.jsonl"
    log.write_text(text, encoding="utf-8")
    total = _expected_rows(text)
    importing = subprocess.Popen(
        _python("-m", "mjledger", "record", str(log), "--store", url),
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        text=True,
        cwd=ROOT,
    )
    try:
        count = 'SELECT count(*) FROM "public".mjledger_events'
        while importing.poll() is None:
            try:
                (row,) = pg_cluster.admin(count, dbname=pg_database)
            except Exception:  # the table is not there yet
                row = (0,)
            if row[0] > total // 5:
                break
            time.sleep(0.01)
        pg_cluster.stop()  # fast shutdown: open sessions are cut mid-transaction
        out, err = importing.communicate(timeout=300)
    finally:
        if importing.poll() is None:
            importing.kill()
            importing.wait()
        pg_cluster.start()
    assert importing.returncode == 2, (out, err)
    [line] = err.splitlines()  # one line, no traceback, no password
    assert line.startswith("mjledger: the store postgresql://mjledger@127.0.0.1"), line
    assert pg.PASSWORD not in err
    stored = raw_rows(url)
    assert 0 < len(stored) < total, "the restart did not come mid-import"

    ledger = Ledger(url)
    try:
        done = check_chain(url, "restarted")  # whole hands only, chains intact
        assert ledger.hands_in("restarted") == len(ledger.match("restarted").closed) == done
        resumed = ledger.record_log(text)
        assert resumed.status == "resumed"
        assert resumed.hands == RESTART_HANDS - done
        assert replay(ledger.export("restarted")).to_json() == replay(text).to_json()
        assert len(raw_rows(url)) == total
        assert ledger.views.catch_up() == total == ledger.views.applied
    finally:
        ledger.close()


OPENS = 1000


def test_opening_and_closing_a_thousand_times_leaves_no_connection(
    pg_cluster: pg.Cluster, pg_database: str
) -> None:
    url = pg_cluster.url(pg_database)
    Ledger(url).close()  # tables created once
    peak = 0
    for i in range(OPENS):
        ledger = Ledger(url)
        if i % 100 == 0:  # now and then the views too (they share the ledger's pool)
            ledger.views.catch_up()
            peak = max(peak, pg_cluster.connections(pg_database))
        ledger.close()
    # the server ends a backend a moment after its client hangs up: wait for that, boundedly
    for _ in range(200):
        if pg_cluster.connections(pg_database) == 0:
            break
        time.sleep(0.05)
    assert pg_cluster.connections(pg_database) == 0
    assert 0 < peak <= 5 + 10  # one pool per open ledger, never more than its size


def test_a_lost_server_is_a_store_error_naming_the_store(
    pg_cluster: pg.Cluster, pg_database: str
) -> None:
    url = pg_cluster.url(pg_database, timeout=1)
    ledger = Ledger(url)
    try:
        ledger.record_log(sichuan_match(2, match_id="short"))
        pg_cluster.stop()
        try:
            with pytest.raises(StoreConnectionError) as lost:
                ledger.matches()
        finally:
            pg_cluster.start()
        assert "postgresql://mjledger@127.0.0.1" in str(lost.value)
        assert pg.PASSWORD not in str(lost.value)
        assert ledger.matches() == ["short"]  # the pool reconnects once the server is back
    finally:
        ledger.close()


def test_a_role_without_create_rights_uses_a_store_its_owner_created(
    pg_cluster: pg.Cluster, pg_database: str
) -> None:
    owner = Ledger(pg_cluster.url(pg_database, schema="club7"))  # creates events and views
    owner.views.catch_up()
    owner.close()
    pg_cluster.admin(
        "CREATE ROLE clerk LOGIN PASSWORD 'clerk-pw'",
        f'GRANT CONNECT ON DATABASE "{pg_database}" TO clerk',
        dbname=pg_database,
    )
    pg_cluster.admin(
        "REVOKE CREATE ON SCHEMA club7 FROM PUBLIC",
        "GRANT USAGE ON SCHEMA club7 TO clerk",
        "GRANT SELECT, INSERT ON club7.mjledger_events TO clerk",
        "GRANT USAGE ON ALL SEQUENCES IN SCHEMA club7 TO clerk",
        "GRANT SELECT, INSERT, UPDATE, DELETE ON ALL TABLES IN SCHEMA club7 TO clerk",
        dbname=pg_database,
    )
    url = f"postgresql://clerk:clerk-pw@127.0.0.1:{pg_cluster.port}/{pg_database}?schema=club7"
    with pytest.raises(StoreConnectionError, match="permission denied"):
        Ledger(url)
    clerk = Ledger(url + "&create=false")
    try:
        text = sichuan_match(3, match_id="clerk")
        assert clerk.record_log(text).status == "recorded"
        assert clerk.views.scores_by_match() == {"clerk": replay(text).to_json()["totals"]}
    finally:
        clerk.close()


def test_two_processes_catching_up_at_once_apply_each_event_once(pg_url: str) -> None:
    writer = Ledger(pg_url)
    readers = [Ledger(pg_url), Ledger(pg_url)]
    try:
        texts = [sichuan_match(60, seed=i, match_id=f"both-{i}") for i in range(3)]
        stop = threading.Event()
        failures: list[BaseException] = []

        def follow(ledger: Ledger) -> None:
            try:
                while not stop.is_set():
                    ledger.views.catch_up()
            except BaseException as error:
                failures.append(error)

        threads = [threading.Thread(target=follow, args=(r,)) for r in readers]
        for t in threads:
            t.start()
        for text in texts:
            writer.record_log(text)
        stop.set()
        for t in threads:
            t.join(timeout=120)
        assert failures == []
        readers[0].views.catch_up()
        assert readers[0].views.applied == readers[1].views.applied == len(raw_rows(pg_url))
        for text in texts:
            expected = replay(text).to_json()
            assert readers[1].views.scores_by_match()[expected["match"]] == expected["totals"]
    finally:
        for ledger in (writer, *readers):
            ledger.close()
