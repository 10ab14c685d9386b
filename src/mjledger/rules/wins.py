"""A win's context and the fan it is paid on, each stated once for every fold.

How a win happened (its :class:`~mjledger.rules.protocol.WinContext`: kong bloom, kong
cannon, the seat, the void suit) is read off the hand so far, since the log never says it
outright; the fan is asserted, or derived from the win's tiles, and held to the table's
minimum here. The general fold (:mod:`mjledger.fold.wins`) reads both off its hand in play, a
rule set's quick fold (:mod:`mjledger.rules.sichuan.quick`) off its own working hand: each is
a :class:`WinView`, so a win settled either way is settled by these same statements.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Final, Protocol

from mjledger._replace import constructor
from mjledger.errors import RuleError, TileError
from mjledger.log.events import SelfDrawn, WonOnDiscard, win_has_tiles
from mjledger.rules.base import BaseRuleset
from mjledger.rules.protocol import WinContext, first_turn_wins
from mjledger.rules.refusals import refusal
from mjledger.rules.tiles import derive_win, seat_wind
from mjledger.rules.values import void_suit_of
from mjledger.tiles.fan import FanResult
from mjledger.tiles.notation import Wind

__all__ = ["WinView", "fan_of", "win_context"]

# A win's context, built without running attrs' ``__init__`` (every win makes one).
_new_context: Final = constructor(WinContext)


class KongFed(Protocol):
    """A kong as a win's context reads it: who fed it (an exposed kong's discarder)."""

    @property
    def fed_by(self) -> str | None: ...


class WinView(Protocol):
    """What a win's context is read off: a :class:`~mjledger.rules.values.HandView` (the
    general fold's hand), or a quick fold's working hand holding the same facts."""

    @property
    def players(self) -> tuple[str, ...]: ...
    @property
    def dealer(self) -> str: ...
    @property
    def round_wind(self) -> Wind: ...
    @property
    def void_suits(self) -> tuple[tuple[str, str], ...]: ...
    @property
    def kongs(self) -> Sequence[KongFed]: ...
    @property
    def kong_runs(self) -> Sequence[Sequence[int]]: ...
    @property
    def last_kong_by(self) -> str | None: ...


def win_context(hand: WinView, event: WonOnDiscard | SelfDrawn) -> WinContext:
    """How the win happened, read off the hand so far (the log never says it outright)."""
    winner = event.player
    if isinstance(event, SelfDrawn):
        self_drawn, discarder, kong_cannon, robbing_kong = True, None, False, False
        kong_bloom = hand.last_kong_by == winner
        # The replacement tile of the winner's exposed kong: that kong was the hand's last line.
        fed_by = hand.kongs[-1].fed_by if kong_bloom else None
        dealer_self_draw = winner == hand.dealer
    else:
        self_drawn, discarder, kong_bloom, fed_by = False, event.from_, False, None
        robbing_kong = event.robbing_kong
        kong_cannon = not robbing_kong and bool(hand.kong_runs[hand.players.index(discarder)])
        dealer_self_draw = False
    heavenly, earthly = first_turn_wins(event.first_turn, dealer_self_draw)
    return _new_context(
        winner=winner,
        discarder=discarder,
        self_drawn=self_drawn,
        kong_bloom=kong_bloom,
        kong_cannon=kong_cannon,
        robbing_kong=robbing_kong,
        last_tile=event.last_tile,
        heavenly=heavenly,
        earthly=earthly,
        liable=event.liable,
        fed_by=fed_by,
        seat_wind=seat_wind(hand.players, hand.dealer, winner),
        round_wind=hand.round_wind,
        void_suit=void_suit_of(hand.void_suits, winner),
    )


def fan_of(
    table: BaseRuleset, event: WonOnDiscard | SelfDrawn, context: WinContext, line: int | None
) -> tuple[int | None, bool]:
    """The fan a win is paid on and whether it is a limit hand. The one place that holds
    every win to the table's minimum fan, asserted or from tiles (a limit hand always may)."""
    has_tiles = win_has_tiles(event)
    fan, limit = table.claimed_fan(event.fan, event.limit, has_tiles=has_tiles)
    if not has_tiles:
        minimum = table.minimum_fan()
        if not limit and fan is not None and fan < minimum:
            raise refusal(
                event,
                line,
                f"fan {fan} is below the table minimum of {minimum}",
                "below_minimum_fan",
            )
        return fan, limit
    return _fan_from_tiles(table, event, context, line)


def _fan_from_tiles(
    table: BaseRuleset, event: WonOnDiscard | SelfDrawn, context: WinContext, line: int | None
) -> tuple[int | None, bool]:
    """The fan a win with tiles is paid on: the tiles', which the log may only repeat."""

    def refuse(problem: str, code: str = "bad_tiles") -> RuleError:
        return refusal(event, line, problem, code)

    try:
        result = derive_win(table, event, context)
    except TileError as exc:
        raise refuse(str(exc)) from None
    if result.limit:
        # A limit hand is worth the limit "whatever its fan" (rules.md), so a fan given with
        # "limit": true is not compared; a fan given as a plain win contradicts the tiles.
        if event.fan is not None and not event.limit:
            raise refuse(
                f"the log gives fan {event.fan}, but the tiles make a limit hand "
                f"({_breakdown(result)})"
            )
        return result.fan, True
    if event.limit:
        raise refuse(
            f"the log claims a limit hand, but the tiles make {result.fan} fan "
            f"({_breakdown(result)})"
        )
    if event.fan is not None and event.fan != result.fan:
        raise refuse(
            f"the log gives fan {event.fan}, but the tiles make {result.fan} ({_breakdown(result)})"
        )
    minimum = table.minimum_fan()
    if result.fan < minimum:
        raise refuse(
            f"the tiles make {result.fan} fan ({_breakdown(result)}), below the table minimum "
            f"of {minimum}",
            "below_minimum_fan",
        )
    return result.fan, False


def _breakdown(result: FanResult) -> str:
    """A result's patterns as a refusal shows them (written only when a win is refused)."""
    return ", ".join(f"{p.code} {p.fan}" for p in result.patterns)
