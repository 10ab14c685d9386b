"""The simulator under Sichuan blood flow (血流成河), next to blood battle on the same seed.

Blood flow keeps every winner in the hand until the wall is empty, so its hands are longer
(more draws, more wins, four hands shown at every wall). This plays ``--hands`` hands of seed
``--seed`` both ways in one process (blood battle, the default rules, is the baseline),
best of ``--repeat`` runs each, in CPU time (``time.process_time``) and wall time; replays
both logs (an illegal log stops the run instead of being measured) and prints what was
played: wins per hand, the share of hands in which someone won more than once, and the fan
histogram of each (the figures ``mjledger simulate --stats`` prints).

Usage::

    .venv/bin/python benchmarks/bench_blood_flow.py --hands 2000 --seed 1
    .venv/bin/python benchmarks/bench_blood_flow.py --quick   # 200 hands
"""

from __future__ import annotations

import argparse
import os
import time
from typing import Any

from mjledger import replay
from mjledger.sim.played import SimulatedMatch
from mjledger.sim.run import simulate
from mjledger.sim.stats import summarize

VARIANTS: dict[str, dict[str, Any]] = {
    "blood battle (baseline)": {},
    "blood flow": {"blood_flow": True},
}


def timed(
    hands: int, seed: int, rules: dict[str, Any], repeat: int
) -> tuple[SimulatedMatch, float, float]:
    """The match and the best CPU and wall seconds of ``repeat`` runs."""
    best_cpu = best_wall = float("inf")
    match: SimulatedMatch | None = None
    for _ in range(repeat):
        cpu, wall = time.process_time(), time.perf_counter()
        (match,) = simulate("sichuan", hands=hands, seed=seed, rules=rules)
        best_cpu = min(best_cpu, time.process_time() - cpu)
        best_wall = min(best_wall, time.perf_counter() - wall)
    assert match is not None
    return match, best_cpu, best_wall


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--hands", type=int, default=2000)
    parser.add_argument("--seed", type=int, default=1)
    parser.add_argument("--repeat", type=int, default=1)
    parser.add_argument("--quick", action="store_true", help="200 hands")
    args = parser.parse_args()
    hands = 200 if args.quick else args.hands
    list(simulate("sichuan", hands=1, seed=0))  # builds the decomposer's tables: not timed
    print(f"load average {os.getloadavg()[0]:.1f}; {hands:,} Sichuan hands, seed {args.seed}")
    rows = []
    baseline_cpu = baseline_wall = 0.0
    for name, rules in VARIANTS.items():
        match, cpu, wall = timed(hands, args.seed, rules, args.repeat)
        result = replay(match.text())  # the log must replay cleanly before it counts
        assert len(result.hands) == hands
        if not rules:
            baseline_cpu, baseline_wall = cpu, wall
        summary = summarize([match])
        rows.append((name, match, cpu, wall, summary))
    print(
        f"{'':26} {'hands/s CPU':>11} {'hands/s wall':>12} {'ratio CPU':>9} {'ratio wall':>10}"
        f" {'events/hand':>11} {'wins/hand':>9} {'repeat':>7}"
    )
    for name, _match, cpu, wall, summary in rows:
        print(
            f"{name:26} {hands / cpu:11,.0f} {hands / wall:12,.0f} {cpu / baseline_cpu:9.2f}"
            f" {wall / baseline_wall:10.2f} {summary['events'] / hands:11.1f}"
            f" {summary['wins'] / hands:9.2f} {summary['hands_won_again'] / hands:7.1%}"
        )
    print("('repeat': the share of hands in which some player won more than once)")
    fans = sorted(
        {k for *_, s in rows for k in s["wins_by_fan"]},
        key=lambda k: (k == "limit", int(k) if k != "limit" else 0),
    )
    print("wins by fan:" + "".join(f" {k:>6}" for k in fans))
    for name, *_, summary in rows:
        by_fan = summary["wins_by_fan"]
        print(f"  {name:24}" + "".join(f" {by_fan.get(k, 0):6}" for k in fans))
    for name, *_, summary in rows:
        print(f"{name}: wins by how {summary['wins_by_how']}, kongs {summary['kongs']},")
        print(f"  wall ends {summary['wall_ends']}, new-discard wins {summary['wins_new_discard']}")


if __name__ == "__main__":
    main()
