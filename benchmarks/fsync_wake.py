"""What sleeping in ``fdatasync`` costs the Python work that follows it, in CPU time.

Recording commits one transaction a hand, and on disk each commit sleeps in ``fdatasync``;
on a RAM disk it does not. On these shared virtual machines, the work a thread does right
after waking costs more CPU than the same work in a thread that never slept (caches cold,
the core slow to come back), so every microsecond of Python between two commits weighs more
on disk than on a RAM disk, and more for recording (which does its sealing there) than for
raw inserts (which do almost nothing there). This measures it alone: ``--reps`` times, a
pure-Python loop of ``--work`` steps, then a 4 kB write and ``fdatasync`` of a file in the
temporary directory (disk) or ``/dev/shm``; and the loops alone. User CPU seconds, each
setting twice::

    .venv/bin/python benchmarks/fsync_wake.py [--work 2000] [--reps 3000]
"""

from __future__ import annotations

import argparse
import os
import resource
import tempfile


def user_seconds() -> float:
    return resource.getrusage(resource.RUSAGE_SELF).ru_utime


def work(steps: int) -> int:
    total = 0
    for i in range(steps):
        total += i * i
    return total


def with_syncs(directory: str | None, steps: int, reps: int) -> float:
    """User seconds of ``reps`` rounds of ``work(steps)`` and a synced 4 kB write."""
    with tempfile.NamedTemporaryFile(dir=directory) as file:
        started = user_seconds()
        for _ in range(reps):
            work(steps)
            os.write(file.fileno(), b"x" * 4096)
            os.fdatasync(file.fileno())
        return user_seconds() - started


def alone(steps: int, reps: int) -> float:
    started = user_seconds()
    for _ in range(reps):
        work(steps)
    return user_seconds() - started


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--work", type=int, default=2000, help="loop steps between syncs")
    parser.add_argument("--reps", type=int, default=3000)
    args = parser.parse_args()
    ram = "/dev/shm" if os.path.isdir("/dev/shm") else None
    for _ in range(2):
        disk = with_syncs(None, args.work, args.reps)
        shm = with_syncs(ram, args.work, args.reps)
        pure = alone(args.work, args.reps)
        extra = (disk - pure) / args.reps * 1e6
        print(
            f"user CPU s: with disk syncs {disk:.3f}, with RAM disk syncs {shm:.3f}, "
            f"no syncs {pure:.3f}: {extra:.0f} µs more a sync on disk"
        )


if __name__ == "__main__":
    main()
