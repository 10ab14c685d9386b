"""The ledger on PostgreSQL against raw psycopg on the same rows, in one run (issue 11).

A throwaway server on loopback (``tests/pg.py``; ``fsync`` on unless ``--no-fsync``), then:

1. recording N hands (``Ledger.record_log``: validate, digest, one transaction per hand) in
   hands/s, next to raw psycopg writing the very same rows, one transaction per hand, into a
   table of the same shape: ``executemany`` of ``INSERT``, and ``COPY``;
2. re-deriving all N hands (``Ledger.replay_all``) next to a raw ``SELECT`` of the rows plus
   ``json.loads`` of each;
3. four writer processes at once, each recording its own match of N/4 hands, next to four
   raw ``executemany`` writers on the same rows;
4. where the time goes: client CPU against wall time (the rest is waiting on the server), and
   a profile of ``record_log`` by package.

Usage::

    .venv/bin/python benchmarks/bench_postgres.py --hands 4000 --seed 1
"""

from __future__ import annotations

import argparse
import cProfile
import json
import multiprocessing
import pstats
import random
import resource
import sys
import time
from collections.abc import Callable
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(Path(__file__).resolve().parent))
sys.path.insert(0, str(ROOT))

import psycopg  # noqa: E402
from tests.pg import Cluster  # noqa: E402

from bench_replay import sichuan_log  # noqa: E402
from mjledger.fold.replay import replay  # noqa: E402
from mjledger.store.application import Ledger  # noqa: E402

RAW_TABLE = (
    "CREATE TABLE {t} (originator_id uuid NOT NULL, originator_version bigint NOT NULL, "
    "topic text, state bytea, notification_id bigserial, "
    "PRIMARY KEY (originator_id, originator_version))"
)
INSERT = "INSERT INTO {t} (originator_id, originator_version, topic, state) VALUES (%s, %s, %s, %s)"
COPY = "COPY {t} (originator_id, originator_version, topic, state) FROM STDIN"
Row = tuple[Any, int, str, bytes]


def timed(func: Callable[[], object]) -> tuple[float, float]:
    """(wall seconds, this process's CPU seconds) of one call."""
    wall, cpu = time.perf_counter(), time.process_time()
    func()
    return time.perf_counter() - wall, time.process_time() - cpu


def connect(url: str) -> psycopg.Connection[Any]:
    return psycopg.connect(url.split("?")[0], autocommit=True)


def rows_by_transaction(url: str) -> list[list[Row]]:
    """The ledger's own rows, grouped as it wrote them (a hand with its closing row)."""
    with connect(url) as conn:
        rows = conn.execute(
            "SELECT originator_id, originator_version, topic, state FROM mjledger_events "
            "ORDER BY notification_id"
        ).fetchall()
    groups: list[list[Row]] = [[rows[0]]]
    for row in rows[1:]:
        if row[2] == "mjledger.events:HandStarted":
            groups.append([])
        groups[-1].append(row)
    return groups


def raw_executemany(url: str, table: str, groups: list[list[Row]]) -> None:
    with connect(url) as conn, conn.cursor() as cur:
        for group in groups:
            with conn.transaction():
                cur.executemany(INSERT.format(t=table), group)


def raw_locked(url: str, table: str, groups: list[list[Row]]) -> None:
    """``raw_executemany`` plus what eventsourcing adds to each writing transaction: the
    events table locked in EXCLUSIVE mode (commit order = id order) and a NOTIFY."""
    with connect(url) as conn, conn.cursor() as cur:
        for group in groups:
            with conn.transaction():
                cur.execute(f"LOCK TABLE {table} IN EXCLUSIVE MODE")
                cur.execute(f"NOTIFY {table}")
                cur.executemany(INSERT.format(t=table), group)


def raw_copy(url: str, table: str, groups: list[list[Row]]) -> None:
    with connect(url) as conn, conn.cursor() as cur:
        for group in groups:
            with conn.transaction(), cur.copy(COPY.format(t=table)) as copy:
                for row in group:
                    copy.write_row(row)


def raw_read(url: str, table: str) -> None:
    with connect(url) as conn, conn.cursor() as cur:
        cur.execute(f"SELECT state FROM {table} ORDER BY notification_id")
        for (state,) in cur:
            json.loads(state)


def new_table(url: str, table: str) -> None:
    with connect(url) as conn:
        conn.execute(f"DROP TABLE IF EXISTS {table}")
        conn.execute(RAW_TABLE.format(t=table))


# --- four writers at once ---------------------------------------------------------------------


def _ledger_writer(url: str, text: str, go: Any, done: Any) -> None:
    ledger = Ledger(url)
    go.wait()
    ledger.record_log(text)
    ledger.close()
    done.put(time.perf_counter())


def _raw_writer(
    url: str, table: str, groups: list[list[Row]], locked: bool, go: Any, done: Any
) -> None:
    with connect(url):
        pass
    go.wait()
    (raw_locked if locked else raw_executemany)(url, table, groups)
    done.put(time.perf_counter())


def concurrently(targets: list[tuple[Callable[..., None], tuple[Any, ...]]]) -> float:
    """Start every writer, release them together, return the wall time until the last ends."""
    context = multiprocessing.get_context("fork")
    go, done = context.Event(), context.Queue()
    processes = [context.Process(target=f, args=(*a, go, done)) for f, a in targets]
    for p in processes:
        p.start()
    time.sleep(1.0)  # every writer connected and waiting
    started = time.perf_counter()
    go.set()
    ends = [done.get(timeout=1800) for _ in processes]
    for p in processes:
        p.join()
        assert p.exitcode == 0, p.exitcode
    return max(ends) - started


def renamed(text: str, match: str) -> str:
    return text.replace('"match":"bench-sichuan"', f'"match":"{match}"').replace(
        '"match": "bench-sichuan"', f'"match": "{match}"'
    )


def profile_by_package(func: Callable[[], object]) -> list[tuple[str, float]]:
    profiler = cProfile.Profile()
    profiler.runcall(func)
    stats = pstats.Stats(profiler)
    totals: dict[str, float] = {}
    for (filename, _, _), (_, _, tottime, _, _) in stats.stats.items():  # type: ignore[attr-defined]
        if "/mjledger/" in filename:
            package = "mjledger (validate, fold, digest, JSON)"
        elif "/eventsourcing/" in filename:
            package = "eventsourcing (recorder, mapper plumbing)"
        elif "/psycopg" in filename:
            package = "psycopg (driver, incl. waiting on the server)"
        elif "/cattrs/" in filename or "/attr/" in filename or "/attrs/" in filename:
            package = "cattrs/attrs (structuring)"
        elif filename == "~":
            package = "built-ins (json, hashlib, sockets, locks)"
        else:
            package = "other Python"
        totals[package] = totals.get(package, 0.0) + tottime
    whole = sum(totals.values())
    return sorted(((k, v / whole) for k, v in totals.items()), key=lambda kv: -kv[1])


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--hands", type=int, default=4000)
    parser.add_argument("--seed", type=int, default=1)
    parser.add_argument("--writers", type=int, default=4)
    parser.add_argument("--no-fsync", action="store_true", help="fsync off on the server")
    args = parser.parse_args(argv)

    text = sichuan_log(random.Random(args.seed), args.hands)
    expected = replay(text).to_json()
    events = sum(1 for line in text.splitlines() if line.strip())
    print(
        f"Python {sys.version.split()[0]}, psycopg {psycopg.__version__}, seed {args.seed}: "
        f"{args.hands:,} Sichuan hands, {events:,} events; fsync {'off' if args.no_fsync else 'on'}"
    )
    with Cluster(fsync=not args.no_fsync) as pg:
        url = pg.url(pg.create_database())
        print(f"server: PostgreSQL {pg.admin('SHOW server_version')[0][0]} on loopback TCP")

        ledger = Ledger(url)
        ours, ours_cpu = timed(lambda: ledger.record_log(text))
        ledger.close()
        groups = rows_by_transaction(url)
        rows = sum(len(g) for g in groups)
        new_table(url, "raw_many")
        many, many_cpu = timed(lambda: raw_executemany(url, "raw_many", groups))
        new_table(url, "raw_copy")
        copied, copied_cpu = timed(lambda: raw_copy(url, "raw_copy", groups))
        new_table(url, "raw_lock")
        locked, locked_cpu = timed(lambda: raw_locked(url, "raw_lock", groups))
        print(f"1. record {args.hands:,} hands ({rows:,} rows, {len(groups):,} transactions)")
        for name, wall, cpu in [
            ("ledger.record_log", ours, ours_cpu),
            ("raw executemany", many, many_cpu),
            ("raw COPY", copied, copied_cpu),
            ("raw + LOCK + NOTIFY", locked, locked_cpu),
        ]:
            print(
                f"   {name:22}{wall:8.2f} s {args.hands / wall:9,.0f} hands/s"
                f"   client CPU {cpu:6.2f} s ({cpu / wall:4.0%} of wall)"
            )
        print(f"   ledger / executemany: {many / ours:.0%}; ledger / COPY: {copied / ours:.0%}")

        ledger = Ledger(url)
        result: dict[str, Any] = {}
        ours, ours_cpu = timed(lambda: result.update(ledger.replay_all()))
        ledger.close()
        assert result["bench-sichuan"].to_json() == expected
        read, read_cpu = timed(lambda: raw_read(url, "raw_many"))
        print(f"2. re-derive all {args.hands:,} hands")
        print(
            f"   ledger.replay_all     {ours:8.2f} s {args.hands / ours:9,.0f} hands/s"
            f"   client CPU {ours_cpu:6.2f} s"
        )
        print(
            f"   raw SELECT+json.loads {read:8.2f} s {args.hands / read:9,.0f} hands/s"
            f"   client CPU {read_cpu:6.2f} s"
        )
        print(f"   ledger / raw: {read / ours:.0%}")

        share = args.hands // args.writers
        part = sichuan_log(random.Random(args.seed + 1), share)
        ledgers = concurrently(
            [(_ledger_writer, (url, renamed(part, f"w{i}"))) for i in range(args.writers)]
        )
        new_table(url, "raw_par")
        total = share * args.writers
        chunks = _split(_reid(groups[1 : total + 1]), args.writers)
        raws = concurrently([(_raw_writer, (url, "raw_par", c, False)) for c in chunks])
        new_table(url, "raw_par_lock")
        raws_locked = concurrently([(_raw_writer, (url, "raw_par_lock", c, True)) for c in chunks])
        print(f"3. {args.writers} writers at once, {share:,} hands each ({total:,} hands)")
        print(f"   ledgers               {ledgers:8.2f} s {total / ledgers:9,.0f} hands/s")
        print(f"   raw executemany       {raws:8.2f} s {total / raws:9,.0f} hands/s")
        print(f"   raw + LOCK + NOTIFY   {raws_locked:8.2f} s {total / raws_locked:9,.0f} hands/s")
        print(f"   ledgers / raw: {raws / ledgers:.0%}")

        ledger = Ledger(url)
        small = renamed(sichuan_log(random.Random(args.seed + 2), min(1000, args.hands)), "prof")
        shares = profile_by_package(lambda: ledger.record_log(small))
        ledger.close()
        print("4. where record_log's time goes (profile, share of profiled time)")
        for package, fraction in shares:
            print(f"   {fraction:6.1%}  {package}")
    peak = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024
    print(f"peak memory (this process): {peak:.0f} MiB")
    return 0


def _reid(groups: list[list[Row]]) -> list[list[Row]]:
    """The rows with fresh stream ids, so parallel raw writers insert new keys."""
    import uuid

    fresh: dict[Any, uuid.UUID] = {}
    return [[(fresh.setdefault(r[0], uuid.uuid4()), *r[1:]) for r in g] for g in groups]


def _split(groups: list[list[Row]], parts: int) -> list[list[list[Row]]]:
    return [groups[i::parts] for i in range(parts)]


if __name__ == "__main__":
    raise SystemExit(main())
