"""The toy rule set of tests/toy_ruleset.py, "every win pays 1", as a plugin wrote it for 0.1: one
module, the Ruleset protocol, nothing of mjledger changed. The registry tests register it."""

from __future__ import annotations

from collections.abc import Iterable, Sequence
from typing import Final

from attrs import field, frozen

from mjledger._checks import int_between
from mjledger.errors import RuleError, TileError
from mjledger.log.events import KongDeclared, WallExhausted
from mjledger.rules.protocol import Payments, WinContext
from mjledger.rules.state import HandState, OpenWins, Transfer
from mjledger.tiles.decompose import Shapes, arrangements, waits
from mjledger.tiles.fan import FanResult, WallStatus, pattern_row
from mjledger.tiles.notation import Meld, Tile

FOUR_SETS_AND_A_PAIR = Shapes(seven_pairs=False, quad_as_two_pairs=False, thirteen_orphans=False)


@frozen
class FlatRules:
    stake: int = field(default=1, validator=int_between(1, 100, what="house rule "))


class Flat:
    name: Final = "flat"
    title: Final = "Flat"
    rules_class: Final = FlatRules
    extension_keys: Final = frozenset[str]()
    v1_defaults: Final = {"stake": 1}
    fan_table: Final = (pattern_row("win", "win", 0),)
    void_suits: Final = False
    round_winds: Final = False
    waits_with_add_ons: Final = False

    def shapes(self, rules: FlatRules) -> Shapes:
        return FOUR_SETS_AND_A_PAIR

    def evaluate_win(
        self,
        rules: FlatRules,
        tiles: Iterable[Tile],
        winning_tile: Tile,
        melds: Sequence[Meld],
        context: WinContext,
    ) -> FanResult:
        found = arrangements((*tiles, winning_tile), melds, FOUR_SETS_AND_A_PAIR)
        if not found:
            raise TileError("not a complete hand")
        return FanResult(0, (), found[0])

    def evaluate_wall(
        self, rules: FlatRules, tiles: Iterable[Tile], melds: Sequence[Meld], void_suit: str | None
    ) -> WallStatus:
        found = waits(tiles, melds, FOUR_SETS_AND_A_PAIR)
        return WallStatus(flower_pig=False, ready=bool(found), best_fan=None, waits=found)

    def claimed_fan(
        self, rules: FlatRules, fan: int | None, limit: bool, *, has_tiles: bool
    ) -> tuple[int | None, bool]:
        if limit:
            raise RuleError("a flat win has no limit hand")
        return fan or 0, False

    def minimum_fan(self, rules: FlatRules) -> int:
        return 0

    def win_payments(
        self, rules: FlatRules, hand: HandState, context: WinContext, fan: int | None, limit: bool
    ) -> Payments:
        if context.discarder is not None:
            return ((context.discarder, rules.stake),)
        return tuple((p, rules.stake) for p in hand.still_in if p != context.winner)

    def hand_ends_after_win(self, hand: HandState) -> bool:
        return True

    def winners_leave(self, rules: FlatRules) -> bool:
        return True

    def settle_false_win(
        self, rules: FlatRules, hand: HandState, player: str, line: int | None
    ) -> tuple[Transfer, ...]:
        raise RuleError("a flat table has no false win")

    def kong_payments(self, rules: FlatRules, hand: HandState, event: KongDeclared) -> Payments:
        return ()

    def kong_money_passing(
        self, rules: FlatRules, hand: HandState, run: OpenWins, kongs: tuple[int, ...]
    ) -> tuple[tuple[Transfer, ...], tuple[int, ...]]:
        return (), ()

    def settle_wall(
        self, rules: FlatRules, hand: HandState, event: WallExhausted, line: int | None
    ) -> tuple[Transfer, ...]:
        if event.remaining is not None:
            raise RuleError("a flat wall_exhausted carries no 'remaining'")
        return ()

    def dealer_after(self, hand: HandState) -> str:
        return hand.players[(hand.players.index(hand.dealer) + 1) % 4]

    def round_ends(self, hand: HandState, dealer: str, first_dealer: str | None) -> bool:
        return False


FLAT: Final = Flat()
