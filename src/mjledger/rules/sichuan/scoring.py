"""Sichuan payout arithmetic: ``base × 2^fan`` capped, the self-draw bonus, kongs, the wall.

Everything here maps facts (fan, house rules) to integer amounts; nothing here knows about
events, lines or state.
"""

from __future__ import annotations

from typing import Final, Literal

from mjledger.rules.sichuan.options import SichuanRules

# rules.md, "Kongs, paid at once": units of base, and who pays.
KongKind = Literal["exposed", "added", "concealed"]
KONG_PAYMENT: Final[dict[str, int]] = {"exposed": 2, "added": 1, "concealed": 2}
KONG_PAID_BY_DISCARDER_ONLY: Final = frozenset({"exposed"})


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
