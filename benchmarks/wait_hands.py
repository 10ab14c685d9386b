"""13-tile hands for the wait benchmark, generated apart from the tables' own tests.

The tests of the wait tables (and ``bench_waits``) draw random hands and ready hands
built from four sets and a pair. These come another way, so that the tables are not measured
only on the shapes they were checked with: a hand is dealt from the 108 suited tiles (Sichuan's
wall, the shapes both sides are asked about), then one to three of its tiles are swapped for
neighbours of tiles it holds (the way a real hand drifts towards ready), never beyond four
copies of a tile.
"""

from __future__ import annotations

import random

Counts = list[int]
WALL = tuple(i for i in range(27) for _ in range(4))  # the suits: Sichuan has no honours


def _neighbour(rng: random.Random, tile: int) -> int:
    """A tile next to ``tile`` in its suit."""
    rank, suit = tile % 9, tile - tile % 9
    return suit + max(0, min(8, rank + rng.choice((-2, -1, 1, 2))))


def independent_hands(rng: random.Random, n: int) -> list[Counts]:
    """``n`` hands of 13 tiles as 34-slot counts."""
    hands = []
    while len(hands) < n:
        counts = [0] * 34
        for tile in rng.sample(WALL, 13):
            counts[tile] += 1
        for _ in range(rng.randint(1, 3)):
            held = [t for t in range(34) if counts[t]]
            out = rng.choice(held)
            into = _neighbour(rng, rng.choice(held))
            if into != out and counts[into] < 4:
                counts[out] -= 1
                counts[into] += 1
        hands.append(counts)
    return hands
