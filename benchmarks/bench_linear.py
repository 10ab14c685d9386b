"""Recording and view catch-up stay linear in a match's length: time per hand is flat.

For each size N (Sichuan hands in ONE match), in a fresh process (so peak memory is that
size's own):

1. ``record``: validate the whole log and write it, one transaction per hand
   (``check_log`` + ``Ledger.record_checked``);
2. ``views``: bring the read models up from nothing (``views.catch_up``), which settles every
   hand again from the store.

Each phase reports CPU and wall time per hand, and the ratio of its time per hand to the
smallest size's (a linear phase stays near 1.0x; a quadratic one grows with N). Peak memory
is the process's maximum resident set.

Usage::

    .venv/bin/python benchmarks/bench_linear.py              # quick: 1k, 3k, 10k hands
    .venv/bin/python benchmarks/bench_linear.py --full       # 1k, 10k, 100k hands
    .venv/bin/python benchmarks/bench_linear.py --sizes 500 5000
"""

from __future__ import annotations

import argparse
import json
import random
import resource
import subprocess
import sys
import tempfile
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))

from bench_replay import sichuan_log
from mjledger.ledger import Ledger
from mjledger.store.importer import check_log

QUICK = (1_000, 3_000, 10_000)
FULL = (1_000, 10_000, 100_000)


def _timed(action: object) -> tuple[object, float, float]:
    cpu, wall = time.process_time(), time.perf_counter()
    result = action()  # type: ignore[operator]
    return result, time.process_time() - cpu, time.perf_counter() - wall


def one_size(hands: int, seed: int) -> dict[str, float]:
    """Measure one size in this process; the figures as a JSON-able dict."""
    text = sichuan_log(random.Random(seed), hands)
    events = sum(1 for line in text.splitlines() if line.strip())
    with tempfile.TemporaryDirectory() as tmp:
        ledger = Ledger(Path(tmp) / "ledger.sqlite")

        def record() -> object:
            return ledger.record_checked(check_log(text))

        result, rec_cpu, rec_wall = _timed(record)
        assert result.hands == hands, result  # type: ignore[attr-defined]
        applied, view_cpu, view_wall = _timed(lambda: ledger.views.catch_up())
        assert applied, applied
        rows = ledger.views.history("bench-sichuan")
        assert len(rows) == hands
        ledger.close()
    peak_kib = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss
    return {
        "hands": hands,
        "events": events,
        "record_cpu": rec_cpu,
        "record_wall": rec_wall,
        "views_cpu": view_cpu,
        "views_wall": view_wall,
        "peak_mib": peak_kib / 1024,
    }


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--full", action="store_true", help="1k, 10k and 100k hands")
    parser.add_argument("--sizes", type=int, nargs="*", help="hands per match, smallest first")
    parser.add_argument("--seed", type=int, default=1)
    parser.add_argument("--one", type=int, help=argparse.SUPPRESS)  # a child process's size
    args = parser.parse_args(argv)
    if args.one:
        print(json.dumps(one_size(args.one, args.seed)))
        return 0
    sizes = args.sizes or (FULL if args.full else QUICK)
    print(f"Python {sys.version.split()[0]}, seed {args.seed}: one Sichuan match per size")
    print(
        f"{'hands':>8} {'events':>10}  {'record µs/hand':>20}  {'views µs/hand':>20}  "
        f"{'ratio rec/views':>15}  {'peak':>8}"
    )
    print(f"{'':>8} {'':>10}  {'cpu':>9} {'wall':>10}  {'cpu':>9} {'wall':>10}")
    base: dict[str, float] | None = None
    for hands in sizes:
        done = subprocess.run(
            [sys.executable, __file__, "--one", str(hands), "--seed", str(args.seed)],
            capture_output=True,
            text=True,
            check=True,
        )
        row = json.loads(done.stdout)
        per = {
            k: row[k] / hands * 1e6
            for k in ("record_cpu", "record_wall", "views_cpu", "views_wall")
        }
        base = base or per
        ratio_record = per["record_cpu"] / base["record_cpu"]
        ratio_views = per["views_cpu"] / base["views_cpu"]
        print(
            f"{hands:>8,} {row['events']:>10,}  "
            f"{per['record_cpu']:>9,.0f} {per['record_wall']:>10,.0f}  "
            f"{per['views_cpu']:>9,.0f} {per['views_wall']:>10,.0f}  "
            f"{ratio_record:>6.2f}x/{ratio_views:.2f}x  {row['peak_mib']:>5,.0f} MiB"
        )
    print("ratio: CPU time per hand against the smallest size (flat = linear)")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
