"""The Hong Kong rule set: what differs from the neutral table (:mod:`mjledger.rules.base`) —
its fan, its shares and who pays them, the false win, and four rounds of wind make a match. A
win ends the hand, kongs pay nothing, and the deal passes when a non-dealer wins, as on the
neutral table (rules.md, "Hong Kong")."""

from __future__ import annotations

from collections.abc import Iterable, Mapping, Sequence
from typing import Final

from mjledger.errors import RuleError
from mjledger.log.events import PlayerAtWallEnd
from mjledger.rules import explained
from mjledger.rules.base import N_, BaseRuleset, SimulatedPlay
from mjledger.rules.hongkong import scoring, why
from mjledger.rules.hongkong.fan import HONGKONG_TABLE, evaluate_hongkong_win, shapes
from mjledger.rules.hongkong.options import EXTENSION_KEYS, V1_DEFAULTS, HongKongRules
from mjledger.rules.protocol import Payments, WinContext
from mjledger.rules.values import HandView, Transfer
from mjledger.tiles.decompose import Shapes
from mjledger.tiles.fan import FanResult
from mjledger.tiles.notation import Meld, Tile


class HongKong(BaseRuleset):
    name = "hongkong"
    title = "Hong Kong"
    title_message = N_("ruleset.hongkong")
    rules_class = HongKongRules
    extension_keys = EXTENSION_KEYS
    v1_defaults = V1_DEFAULTS
    fan_table = HONGKONG_TABLE
    waits_with_add_ons = True
    round_winds = True
    # 136 tiles, no flowers; a dead wall of 14 is never drawn (rules.md, "Hong Kong").
    simulated_play = SimulatedPlay(
        tile_kinds=34, dead_wall=14, aims_for_minimum=True, chows=True, one_winner_per_discard=True
    )

    rules: HongKongRules

    def shapes(self) -> Shapes:
        return shapes(self.rules)

    def evaluate_win(
        self,
        tiles: Iterable[Tile],
        winning_tile: Tile,
        melds: Sequence[Meld],
        context: WinContext,
        *,
        counts: Sequence[int] | None = None,
    ) -> FanResult:
        return evaluate_hongkong_win(tiles, winning_tile, melds, context, self.rules, counts=counts)

    def claimed_fan(
        self, fan: int | None, limit: bool, *, has_tiles: bool
    ) -> tuple[int | None, bool]:
        if has_tiles or limit:
            return fan, limit
        if fan is None:
            raise RuleError("a Hong Kong win needs 'fan' (or 'limit': true for a limit hand)")
        return fan, False

    def minimum_fan(self) -> int:
        return self.rules.min_fan

    def win_payments(
        self, hand: HandView, context: WinContext, fan: int | None, limit: bool
    ) -> Payments:
        rules = self.rules
        share = scoring.hongkong_share(rules, fan, limit)
        if context.discarder is None:
            payments: Payments = tuple((p, share) for p in hand.players if p != context.winner)
        else:
            payments = scoring.hongkong_discard_payments(
                rules, share, context.discarder, [p for p in hand.players if p != context.winner]
            )
        notes = explained.notes()
        if notes is not None:
            why.win(notes, rules, context, fan, limit, payments)
        if context.liable is not None:
            # 包 (variants.md): the liable player "pays everything the win collects".
            return ((context.liable, sum(p[1] for p in payments), "liability"),)
        return payments

    def settle_false_win(
        self, hand: HandView, player: str, line: int | None
    ) -> tuple[Transfer, ...]:
        """詐糊 (variants.md): "the player pays each of the other three what a limit-hand
        self-draw would collect (3 shares at fan_limit)"."""
        amount = scoring.FALSE_WIN_SHARES * scoring.hongkong_share(self.rules, None, True)
        dues = tuple(
            Transfer(player, other, amount, "false_win", line)
            for other in hand.players
            if other != player
        )
        notes = explained.notes()
        if notes is not None:
            why.false_win(notes, self.rules, player, dues)
        return dues

    def kong_payments(self, hand: HandView, player: str, kind: str, from_: str | None) -> Payments:
        """A kong pays nothing, as on the neutral table (it scores as fan); explained so."""
        notes = explained.notes()
        if notes is not None:
            why.kong(notes, player, kind)
        return super().kong_payments(hand, player, kind, from_)

    def settle_wall(
        self, hand: HandView, remaining: Mapping[str, PlayerAtWallEnd] | None, line: int | None
    ) -> tuple[Transfer, ...]:
        """The wall runs out with no winner: void, nobody pays (the neutral table's); explained
        so."""
        dues = super().settle_wall(hand, remaining, line)
        notes = explained.notes()
        if notes is not None:
            why.wall(notes)
        return dues

    def void_hand_passes(self) -> bool:
        # Variant (variants.md): after a void hand the dealer deals again, or the deal passes.
        return self.rules.void_hand_dealer == "passes"

    def round_ends(self, hand: HandView, dealer: str, first_dealer: str | None) -> bool:
        return dealer != hand.dealer and dealer == first_dealer


HONGKONG: Final = HongKong()

__all__ = ["HONGKONG", "HongKong"]
