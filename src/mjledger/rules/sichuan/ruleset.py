"""The Sichuan (blood battle) rule set, where it differs from the neutral table
(:mod:`mjledger.rules.base`): play goes on until three have won, kongs pay at
once and their money may pass to a discard's winners, and the empty wall settles readiness
(rules.md, "Sichuan")."""

from __future__ import annotations

from collections.abc import Iterable, Mapping, Sequence
from typing import Final

from mjledger.errors import RuleError
from mjledger.log.events import PlayerAtWallEnd
from mjledger.rules.base import N_, BaseRuleset, SimulatedPlay
from mjledger.rules.payout import next_in_turn, split_evenly
from mjledger.rules.protocol import Payments, WinContext
from mjledger.rules.sichuan import scoring, wall
from mjledger.rules.sichuan.fan import SICHUAN_TABLE, evaluate_sichuan_wall, evaluate_sichuan_win
from mjledger.rules.sichuan.options import EXTENSION_KEYS, V1_DEFAULTS, SichuanRules
from mjledger.rules.sichuan.quick import QuickSichuan
from mjledger.rules.values import HandView, OpenWins, Transfer
from mjledger.tiles.decompose import SICHUAN as SICHUAN_SHAPES
from mjledger.tiles.decompose import Shapes
from mjledger.tiles.fan import FanResult, WallStatus
from mjledger.tiles.notation import Meld, Tile


class Sichuan(BaseRuleset):
    name = "sichuan"
    title = "Sichuan"
    title_message = N_("ruleset.sichuan")
    rules_class = SichuanRules
    extension_keys = EXTENSION_KEYS
    v1_defaults = V1_DEFAULTS
    fan_table = SICHUAN_TABLE
    void_suits = True
    # The three suits only (108 tiles), every tile played (rules.md, "Sichuan").
    wall_remaining = True
    simulated_play = SimulatedPlay(tile_kinds=27)

    rules: SichuanRules

    def shapes(self) -> Shapes:
        return SICHUAN_SHAPES

    def evaluate_win(
        self, tiles: Iterable[Tile], winning_tile: Tile, melds: Sequence[Meld], context: WinContext
    ) -> FanResult:
        return evaluate_sichuan_win(tiles, winning_tile, melds, context, self.rules)

    def evaluate_wall(
        self, tiles: Iterable[Tile], melds: Sequence[Meld], void_suit: str | None
    ) -> WallStatus:
        return evaluate_sichuan_wall(tiles, melds, void_suit=void_suit, rules=self.rules)

    def claimed_fan(
        self, fan: int | None, limit: bool, *, has_tiles: bool
    ) -> tuple[int | None, bool]:
        if limit:
            raise RuleError("'limit' is a Hong Kong rule; a Sichuan win has no limit hand")
        if fan is None and not has_tiles:
            raise RuleError("a Sichuan win needs 'fan' (or its tiles)")
        return fan, False

    def win_payments(
        self, hand: HandView, context: WinContext, fan: int | None, limit: bool
    ) -> Payments:
        rules = self.rules
        assert fan is not None
        if context.liable is not None:
            raise RuleError("'liable' is a Hong Kong rule (包); a Sichuan win has no liable player")
        if context.discarder is not None:
            return ((context.discarder, scoring.sichuan_win_amount(rules, fan)),)
        amount = scoring.sichuan_self_draw_amount(rules, fan)
        if context.fed_by is not None and rules.claimed_kong_bloom == "feeder_pays":
            # 点杠花放炮 (variants.md): "only the player who fed that kong pays, what one payer
            # of that self-draw would pay".
            return ((context.fed_by, amount),)
        return tuple([(p, amount) for p in hand.still_in if p != context.winner])

    def hand_ends_after_win(self, hand: HandView) -> bool:
        # Blood battle: play goes on until three players have won; the last cannot win alone.
        # Blood flow (variants.md): only the wall ends the hand.
        return not hand.rules.blood_flow and len(hand.winners) >= 3

    def settle_false_win(
        self, hand: HandView, player: str, line: int | None
    ) -> tuple[Transfer, ...]:
        raise RuleError("a false win (false_win) is a Hong Kong rule; Sichuan has none")

    def winners_leave(self) -> bool:
        # Blood flow (variants.md): "every player stays in until wall_exhausted".
        return not self.rules.blood_flow

    def kong_payments(self, hand: HandView, player: str, kind: str, from_: str | None) -> Payments:
        rules = self.rules
        if from_ is not None and rules.exposed_kong_pays == "everyone":
            # variants.md: "1 × base from every player still in" but the konger, "the
            # discarder too".
            return tuple([(p, rules.base) for p in hand.still_in if p != player])
        amount = scoring.sichuan_kong_amount(rules, kind)
        if from_ is not None:
            return ((from_, amount),)
        return tuple([(p, amount) for p in hand.still_in if p != player])

    def kong_money_passing(
        self, hand: HandView, run: OpenWins, kongs: tuple[int, ...]
    ) -> tuple[tuple[Transfer, ...], tuple[int, ...]]:
        """rules.md, "Kong money passing": the money of every kong the discarder declared since
        their previous discard goes to the winner(s) of that discard; none on a robbing win.
        variants.md: ``kong_passing_scope: "last"`` passes the last kong's money only, and
        ``kong_passing_split: "each_full"`` gives each winner all of it."""
        rules = self.rules
        several = len(run.winners) > 1
        if (
            run.robbing_kong
            or not rules.kong_money_passing
            or (several and rules.kong_passing_split == "none")
        ):
            return (), ()
        if rules.kong_passing_scope == "last":
            kongs = kongs[-1:]
        amount = sum(hand.kongs[k].total for k in kongs)
        winners = tuple(w for w, _ in run.winners)
        lines = dict(run.winners)
        if several and rules.kong_passing_split == "each_full":
            shares: tuple[tuple[str, int], ...] = tuple((w, amount) for w in winners if amount)
        else:
            shares = split_evenly(
                amount, winners, next_in_turn(hand.players, run.discarder, winners)
            )
        passed = tuple(
            Transfer(run.discarder, w, a, "kong_money_passed", lines[w]) for w, a in shares
        )
        return passed, kongs

    def settle_wall(
        self, hand: HandView, remaining: Mapping[str, PlayerAtWallEnd] | None, line: int | None
    ) -> tuple[Transfer, ...]:
        return wall.settle_wall(self.rules, hand, remaining, line)

    def dealer_after(self, hand: HandView) -> str:
        if not hand.first_winners:
            return hand.dealer
        if len(hand.first_winners) == 1:
            return hand.first_winners[0]
        assert hand.first_discarder is not None
        return hand.first_discarder

    def quick_hands(self) -> QuickSichuan | None:
        return QuickSichuan.at(self.rules, self.players)


SICHUAN: Final = Sichuan()
