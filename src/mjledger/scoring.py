"""Payout arithmetic of both rule sets, as data tables and small pure functions.

Everything here maps facts (fan, who is still in, house rules) to integer amounts; nothing
here knows about events, lines or state. Amounts are ``int`` throughout: the half-spicy table
has ×1.5 steps, and a float anywhere would eventually lose a point.
"""

from __future__ import annotations

from typing import Final, Literal

from mjledger.house_rules import HongKongRules, SichuanRules

# rules.md, "Hong Kong / Fan → units": one row per table, indexed by fan 0..13.
UNITS: Final[dict[str, tuple[int, ...]]] = {
    "half_spicy": (1, 2, 4, 8, 16, 24, 32, 48, 64, 96, 128, 192, 256, 384),
    "spicy": (1, 2, 4, 8, 16, 32, 64, 128, 256, 512, 1024, 2048, 4096, 8192),
}

# rules.md, "Kongs, paid at once": units of base, and who pays.
KongKind = Literal["exposed", "added", "concealed"]
KONG_PAYMENT: Final[dict[str, int]] = {"exposed": 2, "added": 1, "concealed": 2}
KONG_PAID_BY_DISCARDER_ONLY: Final = frozenset({"exposed"})


# --- Hong Kong --------------------------------------------------------------------------------


def hongkong_counted_fan(rules: HongKongRules, fan: int | None, limit: bool) -> int:
    """The fan a Hong Kong win is paid on: a limit hand is the limit; above it counts as it."""
    if limit or fan is None:
        return rules.fan_limit
    return min(fan, rules.fan_limit)


def hongkong_share(rules: HongKongRules, fan: int | None, limit: bool) -> int:
    """One share = units (from the table in force) × points per unit."""
    return UNITS[rules.table][hongkong_counted_fan(rules, fan, limit)] * rules.points_per_unit


def hongkong_discard_payment(rules: HongKongRules, share: int) -> int:
    """What the discarder alone pays: 2 shares, or 3 under pay-for-all."""
    return share * (3 if rules.discard_pays == "all" else 2)


# --- Sichuan ----------------------------------------------------------------------------------


def sichuan_win_amount(rules: SichuanRules, fan: int) -> int:
    """What one payer pays for a win on discard: ``base × 2^min(fan, fan_cap)``."""
    return rules.base << min(fan, rules.fan_cap)


def sichuan_self_draw_amount(rules: SichuanRules, fan: int) -> int:
    """What each payer still in pays a self-drawn win, with the self-draw bonus applied."""
    if rules.self_draw_bonus == "fan":
        return sichuan_win_amount(rules, fan + 1)
    bonus = rules.base if rules.self_draw_bonus == "base" else 0
    return sichuan_win_amount(rules, fan) + bonus


def sichuan_kong_amount(rules: SichuanRules, kind: str) -> int:
    """What each payer of a kong pays, in points (the table is in units of base)."""
    return KONG_PAYMENT[kind] * rules.base


def sichuan_flower_pig_amount(rules: SichuanRules) -> int:
    """A flower pig pays each non-pig the capped maximum, ``base × 2^fan_cap``."""
    return rules.base << rules.fan_cap


def sichuan_not_ready_amount(rules: SichuanRules, best_fan: int) -> int:
    """A player not ready pays a ready one as if that one had won its best hand."""
    return sichuan_win_amount(rules, best_fan)


def split_evenly(amount: int, winners: tuple[str, ...], first: str) -> tuple[tuple[str, int], ...]:
    """Equal parts of ``amount``; the remainder goes to ``first`` (rules.md, kong_passing_split).

    Parts of zero are left out, because a transfer is always positive.
    """
    part, remainder = divmod(amount, len(winners))
    shares = ((w, part + (remainder if w == first else 0)) for w in winners)
    return tuple((w, a) for w, a in shares if a > 0)


def next_in_turn(players: tuple[str, ...], player: str, among: tuple[str, ...]) -> str:
    """The first of ``among`` after ``player`` in turn order, cyclically."""
    i = players.index(player)
    for step in range(1, len(players) + 1):
        candidate = players[(i + step) % len(players)]
        if candidate in among:
            return candidate
    raise ValueError(f"none of {among!r} sits at the table")
