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
# variants.md, exposed_kong_pays "everyone": "1 × base from every player still in".
EXPOSED_KONG_FROM_EVERYONE: Final = 1


def sichuan_exponent(rules: SichuanRules, fan: int) -> int:
    """The power of two a win is paid on: its fan, capped (``min(fan, fan_cap)``)."""
    return min(fan, rules.fan_cap)


def sichuan_win_amount(rules: SichuanRules, fan: int) -> int:
    """What one payer pays for a win on discard: ``base × 2^min(fan, fan_cap)``."""
    return rules.base << sichuan_exponent(rules, fan)


def sichuan_self_draw_exponent(rules: SichuanRules, fan: int) -> int:
    """The exponent of a self-draw: one fan more under ``self_draw_bonus: "fan"``."""
    return sichuan_exponent(rules, fan + 1 if rules.self_draw_bonus == "fan" else fan)


def sichuan_self_draw_bonus(rules: SichuanRules) -> int:
    """The points a self-draw adds to each payment (``self_draw_bonus: "base"``)."""
    return rules.base if rules.self_draw_bonus == "base" else 0


def sichuan_self_draw_amount(rules: SichuanRules, fan: int) -> int:
    """What each payer still in pays a self-drawn win, with the self-draw bonus applied."""
    return (rules.base << sichuan_self_draw_exponent(rules, fan)) + sichuan_self_draw_bonus(rules)


def sichuan_kong_units(rules: SichuanRules, kind: str, claimed: bool) -> int:
    """Units of base each payer of a kong pays (an exposed kong from everyone: 1)."""
    if claimed and rules.exposed_kong_pays == "everyone":
        return EXPOSED_KONG_FROM_EVERYONE
    return KONG_PAYMENT[kind]


def sichuan_kong_amount(rules: SichuanRules, kind: str, claimed: bool = False) -> int:
    """What each payer of a kong pays, in points (the table is in units of base)."""
    return sichuan_kong_units(rules, kind, claimed) * rules.base


def sichuan_flower_pig_amount(rules: SichuanRules) -> int:
    """A flower pig pays each non-pig the capped maximum, ``base × 2^fan_cap``."""
    return rules.base << rules.fan_cap


def sichuan_not_ready_amount(rules: SichuanRules, best_fan: int) -> int:
    """A player not ready pays a ready one as if that one had won its best hand."""
    return sichuan_win_amount(rules, best_fan)


# variants.md, 诈胡: "The 8 is fixed, not a parameter ... `base` scales it".
FALSE_WIN_BASES: Final = 8


def sichuan_false_win_amount(rules: SichuanRules) -> int:
    """What a flat false win pays each other player still in: ``8 × base`` (fan_cap and
    self_draw_bonus play no part)."""
    return FALSE_WIN_BASES * rules.base
