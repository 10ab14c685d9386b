"""The ledger store against raw sqlite3 on the same rows, in one process.

Three figures (issue: "The ledger store"):

1. recording N hands (``Ledger.record_log``: validate, digest, one transaction per hand) in
   hands/s, next to raw ``sqlite3`` inserting the very same JSON rows, one transaction per hand,
   into a WAL database with the same table — the ledger's unit of durability;
2. re-deriving all N hands from the store (``Ledger.replay_all``: one pass over the
   notification log: read, decode, fold, settle)
   next to raw ``sqlite3`` reading those rows and ``json.loads``-ing them;
3. re-deriving one stored hand of ~100 events from a cold read (no aggregate cache): median ms.

Usage::

    .venv/bin/python benchmarks/bench_store.py --hands 10000 --seed 1
"""

from __future__ import annotations

import argparse
import json
import random
import sqlite3
import statistics
import sys
import tempfile
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))

from bench_replay import PLAYERS, sichuan_log
from mjledger import replay
from mjledger.ledger import Ledger

SCHEMA = (
    "CREATE TABLE stored_events (originator_id TEXT, originator_version INTEGER, topic TEXT, "
    "state BLOB, PRIMARY KEY (originator_id, originator_version))"
)


def rows_by_transaction(store: Path) -> list[list[tuple[str, int, str, bytes]]]:
    """The ledger's own rows, grouped as it wrote them: the match start, then each hand with
    its closing row (a hand's rows and its hand_closed row are one transaction)."""
    db = sqlite3.connect(store)
    rows = db.execute(
        "SELECT originator_id, originator_version, topic, state FROM stored_events ORDER BY rowid"
    ).fetchall()
    db.close()
    groups: list[list[tuple[str, int, str, bytes]]] = [[rows[0]]]
    for row in rows[1:]:
        if row[2] == "mjledger.events:HandStarted":
            groups.append([])
        groups[-1].append(row)
    return groups


def raw_insert(path: Path, groups: list[list[tuple[str, int, str, bytes]]]) -> float:
    db = sqlite3.connect(path, isolation_level=None)
    db.execute("PRAGMA journal_mode=WAL")
    db.execute(SCHEMA)
    started = time.perf_counter()
    for group in groups:
        db.execute("BEGIN")
        db.executemany("INSERT INTO stored_events VALUES (?, ?, ?, ?)", group)
        db.execute("COMMIT")
    elapsed = time.perf_counter() - started
    db.close()
    return elapsed


def raw_read(path: Path) -> float:
    db = sqlite3.connect(path)
    started = time.perf_counter()
    for (state,) in db.execute("SELECT state FROM stored_events ORDER BY rowid"):
        json.loads(state)
    elapsed = time.perf_counter() - started
    db.close()
    return elapsed


def long_hand_log() -> str:
    """A stand-alone-sized match: one Sichuan hand of about 100 events."""
    lines = [
        {"type": "match_started", "match": "long", "ruleset": "sichuan", "players": list(PLAYERS)},
        {"type": "hand_started"},
    ]
    lines += [{"type": "void_suit_chosen", "player": p, "suit": "m"} for p in PLAYERS]
    for i in range(88):
        player = PLAYERS[i % 4]
        if i % 11 == 5:
            lines.append({"type": "kong_declared", "player": player, "kind": "concealed"})
        lines.append({"type": "discarded", "player": player, "tile": f"{i % 9 + 1}p"})
    lines.append({"type": "won_on_discard", "player": "bo", "from": "ana", "fan": 2})
    lines.append(
        {
            "type": "wall_exhausted",
            "remaining": {
                "ana": {"ready": False},
                "cy": {"ready": True, "best_fan": 1},
                "di": {"flower_pig": True},
            },
        }
    )
    return "\n".join(json.dumps(line) for line in lines) + "\n"


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--hands", type=int, default=10_000)
    parser.add_argument("--seed", type=int, default=1)
    parser.add_argument("--repeat", type=int, default=25, help="reads of the long hand")
    args = parser.parse_args(argv)

    text = sichuan_log(random.Random(args.seed), args.hands)
    expected = replay(text).to_json()
    events = sum(1 for line in text.splitlines() if line.strip())
    print(
        f"Python {sys.version.split()[0]}, seed {args.seed}: {args.hands:,} Sichuan hands, "
        f"{events:,} events"
    )
    with tempfile.TemporaryDirectory() as tmp:
        store = Path(tmp) / "ledger.sqlite"
        ledger = Ledger(store)
        started = time.perf_counter()
        result = ledger.record_log(text)
        ours = time.perf_counter() - started
        ledger.close()
        assert result.hands == args.hands, result
        groups = rows_by_transaction(store)
        raw = raw_insert(Path(tmp) / "raw.sqlite", groups)
        rows = sum(len(g) for g in groups)
        print(f"1. record {args.hands:,} hands ({rows:,} rows, {len(groups):,} transactions)")
        print(f"   ledger.record_log     {ours:8.2f} s  {args.hands / ours:10,.0f} hands/s")
        print(f"   raw sqlite3 inserts   {raw:8.2f} s  {args.hands / raw:10,.0f} hands/s")
        print(f"   ledger / raw: {raw / ours:.0%} of raw speed")

        ledger = Ledger(store)
        started = time.perf_counter()
        rederived = ledger.replay_all()["bench-sichuan"]
        ours = time.perf_counter() - started
        ledger.close()
        ledger = Ledger(store, env={"AGGREGATE_CACHE_MAXSIZE": ""})
        assert rederived.to_json()["totals"] == expected["totals"]
        assert rederived.to_json()["hands"] == expected["hands"]
        raw = raw_read(store)
        print(f"2. re-derive all {args.hands:,} hands from the store")
        print(f"   ledger.replay_all     {ours:8.2f} s  {args.hands / ours:10,.0f} hands/s")
        print(f"   raw read + json.loads {raw:8.2f} s  {args.hands / raw:10,.0f} hands/s")
        print(f"   ledger / raw: {raw / ours:.0%} of raw speed")

        ledger.record_log(long_hand_log())
        size = len(ledger.hand("long", 1).events)
        timings = []
        for _ in range(args.repeat):
            started = time.perf_counter()
            ledger.settlement("long", 1)
            timings.append(time.perf_counter() - started)
        ledger.close()
        print(f"3. re-derive one stored hand of {size} events (cold, no aggregate cache)")
        print(
            f"   median {statistics.median(timings) * 1000:.2f} ms over {args.repeat} reads "
            f"(min {min(timings) * 1000:.2f}, max {max(timings) * 1000:.2f})"
        )
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
