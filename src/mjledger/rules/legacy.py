"""A rule set written against the :class:`~mjledger.rules.protocol.Ruleset` protocol of 0.1
(hooks that take the house rules on every call, a kong or an empty wall as its log event),
bound to its table as a :class:`~mjledger.rules.base.BaseRuleset`.

The registry wraps such a plugin in :class:`LegacyRuleset` with a DeprecationWarning naming the
new spelling, so that it keeps working unchanged until 0.3 (CHANGELOG.md). Everything the
plugin defines beyond the protocol is still reached through the wrapper.
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping, Sequence
from typing import Any

from mjledger.log.events import KongDeclared, KongKind, PlayerAtWallEnd, WallExhausted
from mjledger.rules.base import BaseRuleset
from mjledger.rules.protocol import HasQuickHands, Payments, QuickHands, Ruleset, WinContext
from mjledger.rules.values import HandView, OpenWins, Transfer
from mjledger.tiles.decompose import Shapes
from mjledger.tiles.fan import FanResult, WallStatus
from mjledger.tiles.notation import Meld, Tile

# The protocol's data, copied onto the wrapper (the rest is reached through ``__getattr__``).
_DATA = (
    "name",
    "title",
    "rules_class",
    "extension_keys",
    "v1_defaults",
    "fan_table",
    "void_suits",
    "round_winds",
    "waits_with_add_ons",
)

DEPRECATION = (
    "rule set {name!r} implements the Ruleset protocol of 0.1, whose hooks take the house rules "
    "on every call; subclass mjledger.rules.BaseRuleset instead (hooks read self.rules, "
    "kong_payments takes (hand, player, kind, from_), settle_wall takes (hand, remaining, "
    "line)): the old protocol is accepted until 0.3"
)


class LegacyRuleset(BaseRuleset):
    """``ruleset`` (of the 0.1 protocol), as a base rule set: each hook passes the bound house
    rules on, and rebuilds the log event an old hook expects from the plain facts."""

    name = "legacy"  # replaced per instance by the wrapped rule set's

    def __init__(self, ruleset: Ruleset) -> None:
        self.legacy = ruleset
        for attr in _DATA:
            setattr(self, attr, getattr(ruleset, attr))
        # 0.1 rule sets did not say how the simulator plays them (it refuses them), nor
        # whether their empty wall names the players still in (a void hand's wall does not).
        self.simulated_play = getattr(ruleset, "simulated_play", None)
        self.wall_remaining = getattr(ruleset, "wall_remaining", False)

    def __getattr__(self, attr: str) -> Any:
        if attr.startswith("__") or attr == "legacy":
            raise AttributeError(attr)
        return getattr(self.legacy, attr)

    def shapes(self) -> Shapes:
        return self.legacy.shapes(self.rules)

    def evaluate_win(
        self,
        tiles: Iterable[Tile],
        winning_tile: Tile,
        melds: Sequence[Meld],
        context: WinContext,
        *,
        counts: Sequence[int] | None = None,
    ) -> FanResult:
        # The 0.1 hook takes no counts: it counts the tiles itself, as it always has.
        return self.legacy.evaluate_win(self.rules, tiles, winning_tile, melds, context)

    def evaluate_wall(
        self, tiles: Iterable[Tile], melds: Sequence[Meld], void_suit: str | None
    ) -> WallStatus:
        return self.legacy.evaluate_wall(self.rules, tiles, melds, void_suit)

    def claimed_fan(
        self, fan: int | None, limit: bool, *, has_tiles: bool
    ) -> tuple[int | None, bool]:
        return self.legacy.claimed_fan(self.rules, fan, limit, has_tiles=has_tiles)

    def minimum_fan(self) -> int:
        return self.legacy.minimum_fan(self.rules)

    def win_payments(
        self, hand: HandView, context: WinContext, fan: int | None, limit: bool
    ) -> Payments:
        return self.legacy.win_payments(self.rules, hand, context, fan, limit)

    def hand_ends_after_win(self, hand: HandView) -> bool:
        return self.legacy.hand_ends_after_win(hand)

    def winners_leave(self) -> bool:
        return self.legacy.winners_leave(self.rules)

    def settle_false_win(
        self, hand: HandView, player: str, line: int | None
    ) -> tuple[Transfer, ...]:
        return self.legacy.settle_false_win(self.rules, hand, player, line)

    def kong_payments(self, hand: HandView, player: str, kind: str, from_: str | None) -> Payments:
        event = KongDeclared(player=player, kind=_kind(kind), from_=from_)
        return self.legacy.kong_payments(self.rules, hand, event)

    def kong_money_passing(
        self, hand: HandView, run: OpenWins, kongs: tuple[int, ...]
    ) -> tuple[tuple[Transfer, ...], tuple[int, ...]]:
        return self.legacy.kong_money_passing(self.rules, hand, run, kongs)

    def settle_wall(
        self, hand: HandView, remaining: Mapping[str, PlayerAtWallEnd] | None, line: int | None
    ) -> tuple[Transfer, ...]:
        event = WallExhausted(remaining=None if remaining is None else dict(remaining))
        return self.legacy.settle_wall(self.rules, hand, event, line)

    def dealer_after(self, hand: HandView) -> str:
        return self.legacy.dealer_after(hand)

    def round_ends(self, hand: HandView, dealer: str, first_dealer: str | None) -> bool:
        return self.legacy.round_ends(hand, dealer, first_dealer)

    def quick_hands(self) -> QuickHands | None:
        if not isinstance(self.legacy, HasQuickHands):
            return None
        return self.legacy.quick_hands(self.rules, self.players)


def _kind(kind: str) -> KongKind:
    assert kind in ("exposed", "added", "concealed")
    return kind  # type: ignore[return-value]
