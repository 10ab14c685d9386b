"""The Hong Kong rule set's hooks: a win ends the hand, kongs pay nothing, the deal passes when a
non-dealer wins, and four rounds of wind make a match (rules.md, "Hong Kong")."""

from __future__ import annotations

from collections.abc import Iterable, Sequence
from typing import Final

from mjledger.errors import RuleError
from mjledger.log.events import KongDeclared, WallExhausted
from mjledger.rules.hongkong import scoring
from mjledger.rules.hongkong.fan import HONGKONG_TABLE, evaluate_hongkong_win, shapes
from mjledger.rules.hongkong.options import EXTENSION_KEYS, V1_DEFAULTS, HongKongRules
from mjledger.rules.protocol import Payments, WinContext
from mjledger.rules.state import HandView, OpenWins, Transfer
from mjledger.tiles.decompose import Shapes, waits
from mjledger.tiles.fan import FanResult, WallStatus
from mjledger.tiles.notation import Meld, Tile


class HongKong:
    name: Final = "hongkong"
    title: Final = "Hong Kong"
    rules_class: Final = HongKongRules
    extension_keys: Final = EXTENSION_KEYS
    v1_defaults: Final = V1_DEFAULTS
    fan_table: Final = HONGKONG_TABLE
    void_suits: Final = False
    waits_with_add_ons: Final = True
    round_winds: Final = True

    def shapes(self, rules: HongKongRules) -> Shapes:
        return shapes(rules)

    def evaluate_win(
        self,
        rules: HongKongRules,
        tiles: Iterable[Tile],
        winning_tile: Tile,
        melds: Sequence[Meld],
        context: WinContext,
    ) -> FanResult:
        return evaluate_hongkong_win(tiles, winning_tile, melds, context, rules)

    def evaluate_wall(
        self,
        rules: HongKongRules,
        tiles: Iterable[Tile],
        melds: Sequence[Meld],
        void_suit: str | None,
    ) -> WallStatus:
        found = waits(tiles, melds, shapes(rules))
        return WallStatus(flower_pig=False, ready=bool(found), best_fan=None, waits=found)

    def claimed_fan(
        self, rules: HongKongRules, fan: int | None, limit: bool, *, has_tiles: bool
    ) -> tuple[int | None, bool]:
        if has_tiles or limit:
            return fan, limit
        if fan is None:
            raise RuleError("a Hong Kong win needs 'fan' (or 'limit': true for a limit hand)")
        if fan < rules.min_fan:
            raise RuleError(f"fan {fan} is below the table minimum of {rules.min_fan}")
        return fan, False

    def minimum_fan(self, rules: HongKongRules) -> int:
        return rules.min_fan

    def win_payments(
        self,
        rules: HongKongRules,
        hand: HandView,
        context: WinContext,
        fan: int | None,
        limit: bool,
    ) -> Payments:
        share = scoring.hongkong_share(rules, fan, limit)
        if context.discarder is None:
            payments: Payments = tuple((p, share) for p in hand.players if p != context.winner)
        else:
            payments = scoring.hongkong_discard_payments(
                rules, share, context.discarder, [p for p in hand.players if p != context.winner]
            )
        if context.liable is not None:
            # 包 (variants.md): the liable player "pays everything the win collects".
            return ((context.liable, sum(p[1] for p in payments), "liability"),)
        return payments

    def hand_ends_after_win(self, hand: HandView) -> bool:
        return True

    def winners_leave(self, rules: HongKongRules) -> bool:
        return True

    def settle_false_win(
        self, rules: HongKongRules, hand: HandView, player: str, line: int | None
    ) -> tuple[Transfer, ...]:
        """詐糊 (variants.md): "the player pays each of the other three what a limit-hand
        self-draw would collect (3 shares at fan_limit)"."""
        amount = 3 * scoring.hongkong_share(rules, None, True)
        return tuple(
            Transfer(player, other, amount, "false_win", line)
            for other in hand.players
            if other != player
        )

    def kong_payments(self, rules: HongKongRules, hand: HandView, event: KongDeclared) -> Payments:
        return ()  # Hong Kong kongs pay nothing (they score as fan); still remembered

    def kong_money_passing(
        self, rules: HongKongRules, hand: HandView, run: OpenWins, kongs: tuple[int, ...]
    ) -> tuple[tuple[Transfer, ...], tuple[int, ...]]:
        return (), ()

    def settle_wall(
        self, rules: HongKongRules, hand: HandView, event: WallExhausted, line: int | None
    ) -> tuple[Transfer, ...]:
        if event.remaining is not None:
            raise RuleError("a Hong Kong wall_exhausted carries no 'remaining'")
        return ()

    def dealer_after(self, hand: HandView) -> str:
        if hand.winners:
            passes = hand.winners[0] != hand.dealer
        else:  # a void hand: the wall ran out, or a false win
            passes = hand.rules.void_hand_dealer == "passes"
        if not passes:
            return hand.dealer
        return hand.players[(hand.players.index(hand.dealer) + 1) % 4]

    def round_ends(self, hand: HandView, dealer: str, first_dealer: str | None) -> bool:
        return dealer != hand.dealer and dealer == first_dealer


HONGKONG: Final = HongKong()

__all__ = ["HONGKONG", "HongKong"]
