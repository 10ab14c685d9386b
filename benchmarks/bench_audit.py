"""The audit against raw sqlite3 reading the same rows, in one process; and its peak memory.

Figures (issue 12, "Benchmarks"):

1. auditing a store of N Sichuan hands (``mjledger.store.audit.audit``: every chain, topic, replay,
   hand_closed, read-model row and the store head), in hands/s, CPU and wall time, next to raw
   ``sqlite3`` reading every row of the same store and ``json.loads``-ing it — unsigned, then
   a signed store of the same hands audited with its public key;
2. the peak memory (max RSS) of a separate process auditing a store of M hands, next to the
   same process before it audits: the audit streams, so this stays flat as M grows;
3. with ``--postgres``: the same hands recorded into a PostgreSQL store (a throwaway server,
   ``tests/pg.py``), audited there, next to raw ``psycopg`` reading every row through a
   server-side cursor and ``json.loads``-ing it, and next to the SQLite audit of figure 1a;
   and the peak memory of a separate process auditing M hands on PostgreSQL.

Stores are written in matches of 100 hands, into /dev/shm where there is one: for figure 1
through ``Ledger.record_log`` (one transaction per hand) with the read models caught up; for
figure 2 the same rows, one transaction per match (``--memory-dir`` puts that store on disk).

Usage::

    .venv/bin/python benchmarks/bench_audit.py --quick            # 5,000 and 20,000 hands
    .venv/bin/python benchmarks/bench_audit.py                    # 100,000 and 1,000,000
    .venv/bin/python benchmarks/bench_audit.py --quick --postgres --skip memory
"""

from __future__ import annotations

import argparse
import json
import random
import resource
import sqlite3
import subprocess
import sys
import tempfile
import time
from collections.abc import Callable
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))

import attrs

from bench_replay import sichuan_log
from mjledger.ledger import Ledger
from mjledger.log.codec import parse_log
from mjledger.log.events import MatchStarted
from mjledger.rules.house import default_rules
from mjledger.store.audit import audit
from mjledger.store.importer import batches_of_log
from mjledger.store.signing import keygen, load_verifier

PER_MATCH = 100
_TMP = "/dev/shm" if Path("/dev/shm").is_dir() else None


def build(
    store: Path | str,
    hands: int,
    seed: int,
    *,
    key: Path | None,
    views: bool,
    direct: bool = False,
    per_match: int = PER_MATCH,
) -> float:
    """Record ``hands`` hands in matches of ``per_match``; returns the seconds it took.

    ``direct``: each match in one transaction instead of one per hand — the very rows
    ``record_log`` writes (the ledger's own batches, validated and sealed the same way, head
    kept), with a thousandth of the commits, for the large memory store.
    """
    rng = random.Random(seed)
    started = time.perf_counter()
    ledger = Ledger(store, signing_key=key)
    done = match = 0
    while done < hands:
        n = min(per_match, hands - done)
        text = sichuan_log(rng, n).replace('"bench-sichuan"', f'"bench-{match:07d}"', 1)
        if direct:
            events = parse_log(text)
            first = events[0][1]
            assert isinstance(first, MatchStarted)
            first = attrs.evolve(first, rules=first.rules or default_rules(first.ruleset))
            batches = batches_of_log(first, 1, events[1:])
            ledger._save([r for batch, _lines in batches for r in batch])
        else:
            ledger.record_log(text)
        done += n
        match += 1
    if views:
        ledger.views.catch_up()
    ledger.close()
    return time.perf_counter() - started


def timed(func: Callable[[], object]) -> tuple[float, float, object]:
    wall, cpu = time.perf_counter(), time.process_time()
    result = func()
    return time.perf_counter() - wall, time.process_time() - cpu, result


def raw_read(store: Path) -> int:
    db = sqlite3.connect(store)
    rows = 0
    for (state,) in db.execute("SELECT state FROM stored_events ORDER BY rowid"):
        json.loads(state)
        rows += 1
    db.close()
    return rows


def report(name: str, hands: int, wall: float, cpu: float, raw: tuple[float, float]) -> None:
    print(
        f"   {name:<26} wall {wall:7.2f} s  cpu {cpu:7.2f} s  {hands / wall:9,.0f} hands/s  "
        f"({raw[0] / wall:.0%} of raw by wall, {raw[1] / cpu:.0%} by cpu)"
    )


def throughput(hands: int, seed: int, tmp: Path) -> Path:
    key, _ = keygen(tmp / "bench.pem")
    verifier = load_verifier(tmp / "bench.pem.pub")
    for signed in (False, True):
        store = tmp / f"{'signed' if signed else 'plain'}.sqlite"
        took = build(store, hands, seed, key=key if signed else None, views=True)
        size = store.stat().st_size / 2**20
        print(
            f"1{'b' if signed else 'a'}. {'signed' if signed else 'unsigned'} store: {hands:,} "
            f"hands, {size:,.0f} MiB, recorded (+ views) in {took:.1f} s"
        )
        raw_wall, raw_cpu, rows = timed(lambda store=store: raw_read(store))  # type: ignore[misc]
        wall, cpu, result = timed(
            lambda store=store, signed=signed: audit(  # type: ignore[misc]
                store, public_key=verifier if signed else None
            )
        )
        assert result.findings == (), result.findings[:3]  # type: ignore[attr-defined]
        assert result.summary.hands == hands  # type: ignore[attr-defined]
        print(
            f"   raw read + json.loads      wall {raw_wall:7.2f} s  cpu {raw_cpu:7.2f} s  "
            f"{hands / raw_wall:9,.0f} hands/s  ({rows:,} rows)"
        )
        report("audit" + (" --public-key" if signed else ""), hands, wall, cpu, (raw_wall, raw_cpu))
    return tmp / "plain.sqlite"


def raw_read_postgres(url: str) -> int:
    import psycopg

    from mjledger.store.location import parse_url

    rows = 0
    with (
        psycopg.connect(**parse_url(url).conninfo()) as conn,
        conn.cursor(name="raw") as cursor,
    ):
        cursor.itersize = 1000
        cursor.execute("SELECT state FROM mjledger_events ORDER BY notification_id")
        for (state,) in cursor:
            json.loads(state)
            rows += 1
    return rows


def postgres(hands: int, memory_hands: int | None, seed: int, sqlite_store: Path | None) -> None:
    """Figure 3: the audit of a PostgreSQL store (a throwaway server on loopback)."""
    sys.path.insert(0, str(Path(__file__).resolve().parent.parent))
    from tests.pg import Cluster

    with Cluster() as cluster:
        url = cluster.url(cluster.create_database())
        took = build(url, hands, seed, key=None, views=True)
        print(f"3a. PostgreSQL store: {hands:,} hands, recorded (+ views) in {took:.1f} s")
        raw_wall, raw_cpu, rows = timed(lambda: raw_read_postgres(url))
        wall, cpu, result = timed(lambda: audit(url))
        assert result.findings == (), result.findings[:3]  # type: ignore[attr-defined]
        assert result.summary.hands == hands  # type: ignore[attr-defined]
        print(
            f"   raw psycopg + json.loads   wall {raw_wall:7.2f} s  cpu {raw_cpu:7.2f} s  "
            f"{hands / raw_wall:9,.0f} hands/s  ({rows:,} rows)"
        )
        report("audit (PostgreSQL)", hands, wall, cpu, (raw_wall, raw_cpu))
        if sqlite_store is not None:
            s_wall, s_cpu, _ = timed(lambda: audit(sqlite_store))
            print(
                f"   audit (SQLite, same hands) wall {s_wall:7.2f} s  cpu {s_cpu:7.2f} s: "
                f"PostgreSQL takes {wall / s_wall:.2f}x the wall time, {cpu / s_cpu:.2f}x the "
                "CPU time of this process"
            )
        if memory_hands:
            big = cluster.url(cluster.create_database())
            took = build(big, memory_hands, seed, key=None, views=False, direct=True)
            print(f"3b. memory: {memory_hands:,} hands on PostgreSQL, written in {took:.1f} s")
            audit_in_a_child(big, memory_hands)


def child(store: str) -> int:
    """Run in a separate process: the peak RSS before and after auditing ``store``."""
    before = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss
    started = time.perf_counter()
    result = audit(store)
    wall = time.perf_counter() - started
    after = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss
    print(
        json.dumps(
            {
                "before_kib": before,
                "peak_kib": after,
                "hands": result.summary.hands,
                "findings": len(result.findings),
                "wall": wall,
            }
        )
    )
    return 0


def memory(hands: int, seed: int, tmp: Path) -> None:
    store = tmp / "memory.sqlite"
    took = build(store, hands, seed, key=None, views=False, direct=True)
    size = store.stat().st_size / 2**20
    print(
        f"2. memory: {hands:,} hands, {size:,.0f} MiB, written (a transaction per match, no "
        f"read models) in {took:.1f} s"
    )
    audit_in_a_child(str(store), hands)


def audit_in_a_child(store: str, hands: int) -> None:
    """Audit ``store`` in a fresh process (:func:`child`) and print its peak memory."""
    out = subprocess.run(
        [sys.executable, __file__, "--child", store],
        check=True,
        capture_output=True,
        text=True,
    ).stdout
    data = json.loads(out)
    assert data["findings"] == 0, data
    assert data["hands"] == hands, data
    print(
        f"   audit in a fresh process: peak RSS {data['peak_kib'] / 1024:,.1f} MiB "
        f"(the process before auditing: {data['before_kib'] / 1024:,.1f} MiB), "
        f"{data['wall']:.1f} s, {hands / data['wall']:,.0f} hands/s"
    )


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--hands", type=int, default=100_000, help="hands for figure 1")
    parser.add_argument("--memory-hands", type=int, default=1_000_000, help="hands, figure 2")
    parser.add_argument("--quick", action="store_true", help="5,000 and 20,000 hands")
    parser.add_argument("--seed", type=int, default=1)
    parser.add_argument("--skip", choices=("throughput", "memory"), default=None)
    parser.add_argument(
        "--memory-dir", default=None, help="where the memory store goes (default: as figure 1)"
    )
    parser.add_argument(
        "--postgres", action="store_true", help="figure 3: the audit on a PostgreSQL store"
    )
    parser.add_argument("--child", help=argparse.SUPPRESS)
    args = parser.parse_args(argv)
    if args.child:
        return child(args.child)
    if args.quick:
        args.hands, args.memory_hands = 5_000, 20_000
    print(f"Python {sys.version.split()[0]}, sqlite {sqlite3.sqlite_version}, seed {args.seed}")
    with tempfile.TemporaryDirectory(prefix="mjledger-bench-", dir=_TMP) as tmp:
        plain = None
        if args.skip != "throughput":
            plain = throughput(args.hands, args.seed, Path(tmp))
        if args.skip != "memory":
            with tempfile.TemporaryDirectory(
                prefix="mjledger-bench-", dir=args.memory_dir or tmp
            ) as big:
                memory(args.memory_hands, args.seed, Path(big))
        if args.postgres:
            memory_hands = args.memory_hands if args.skip != "memory" else None
            postgres(args.hands, memory_hands, args.seed, plain)
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
