"""Sichuan house rules: the one options object of the rule set, for money and tiles alike."""

from __future__ import annotations

from typing import Final, Literal

from attrs import field, frozen

from mjledger._checks import int_between, one_of
from mjledger.errors import FormatError
from mjledger.rules.house import MAX_STAKE, VARIANT
from mjledger.rules.table import STAKES_LEFTOVER_CHECK, StakesLeftover, problem_without_stakes


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
    # "refund" (variants.md, second set): the window's last kong's money goes back instead.
    kong_money_passing: bool | Literal["refund"] = field(
        default=True, validator=one_of(True, False, "refund", what="house rule ")
    )
    # "each_full" (variants.md): several winners each receive the whole passed money.
    kong_passing_split: Literal["split", "none", "each_full"] = field(
        default="split", validator=one_of("split", "none", "each_full", what="house rule ")
    )
    # Extensions (docs/rules.md, "Fan from tiles"): optional patterns scored from tiles.
    all_258_pungs: bool = field(default=False, validator=one_of(False, True, what="house rule "))
    terminals_in_all: bool = field(default=False, validator=one_of(False, True, what="house rule "))
    heavenly: bool = field(default=False, validator=one_of(False, True, what="house rule "))
    earthly: bool = field(default=False, validator=one_of(False, True, what="house rule "))
    # Variants (variants.md, "Sichuan"), each off at its default and listed only when set.
    blood_flow: bool = field(
        default=False, validator=one_of(False, True, what="house rule "), metadata=VARIANT
    )
    exposed_kong_pays: Literal["discarder", "everyone"] = field(
        default="discarder",
        validator=one_of("discarder", "everyone", what="house rule "),
        metadata=VARIANT,
    )
    kong_passing_scope: Literal["all", "last"] = field(
        default="all", validator=one_of("all", "last", what="house rule "), metadata=VARIANT
    )
    claimed_kong_bloom: Literal["self_draw", "feeder_pays"] = field(
        default="self_draw",
        validator=one_of("self_draw", "feeder_pays", what="house rule "),
        metadata=VARIANT,
    )
    pig_pays: Literal["non_pigs", "still_in"] = field(
        default="non_pigs",
        validator=one_of("non_pigs", "still_in", what="house rule "),
        metadata=VARIANT,
    )
    not_ready_includes_pigs: bool = field(
        default=True, validator=one_of(True, False, what="house rule "), metadata=VARIANT
    )
    refund_to_winners: bool = field(
        default=True, validator=one_of(True, False, what="house rule "), metadata=VARIANT
    )
    # Variants, second set (variants.md): 手牌加杠不收分, an added kong made from a tile
    # already held (its line's ``from_hand``) collects nothing.
    added_kong_from_hand: Literal["paid", "unpaid"] = field(
        default="paid", validator=one_of("paid", "unpaid", what="house rule "), metadata=VARIANT
    )

    # Variants, second set (variants.md): 诈胡 as a flat penalty; blood flow's winners left
    # out of the wall's checks; where a capped payer's leftover points go (rules/table.py).
    sichuan_false_win: Literal["refused", "flat"] = field(
        default="refused", validator=one_of("refused", "flat", what="house rule "), metadata=VARIANT
    )
    blood_flow_wall: Literal["all", "exempt_winners"] = field(
        default="all",
        validator=one_of("all", "exempt_winners", what="house rule "),
        metadata=VARIANT,
    )
    stakes_leftover: StakesLeftover = field(
        default="after_payer", validator=STAKES_LEFTOVER_CHECK, metadata=VARIANT
    )
    # What a line that opens a table without stakes cannot carry (log/events.py asks).
    problem_without_stakes = property(problem_without_stakes)

    def __attrs_post_init__(self) -> None:
        _refund_refinements(self)
        _blood_flow_wall_refines(self)

    def enabled(self, option: str | None) -> bool:
        """Whether a fan-table row switched on by house rule ``option`` is on (None: always)."""
        return option is None or bool(getattr(self, option))


def _refund_refinements(rules: SichuanRules) -> None:
    """variants.md, second set: under ``kong_money_passing: "refund"`` the keys that shape
    passing must be at their defaults ("they shape passing; nothing passes")."""
    if rules.kong_money_passing != "refund":
        return
    for key, default in (("kong_passing_split", "split"), ("kong_passing_scope", "all")):
        value = getattr(rules, key)
        if value != default:
            raise FormatError(
                f'house rule {key} must be "{default}" under kong_money_passing "refund" '
                f"(nothing passes), not {value!r}",
                code="bad_house_rule",
            )


def _blood_flow_wall_refines(rules: SichuanRules) -> None:
    """variants.md, second set: ``blood_flow_wall`` must be "all" "unless `blood_flow` is
    `true`" (an error of the line that sets the rules)."""
    if rules.blood_flow_wall != "all" and not rules.blood_flow:
        raise FormatError(
            f'house rule blood_flow_wall "{rules.blood_flow_wall}" refines blood_flow, '
            'which is false: without blood_flow it must be "all"',
            code="bad_house_rule",
        )


# Options mjledger adds to the contract (docs/rules.md, "Fan from tiles").
EXTENSION_KEYS: Final = frozenset({"all_258_pungs", "terminals_in_all", "heavenly", "earthly"})

# What a format-1 stored match meant by leaving a key out (never edit: upcasting reads it).
V1_DEFAULTS: Final[dict[str, object]] = {
    "base": 1,
    "fan_cap": 4,
    "self_draw_bonus": "base",
    "kong_money_passing": True,
    "kong_passing_split": "split",
}
