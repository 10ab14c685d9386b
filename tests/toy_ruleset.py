"""A toy rule set, "every win pays the stake", written the way a plugin package would write
one: one module, a subclass of the base rule set that says only what differs from the neutral
table. (tests/toy_ruleset_legacy.py is the same rule set written against the 0.1 protocol.)"""

from __future__ import annotations

from typing import Final

from attrs import field, frozen

from mjledger._checks import int_between
from mjledger.errors import RuleError
from mjledger.rules import BaseRuleset, WinContext
from mjledger.rules.protocol import Payments
from mjledger.rules.state import HandView
from mjledger.tiles.fan import pattern_row


@frozen
class FlatRules:
    stake: int = field(default=1, validator=int_between(1, 100, what="house rule "))


class Flat(BaseRuleset):
    name = "flat"
    rules_class = FlatRules
    v1_defaults = {"stake": 1}  # noqa: RUF012 - read only
    fan_table = (pattern_row("win", "win", 0),)

    rules: FlatRules

    def claimed_fan(self, fan: int | None, limit: bool, *, has_tiles: bool) -> tuple[int, bool]:
        if limit:
            raise RuleError("a flat win has no limit hand")
        return fan or 0, False

    def win_payments(
        self, hand: HandView, context: WinContext, fan: int | None, limit: bool
    ) -> Payments:
        if context.discarder is not None:
            return ((context.discarder, self.rules.stake),)
        return tuple((p, self.rules.stake) for p in hand.still_in if p != context.winner)

    def dealer_after(self, hand: HandView) -> str:
        return hand.players[(hand.players.index(hand.dealer) + 1) % 4]


FLAT: Final = Flat()
