"""Hong Kong payout arithmetic: the fan-to-units tables and small pure functions.

Amounts are ``int`` throughout: the half-spicy table has ×1.5 steps, and a float anywhere would
eventually lose a point.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Final

from mjledger.rules.hongkong.options import HongKongRules

# rules.md, "Hong Kong / Fan → units": one row per table, indexed by fan 0..13.
UNITS: Final[dict[str, tuple[int, ...]]] = {
    "half_spicy": (1, 2, 4, 8, 16, 24, 32, 48, 64, 96, 128, 192, 256, 384),
    "spicy": (1, 2, 4, 8, 16, 32, 64, 128, 256, 512, 1024, 2048, 4096, 8192),
}


def hongkong_counted_fan(rules: HongKongRules, fan: int | None, limit: bool) -> int:
    """The fan a Hong Kong win is paid on: a limit hand is the limit; above it counts as it."""
    if limit or fan is None:
        return rules.fan_limit
    return min(fan, rules.fan_limit)


# rules.md, "Who pays": the shares a discarder pays alone, by ``discard_pays``.
DISCARD_SHARES: Final = {"double": 2, "all": 3}
FALSE_WIN_SHARES: Final = 3  # variants.md, 詐糊: "3 shares at fan_limit" to each other player


def hongkong_units(rules: HongKongRules, fan: int | None, limit: bool) -> int:
    """The units of the table in force for the fan a win is paid on."""
    return UNITS[rules.table][hongkong_counted_fan(rules, fan, limit)]


def hongkong_share(rules: HongKongRules, fan: int | None, limit: bool) -> int:
    """One share = units (from the table in force) × points per unit."""
    return hongkong_units(rules, fan, limit) * rules.points_per_unit


def hongkong_discard_payments(
    rules: HongKongRules, share: int, discarder: str, payers: Sequence[str]
) -> tuple[tuple[str, int], ...]:
    """Who pays a win on a discard (or a robbed kong, the robbed player as the discarder):
    the discarder alone 2 shares, or 3 under pay-for-all; under half gun (半銃, variants.md)
    the discarder 1 share and each of the other ``payers`` half a share."""
    if rules.discard_pays == "half":
        # An even points_per_unit (checked with the rules) makes every share even.
        return tuple((p, share if p == discarder else share // 2) for p in payers)
    return ((discarder, share * DISCARD_SHARES[rules.discard_pays]),)
