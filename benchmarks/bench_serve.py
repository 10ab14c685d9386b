"""Load on ``mjledger serve``: N tables appending event by event at once, on 127.0.0.1 only.

Each table is one client thread playing a Sichuan hand after hand by ``PUT …/events/{seq}``
(the hands of a seeded simulated log), on SQLite and on PostgreSQL (a throwaway server,
tests/pg.py), against 1 and then P ``serve`` processes (each on its own port, the clients
spread over them). Reports appends per second and p50/p99 latency, then checks that nothing
was lost or written twice: each match read back equals ``replay`` of its log. Bounded:
``--tables`` × ``--hands`` hands, every loop counted; it stops by itself.

    .venv/bin/python benchmarks/bench_serve.py --tables 8 --hands 4 --processes 1 8
"""

from __future__ import annotations

import argparse
import json
import os
import statistics
import subprocess
import sys
import tempfile
import threading
import time
from pathlib import Path
from typing import Any

import httpx

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

from mjledger.fold.replay import replay  # noqa: E402
from mjledger.http.access import Access  # noqa: E402
from mjledger.log.codec import event_to_json  # noqa: E402
from mjledger.sim.run import simulate  # noqa: E402
from mjledger.store.application import Ledger  # noqa: E402
from mjledger.store.location import store_location  # noqa: E402


def _log(seed: int, hands: int) -> list[dict[str, Any]]:
    (played,) = simulate("sichuan", hands=hands, seed=seed)
    return [event_to_json(e) for e in played.events]


def _free_port() -> int:
    import socket

    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return int(s.getsockname()[1])


def _wait(base: str) -> None:
    for _ in range(3000):  # at most about 5 minutes (a loaded machine starts slowly)
        try:
            if httpx.get(f"{base}/healthz", timeout=1).status_code == 200:
                return
        except httpx.HTTPError:
            pass
        time.sleep(0.1)
    raise SystemExit(f"{base} did not start")


def _start(store: str, processes: int) -> tuple[list[subprocess.Popen[bytes]], list[str]]:
    """``processes`` servers on one store; the first alone, so that it creates the store."""
    procs, bases = [], []
    for i in range(processes):
        port = _free_port()
        command = [sys.executable, "-m", "mjledger", "serve", "--store", store, "--port", str(port)]
        procs.append(subprocess.Popen(command, stderr=subprocess.DEVNULL))
        bases.append(f"http://127.0.0.1:{port}")
        if i == 0:
            _wait(bases[0])
    for base in bases:
        _wait(base)
    return procs, bases


def _table(
    base: str, token: str, match: str, lines: list[dict[str, Any]], out: list[float]
) -> None:
    headers = {"authorization": f"Bearer {token}", "content-type": "application/json"}
    with httpx.Client(base_url=base, headers=headers, timeout=60) as client:
        first = {**lines[0], "match": match}
        client.put(f"/v1/matches/{match}", content=json.dumps(first)).raise_for_status()
        number = seq = 0
        for line in lines[1:]:
            if line["type"] == "hand_started":
                number, seq = number + 1, 1
                path = f"/v1/matches/{match}/hands/{number}"
            else:
                seq += 1
                path = f"/v1/matches/{match}/hands/{number}/events/{seq}"
            began = time.perf_counter()
            answer = client.put(path, content=json.dumps(line))
            out.append(time.perf_counter() - began)
            if answer.status_code != 201:
                raise SystemExit(f"{path}: {answer.status_code} {answer.text[:200]}")


def run(store: str, processes: int, tables: int, hands: int) -> dict[str, Any]:
    Ledger(store).close()  # the store first, as `mjledger token create` makes it
    access = Access(store_location(store))
    token = access.create("backend", name="bench")[1]
    access.close()
    logs = [_log(seed, hands) for seed in range(tables)]
    procs, bases = _start(store, processes)
    try:
        latencies: list[list[float]] = [[] for _ in range(tables)]
        threads = [
            threading.Thread(
                target=_table,
                args=(
                    bases[i % len(bases)],
                    token,
                    f"bench-p{processes}-t{i}",
                    logs[i],
                    latencies[i],
                ),
            )
            for i in range(tables)
        ]
        began = time.perf_counter()
        for t in threads:
            t.start()
        for t in threads:
            t.join()
        wall = time.perf_counter() - began
        flat = sorted(x for table in latencies for x in table)
        lost = duplicated = 0
        with httpx.Client(base_url=bases[0], headers={"authorization": f"Bearer {token}"}) as c:
            for i, lines in enumerate(logs):
                served = c.get(f"/v1/matches/bench-p{processes}-t{i}").json()
                expected = replay("\n".join(json.dumps(x) for x in lines)).to_json()
                if served["totals"] != expected["totals"] or len(served["hands"]) != len(
                    expected["hands"]
                ):
                    lost += 1
                events = sum(
                    c.get(f"/v1/matches/bench-p{processes}-t{i}/hands/{n}").json()["position"]
                    for n in range(1, len(served["hands"]) + 1)
                )
                duplicated += events - (len(lines) - 1)
    finally:
        for p in procs:
            p.terminate()
        for p in procs:
            p.wait(timeout=30)
    return {
        "processes": processes,
        "appends": len(flat),
        "appends_per_s": round(len(flat) / wall, 1),
        "p50_ms": round(statistics.median(flat) * 1000, 1),
        "p99_ms": round(flat[int(len(flat) * 0.99) - 1] * 1000, 1),
        "lost": lost,
        "duplicated": duplicated,
    }


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--tables", type=int, default=8)
    parser.add_argument("--hands", type=int, default=3)
    parser.add_argument("--processes", type=int, nargs="+", default=[1, 8])
    parser.add_argument("--backend", choices=["sqlite", "postgres", "both"], default="both")
    args = parser.parse_args()
    print(f"load average: {os.getloadavg()}")
    if args.backend in ("sqlite", "both"):
        for p in args.processes:
            with tempfile.TemporaryDirectory() as folder:
                print("sqlite", run(str(Path(folder) / "s.sqlite"), p, args.tables, args.hands))
    if args.backend in ("postgres", "both"):
        from tests import pg

        with pg.Cluster() as cluster:
            for p in args.processes:
                url = cluster.url(cluster.create_database())
                print("postgres", run(url, p, args.tables, args.hands))


if __name__ == "__main__":
    main()
