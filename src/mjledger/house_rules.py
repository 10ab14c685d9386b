"""House rules (table options) of each rule set, with their defaults and ranges.

A table fixes its house rules for a whole match (rules.md, "House rules"). Each class below is
the complete option sheet of one rule set: its field defaults are the defaults of
log-format.md, and construction refuses anything out of range, so a rules object that exists
is one the payout functions can trust.
"""

from __future__ import annotations

import json
from typing import Final, Literal

import attrs
from attrs import field, frozen

from mjledger._checks import int_between, one_of
from mjledger.errors import FormatError

Ruleset = Literal["hongkong", "sichuan"]
RULESETS: Final = ("hongkong", "sichuan")

MAX_STAKE: Final = 1_000_000


@frozen
class HongKongRules:
    """Hong Kong options: the fan-to-units table, stakes, minimum and limit, who pays a discard."""

    table: Literal["half_spicy", "spicy"] = field(
        default="half_spicy", validator=one_of("half_spicy", "spicy", what="house rule ")
    )
    points_per_unit: int = field(default=1, validator=int_between(1, MAX_STAKE, what="house rule "))
    # rules.md: "min_fan (default 3, at most fan_limit)"; log-format.md: "integer 0–13".
    min_fan: int = field(default=3, validator=int_between(0, 13, what="house rule "))
    fan_limit: Literal[8, 10, 13] = field(
        default=10, validator=one_of(10, 8, 13, what="house rule ")
    )
    discard_pays: Literal["double", "all"] = field(
        default="double", validator=one_of("double", "all", what="house rule ")
    )
    # Extension (docs/rules.md, "Fan from tiles"): score seven pairs (七對, 4 faan) from tiles.
    seven_pairs: bool = field(default=False, validator=one_of(False, True, what="house rule "))

    def __attrs_post_init__(self) -> None:
        if self.min_fan > self.fan_limit:
            raise FormatError(
                f"house rule min_fan ({self.min_fan}) must be at most fan_limit ({self.fan_limit})"
            )


@frozen
class SichuanRules:
    """Sichuan blood-battle options: stake, fan cap, self-draw bonus and kong money passing."""

    base: int = field(default=1, validator=int_between(1, MAX_STAKE, what="house rule "))
    fan_cap: Literal[3, 4, 5, 6] = field(
        default=4, validator=one_of(4, 3, 5, 6, what="house rule ")
    )
    self_draw_bonus: Literal["base", "fan", "none"] = field(
        default="base", validator=one_of("base", "fan", "none", what="house rule ")
    )
    kong_money_passing: bool = field(
        default=True, validator=one_of(True, False, what="house rule ")
    )
    kong_passing_split: Literal["split", "none"] = field(
        default="split", validator=one_of("split", "none", what="house rule ")
    )
    # Extensions (docs/rules.md, "Fan from tiles"): optional patterns scored from tiles.
    all_258_pungs: bool = field(default=False, validator=one_of(False, True, what="house rule "))
    terminals_in_all: bool = field(default=False, validator=one_of(False, True, what="house rule "))
    heavenly: bool = field(default=False, validator=one_of(False, True, what="house rule "))
    earthly: bool = field(default=False, validator=one_of(False, True, what="house rule "))


HouseRules = HongKongRules | SichuanRules

RULES_CLASS: Final[dict[str, type[HongKongRules] | type[SichuanRules]]] = {
    "hongkong": HongKongRules,
    "sichuan": SichuanRules,
}


def default_rules(ruleset: str) -> HouseRules:
    """The option sheet a table gets when its log names no house rules."""
    return RULES_CLASS[ruleset]()


def rules_from_json(ruleset: str, raw: object) -> HouseRules:
    """Validate a log's ``rules`` object against the ruleset's options; omitted keys default.

    Values are checked strictly (a JSON ``true`` is not the integer 1, ``10.0`` is not 10),
    because the contract forbids coercion and a silently coerced stake is lost money.
    """
    cls = RULES_CLASS[ruleset]
    if not isinstance(raw, dict):
        raise FormatError("rules must be a JSON object")
    known = {a.name: a for a in attrs.fields(cls)}
    unknown = sorted(set(raw) - set(known))
    if unknown:
        raise FormatError(
            f"unknown house rule {unknown[0]!r} for {ruleset} (known: {', '.join(known)})"
        )
    for name, value in raw.items():
        default = known[name].default
        if type(value) is not type(default):
            expected = {int: "an integer", str: "a string", bool: "true or false"}[type(default)]
            raise FormatError(f"house rule {name!r} must be {expected}, not {json.dumps(value)}")
    return cls(**raw)


# Options mjledger adds to the contract's table (log-format.md): written out only when switched
# on, so a log that does not use them reads, replays and exports exactly as the contract says.
EXTENSION_KEYS: Final = frozenset(
    {"seven_pairs", "all_258_pungs", "terminals_in_all", "heavenly", "earthly"}
)


def rules_to_json(rules: HouseRules) -> dict[str, object]:
    """Every contract key present (as the replay output's ``rules`` requires), plus the
    extension options that are switched on."""
    return {
        k: v for k, v in attrs.asdict(rules).items() if k not in EXTENSION_KEYS or v is not False
    }
