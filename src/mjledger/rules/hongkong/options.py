"""Hong Kong house rules: the one options object of the rule set, for money and tiles alike."""

from __future__ import annotations

from typing import Final, Literal

from attrs import field, frozen

from mjledger._checks import int_between, one_of
from mjledger.errors import FormatError
from mjledger.rules.house import MAX_STAKE, VARIANT
from mjledger.rules.table import STAKES_LEFTOVER_CHECK, StakesLeftover, problem_without_stakes


@frozen
class HongKongRules:
    """Hong Kong options: the fan-to-units table, stakes, minimum and limit, who pays a discard."""

    table: Literal["half_spicy", "spicy"] = field(
        default="half_spicy", validator=one_of("half_spicy", "spicy", what="house rule ")
    )
    points_per_unit: int = field(default=1, validator=int_between(1, MAX_STAKE, what="house rule "))
    # rules.md: "min_fan (default 3, at most fan_limit)"; log-format.md: "integer 0–13".
    min_fan: int = field(default=3, validator=int_between(0, 13, what="house rule "))
    # variants.md, second set: "a JSON integer from 5 to 13 (default 10)" (was 8, 10 or 13).
    fan_limit: int = field(default=10, validator=int_between(5, 13, what="house rule "))
    # "half" is the half-gun variant (variants.md): 1 share from the discarder, ½ from each other.
    discard_pays: Literal["double", "all", "half"] = field(
        default="double", validator=one_of("double", "all", "half", what="house rule ")
    )
    # Extension (docs/rules.md, "Fan from tiles"): score seven pairs (七對, 4 faan) from tiles.
    seven_pairs: bool = field(default=False, validator=one_of(False, True, what="house rule "))
    # Variant (variants.md): after a void hand the dealer deals again, or the deal passes.
    void_hand_dealer: Literal["stays", "passes"] = field(
        default="stays", validator=one_of("stays", "passes", what="house rule "), metadata=VARIANT
    )
    # Variant, second set (variants.md): where a capped payer's leftover points go.
    stakes_leftover: StakesLeftover = field(
        default="after_payer", validator=STAKES_LEFTOVER_CHECK, metadata=VARIANT
    )
    # What a line that opens a table without stakes cannot carry (log/events.py asks).
    problem_without_stakes = property(problem_without_stakes)

    def __attrs_post_init__(self) -> None:
        if self.discard_pays == "half" and self.points_per_unit % 2:
            raise FormatError(
                'house rule discard_pays "half" needs an even points_per_unit, '
                f"not {self.points_per_unit}",
                code="bad_house_rule",
            )
        if self.min_fan > self.fan_limit:
            raise FormatError(
                f"house rule min_fan ({self.min_fan}) must be at most fan_limit ({self.fan_limit})",
                code="bad_house_rule",
            )


# Options mjledger adds to the contract (docs/rules.md, "Fan from tiles").
EXTENSION_KEYS: Final = frozenset({"seven_pairs"})

# What a format-1 stored match meant by leaving a key out (never edit: upcasting reads it).
V1_DEFAULTS: Final[dict[str, object]] = {
    "table": "half_spicy",
    "points_per_unit": 1,
    "min_fan": 3,
    "fan_limit": 10,
    "discard_pays": "double",
}
