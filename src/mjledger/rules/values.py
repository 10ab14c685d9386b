"""The values a hand's settlement is made of: transfers, kong payments, open runs of wins, and
the hand as the rule sets' hooks read it (:class:`HandView`).

Below the rule sets and their registry: a hook takes these and answers with them, and the hand
fold (:mod:`mjledger.fold.hand`) builds the next state from its answers. Frozen values only.
"""

from __future__ import annotations

from collections.abc import Iterable
from typing import Final, Literal, Protocol, get_args

from attrs import frozen

from mjledger.log.events import HouseRules as HouseRules
from mjledger.rules.table import Stakes
from mjledger.tiles.notation import Wind

__all__ = [
    "MAX_KONGS",
    "REASONS",
    "HandView",
    "KongPayment",
    "OpenWins",
    "Outcome",
    "Reason",
    "Transfer",
    "net_of",
    "outcome_of",
    "still_in_of",
    "void_suit_of",
]

Reason = Literal[
    "won_on_discard",
    "self_drawn",
    "kong_exposed",
    "kong_added",
    "kong_concealed",
    "kong_money_passed",
    "flower_pig",
    "not_ready",
    "kong_refund",
    "liability",
    "false_win",
]
REASONS: Final[tuple[Reason, ...]] = get_args(Reason)
MAX_KONGS: Final = 4  # a player declares at most four kongs a hand, under every rule set
Outcome = Literal["unfinished", "won", "void"]


@frozen
class Transfer:
    """``amount`` points from ``payer`` to ``payee``, for ``reason``, caused by log ``line``."""

    payer: str
    payee: str
    amount: int
    reason: Reason
    line: int | None = None


@frozen
class KongPayment:
    """A Sichuan kong and what it collected, kept until the hand ends because that money may
    still pass to a winner or be refunded at an empty wall."""

    player: str
    kind: str
    line: int | None
    payments: tuple[tuple[str, int], ...]  # what each payer actually paid (stakes may cut it)
    fed_by: str | None = None  # an exposed kong's discarder

    @property
    def total(self) -> int:
        return sum(amount for _, amount in self.payments)


@frozen
class OpenWins:
    """Wins on one discard (or one robbed kong) not yet closed: more winners may follow."""

    discarder: str
    robbing_kong: bool
    winners: tuple[tuple[str, int | None], ...]
    # The hand before the run's first win: a first-turn claim on a later winner of the same
    # discard is checked against it ("several winners on the dealer's first discard").
    winners_before: tuple[str, ...] = ()
    discarders_before: frozenset[str] = frozenset()


class HandView(Protocol):
    """A hand as the rule sets' hooks read it: a :class:`HandState`, or the fold's working
    state of the hand in play (:class:`mjledger.fold.in_play.HandFold`, the same fields, mutated
    in place between events so that an event does not copy the whole hand). Hooks only read
    it, and keep nothing of it but the values it holds."""

    @property
    def ruleset(self) -> str: ...
    @property
    def rules(self) -> HouseRules: ...
    @property
    def players(self) -> tuple[str, ...]: ...
    @property
    def number(self) -> int: ...
    @property
    def dealer(self) -> str: ...
    @property
    def dealer_streak(self) -> int: ...
    @property
    def round_wind(self) -> Wind: ...
    @property
    def winners(self) -> tuple[str, ...]: ...
    @property
    def transfers(self) -> tuple[Transfer, ...]: ...
    @property
    def void_suits(self) -> tuple[tuple[str, str], ...]: ...
    @property
    def kongs(self) -> tuple[KongPayment, ...]: ...
    @property
    def kong_runs(self) -> tuple[tuple[int, ...], ...]: ...
    @property
    def passed(self) -> frozenset[int]: ...
    @property
    def open_wins(self) -> OpenWins | None: ...
    @property
    def first_winners(self) -> tuple[str, ...]: ...
    @property
    def first_discarder(self) -> str | None: ...
    @property
    def first_run_open(self) -> bool: ...
    @property
    def last_kong_by(self) -> str | None: ...
    @property
    def discarders(self) -> frozenset[str]: ...
    @property
    def ended(self) -> bool: ...
    @property
    def next_dealer(self) -> str | None: ...
    @property
    def false_win_by(self) -> str | None: ...
    @property
    def stakes(self) -> Stakes | None: ...
    @property
    def outcome(self) -> Outcome: ...
    @property
    def still_in(self) -> tuple[str, ...]: ...
    def net(self) -> dict[str, int]: ...
    def void_suit(self, player: str) -> str | None: ...


def outcome_of(hand: HandView) -> Outcome:
    if not hand.ended:
        return "unfinished"
    return "won" if hand.winners else "void"


def still_in_of(
    players: tuple[str, ...], winners: tuple[str, ...], winners_leave: bool
) -> tuple[str, ...]:
    """Who takes part in a hand now, given whether its rule set's winners leave it."""
    if not winners_leave:
        return players
    return tuple([p for p in players if p not in winners])


def void_suit_of(void_suits: tuple[tuple[str, str], ...], player: str) -> str | None:
    """``player``'s void suit, if chosen (the last choice, as a dictionary of the pairs would
    keep): a search of at most four pairs, cheaper than building that dictionary per win."""
    for chooser, suit in reversed(void_suits):
        if chooser == player:
            return suit
    return None


def net_of(players: Iterable[str], transfers: Iterable[Transfer]) -> dict[str, int]:
    net = dict.fromkeys(players, 0)
    for t in transfers:
        net[t.payer] -= t.amount
        net[t.payee] += t.amount
    return net
