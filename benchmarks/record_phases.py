"""Where ``Ledger.record_log`` spends its CPU, phase by phase, on a RAM disk (issue 25).

Timed apart in one process, the collector paused, best of ``--repeat``: ``check_log``
(decode, settle, stored forms, spool), ``CheckedLog.rows()`` (sealing), the writer over the
sealed rows (``Ledger._writer``: inserts, the head), and ``record_log`` whole. Run each tree
alternately (``PYTHONPATH=<tree>/src``) and compare.

``--only PHASE`` runs that phase once and prints nothing, for instruction counts: run it
under callgrind with ``--only none`` as well (the same set-up without the phase) and
subtract::

    PYTHONPATH=<tree>/src PYTHONHASHSEED=0 valgrind --tool=callgrind \\
        --callgrind-out-file=/dev/null .venv/bin/python benchmarks/record_phases.py \\
        --hands 2000 --only check            # none | check | rows | record | many

(``many``: ``--hands``/10 matches of 10 hands, a ``record_log`` each, into one store.)
"""

from __future__ import annotations

import argparse
import gc
import random
import sys
import tempfile
import time
from collections.abc import Callable
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))

from bench_replay import sichuan_log
from bench_store import RAM_DISK, many_matches
from mjledger.ledger import Ledger
from mjledger.store.importer import check_log
from mjledger.store.recording import _start_with_first_hand


def best(func: Callable[[], object], repeat: int) -> float:
    """The least CPU seconds of ``repeat`` calls."""
    times = []
    for _ in range(repeat):
        started = time.process_time()
        func()
        times.append(time.process_time() - started)
    return min(times)


def in_new_store(work: Callable[[Ledger], object], directory: str | None) -> float:
    """CPU seconds of ``work(ledger)`` on a new store in ``directory``."""
    with tempfile.TemporaryDirectory(dir=directory) as tmp:
        ledger = Ledger(Path(tmp) / "ledger.sqlite")
        try:
            started = time.process_time()
            work(ledger)
            return time.process_time() - started
        finally:
            ledger.close()


def only(phase: str, hands: int, directory: str | None) -> None:
    """One phase once, after the same warm-up whatever the phase (for callgrind)."""
    text = sichuan_log(random.Random(1), hands)
    texts = many_matches(1, hands // 10, 10)  # made whatever the phase: none subtracts it
    check_log(sichuan_log(random.Random(2), 20))
    with tempfile.TemporaryDirectory(dir=directory) as tmp:
        ledger = Ledger(Path(tmp) / "ledger.sqlite")
        warm = sichuan_log(random.Random(2), 3).replace('"bench-sichuan"', '"warm"', 1)
        ledger.record_log(warm)
        if phase == "check":
            check_log(text)
        elif phase == "rows":
            list(check_log(text).rows())
        elif phase == "record":
            ledger.record_log(text)
        elif phase == "many":
            for one in texts:
                ledger.record_log(one)
        ledger.close()


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--hands", type=int, default=10_000)
    parser.add_argument("--repeat", type=int, default=3)
    parser.add_argument("--only", choices=("none", "check", "rows", "record", "many"))
    args = parser.parse_args(argv)
    gc.disable()
    if args.only is not None:
        only(args.only, args.hands, RAM_DISK)
        return 0
    text = sichuan_log(random.Random(1), args.hands)
    log = check_log(text)
    check = best(lambda: check_log(text), args.repeat)
    rows = list(_start_with_first_hand(log.rows()))
    seal = best(lambda: list(log.rows()), args.repeat)

    def write(ledger: Ledger) -> None:
        with ledger._writer() as insert:
            for batch in rows:
                insert(batch)

    writer = min(in_new_store(write, RAM_DISK) for _ in range(args.repeat))
    whole = min(
        in_new_store(lambda ledger: ledger.record_log(text), RAM_DISK) for _ in range(args.repeat)
    )
    print(
        f"{args.hands:,} hands on {RAM_DISK or 'the temporary directory'}, CPU s, best of "
        f"{args.repeat}: check_log {check:.3f}, rows {seal:.3f}, writer {writer:.3f}, "
        f"record_log {whole:.3f}"
    )
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
