"""A hand's state: :class:`HandState`, everything its settlement depends on after some prefix
of its events, and the values it is made of (:mod:`mjledger.rules.values`, re-exported here).

Rule sets read a hand (:class:`HandView`: a frozen :class:`HandState`, or the hand fold's
working state of the hand in play) and answer with payments and transfers; the hand fold
(:mod:`mjledger.fold.hand`) builds the next state from their answers.
"""

from __future__ import annotations

from attrs import frozen

from mjledger.rules.registry import table_of
from mjledger.rules.table import Stakes

# The values a hand is made of live below the registry; they are re-exported here, where
# docs/library.md and plugins of 0.1 import them from.
from mjledger.rules.values import (
    MAX_KONGS,
    REASONS,
    HandView,
    HouseRules,
    KongPayment,
    OpenWins,
    Outcome,
    Reason,
    Transfer,
    net_of,
    outcome_of,
    still_in_of,
    void_suit_of,
)
from mjledger.tiles.notation import Wind

__all__ = ["MAX_KONGS", "REASONS", "HandState", "HandView", "KongPayment", "OpenWins"]
__all__ += ["Outcome", "Reason", "Transfer", "net_of", "outcome_of", "still_in_of", "void_suit_of"]


@frozen
class HandState:
    """Everything a hand's settlement depends on, after some prefix of its events."""

    ruleset: str
    rules: HouseRules
    players: tuple[str, ...]
    number: int
    dealer: str
    dealer_streak: int = 0
    round_wind: Wind = "east"
    winners: tuple[str, ...] = ()
    transfers: tuple[Transfer, ...] = ()
    void_suits: tuple[tuple[str, str], ...] = ()
    kongs: tuple[KongPayment, ...] = ()
    # Per player (in seat order): indices into ``kongs`` declared since that player's last discard.
    kong_runs: tuple[tuple[int, ...], ...] = ((), (), (), ())
    passed: frozenset[int] = frozenset()
    open_wins: OpenWins | None = None
    first_winners: tuple[str, ...] = ()
    first_discarder: str | None = None
    first_run_open: bool = False  # the first win's run of wins on one discard is still open
    last_kong_by: str | None = None
    # Who has discarded so far (a claimed discard counts): heavenly/earthly wins need it.
    discarders: frozenset[str] = frozenset()
    ended: bool = False
    next_dealer: str | None = None
    false_win_by: str | None = None  # Hong Kong 詐糊: the hand ended void on this player's claim
    stakes: Stakes | None = None  # table stakes: the balances so far (variants.md)

    @property
    def outcome(self) -> Outcome:
        return outcome_of(self)

    @property
    def still_in(self) -> tuple[str, ...]:
        """Who takes part in the hand now: everyone but the winners, unless the rule set keeps
        winners in (Sichuan blood flow)."""
        leave = table_of(self.ruleset, self.rules, self.players).winners_leave()
        return still_in_of(self.players, self.winners, leave)

    def net(self) -> dict[str, int]:
        """Each player's balance for this hand; sums to zero because it is built from transfers."""
        return net_of(self.players, self.transfers)

    def void_suit(self, player: str) -> str | None:
        return void_suit_of(self.void_suits, player)

    def dealer_after(self) -> str:
        """Who deals next by the hand's own rule, ignoring the end of a match."""
        return table_of(self.ruleset, self.rules, self.players).dealer_after(self)
