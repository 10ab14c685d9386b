"""The Sichuan (blood battle) rule set, where it differs from the neutral table
(:mod:`mjledger.rules.base`): play goes on until three have won, kongs pay at
once and their money may pass to a discard's winners, and the empty wall settles readiness
(rules.md, "Sichuan")."""

from __future__ import annotations

from collections.abc import Iterable, Mapping, Sequence
from typing import Final

from mjledger.errors import RuleError
from mjledger.log.events import PlayerAtWallEnd
from mjledger.rules import explained
from mjledger.rules.base import N_, BaseRuleset, SimulatedPlay
from mjledger.rules.protocol import Payments, WinContext
from mjledger.rules.sichuan import scoring, settle, wall, why
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
    simulated_play = SimulatedPlay(tile_kinds=27, marks_kongs_from_hand=True)

    rules: SichuanRules

    def shapes(self) -> Shapes:
        return SICHUAN_SHAPES

    def evaluate_win(
        self,
        tiles: Iterable[Tile],
        winning_tile: Tile,
        melds: Sequence[Meld],
        context: WinContext,
        *,
        counts: Sequence[int] | None = None,
    ) -> FanResult:
        return evaluate_sichuan_win(tiles, winning_tile, melds, context, self.rules, counts=counts)

    def evaluate_wall(
        self, tiles: Iterable[Tile], melds: Sequence[Meld], void_suit: str | None
    ) -> WallStatus:
        return evaluate_sichuan_wall(tiles, melds, void_suit=void_suit, rules=self.rules)

    def claimed_fan(
        self, fan: int | None, limit: bool, *, has_tiles: bool
    ) -> tuple[int | None, bool]:
        if limit:
            raise RuleError(
                "'limit' is a Hong Kong rule; a Sichuan win has no limit hand",
                code="wrong_ruleset",
            )
        if fan is None and not has_tiles:
            raise RuleError("a Sichuan win needs 'fan' (or its tiles)")
        return fan, False

    def win_payments(
        self, hand: HandView, context: WinContext, fan: int | None, limit: bool
    ) -> Payments:
        rules = self.rules
        assert fan is not None
        if context.liable is not None:
            raise RuleError(
                "'liable' is a Hong Kong rule (包); a Sichuan win has no liable player",
                code="wrong_ruleset",
            )
        notes = explained.notes()
        if context.discarder is not None:
            if notes is not None:
                why.discard_win(notes, rules, context, fan)
            return ((context.discarder, scoring.sichuan_win_amount(rules, fan)),)
        amount = scoring.sichuan_self_draw_amount(rules, fan)
        payers = [p for p in hand.still_in if p != context.winner]
        if notes is not None:
            why.self_draw(notes, rules, context, fan, payers)
        if context.fed_by is not None and rules.claimed_kong_bloom == "feeder_pays":
            # 点杠花放炮 (variants.md): "only the player who fed that kong pays, what one payer
            # of that self-draw would pay".
            return ((context.fed_by, amount),)
        return tuple([(p, amount) for p in payers])

    def hand_ends_after_win(self, hand: HandView) -> bool:
        return settle.ends_after_win(self.rules, hand.winners)

    def settle_false_win(
        self, hand: HandView, player: str, line: int | None
    ) -> tuple[Transfer, ...]:
        """诈胡 (variants.md, ``sichuan_false_win: "flat"``): ``8 × base`` to each other player
        still in, and the offender's kong money not yet passed or refunded goes back."""
        rules = self.rules
        if rules.sichuan_false_win != "flat":
            raise RuleError(
                'a false win (false_win) is a Sichuan rule only under sichuan_false_win "flat"',
                code="wrong_ruleset",
            )
        kongs = [(k.player, k.payments) for k in hand.kongs]
        dues = settle.false_win_dues(rules, player, hand.still_in, kongs, hand.passed)
        transfers = tuple(Transfer(a, b, amount, reason, line) for a, b, amount, reason in dues)
        notes = explained.notes()
        if notes is not None:
            why.false_win(notes, rules, hand, player, transfers)
        return transfers

    def false_win_ends_hand(self) -> bool:
        # variants.md, 诈胡: "the hand goes on and the offender stays in it".
        return False

    def false_win_returns(self, hand: HandView, player: str) -> tuple[int, ...]:
        kongs = [(k.player, k.payments) for k in hand.kongs]
        return settle.false_win_returns(player, kongs, hand.passed)

    def winners_leave(self) -> bool:
        return settle.winners_leave(self.rules)

    def kong_payments(self, hand: HandView, player: str, kind: str, from_: str | None) -> Payments:
        rules = self.rules
        dues = settle.kong_dues(rules, player, kind, from_, hand.still_in)
        notes = explained.notes()
        if notes is not None:
            why.kong(notes, rules, player, kind, from_, [p for p, _ in dues])
        return dues

    def kong_money_passing(
        self, hand: HandView, run: OpenWins, kongs: tuple[int, ...]
    ) -> tuple[tuple[Transfer, ...], tuple[int, ...]]:
        """rules.md, "Kong money passing": the money of every kong the discarder declared since
        their previous discard goes to the winner(s) of that discard; none on a robbing win.
        variants.md: ``kong_passing_scope: "last"`` passes the last kong's money only, and
        ``kong_passing_split: "each_full"`` gives each winner all of it."""
        rules = self.rules
        kept = settle.money_kept(rules, run.robbing_kong, len(run.winners) > 1)
        if kept is None and settle.refunds_instead(rules):
            return self._refund_on_deal_in(hand, run, kongs)
        passing: tuple[int, ...] = ()
        passed: tuple[Transfer, ...] = ()
        if kept is None:
            passing = settle.kongs_passing(rules, kongs)
            amount = sum(hand.kongs[k].total for k in passing)
            lines = dict(run.winners)
            winners = tuple(lines)
            shares = settle.passing_shares(rules, hand.players, run.discarder, winners, amount)
            passed = tuple(
                Transfer(run.discarder, w, a, "kong_money_passed", lines[w]) for w, a in shares
            )
        notes = explained.notes()
        if notes is not None:
            why.passing(notes, rules, hand, run, kongs, kept, passed)
        return passed, passing

    def _refund_on_deal_in(
        self, hand: HandView, run: OpenWins, window: tuple[int, ...]
    ) -> tuple[tuple[Transfer, ...], tuple[int, ...]]:
        """variants.md, ``kong_money_passing: "refund"``: once per discard, the window's last
        kong goes back to its payers, every transfer on the line of the run's first win."""
        kongs = [(k.player, k.payments) for k in hand.kongs]
        refunded, dues = settle.refund_on_deal_in(run.discarder, window, kongs)
        line = run.winners[0][1]
        transfers = tuple(Transfer(a, b, amount, "kong_refund", line) for a, b, amount in dues)
        notes = explained.notes()
        if notes is not None:
            why.refund_on_deal_in(notes, hand, run, window, transfers)
        return transfers, refunded

    def kong_from_hand_payments(self, hand: HandView, player: str, from_hand: bool) -> Payments:
        """variants.md, "Added kong from hand": a Sichuan field; under
        ``added_kong_from_hand: "unpaid"`` such a kong collects nothing, else it pays as any
        added kong."""
        if not settle.kong_from_hand_unpaid(self.rules, from_hand):
            return self.kong_payments(hand, player, "added", None)
        notes = explained.notes()
        if notes is not None:
            why.kong_unpaid(notes, player)
        return ()

    def wall_players(self, hand: HandView) -> tuple[str, ...]:
        return settle.wall_players(self.rules, hand.players, hand.still_in, hand.winners)

    def settle_wall(
        self, hand: HandView, remaining: Mapping[str, PlayerAtWallEnd] | None, line: int | None
    ) -> tuple[Transfer, ...]:
        return wall.settle_wall(self.rules, hand, remaining, line)

    def dealer_after(self, hand: HandView) -> str:
        return settle.next_dealer(hand.dealer, hand.first_winners, hand.first_discarder)

    def quick_hands(self) -> QuickSichuan | None:
        return QuickSichuan.at(self)


SICHUAN: Final = Sichuan()
