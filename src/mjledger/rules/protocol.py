"""The values a rule set's hooks take and give (:class:`WinContext`, :class:`WallFacts`,
payments, the quick fold's protocol), and :class:`Ruleset`, the protocol rule sets implemented
before :class:`mjledger.rules.base.BaseRuleset` (hooks that take the house rules on every call;
still accepted from a plugin, with a DeprecationWarning, until 0.3).

A new table-rule variant is an option on a rule set's house-rules class read by one of these
hooks: who pays a win (half gun, liability), whether the hand ends after a win and whether
winners stay in (blood flow), what a kong pays and where kong money passes, the end-of-wall
checks (pig and refund options), the dealer after a void hand.
"""

from __future__ import annotations

from collections.abc import Iterable, Iterator, Mapping, Sequence
from typing import Any, NamedTuple, Protocol, TypeAlias, runtime_checkable

from attrs import frozen

from mjledger.log.events import Event, KongDeclared, WallExhausted
from mjledger.rules.values import HandView, HouseRules, OpenWins, Transfer
from mjledger.tiles.decompose import Shapes
from mjledger.tiles.fan import FanResult, PatternRow, WallStatus
from mjledger.tiles.notation import Meld, Tile

__all__ = [
    "NO_CONTEXT",
    "HandJson",
    "HasQuickHands",
    "HouseRules",
    "Payments",
    "QuickHand",
    "QuickHands",
    "Ruleset",
    "Undecided",
    "WallFacts",
    "WinContext",
]

Payments: TypeAlias = tuple[tuple[str, int] | tuple[str, int, str], ...]
"""``(payer, amount)`` pairs, the payee being the one paid (the winner, the kong's owner); a
third item names a transfer reason other than the event's own (a liable player's ``liability``)."""


@frozen
class WinContext:
    """How a win happened, beyond its tiles: one value instead of a list of keyword flags.

    The fold derives it from the log (a kong just before, nobody discarded yet, ...); the
    ``evaluate`` command builds it from its options. Each rule set reads what it scores.
    """

    winner: str | None = None
    discarder: str | None = None  # who dealt in; None for a self-draw or a bare evaluation
    self_drawn: bool = False
    kong_bloom: bool = False  # self-drawn on the replacement tile of one's own kong
    kong_cannon: bool = False  # won on the discard right after the discarder's kong
    robbing_kong: bool = False
    last_tile: bool = False
    # First turn (variants.md), asserted by the win's "first_turn": heavenly is the dealer's
    # self-draw, earthly a non-dealer's self-draw or win on the dealer's first discard.
    heavenly: bool = False
    earthly: bool = False
    liable: str | None = None  # Hong Kong 包: the player who pays everything the win collects
    # A self-draw on the replacement tile of the winner's exposed kong: who fed that kong.
    fed_by: str | None = None
    seat_wind: str = "east"
    round_wind: str = "east"
    void_suit: str | None = None

    def without_situation(self) -> WinContext:
        """The same seat without how the tile came: what a wait scores (no add-ons)."""
        return WinContext(
            winner=self.winner,
            discarder=self.discarder,
            self_drawn=self.self_drawn,
            seat_wind=self.seat_wind,
            round_wind=self.round_wind,
            void_suit=self.void_suit,
        )


NO_CONTEXT = WinContext()


def first_turn_wins(first_turn: bool, dealer_self_draw: bool) -> tuple[bool, bool]:
    """``(heavenly, earthly)`` of a win whose log asserts ``first_turn`` (variants.md, "First
    turn"): heavenly is the dealer's self-draw, earthly any other first-turn win. Asserted,
    never inferred from discards a log leaves out; the fold, ``evaluate`` and the simulator
    all ask here."""
    return first_turn and dealer_self_draw, first_turn and not dealer_self_draw


@frozen
class WallFacts:
    """What the end-of-wall checks need to know of one player still in."""

    flower_pig: bool
    ready: bool
    best_fan: int = 0


@runtime_checkable
class Ruleset(Protocol):
    """One rule set as a plugin wrote it before :class:`~mjledger.rules.base.BaseRuleset`:
    its data, and hooks that take the house rules on every call. The registry accepts such an
    object with a DeprecationWarning and binds it through
    :class:`~mjledger.rules.legacy.LegacyRuleset`; new rule sets subclass the base.

    Hooks that refuse raise :class:`~mjledger.errors.RuleError` with the problem only; the fold
    adds the line and the event type.
    """

    name: str
    """As a log writes it (``match_started.ruleset``)."""
    title: str
    """As a person reads it in a message ("Hong Kong")."""
    rules_class: type[Any]
    """The house rules: one options object used by settlement and tile evaluation alike."""
    extension_keys: frozenset[str]
    """House-rule keys mjledger adds beyond the contract, written out only when switched on."""
    v1_defaults: Mapping[str, object]
    """The defaults a format-1 stored ``match_started`` meant by leaving a key out."""
    fan_table: tuple[PatternRow, ...]
    void_suits: bool
    """Whether players choose a void suit (``void_suit_chosen`` is part of play)."""
    round_winds: bool
    """Whether hands are played in a round wind that a stand-alone hand may name."""
    waits_with_add_ons: bool
    """Whether ``mjledger evaluate`` scores a hand's waits with the situational add-ons given
    (Sichuan leaves them out: its best hand at an empty wall never counts them)."""

    # --- tiles ------------------------------------------------------------------------------
    def shapes(self, rules: HouseRules) -> Shapes: ...

    def evaluate_win(
        self,
        rules: HouseRules,
        tiles: Iterable[Tile],
        winning_tile: Tile,
        melds: Sequence[Meld],
        context: WinContext,
    ) -> FanResult: ...

    def evaluate_wall(
        self, rules: HouseRules, tiles: Iterable[Tile], melds: Sequence[Meld], void_suit: str | None
    ) -> WallStatus: ...

    # --- scoring a win --------------------------------------------------------------------
    def claimed_fan(
        self, rules: HouseRules, fan: int | None, limit: bool, *, has_tiles: bool
    ) -> tuple[int | None, bool]:
        """Check a win's claimed fan/limit (without tiles: the fan it is paid on)."""
        ...

    def minimum_fan(self, rules: HouseRules) -> int: ...

    def win_payments(
        self,
        rules: HouseRules,
        hand: HandView,
        context: WinContext,
        fan: int | None,
        limit: bool,
    ) -> Payments:
        """Who pays a win, and how much each."""
        ...

    def hand_ends_after_win(self, hand: HandView) -> bool: ...

    def winners_leave(self, rules: HouseRules) -> bool:
        """Whether a winner takes no further part in the hand (blood flow keeps them in)."""
        ...

    def settle_false_win(
        self, rules: HouseRules, hand: HandView, player: str, line: int | None
    ) -> tuple[Transfer, ...]:
        """What a false win (詐糊) costs its player; refuses it where the rule set has none.
        The hand then ends void."""
        ...

    # --- kongs ----------------------------------------------------------------------------
    def kong_payments(self, rules: HouseRules, hand: HandView, event: KongDeclared) -> Payments:
        """What a kong collects at once (kept: it may still pass on or be refunded)."""
        ...

    def kong_money_passing(
        self, rules: HouseRules, hand: HandView, run: OpenWins, kongs: tuple[int, ...]
    ) -> tuple[tuple[Transfer, ...], tuple[int, ...]]:
        """When a run of wins on one discard closes: the discarder's kongs' money that passes
        (what each winner is due), and which of ``kongs`` count as passed."""
        ...

    # --- the end of a hand ----------------------------------------------------------------
    def settle_wall(
        self, rules: HouseRules, hand: HandView, event: WallExhausted, line: int | None
    ) -> tuple[Transfer, ...]:
        """The end-of-wall checks; refuses a ``remaining`` the rule set does not take."""
        ...

    def dealer_after(self, hand: HandView) -> str: ...

    def round_ends(self, hand: HandView, dealer: str, first_dealer: str | None) -> bool:
        """Whether the deal passing to ``dealer`` ends the round (the round wind moves on)."""
        ...


HandJson: TypeAlias = dict[str, Any]
"""One hand of the replay output, as log-format.md's "Replay output" writes it."""


class Undecided(Exception):  # noqa: N818 - not an error: nothing is refused
    """A quick fold leaves the hand to the general fold, which decides it (and refuses it
    where it must). Never reaches a caller of the library."""


class QuickHand(NamedTuple):
    """A hand a quick fold settled, in plain values: what ``replay --json`` writes of it (the
    fields are its output's keys, in the output's order: :meth:`_asdict` is the hand's
    output) and what recording stores of it (its start and its closing, in their stored
    forms), each read off this value, never one off the other."""

    number: int
    dealer: str
    dealer_streak: int
    round_wind: str
    outcome: str  # "won" or "void": a quick fold settles only hands that have ended
    winners: list[str]
    transfers: list[dict[str, Any]]
    net: dict[str, int]
    next_dealer: str


class QuickHands(Protocol):
    """A rule set's quick fold of one table, for ``replay --json`` and recording: the common
    hand settled in one loop over plain values, into a :class:`QuickHand` (see
    :mod:`mjledger.rules.sichuan.quick`). Offered only for a table whose round wind never
    changes and whose match never ends but with its log (no table stakes): what comes after
    a hand is then its next dealer alone."""

    def fold(
        self,
        number: int,
        dealer: str,
        streak: int,
        events: Iterator[tuple[int | None, Event]],
        drawn: list[tuple[int | None, Event]],
    ) -> QuickHand:
        """Hand ``number`` settled, with who deals next (its ``hand_started`` read; its events
        drawn from ``events``, each appended to ``drawn``), once the hand has ended;
        raises :class:`Undecided` wherever the general fold must decide."""
        ...


@runtime_checkable
class HasQuickHands(Protocol):
    """A rule set of the :class:`Ruleset` protocol that has a quick fold (a
    :class:`~mjledger.rules.base.BaseRuleset` overrides ``quick_hands()`` instead)."""

    def quick_hands(self, rules: HouseRules, players: tuple[str, ...]) -> QuickHands | None:
        """The quick fold of a table with these house rules and players, or None where its
        options ask for the general fold."""
        ...
