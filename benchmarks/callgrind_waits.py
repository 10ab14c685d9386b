"""The counts path's instructions per hand, for callgrind (repeatable on a loaded machine).

Plain script, run from the repository root, twice under callgrind: once with no passes
(start-up, the tables read whole, the hands generated) and once with some; the difference
of the two totals over ``passes × hands`` is what one ``waits_from_counts`` costs on hands
generated apart from the tables' tests (``wait_hands.py``, the hands of ``bench_users``'
"counts path" row)::

    for n in 0 4; do
        valgrind --tool=callgrind --callgrind-out-file=/tmp/cg.$n \\
            .venv/bin/python benchmarks/callgrind_waits.py --passes $n
    done   # (Collected at 4) - (Collected at 0), over 4 × 5,000 hands
"""

from __future__ import annotations

import argparse
import random
import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))

from bench_waits import ours
from mjledger.tiles.tables import wait_info
from wait_hands import independent_hands


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--passes", type=int, default=0, help="passes over the hands")
    parser.add_argument("--hands", type=int, default=5_000)
    args = parser.parse_args()
    wait_info()  # every size read, as in a long process
    hands = independent_hands(random.Random(3), args.hands)
    for hand in hands[:300]:  # whatever a first call warms, warmed before either count
        ours(hand)
    for _ in range(args.passes):
        for hand in hands:
            ours(hand)


if __name__ == "__main__":
    main()
