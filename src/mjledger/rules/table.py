"""The match-level variants, the same for every rule set (variants.md): table stakes and the
first turn. A rule set's own variants live in its package; these two belong to the table.

**Table stakes**: nobody pays more than they hold. A match may start every player with a
balance. Each event then settles as one *batch* of dues, against the balances from before the
batch; a payer who owes more than they hold pays their whole balance instead, split among the
batch's payees in proportion to what each was owed. The folds pass each batch of dues through
:meth:`Stakes.settle` and record what comes out.

**First turn**: heavenly and earthly hands are asserted by the log (``"first_turn": true``),
never inferred from lines it leaves out; :func:`first_turn_problem` says where the log
contradicts the assertion.
"""

from __future__ import annotations

from collections.abc import Collection, Mapping, Sequence
from typing import TYPE_CHECKING, Final, Literal, Self, TypeVar

import attrs
from attrs import frozen

from mjledger._checks import HOUSE_RULE, one_of
from mjledger.errors import FormatError
from mjledger.rules import explained

if TYPE_CHECKING:
    from mjledger.rules.explained import Due

D = TypeVar("D", bound="Due")  # the protocol named, not imported: explained_values is lazy

StakesLeftover = Literal["after_payer", "lowest_seat"]


# The house rule ``stakes_leftover`` (variants.md, second set), a field of every rule set's
# options class (default "after_payer"): where the points a capped payer's split leaves over
# go — one each to the payees in turn order after the payer, or all to the payee listed
# first in ``players``.
STAKES_LEFTOVER_CHECK: Final = one_of("after_payer", "lowest_seat", what=HOUSE_RULE)


def _leftover_to_first(rules: object) -> bool:
    """Whether the points left over go all to the first payee in seat order (a rule set
    without the option: the contract's rule, after the payer)."""
    return getattr(rules, "stakes_leftover", "after_payer") == "lowest_seat"


def problem_without_stakes(rules: object) -> str | None:
    """variants.md, second set: ``stakes_leftover`` "must be "after_payer" in a log without
    stakes, a stand-alone hand included" — why ``rules`` cannot stand without stakes, or None.
    Each rule set's options expose it as ``problem_without_stakes``, which a line that opens a
    table asks (:mod:`mjledger.log.events`: an error of that line)."""
    if _leftover_to_first(rules):
        return (
            'house rule stakes_leftover "lowest_seat" needs table stakes (match_started\'s '
            '"stakes"); without them it must be "after_payer"'
        )
    return None


def check_stakes_rules(rules: object, stakes: object) -> None:
    """:func:`problem_without_stakes` as a refusal, for a table that has no ``stakes``."""
    problem = problem_without_stakes(rules) if stakes is None else None
    if problem is not None:
        raise FormatError(problem, code="bad_house_rule")


@frozen
class Stakes:
    """Each player's balance (in seat order) and who is bust, after some prefix of a match."""

    players: tuple[str, ...]
    balances: tuple[int, ...]
    bust: frozenset[str] = frozenset()

    @classmethod
    def start(cls, players: Sequence[str], stakes: Mapping[str, int]) -> Self:
        return cls(tuple(players), tuple(stakes[p] for p in players))

    def with_bust(self, bust: Collection[str]) -> Stakes:
        return attrs.evolve(self, bust=frozenset(bust))

    def balance(self, player: str) -> int:
        return self.balances[self.players.index(player)]

    def as_dict(self) -> dict[str, int]:
        return dict(zip(self.players, self.balances, strict=True))

    def settle(self, dues: Sequence[D], rules: object = None) -> tuple[tuple[D, ...], Stakes]:
        """What a batch of dues actually pays, and the stakes after it.

        A payer who is bust pays nothing ("even after receiving"). A payer whose dues exceed
        their balance pays the balance, split among their payees in proportion to what each was
        due, rounded down, the points left over one each to those payees in turn order after
        the payer (under ``rules``' ``stakes_leftover: "lowest_seat"``, all of them to the
        payee listed first in ``players``); each payee's part fills their dues in batch order
        (the order the checks run). Zero amounts are left out. A balance that reaches 0 makes
        its player bust.
        """
        to_first = _leftover_to_first(rules)
        paid: list[D] = []
        dues = [d for d in dues if d.amount > 0]
        for payer in dict.fromkeys(d.payer for d in dues):
            mine = [d for d in dues if d.payer == payer]
            if payer in self.bust:
                _explain_bust(payer, mine)
                continue
            paid.extend(self._pay(payer, mine, to_first))
        balances = dict(zip(self.players, self.balances, strict=True))
        for d in paid:
            balances[d.payer] -= d.amount
            balances[d.payee] += d.amount
        bust = self.bust | {p for p, b in balances.items() if b == 0}
        after = Stakes(self.players, tuple(balances[p] for p in self.players), bust)
        return tuple(paid), after

    def _pay(self, payer: str, dues: list[D], to_first: bool) -> list[D]:
        held = self.balance(payer)
        total = sum(d.amount for d in dues)
        if total <= held:
            return dues
        owed: dict[str, int] = {}
        for d in dues:
            owed[d.payee] = owed.get(d.payee, 0) + d.amount
        part = {payee: held * amount // total for payee, amount in owed.items()}
        leftover = held - sum(part.values())
        first = next(p for p in self.players if p in part) if to_first else None
        if first is not None:
            part[first] += leftover
        else:
            self._one_each_after(payer, part, leftover)
        _explain_cap(payer, held, total, part, leftover, first)
        out = []
        for d in dues:
            amount = min(d.amount, part[d.payee])
            part[d.payee] -= amount
            if amount > 0:
                out.append(d if amount == d.amount else attrs.evolve(d, amount=amount))  # type: ignore[misc]
        if first is not None and part[first]:
            _beyond_dues(out, first, part[first])
        return out

    def _one_each_after(self, payer: str, part: dict[str, int], left: int) -> None:
        """The points left over, one each to the payees in turn order after ``payer``."""
        seat = self.players.index(payer)
        for step in range(1, len(self.players)):
            if left == 0:
                break
            payee = self.players[(seat + step) % len(self.players)]
            if payee in part:
                part[payee] += 1
                left -= 1


def _beyond_dues(paid: list[D], payee: str, excess: int) -> None:
    """``stakes_leftover: "lowest_seat"``: the first payee gets "all of" the points left over
    and the payer pays "their whole balance", even where that is more than the payee was due
    in the batch (a small due beside large ones): the excess goes onto the payee's last
    transfer, the dues having been filled in the order of the checks."""
    last = max(i for i, d in enumerate(paid) if d.payee == payee)
    paid[last] = attrs.evolve(paid[last], amount=paid[last].amount + excess)  # type: ignore[misc]


def _explain_bust(payer: str, dues: Sequence[Due]) -> None:
    """Note, where an explanation is asked for, that a bust payer pays nothing."""
    notes = explained.notes()
    if notes is not None:
        owed = sum(d.amount for d in dues)
        sentence = (explained.N_("stakes.bust"), {"player": payer, "owed": owed})
        notes.why(explained.Why((sentence,), {"player": payer, "bust": True, "owed": owed}))


def _explain_cap(
    payer: str, held: int, owed: int, parts: Mapping[str, int], leftover: int, first: str | None
) -> None:
    """Note, where an explanation is asked for, how a payer's balance was split."""
    notes = explained.notes()
    if notes is not None:
        params: dict[str, object] = {"player": payer, "held": held, "owed": owed}
        each = explained.Amounts(tuple(parts.items()))
        key = explained.N_("stakes.capped")
        if first is not None:  # variants.md, stakes_leftover "lowest_seat"
            key = explained.N_("stakes.capped.lowest_seat")
            params["first"] = first
        sentence = (key, {**params, "parts": each})
        operands = {**params, "parts": dict(parts), "leftover": leftover}
        notes.why(explained.Why((sentence,), operands))


# --- first turn -----------------------------------------------------------------------------


@frozen
class FirstTurnFacts:
    """What the hand so far says about a first-turn claim (the fold fills it in)."""

    dealer: str
    winner: str
    discarder: str | None  # None for a self-draw
    kongs: bool  # any kong declared earlier in the hand
    earlier_winners: Collection[str]  # winners before this discard's run of wins
    discarders: Collection[str]  # who has discarded before this win (claimed discards count)
    has_melds: bool  # the win's tiles show a meld


def first_turn_problem(facts: FirstTurnFacts) -> str | None:
    """Why the log contradicts ``"first_turn": true`` on this win, or None.

    variants.md: "a kong or a win earlier in the hand; a `discarded` earlier in the hand (for
    an earthly self-draw: one by the winner; otherwise any); a discard win whose `from` is not
    the dealer; a meld in the winner's tiles (nothing can have been claimed yet)".
    """
    if facts.kongs:
        return "first_turn, but a kong was declared earlier in the hand"
    if facts.earlier_winners:
        return f"first_turn, but {next(iter(facts.earlier_winners))!r} has already won this hand"
    if facts.discarder is not None and facts.discarder != facts.dealer:
        return (
            f"first_turn on a discard needs the dealer's first discard; {facts.discarder!r} "
            f"is not the dealer ({facts.dealer!r} is)"
        )
    earthly_self_draw = facts.discarder is None and facts.winner != facts.dealer
    discarded = [facts.winner] if earthly_self_draw else list(facts.discarders)
    for player in discarded:
        if player in facts.discarders:
            return f"first_turn, but {player!r} has discarded earlier in the hand"
    if facts.has_melds:
        return "first_turn, but the winner's tiles show a meld (nothing is claimed on a first turn)"
    return None
