"""The base rule set: neutral defaults, bound to its table once (python-chess's variants: each
variant subclasses the board and overrides only what differs).

A rule set is a subclass of :class:`BaseRuleset` that says what it is (a name, its house-rules
class, its fan table) and overrides the hooks where it differs from the neutral table: a win
ends the hand and its winner leaves, kongs pay nothing, the empty wall settles nothing, the
deal passes unless the dealer won, a round never ends, and there is no false win, no limit
hand and no quick fold. The registry holds one unbound object per rule set;
:meth:`BaseRuleset.bind` gives the rule set of one table — its house rules and its players —
which is what the folds, the simulator and the commands ask, so no hook takes the rules again.

Hooks take the hand (:class:`~mjledger.rules.values.HandView`) and plain facts, never a log
event; those that refuse raise :class:`~mjledger.errors.RuleError` with the problem only (the
fold adds the line and the event type). The table's minimum fan is the fold's to enforce, for
every win, asserted or from tiles: a rule set only says what it is (:meth:`minimum_fan`).
"""

from __future__ import annotations

import copy
import functools
from collections.abc import Callable, Iterable, Mapping, Sequence
from types import MappingProxyType
from typing import Any, Final, Self

from attrs import frozen

from mjledger.errors import RuleError, TileError
from mjledger.log.events import PlayerAtWallEnd
from mjledger.rules.explained import N_ as N_  # the catalogs' mark, for a rule set's title
from mjledger.rules.protocol import HouseRules, Payments, QuickHands, WinContext
from mjledger.rules.values import HandView, OpenWins, Transfer
from mjledger.tiles.decompose import Shapes, arrangements, waits
from mjledger.tiles.fan import FanResult, PatternRow, WallStatus
from mjledger.tiles.notation import Meld, Tile

# Four sets and a pair, nothing else: the neutral table's one hand shape.
STANDARD_SHAPES = Shapes(seven_pairs=False, quad_as_two_pairs=False, thirteen_orphans=False)


@frozen
class SimulatedPlay:
    """What the simulator (:mod:`mjledger.sim`) needs to deal and play a rule set's hands:
    a rule set that has none is not simulated (``simulate`` refuses it by name)."""

    tile_kinds: int
    """Kinds of tile in the wall, four of each: 27 (the three suits) or 34 (honours too)."""
    dead_wall: int = 0
    """Tiles at the end of the wall that are never drawn."""
    aims_for_minimum: bool = False
    """Whether the players aim for a pattern worth the table's minimum fan (else for value,
    keeping every suit but their void suit)."""
    chows: bool = False
    """Whether the next player may claim a discard for a chow."""
    one_winner_per_discard: bool = False
    """Whether only the first in turn after the discarder wins on a discard (head bump)."""
    marks_kongs_from_hand: bool = False
    """Whether the log marks an added kong made with a tile already held (``from_hand``)."""


class BaseRuleset:
    """A rule set with neutral defaults; subclasses override what differs. Unbound (the object
    the registry holds) it says what the rule set is; :meth:`bind` gives it a table."""

    # --- what the rule set is -----------------------------------------------------------------
    name: str
    """As a log writes it (``match_started.ruleset``)."""
    title: str = ""
    """As a person reads it in a message ("Hong Kong"); the name, capitalised, if not given."""
    title_message: str | None = None
    """The message id of its title in the explanations' catalogs (mjledger/locale), where
    they translate it; None: every language shows :attr:`title`."""
    rules_class: type[Any]
    """The house rules: a frozen attrs class whose defaults are the log's and whose
    construction refuses what is out of range (FormatError)."""
    extension_keys: frozenset[str] = frozenset()
    """House-rule keys mjledger adds beyond the contract, written out only when switched on."""
    v1_defaults: Mapping[str, object] = MappingProxyType({})
    """The defaults a format-1 stored ``match_started`` meant by leaving a key out."""
    fan_table: tuple[PatternRow, ...] = ()
    void_suits: bool = False
    """Whether players choose a void suit (``void_suit_chosen`` is part of play)."""
    round_winds: bool = False
    """Whether hands are played in a round wind that a stand-alone hand may name."""
    waits_with_add_ons: bool = False
    """Whether ``mjledger evaluate`` scores a hand's waits with the situational add-ons given."""
    wall_remaining: bool = False
    """Whether ``wall_exhausted`` names each player still in (its ``remaining``: ready or
    not, with their tiles or without) for the empty wall's checks, or carries nothing."""
    simulated_play: SimulatedPlay | None = None
    """How the simulator plays it; None: the simulator refuses it."""

    # --- the table it is bound to ---------------------------------------------------------------
    rules: HouseRules
    players: tuple[str, ...]

    def __init_subclass__(cls, **kwargs: Any) -> None:
        super().__init_subclass__(**kwargs)
        if not cls.__dict__.get("title") and "name" in cls.__dict__:
            cls.title = cls.name.capitalize()
        own = cls.__dict__.get("evaluate_win")
        if own is not None and not _takes_counts(own):
            cls.evaluate_win = _without_counts(own)  # type: ignore[method-assign]

    def bind(self, rules: HouseRules, players: tuple[str, ...]) -> Self:
        """This rule set at one table: its house rules and players (``self`` is unchanged)."""
        bound = copy.copy(self)
        bound.rules = rules
        bound.players = players
        return bound

    # --- tiles ----------------------------------------------------------------------------------
    def shapes(self) -> Shapes:
        return STANDARD_SHAPES

    def evaluate_win(
        self,
        tiles: Iterable[Tile],
        winning_tile: Tile,
        melds: Sequence[Meld],
        context: WinContext,
        *,
        counts: Sequence[int] | None = None,
    ) -> FanResult:
        """The fan of a win from its tiles (TileError when they do not win): 0 fan, here.

        ``counts``: the 34-slot count vector of ``tiles`` and the winning tile (not the
        melds'), where the caller has made it (the fold does, for the line's check of
        copies): the tiles need not be counted again. None: count them."""
        found = arrangements((*tiles, winning_tile), melds, self.shapes(), counts=counts)
        if not found:
            raise TileError("not a complete hand")
        return FanResult(0, (), found[0])

    def evaluate_wall(
        self, tiles: Iterable[Tile], melds: Sequence[Meld], void_suit: str | None
    ) -> WallStatus:
        found = waits(tiles, melds, self.shapes())
        return WallStatus(flower_pig=False, ready=bool(found), best_fan=None, waits=found)

    # --- scoring a win --------------------------------------------------------------------------
    def claimed_fan(
        self, fan: int | None, limit: bool, *, has_tiles: bool
    ) -> tuple[int | None, bool]:
        """Check a win's claimed fan and limit (without tiles: the fan it is paid on). The fold
        then holds it to :meth:`minimum_fan`."""
        if limit:
            raise RuleError(
                f"'limit' is not a {self.title} rule; a win has no limit hand", code="wrong_ruleset"
            )
        if fan is None and not has_tiles:
            raise RuleError(f"a {self.title} win needs 'fan' (or its tiles)")
        return fan, False

    def minimum_fan(self) -> int:
        """The least fan a win may have at this table (a limit hand always may)."""
        return 0

    def win_payments(
        self, hand: HandView, context: WinContext, fan: int | None, limit: bool
    ) -> Payments:
        """Who pays a win, and how much each: what every rule set must say."""
        raise NotImplementedError(f"{type(self).__name__} does not say who pays a win")

    def hand_ends_after_win(self, hand: HandView) -> bool:
        return True

    def winners_leave(self) -> bool:
        """Whether a winner takes no further part in the hand."""
        return True

    def settle_false_win(
        self, hand: HandView, player: str, line: int | None
    ) -> tuple[Transfer, ...]:
        """What a false win costs its player; refused where the rule set has none."""
        raise RuleError(f"a false win (false_win) is not a {self.title} rule", code="wrong_ruleset")

    def false_win_ends_hand(self) -> bool:
        """Whether a false win ends the hand, void (else play goes on and the offender's kong
        window is emptied)."""
        return True

    def false_win_returns(self, hand: HandView, player: str) -> tuple[int, ...]:
        """Which of the hand's kongs a false win by ``player`` gives the money of back (they
        then count as passed: the wall never refunds them again): none, here."""
        return ()

    # --- kongs ----------------------------------------------------------------------------------
    def kong_payments(self, hand: HandView, player: str, kind: str, from_: str | None) -> Payments:
        """What ``player``'s kong of ``kind`` (claimed from ``from_``'s discard, for an exposed
        one) collects at once: nothing, here."""
        return ()

    def kong_from_hand_payments(self, hand: HandView, player: str, from_hand: bool) -> Payments:
        """What ``player``'s added kong collects where its line says whether it was made from
        a tile already held (``from_hand``, variants.md): refused here, as a field the rule
        set does not know."""
        raise RuleError(
            f"'from_hand' is not a {self.title} field; a kong here carries none",
            code="wrong_ruleset",
        )

    def kong_money_passing(
        self, hand: HandView, run: OpenWins, kongs: tuple[int, ...]
    ) -> tuple[tuple[Transfer, ...], tuple[int, ...]]:
        """When a run of wins on one discard closes: the discarder's kongs' money that passes,
        and which of ``kongs`` count as passed. None passes, here."""
        return (), ()

    # --- the end of a hand ----------------------------------------------------------------------
    def wall_players(self, hand: HandView) -> tuple[str, ...]:
        """Who the empty wall's checks take in (and a ``remaining`` names): the players
        still in, here."""
        return tuple(hand.still_in)

    def settle_wall(
        self, hand: HandView, remaining: Mapping[str, PlayerAtWallEnd] | None, line: int | None
    ) -> tuple[Transfer, ...]:
        """The end-of-wall checks, given what the log says of each player still in; nothing
        is settled here, and a ``remaining`` is refused."""
        if remaining is not None:
            raise RuleError(
                f"a {self.title} wall_exhausted carries no 'remaining'", code="wrong_ruleset"
            )
        return ()

    def void_hand_passes(self) -> bool:
        """Whether the deal passes after a hand nobody won (:meth:`dealer_after`)."""
        return True

    def dealer_after(self, hand: HandView) -> str:
        """Who deals next: the dealer again after a dealer win, else the next seat (after a
        void hand, as :meth:`void_hand_passes` says)."""
        stays = hand.winners[0] == hand.dealer if hand.winners else not self.void_hand_passes()
        if stays:
            return hand.dealer
        return hand.players[(hand.players.index(hand.dealer) + 1) % len(hand.players)]

    def round_ends(self, hand: HandView, dealer: str, first_dealer: str | None) -> bool:
        """Whether the deal passing to ``dealer`` ends the round (the round wind moves on)."""
        return False

    def quick_hands(self) -> QuickHands | None:
        """The quick fold of this table (see :class:`~mjledger.rules.protocol.QuickHands`), or
        None: the general fold, which is always exact."""
        return None


def _takes_counts(evaluate: Callable[..., FanResult]) -> bool:
    """Whether a rule set's own ``evaluate_win`` takes the ``counts`` the fold gives (a plain
    function naming it, or taking ``**kwargs``); one that is not a plain function is called
    as it is."""
    code = getattr(evaluate, "__code__", None)
    if code is None:
        return True
    named = code.co_varnames[: code.co_argcount + code.co_kwonlyargcount]
    return "counts" in named or bool(code.co_flags & _VARKEYWORDS)


_VARKEYWORDS: Final = 0x08  # inspect.CO_VARKEYWORDS (not imported: start-up)


def _without_counts(evaluate: Callable[..., FanResult]) -> Callable[..., FanResult]:
    """An ``evaluate_win`` written before it took ``counts`` (which it counts itself), as
    the fold calls it: the counts are left out of the call."""

    @functools.wraps(evaluate)
    def evaluate_win(
        self: BaseRuleset,
        tiles: Iterable[Tile],
        winning_tile: Tile,
        melds: Sequence[Meld],
        context: WinContext,
        *,
        counts: Sequence[int] | None = None,
    ) -> FanResult:
        return evaluate(self, tiles, winning_tile, melds, context)

    return evaluate_win


__all__ = ["N_", "STANDARD_SHAPES", "BaseRuleset", "SimulatedPlay"]
