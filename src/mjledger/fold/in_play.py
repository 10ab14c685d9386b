"""The hand in play as one mutable working state, :class:`HandFold`, changed in place by
each event.

Copying the twenty-odd fields of a frozen :class:`HandState` on every event was most of the
time a replay took, so the fold keeps one working copy of the hand instead. Its fields hold
frozen values only, and it becomes a :class:`HandState` (:meth:`HandFold.freeze`) wherever a
hand leaves the fold. What changes it — the events' handlers, their dues — is in the modules
above it (:mod:`.hand` dispatches to them); this module is only the state and how it is
copied, so that each of them can import it.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Final

import attrs

from mjledger._replace import copier
from mjledger.log.events import Wind
from mjledger.rules.base import BaseRuleset
from mjledger.rules.protocol import HouseRules
from mjledger.rules.registry import table_of
from mjledger.rules.state import HandState
from mjledger.rules.table import Stakes
from mjledger.rules.values import (
    KongPayment,
    OpenWins,
    Outcome,
    Transfer,
    net_of,
    outcome_of,
    still_in_of,
    void_suit_of,
)

__all__ = ["HandFold", "end_kong_run"]


class HandFold:
    """The working state of the hand in play: :class:`HandState`'s fields, each holding a
    frozen value, replaced in place by the fold (:func:`mjledger.fold.hand.apply_event`).
    Rule sets read it as they read a :class:`HandState` (both are a
    :class:`~mjledger.rules.state.HandView`)."""

    __slots__ = (
        "_seat",
        "_table",
        "_winners_leave",
        "dealer",
        "dealer_streak",
        "discarders",
        "ended",
        "false_win_by",
        "first_discarder",
        "first_run_open",
        "first_winners",
        "kong_runs",
        "kongs",
        "last_kong_by",
        "next_dealer",
        "number",
        "open_wins",
        "passed",
        "players",
        "round_wind",
        "rules",
        "ruleset",
        "stakes",
        "still_in",
        "transfers",
        "void_suits",
        "winners",
    )

    _seat: dict[str, int]
    """Each player's seat: where their entry of ``kong_runs`` is."""
    _table: BaseRuleset
    """The hand's rule set, bound to its table (its house rules and players)."""
    _winners_leave: bool
    ruleset: str
    rules: HouseRules
    players: tuple[str, ...]
    number: int
    dealer: str
    dealer_streak: int
    round_wind: Wind
    winners: tuple[str, ...]
    transfers: tuple[Transfer, ...]
    void_suits: tuple[tuple[str, str], ...]
    kongs: tuple[KongPayment, ...]
    kong_runs: tuple[tuple[int, ...], ...]
    passed: frozenset[int]
    open_wins: OpenWins | None
    first_winners: tuple[str, ...]
    first_discarder: str | None
    first_run_open: bool
    last_kong_by: str | None
    discarders: frozenset[str]
    ended: bool
    next_dealer: str | None
    false_win_by: str | None
    stakes: Stakes | None
    still_in: tuple[str, ...]
    """Who takes part in the hand now (:attr:`HandState.still_in`), kept as winners are
    recorded: every event checks its player against it, and payments read it."""

    @staticmethod
    def thaw(hand: HandState) -> HandFold:
        """A working copy of ``hand`` (``hand`` itself never changes)."""
        fold = _thaw(hand)
        fold._table = table = table_of(hand.ruleset, hand.rules, hand.players)
        fold._winners_leave = leave = table.winners_leave()
        fold.still_in = still_in_of(hand.players, hand.winners, leave)
        fold._seat = {p: i for i, p in enumerate(hand.players)}
        return fold

    def opened(
        self, number: int, dealer: str, dealer_streak: int, round_wind: Wind, stakes: Stakes | None
    ) -> HandFold:
        """A new hand of this one's match, as it starts: a copy of a hand of the same table
        (``self``, which has not started) with what tells the hands of a match apart. What
        the rule set says of the table is the match's, so it is copied rather than asked
        again: a hand opens for every ``hand_started`` of a replay."""
        fold = _copy_fold(self)
        fold.number = number
        fold.dealer = dealer
        fold.dealer_streak = dealer_streak
        fold.round_wind = round_wind
        fold.stakes = stakes
        return fold

    def freeze(self) -> HandState:
        """The hand as it stands, as the frozen value it leaves the fold as."""
        return _freeze(self)

    @property
    def outcome(self) -> Outcome:
        return outcome_of(self)

    def net(self) -> dict[str, int]:
        return net_of(self.players, self.transfers)

    def void_suit(self, player: str) -> str | None:
        return void_suit_of(self.void_suits, player)


_FIELDS: Final = tuple(f.name for f in attrs.fields(HandState))
assert set(HandFold.__slots__) == {*_FIELDS, "_seat", "_table", "_winners_leave", "still_in"}, (
    "HandFold holds HandState's fields"
)
_thaw: Final[Callable[[HandState], HandFold]] = copier(HandFold, _FIELDS)
_copy_fold: Final[Callable[[HandFold], HandFold]] = copier(HandFold, HandFold.__slots__)
_freeze: Final[Callable[[HandFold], HandState]] = copier(HandState, _FIELDS)


def end_kong_run(hand: HandFold, player: str) -> None:
    """``player``'s run of kongs ends (they discarded, were claimed from, or their run of
    wins closed): the kongs a later win could count as a kong cannon are forgotten."""
    i = hand._seat[player]
    if hand.kong_runs[i]:
        runs = list(hand.kong_runs)
        runs[i] = ()
        hand.kong_runs = tuple(runs)
