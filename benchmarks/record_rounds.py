"""Recording against raw inserts, one line a run, for interleaving two trees.

``bench_store.py``'s recording figures in one short run: ``record_log`` of one 10,000-hand
Sichuan log (seed 1) against raw ``sqlite3`` inserts of the same rows on a RAM disk
(``/dev/shm``) and on disk (the temporary directory), and 1,000 matches of 10 hands (a
``record_log`` each) per hand against the one long match, on disk and on the RAM disk::

    PYTHONPATH=<tree>/src .venv/bin/python benchmarks/record_rounds.py
"""

from __future__ import annotations

import random
import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))

from bench_replay import sichuan_log
from bench_store import RAM_DISK, many_matches, record_against_raw, record_many


def main() -> None:
    text = sichuan_log(random.Random(1), 10_000)
    matches = many_matches(1, 1_000, 10)
    ram = record_against_raw(text, RAM_DISK)
    disk = record_against_raw(text, None)
    many_disk = record_many(matches, None)
    many_ram = record_many(matches, RAM_DISK)
    print(
        f"RAM disk {ram[0]:.2f} / {ram[1]:.2f} s = {ram[0] / ram[1]:.2f}x  "
        f"disk {disk[0]:.2f} / {disk[1]:.2f} s = {disk[0] / disk[1]:.2f}x  "
        f"1,000 x 10 per hand: disk {many_disk[0] / disk[0]:.2f}x, "
        f"RAM disk {many_ram[0] / ram[0]:.2f}x",
        flush=True,
    )


if __name__ == "__main__":
    main()
