"""The floor under recording, against raw inserts, in one process (issue 25).

Recording must do at least this, whatever its code, and each part is timed here alone, on
the very rows ``Ledger.record_log`` stores for one 10,000-hand Sichuan log (seed 1), in CPU
seconds, best of ``--rounds``:

1. **raw**: the goal's baseline, ``bench_store.raw_insert`` (one ``executemany`` and one
   commit a hand into a table of the events table's schema, WAL);
2. **raw, multi-row**: the same rows and commits, inserted as the recorder inserts them
   (``head.insert_rows``: one ``INSERT … VALUES (…), (…)`` for up to 64 rows): the cheapest
   inserts sqlite3 makes, reported beside the baseline as its physical limit;
3. **raw + head**: 2 with the store head moved in each transaction, by the recorder's own
   compare-and-set ``UPDATE`` (``head.MOVE_KNOWN_HEAD``) on a head row of its own table: the
   store as docs/store.md specifies it (its digest computed in 4, not here);
4. **two hashes a row**: the row's link and the head step, docs/store.md's two SHA-256 over a
   row's bytes, in the smallest Python loop there is (the digests' formats aside);
5. **decoding the log**: ``iter_text`` (msgspec) of the log, every event drawn, nothing kept;
6. **settling the log**: decoding and Sichuan's quick fold (``SettledHands``), the one
   statement of the rules: every hand settled, nothing stored.

The floor is 3 + 4 + 6: what any recording that keeps the head, the chain and the rules as
they are must spend. Then ``record_log`` itself, and its ratio. On a RAM disk (``/dev/shm``)
by default, ``--disk`` for the temporary directory::

    .venv/bin/python benchmarks/record_floor.py [--disk] [--rounds 3]
"""

from __future__ import annotations

import argparse
import hashlib
import random
import sqlite3
import sys
import tempfile
import time
from collections.abc import Callable, Iterable
from functools import partial
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))

from bench_replay import sichuan_log
from bench_store import RAM_DISK, SCHEMA, raw_insert, rows_by_transaction
from mjledger.fold.stream import SettledHands
from mjledger.ledger import Ledger
from mjledger.log.reader import iter_text
from mjledger.store.head import CREATE_HEAD, HEAD_TABLE, MOVE_KNOWN_HEAD, insert_rows

Groups = list[list[tuple[str, int, str, bytes]]]
Timing = tuple[float, float]  # (wall, CPU) seconds


def best(func: Callable[[], object], rounds: int) -> Timing:
    """The (wall, CPU) seconds of the call of ``rounds`` that took the least CPU."""
    times = []
    for _ in range(rounds):
        wall, cpu = time.perf_counter(), time.process_time()
        func()
        times.append((time.perf_counter() - wall, time.process_time() - cpu))
    return min(times, key=lambda t: t[1])


def raw_multi_row(path: Path, groups: Groups, *, head: bool = False) -> None:
    """Raw inserts as the recorder makes them (``insert_rows``), a commit a group; with
    ``head``, the head row moved in each transaction as the recorder moves it."""
    db = sqlite3.connect(path, isolation_level=None, cached_statements=80)
    db.execute("PRAGMA journal_mode=WAL")
    db.execute(SCHEMA)
    if head:
        db.execute(CREATE_HEAD)
        db.execute(f"INSERT INTO {HEAD_TABLE} VALUES (1, 0, 0, '', NULL)")
    cursor = db.cursor()
    rows, digest = 0, ""
    for group in groups:
        cursor.execute("BEGIN")
        insert_rows(cursor, "stored_events", group)
        if head:
            moved = rows + len(group), f"{rows:064x}"
            cursor.execute(MOVE_KNOWN_HEAD, (*moved, None, rows, digest))
            rows, digest = moved
        cursor.execute("COMMIT")
    db.close()


def two_hashes(groups: Groups) -> None:
    """Two SHA-256 a row over its bytes, chained, as the link and the head are."""
    sha256 = hashlib.sha256
    link = head = bytes(64)
    for group in groups:
        for _, _, _, state in group:
            link = sha256(link + state).digest()
            head = sha256(head + state).digest()


def drain(events: Iterable[object]) -> None:
    for _ in events:
        pass


def in_new_file(directory: str | None, write: Callable[[Path], None], rounds: int) -> Timing:
    """:func:`best` of ``write`` of a new file in ``directory``, each round its own file."""
    with tempfile.TemporaryDirectory(dir=directory) as tmp:
        files = iter(Path(tmp) / f"raw{n}.sqlite" for n in range(rounds))
        return best(lambda: write(next(files)), rounds)


def recorded_rows(text: str, directory: str | None) -> Groups:
    """The rows ``record_log`` stores for ``text``, a transaction a group (and every import
    and first-use cache of recording warm)."""
    with tempfile.TemporaryDirectory(dir=directory) as tmp:
        store = Path(tmp) / "ledger.sqlite"
        ledger = Ledger(store)
        ledger.record_log(text)
        ledger.close()
        return rows_by_transaction(store)


def floor_parts(text: str, directory: str | None, rounds: int) -> dict[str, Timing]:
    """Each part of the floor (the module's docstring), ``floor`` their sum (3 + 4 + 6)."""
    groups = recorded_rows(text, directory)
    parts = {
        "raw": in_new_file(directory, lambda p: raw_insert(p, groups), rounds),
        "raw, multi-row": in_new_file(directory, lambda p: raw_multi_row(p, groups), rounds),
        "raw + head": in_new_file(directory, lambda p: raw_multi_row(p, groups, head=True), rounds),
        "two hashes a row": best(lambda: two_hashes(groups), rounds),
        "decoding": best(lambda: drain(iter_text(text)), rounds),
        "settling (with decoding)": best(lambda: drain(SettledHands(iter_text(text))), rounds),
    }
    summed = [parts[k] for k in ("raw + head", "two hashes a row", "settling (with decoding)")]
    parts["floor"] = (sum(t[0] for t in summed), sum(t[1] for t in summed))
    return parts


def recording(text: str, directory: str | None, rounds: int) -> Timing:
    """``record_log(text)`` into a new store (opened and closed outside the timing), the
    round of ``rounds`` that took the least CPU."""
    times = []
    for _ in range(rounds):
        with tempfile.TemporaryDirectory(dir=directory) as tmp:
            ledger = Ledger(Path(tmp) / "ledger.sqlite")
            try:
                times.append(best(partial(ledger.record_log, text), 1))
            finally:
                ledger.close()
    return min(times, key=lambda t: t[1])


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--disk", action="store_true", help="the temporary directory")
    parser.add_argument("--rounds", type=int, default=3)
    parser.add_argument("--hands", type=int, default=10_000)
    args = parser.parse_args()
    directory = None if args.disk else RAM_DISK
    text = sichuan_log(random.Random(1), args.hands)
    parts = floor_parts(text, directory, args.rounds)
    parts["record_log"] = recording(text, directory, args.rounds)
    raw, floor = parts["raw"][1], parts["floor"][1]
    where = "disk" if args.disk else "RAM disk"
    print(f"{args.hands:,} hands on the {where}, CPU seconds, best of {args.rounds}:")
    for name, (_, cpu) in parts.items():
        print(f"  {name:<26}{cpu:7.3f} s  {cpu / raw:5.2f}x raw  {cpu / floor:5.2f}x the floor")


if __name__ == "__main__":
    main()
