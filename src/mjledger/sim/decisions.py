"""What the simulated players choose, from what a player at the table could know: a kong
(one that keeps a ready hand ready; under blood flow, one that keeps a winner's waits), a
claim on a discard (an exposed kong or a pung, else a chow where the rule set has them), and
a discard (the ready hand worth most, else the policy's heuristic; the void suit first in
Sichuan). Choices only: nothing here changes the hand but a count tried and put back."""

from __future__ import annotations

from mjledger.sim import policy
from mjledger.sim.hand import Hand
from mjledger.sim.policy import suit_mask
from mjledger.sim.table import Seat
from mjledger.tiles.decompose import waits_from_counts

__all__ = ["choose_claim", "choose_discard", "choose_kong", "keeps_waits"]


def keeps_ready(hand: Hand, seat: Seat, remove: int, slot: int, melds: int) -> bool:
    """Whether a ready hand stays ready when ``remove`` copies of ``slot`` go to a kong
    (``melds``: how many melds it then has). On one's own turn the hand holds a tile
    more, and is ready when some discard leaves it ready."""
    counts = seat.counts
    own_turn = sum(counts) + 3 * len(seat.melds) == 14
    if own_turn:
        candidates = [s for s in range(34) if counts[s]]
        shapes = hand.table.shapes
        ready = bool(policy.ready_discards(counts, len(seat.melds), shapes, candidates))
    else:
        ready = bool(seat.mask)
    if not ready:
        return True
    counts[slot] -= remove
    after = waits_from_counts(counts, melds, hand.table.shapes)
    counts[slot] += remove
    return bool(after)


def keeps_waits(hand: Hand, seat: Seat, remove: int, slot: int, melds: int) -> bool:
    """Blood flow: whether a winner's kong of ``slot`` (``remove`` copies from the hand,
    ``melds`` melds after it) leaves exactly the waits they won with."""
    seat.counts[slot] -= remove
    after = waits_from_counts(seat.counts, melds, hand.table.shapes)
    seat.counts[slot] += remove
    return after == seat.locked


def winner_kong(hand: Hand, seat: Seat) -> tuple[str, int] | None:
    """A winner (blood flow) may kong only the tile just drawn, and only if the hand they
    won with keeps its waits; the hand itself never changes."""
    slot = seat.drawn
    if any(m.kind == "pung" and m.tile == slot for m in seat.melds):
        return "added", slot
    if (
        seat.counts[slot] == 4
        and len(seat.melds) < 4
        and keeps_waits(hand, seat, 4, slot, len(seat.melds) + 1)
    ):
        return "concealed", slot
    return None


def choose_kong(hand: Hand, index: int) -> tuple[str, int] | None:
    seat = hand.seats[index]
    if hand.wall.playable == 0:
        return None
    if seat.wins and hand.table.blood_flow:
        return winner_kong(hand, seat)
    for meld in seat.melds:
        if (
            meld.kind == "pung"
            and seat.counts[meld.tile]
            and keeps_ready(hand, seat, 1, meld.tile, len(seat.melds))
        ):
            return "added", meld.tile
    if len(seat.melds) == 4:
        return None
    for slot in range(34):
        if seat.counts[slot] == 4:
            if seat.void is not None and slot // 9 == seat.void:
                continue
            if hand.plan(index).shape == "pairs":
                continue
            if keeps_ready(hand, seat, 4, slot, len(seat.melds) + 1):
                return "concealed", slot
    return None


def choose_claim(hand: Hand, discarder: int, slot: int) -> tuple[int, str, int] | None:
    """An exposed kong or a pung by whoever holds the tile, else a chow where the rule set
    has them."""
    for step in range(1, 4):
        index = (discarder + step) % 4
        seat = hand.seats[index]
        held = seat.counts[slot]
        if seat.out or held < 2 or (seat.void is not None and slot // 9 == seat.void):
            continue
        if seat.wins and hand.table.blood_flow:
            # A winner's hand does not change: a kong that keeps its waits, never a pung.
            if (
                held == 3
                and hand.wall.playable > 0
                and len(seat.melds) < 4
                and keeps_waits(hand, seat, 3, slot, len(seat.melds) + 1)
            ):
                return index, "kong", slot
            return None
        plan = hand.plan(index)
        if plan.shape == "pairs" or len(seat.melds) == 4:
            return None
        if (
            held == 3
            and hand.wall.playable > 0
            and keeps_ready(hand, seat, 3, slot, len(seat.melds) + 1)
        ):
            return index, "kong", slot
        if seat.mask or not plan.keep >> slot & 1:
            return None
        if wants_pung(hand, seat, slot, plan):
            return index, "pung", slot
        return None
    if not hand.table.play.chows:
        return None
    index = (discarder + 1) % 4
    seat = hand.seats[index]
    if seat.mask or len(seat.melds) == 4:
        return None
    low = policy.chow_claim(seat.counts, slot, hand.plan(index))
    return None if low is None else (index, "chow", low)


def wants_pung(hand: Hand, seat: Seat, slot: int, plan: policy.Plan) -> bool:
    if plan.shape == "pungs" or plan.name in ("full_flush", "mixed_one_suit"):
        return True
    if slot >= 27:
        return True
    rank = slot % 9
    below = rank > 0 and seat.counts[slot - 1]
    above = rank < 8 and seat.counts[slot + 1]
    lonely = not below and not above
    pairs = sum(1 for c in seat.counts if c >= 2)
    return lonely or pairs >= 3


def choose_discard(hand: Hand, index: int) -> int:
    seat = hand.seats[index]
    if seat.wins and hand.table.blood_flow:
        # Blood flow: a winner plays on with the hand they won with; what they draw goes.
        assert seat.counts[seat.drawn] > 0
        return seat.drawn
    counts = seat.counts
    candidates = [s for s in range(34) if counts[s]]
    if seat.void_tiles():
        voids = [s for s in candidates if s // 9 == seat.void]
        others = [s for s in candidates if s // 9 != seat.void]
        if others and dangerous(hand, index, seat.void):  # type: ignore[arg-type]
            return policy.heuristic_discard(counts, others, hand.plan(index))
        return min(voids, key=lambda s: (counts[s], s))
    ready = policy.ready_discards(counts, len(seat.melds), hand.table.shapes, candidates)
    best: tuple[tuple[int, ...], int] | None = None
    for slot, mask in ready:
        key = ready_value(hand, index, slot, mask)
        if key is not None and (best is None or key > best[0]):
            best = (key, slot)
    if best is not None:
        return best[1]
    return policy.heuristic_discard(counts, candidates, hand.plan(index), hand.value_tiles(index))


def ready_value(hand: Hand, index: int, slot: int, mask: int) -> tuple[int, ...] | None:
    """How good the ready hand left by discarding ``slot`` is: (wins on a discard, fan,
    live waits); ``None`` if no wait wins at all (Hong Kong, below the minimum)."""
    seat = hand.seats[index]
    seat.counts[slot] -= 1
    live = 0
    best_fan = -1
    on_discard = 0
    try:
        for wait in range(34):
            if not mask >> wait & 1:
                continue
            unseen = 4 - seat.counts[wait] - hand.visible[wait]
            if unseen <= 0:
                continue
            result = hand.evaluate(index, seat.counts, wait, self_drawn=False)
            fan = 99 if result.limit else result.fan
            if not hand.enough(result):
                drawn = hand.evaluate(index, seat.counts, wait, self_drawn=True)
                if not hand.enough(drawn):
                    continue
            else:
                on_discard = 1
            live += unseen
            best_fan = max(best_fan, fan)
    finally:
        seat.counts[slot] += 1
    if best_fan < 0:
        return None
    return (on_discard, best_fan, live, -slot)


def dangerous(hand: Hand, index: int, suit: int) -> bool:
    """A void tile is held back (at the risk of ending a flower pig) while an opponent
    still in shows three or more melds, all of that suit: a flush is being built."""
    mask = suit_mask(suit)
    for other, seat in enumerate(hand.seats):
        if other == index or seat.out or len(seat.melds) < 3:
            continue
        if all(mask >> m.tile & 1 for m in seat.melds):
            return True
    return False
