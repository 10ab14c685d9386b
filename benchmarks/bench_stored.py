"""The store's text views and a stored match explained or reported (issue 25's rows for
``bench_users.py``), measured from outside as ``bench_users`` measures: whole processes, CPU
(user + system) and wall, medians of interleaved rounds, peak RSS.

* ``scores``, ``matches`` (text): the cost per match is flat — the marginal CPU per match
  (``(t(N) - t(1)) / (N - 1)``) at 100 and at 1,000 matches of 10 hands, within 1.5× (plus
  0.5 ms of noise) of each other; ``history MATCH`` (one match of 10 hands) costs the same in a
  store of 100 and of 1,000 matches (within 1.5×). (The middle store had 10 matches until the
  fourth round of issue 25: once a match cost half a millisecond, nine of them were lost in a
  process's noise.)
* ``explain MATCH N`` of a stored match of ``tile_hands`` hands with tiles (its first hand and
  its last) ≤ 3× ``explain`` of that hand cut out alone, peak RSS < 100 MB.
* ``report MATCH`` of that match in the 1,000-match store: peak RSS < 100 MB.

The stores are built once per run in one process (``Ledger.record_log``), their read models
brought up to date (``mjledger project``) before anything is measured.
"""

from __future__ import annotations

import subprocess
import sys
from collections.abc import Callable
from pathlib import Path
from typing import Any

BUILD = """
import random, sys
sys.path.insert(0, sys.argv[1])
from bench_replay import sichuan_log
from mjledger.store.application import Ledger
ledger = Ledger(sys.argv[2])
rng = random.Random(1)
for i in range(int(sys.argv[3])):
    text = sichuan_log(rng, 10).replace('"bench-sichuan"', f'"bench-{i:05d}"', 1)
    ledger.record_log(text)
for extra in sys.argv[4:]:
    ledger.record_log(open(extra, encoding="utf-8").read())
"""


def build_store(mjledger: list[str], directory: Path, matches: int, *logs: Path) -> Path:
    """A store of ``matches`` matches of 10 facts hands (and ``logs``), its views projected."""
    store = directory / f"store-{matches}.sqlite"
    here = str(Path(__file__).resolve().parent)
    command = [sys.executable, "-c", BUILD, here, str(store), str(matches), *map(str, logs)]
    subprocess.run(command, check=True)
    subprocess.run([*mjledger, "project", "--store", str(store)], check=True, capture_output=True)
    return store


def views(
    goals: Any,
    interleaved: Callable[..., dict[str, Any]],
    mjledger: list[str],
    stores: dict[int, Path],
    rounds: int,
) -> None:
    """``scores`` and ``matches`` flat per match; ``history`` flat in the store's size."""
    commands = {}
    for n, store in stores.items():
        for name in ("scores", "matches"):
            commands[f"{name} {n}"] = [*mjledger, name, "--store", str(store)]
        commands[f"history {n}"] = [*mjledger, "history", "bench-00000", "--store", str(store)]
    found = interleaved(commands, rounds)
    middle, big = sorted(stores)[1:]
    for name in ("scores", "matches"):
        base = found[f"{name} 1"][0]
        small = (found[f"{name} {middle}"][0] - base) / (middle - 1) * 1000
        large = (found[f"{name} {big}"][0] - base) / (big - 1) * 1000
        goals.add(
            f"{name} (text) flat per match: ms per match at {big} ≤ 1.5× at {middle}",
            f"{large:.2f} ms a match at {big} ({found[f'{name} {big}'][0]:.2f} s CPU, "
            f"{found[f'{name} {big}'][2]:.0f} MB)",
            f"{small:.2f} ms a match at {middle} (marginal over 1 match: {base:.2f} s)",
            large <= 1.5 * max(small, 0) + 0.5,
        )
    small, large = found[f"history {middle}"], found[f"history {big}"]
    goals.add(
        f"history MATCH flat in the store: in {big} matches ≤ 1.5× in {middle}",
        f"{large[0]:.2f} s CPU, {large[1]:.2f} s wall, {large[2]:.0f} MB",
        f"in {middle} matches {small[0]:.2f} s CPU",
        large[0] <= 1.5 * small[0],
    )


def stored_match(
    goals: Any,
    interleaved: Callable[..., dict[str, Any]],
    mjledger: list[str],
    store: Path,
    match: str,
    hands: int,
    alone: Path,
    rounds: int,
) -> None:
    """``explain MATCH N`` ≤ 3× the hand alone, < 100 MB; ``report MATCH`` < 100 MB."""
    on = ["--store", str(store)]
    html = store.with_suffix(".html")
    found = interleaved(
        {
            "alone": [*mjledger, "explain", str(alone)],
            "first": [*mjledger, "explain", match, "1", *on],
            "last": [*mjledger, "explain", match, str(hands), *on],
            "report": [*mjledger, "report", match, *on, "--html", str(html), "--force"],
        },
        rounds,
    )
    alone_cpu = found["alone"][0]
    for name, number in (("first", 1), ("last", hands)):
        run = found[name]
        goals.add(
            f"explain MATCH {number} (of {hands} stored) ≤ 3× the hand alone, < 100 MB",
            f"{run[0]:.2f} s CPU ({run[0] / alone_cpu:.2f}×), {run[1]:.2f} s wall, {run[2]:.0f} MB",
            f"hand alone {alone_cpu:.2f} s CPU, {found['alone'][2]:.0f} MB",
            run[0] <= 3 * alone_cpu and run[2] < 100,
            _before(found, name),
        )
    run = found["report"]
    goals.add(
        f"report MATCH ({hands} hands, in a store of 1,000 more) < 100 MB",
        f"{run[2]:.0f} MB, {run[0]:.2f} s CPU, {run[1]:.2f} s wall",
        f"explain of one hand alone {found['alone'][2]:.0f} MB",
        run[2] < 100,
        _before(found, "report"),
    )


def _before(found: dict[str, Any], name: str) -> str:
    """The same command on the ``--before`` tree, where it ran."""
    run = found.get(f"{name} before")
    return "" if run is None else f"{run[2]:.0f} MB, {run[0]:.2f} s CPU"
