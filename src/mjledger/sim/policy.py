"""How simulated players decide: which suit to void, what to aim for, what to discard and claim.

Simple, deterministic and greedy, like a careful casual player:

* **With void suits and no minimum** (Sichuan): void the suit with the fewest tiles, discard
  it first; then aim for the best pattern the hand is already close to (full flush, seven
  pairs, all pungs, else any hand).
* **With a table minimum** (Hong Kong's 3 faan by default, ``aims_for_minimum``): the minimum
  rules out most plain hands, so a hand always aims for a pattern: full flush or mixed one
  suit in its longest suit, all pungs, seven pairs (house rule), or value honours (dragons,
  seat and round wind).
* A discard that leaves the hand ready is always taken when there is one — the ready hand
  with the biggest fan, then the most live waits; otherwise the least useful tile for the
  plan goes (tiles outside the plan first).

The only input beyond the player's own hand is what lies face up on the table (discards and
melds), which is what a human sees. Every tie is broken by tile index, never by set or dict
order, so a seed replays the same way everywhere.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Final, Literal

import attrs

from mjledger.tiles.decompose import Shapes, waits_from_counts

Shape = Literal["sets", "pairs", "pungs"]

ALL_SUITED: Final = (1 << 27) - 1
HONOURS: Final = ((1 << 34) - 1) ^ ALL_SUITED


def suit_mask(suit: int) -> int:
    """The 34-slot bitmask of suit 0 (m), 1 (p), 2 (s) or 3 (honours)."""
    return HONOURS if suit == 3 else ((1 << 9) - 1) << 9 * suit


@attrs.frozen
class SimMeld:
    """A meld on the table: ``tile`` is its lowest slot; ``concealed`` only for a kong."""

    kind: Literal["chow", "pung", "kong"]
    tile: int
    concealed: bool = False

    @property
    def slots(self) -> tuple[int, ...]:
        if self.kind == "chow":
            return (self.tile, self.tile + 1, self.tile + 2)
        return (self.tile,) * (4 if self.kind == "kong" else 3)


@attrs.frozen
class Plan:
    """What a hand aims for: ``keep`` is the bitmask of slots worth keeping, ``shape`` its form,
    ``fan`` the fan the pattern itself is worth (used to rank plans, never to pay)."""

    name: str
    keep: int
    shape: Shape
    fan: int


def choose_void(counts: Sequence[int]) -> int:
    """Sichuan: the suit (0-2) with the fewest tiles; the lowest suit on a tie."""
    sizes = [sum(counts[9 * s : 9 * s + 9]) for s in range(3)]
    return sizes.index(min(sizes))


def _pairs(counts: Sequence[int], quads_as_two: bool) -> int:
    if quads_as_two:
        return sum(c // 2 for c in counts)
    return sum(1 for c in counts if c >= 2)


def _pung_shape(counts: Sequence[int], melds: Sequence[SimMeld]) -> tuple[int, int]:
    """Pungs (melded or concealed) and concealed pairs: how close an all-pungs hand is."""
    pungs = sum(1 for m in melds if m.kind != "chow") + sum(1 for c in counts if c >= 3)
    pairs = sum(1 for c in counts if c == 2)
    return pungs, pairs


def _in(mask: int, slot: int) -> bool:
    return bool(mask >> slot & 1)


def choose_plan(
    counts: Sequence[int],
    melds: Sequence[SimMeld],
    *,
    void: int | None = None,
    value_tiles: int = 0,
    seven_pairs: bool = False,
    aims_for_minimum: bool = False,
) -> Plan:
    """The pattern this hand is closest to, worth the most (rules.md, "Fan from tiles"); at a
    table with a minimum (``aims_for_minimum``), one worth it."""
    meld_mask = 0
    held = list(counts)
    for meld in melds:
        for slot in meld.slots:
            meld_mask |= 1 << slot
            held[slot] += 1
    size = [sum(held[9 * s : 9 * s + 9]) for s in range(3)]
    honours = sum(held[27:34])
    total = sum(held)
    pungs, pairs = _pung_shape(counts, melds)
    chowless = all(m.kind != "chow" for m in melds)
    if not aims_for_minimum:
        keep = ALL_SUITED & ~(suit_mask(void) if void is not None else 0)
        if not melds and _pairs(counts, True) >= 5:
            return Plan("seven_pairs", keep, "pairs", 2)
        for suit in range(3):
            other = total - size[suit] - (size[void] if void is not None else 0)
            if suit != void and other <= 4 and not meld_mask & ~suit_mask(suit):
                return Plan("full_flush", suit_mask(suit), "sets", 2)
        if pungs >= 2 and pungs + pairs >= 5:
            return Plan("all_pungs", keep, "pungs", 1)
        return Plan("plain", keep, "sets", 0)
    # A pattern worth the minimum (Hong Kong's 3 faan), always.
    if seven_pairs and not melds and _pairs(counts, False) >= 5:
        return Plan("seven_pairs", ALL_SUITED | HONOURS, "pairs", 4)
    long = size.index(max(size))
    outside = meld_mask & ~suit_mask(long)
    if size[long] >= total - 3 and not outside:
        return Plan("full_flush", suit_mask(long), "sets", 7)
    if chowless and pungs + pairs >= 5 and pungs >= 1:
        return Plan("all_pungs", ALL_SUITED | HONOURS, "pungs", 3)
    valued = sum(1 for s in range(27, 34) if _in(value_tiles, s) and held[s] >= 2)
    if valued >= 2 and size[long] + honours < total - 4:
        return Plan("value_honours", ALL_SUITED | HONOURS, "sets", valued)
    if not outside & ~HONOURS:
        return Plan("mixed_one_suit", suit_mask(long) | HONOURS, "sets", 3)
    return Plan("all_pungs", ALL_SUITED | HONOURS, "pungs", 3)


def usefulness(slot: int, counts: Sequence[int], plan: Plan, value_tiles: int = 0) -> float:
    """How much ``slot`` helps the plan; the discard is the least useful tile."""
    count = counts[slot]
    if not _in(plan.keep, slot):
        return -20.0 + count
    if plan.shape == "pairs":
        return 6.0 if count in (2, 4) else (4.0 if count == 3 else 0.0)
    if plan.shape == "pungs":
        return 3.0 * count
    score = 9.0 if count >= 3 else (5.0 if count == 2 else 0.0)
    if slot >= 27:
        return score + (1.0 if _in(value_tiles, slot) else 0.0)
    rank = slot % 9
    for step, weight in ((1, 2.0), (2, 1.0)):
        if rank >= step and counts[slot - step]:
            score += weight
        if rank + step <= 8 and counts[slot + step]:
            score += weight
    return score + (0.5 if 2 <= rank <= 6 else 0.0)


def ready_discards(
    counts: list[int], melds: int, shapes: Shapes, candidates: Sequence[int]
) -> list[tuple[int, int]]:
    """``(discard, wait mask)`` for every candidate discard that leaves the hand ready."""
    out = []
    for slot in candidates:
        counts[slot] -= 1
        mask = waits_from_counts(counts, melds, shapes)
        counts[slot] += 1
        if mask:
            out.append((slot, mask))
    return out


def heuristic_discard(
    counts: Sequence[int], candidates: Sequence[int], plan: Plan, value_tiles: int = 0
) -> int:
    """The least useful candidate for the plan (the lowest slot on a tie)."""
    best = candidates[0]
    best_score = usefulness(best, counts, plan, value_tiles)
    for slot in candidates[1:]:
        score = usefulness(slot, counts, plan, value_tiles)
        if score < best_score:
            best, best_score = slot, score
    return best


def chow_claim(counts: Sequence[int], tile: int, plan: Plan) -> int | None:
    """Hong Kong: the lowest slot of a chow completing two loose tiles with ``tile``, if the
    plan keeps that suit; two tiles of a pair or pung are not broken up for it."""
    if tile >= 27 or not _in(plan.keep, tile) or plan.shape != "sets":
        return None
    rank = tile % 9
    for low in (tile - 2, tile - 1, tile):
        if low < tile - rank or low + 2 > tile - rank + 8:
            continue
        others = [s for s in (low, low + 1, low + 2) if s != tile]
        if all(counts[s] == 1 for s in others):
            return low
    return None
