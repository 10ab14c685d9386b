"""The ledger store against raw sqlite3 on the same rows, in one process.

Three figures (issue: "The ledger store"):

1. recording N hands (``Ledger.record_log``: validate, digest, one transaction per hand) in
   hands/s, next to raw ``sqlite3`` inserting the very same JSON rows, one transaction per hand,
   into a WAL database with the same table — the ledger's unit of durability — on disk (the
   temporary directory) and on a RAM disk (``/dev/shm``, where fsync costs nothing); and
   recording N/10 matches of 10 hands (a ``record_log`` each), per hand, next to the one
   N-hand match (issue 25: at most 1.2 times);
2. re-deriving all N hands from the store (``Ledger.replay_all``: one pass over the
   notification log: read, decode, fold, settle)
   next to raw ``sqlite3`` reading those rows and ``json.loads``-ing them;
3. re-deriving one stored hand of ~100 events from a cold read (no aggregate cache): median ms.

Times are CPU time (``time.process_time``) and wall time, in one process. ``--rss`` instead
reports the peak RSS of recording a log of the given size (``Ledger.record_log``) and of
re-deriving the store it makes (``Ledger.rederive``), each in a process of its own;
``--quick`` divides those sizes by 100.

Usage::

    .venv/bin/python benchmarks/bench_store.py --hands 10000 --seed 1
    .venv/bin/python benchmarks/bench_store.py --rss 100000          # heavy: minutes
    .venv/bin/python benchmarks/bench_store.py --rss 100000 --quick  # 1,000 hands
"""

from __future__ import annotations

import argparse
import json
import os
import random
import sqlite3
import statistics
import sys
import tempfile
import time
from collections.abc import Callable
from pathlib import Path
from typing import TypeVar

sys.path.insert(0, str(Path(__file__).resolve().parent))

from bench_replay import PLAYERS, add_heavy_options, child_peak, heavy_sizes, sichuan_log
from mjledger import replay
from mjledger.ledger import Ledger

T = TypeVar("T")
RAM_DISK = "/dev/shm" if Path("/dev/shm").is_dir() else None
SCHEMA = (
    "CREATE TABLE stored_events (originator_id TEXT, originator_version INTEGER, topic TEXT, "
    "state BLOB, PRIMARY KEY (originator_id, originator_version))"
)


def rows_by_transaction(store: Path) -> list[list[tuple[str, int, str, bytes]]]:
    """The ledger's own rows, grouped as it wrote them: each hand with its closing row (a
    hand's rows and its hand_closed row are one transaction), the match start with the
    first hand."""
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
    if len(groups) > 1:
        groups[:2] = [groups[0] + groups[1]]
    return groups


def raw_insert(path: Path, groups: list[list[tuple[str, int, str, bytes]]]) -> None:
    db = sqlite3.connect(path, isolation_level=None)
    db.execute("PRAGMA journal_mode=WAL")
    db.execute(SCHEMA)
    for group in groups:
        db.execute("BEGIN")
        db.executemany("INSERT INTO stored_events VALUES (?, ?, ?, ?)", group)
        db.execute("COMMIT")
    db.close()


def raw_read(path: Path) -> None:
    db = sqlite3.connect(path)
    for (state,) in db.execute("SELECT state FROM stored_events ORDER BY rowid"):
        json.loads(state)
    db.close()


def timed(func: Callable[[], T]) -> tuple[T, float, float]:
    """The result, CPU seconds (``time.process_time``) and wall seconds of one call."""
    wall, cpu = time.perf_counter(), time.process_time()
    result = func()
    return result, time.process_time() - cpu, time.perf_counter() - wall


def report(label: str, hands: int, cpu: float, wall: float) -> None:
    print(f"   {label:<26}{cpu:8.2f} s CPU {wall:8.2f} s wall {hands / cpu:10,.0f} hands/s (CPU)")


def record_against_raw(text: str, directory: str | None) -> tuple[float, float, float, float]:
    """CPU and wall seconds of ``record_log(text)`` into a new store in ``directory``, then of
    raw inserts of the very same rows, one transaction a hand: (ours CPU, raw CPU, ours wall,
    raw wall)."""
    with tempfile.TemporaryDirectory(dir=directory) as tmp:
        store = Path(tmp) / "ledger.sqlite"
        ledger = Ledger(store)
        _, ours_cpu, ours_wall = timed(lambda: ledger.record_log(text))
        ledger.close()
        groups = rows_by_transaction(store)
        _, raw_cpu, raw_wall = timed(lambda: raw_insert(Path(tmp) / "raw.sqlite", groups))
    return ours_cpu, raw_cpu, ours_wall, raw_wall


def many_matches(seed: int, matches: int, hands: int) -> list[str]:
    """``matches`` logs of ``hands`` Sichuan hands each, each under a match id of its own."""
    rng = random.Random(seed)
    return [
        sichuan_log(rng, hands).replace('"bench-sichuan"', f'"bench-{i}"', 1)
        for i in range(matches)
    ]


def record_many(texts: list[str], directory: str | None) -> tuple[float, float]:
    """CPU and wall seconds of recording every log of ``texts`` (a ``record_log`` each) into
    one new store in ``directory``."""
    with tempfile.TemporaryDirectory(dir=directory) as tmp:
        ledger = Ledger(Path(tmp) / "ledger.sqlite")
        _, cpu, wall = timed(lambda: [ledger.record_log(t) for t in texts])
        ledger.close()
    return cpu, wall


def drain(ledger: Ledger) -> int:
    return sum(1 for _ in ledger.rederive())


def peak_rss(hands: int, seed: int) -> None:
    """Peak RSS of recording a ``hands``-hand log (``Ledger.record_log``) and of re-deriving
    the store it makes (``Ledger.rederive``), each as its own process, next to a process that
    only reads the log's text (recording takes the text whole) or only opens the store."""
    with tempfile.TemporaryDirectory() as tmp:
        store, log = Path(tmp) / "ledger.sqlite", Path(tmp) / "log.jsonl"
        log.write_text(sichuan_log(random.Random(seed), hands), encoding="utf-8")
        read = (
            "import sys; from pathlib import Path; from mjledger.ledger import Ledger; "
            "text = Path(sys.argv[1]).read_text(encoding='utf-8')"
        )
        loaded = child_peak(read, [str(log)])
        started = time.perf_counter()
        recording = child_peak(
            read + "; Ledger(sys.argv[2]).record_log(text)", [str(log), str(store)]
        )
        wall = time.perf_counter() - started
        print(
            f"peak RSS, recording {hands:,} hands ({log.stat().st_size / 1e6:,.0f} MB log, "
            f"{wall:.0f} s wall): {recording / 1024:,.0f} MB (the process that only reads the "
            f"log: {loaded / 1024:,.0f} MB)"
        )
        code = "import sys; from mjledger.ledger import Ledger; ledger = Ledger(sys.argv[1])"
        opened = child_peak(code, [str(store)])
        code += "; print(sum(1 for _ in ledger.rederive()))"
        rss = child_peak(code, [str(store)])
        size = store.stat().st_size
    print(
        f"peak RSS, re-deriving {hands:,} hands ({size / 1e6:,.0f} MB store): {rss / 1024:,.0f} MB"
        f" (the process that only opens the store: {opened / 1024:,.0f} MB)"
    )


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
    add_heavy_options(parser, "re-deriving a store (heavy: 100000)")
    args = parser.parse_args(argv)
    print(
        f"Python {sys.version.split()[0]}, seed {args.seed}; load average {os.getloadavg()[0]:.2f}"
    )
    if args.rss is not None:
        for hands in heavy_sizes(args, 100_000):
            peak_rss(hands, args.seed)
        return 0

    text = sichuan_log(random.Random(args.seed), args.hands)
    expected = replay(text).to_json()
    events = sum(1 for line in text.splitlines() if line.strip())
    print(f"{args.hands:,} Sichuan hands, {events:,} events")
    with tempfile.TemporaryDirectory() as tmp:
        store = Path(tmp) / "ledger.sqlite"
        ledger = Ledger(store)
        result, ours_cpu, ours_wall = timed(lambda: ledger.record_log(text))
        ledger.close()
        assert result.hands == args.hands, result
        groups = rows_by_transaction(store)
        _, raw_cpu, raw_wall = timed(lambda: raw_insert(Path(tmp) / "raw.sqlite", groups))
        rows = sum(len(g) for g in groups)
        print(f"1. record {args.hands:,} hands ({rows:,} rows, {len(groups):,} transactions)")
        report("ledger.record_log", args.hands, ours_cpu, ours_wall)
        report("raw sqlite3 inserts", args.hands, raw_cpu, raw_wall)
        print(
            f"   ledger / raw: {ours_cpu / raw_cpu:.2f}x the CPU time a hand, "
            f"{ours_wall / raw_wall:.2f}x the wall time (fsync makes wall swing)"
        )
        if RAM_DISK is not None:
            ram = record_against_raw(text, RAM_DISK)
            print(f"   on a RAM disk ({RAM_DISK}: no fsync cost)")
            report("ledger.record_log", args.hands, ram[0], ram[2])
            report("raw sqlite3 inserts", args.hands, ram[1], ram[3])
            print(f"   ledger / raw: {ram[0] / ram[1]:.2f}x the CPU time a hand")
        texts = many_matches(args.seed, args.hands // 10, 10)
        many_cpu, many_wall = record_many(texts, None)
        print(f"   {len(texts):,} matches of 10 hands, a record_log each")
        report("ledger.record_log", len(texts) * 10, many_cpu, many_wall)
        per_hand = (many_cpu / (len(texts) * 10)) / (ours_cpu / args.hands)
        print(f"   per hand: {per_hand:.2f}x the CPU of one {args.hands:,}-hand match")

        ledger = Ledger(store)
        rederived, all_cpu, all_wall = timed(ledger.replay_all)
        assert rederived["bench-sichuan"].to_json()["totals"] == expected["totals"]
        assert rederived["bench-sichuan"].to_json()["hands"] == expected["hands"]
        del rederived
        count, stream_cpu, stream_wall = timed(lambda: drain(ledger))
        assert count == args.hands
        ledger.close()
        _, raw_cpu, raw_wall = timed(lambda: raw_read(store))
        print(f"2. re-derive all {args.hands:,} hands from the store")
        report("ledger.replay_all", args.hands, all_cpu, all_wall)
        report("ledger.rederive (streamed)", args.hands, stream_cpu, stream_wall)
        report("raw read + json.loads", args.hands, raw_cpu, raw_wall)
        print(
            f"   replay_all at {raw_cpu / all_cpu:.0%}, rederive at {raw_cpu / stream_cpu:.0%} "
            "of raw speed (CPU)"
        )

        ledger = Ledger(store, env={"AGGREGATE_CACHE_MAXSIZE": ""})
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
