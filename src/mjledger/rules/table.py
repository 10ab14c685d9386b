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
from typing import Self, TypeVar

import attrs
from attrs import frozen

from mjledger.rules import explained
from mjledger.rules.explained import Due

D = TypeVar("D", bound=Due)


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

    def settle(self, dues: Sequence[D]) -> tuple[tuple[D, ...], Stakes]:
        """What a batch of dues actually pays, and the stakes after it.

        A payer who is bust pays nothing ("even after receiving"). A payer whose dues exceed
        their balance pays the balance, split among their payees in proportion to what each was
        due, rounded down, the points left over one each to those payees in turn order after
        the payer; each payee's part fills their dues in batch order (the order the checks
        run). Zero amounts are left out. A balance that reaches 0 makes its player bust.
        """
        paid: list[D] = []
        dues = [d for d in dues if d.amount > 0]
        for payer in dict.fromkeys(d.payer for d in dues):
            mine = [d for d in dues if d.payer == payer]
            if payer in self.bust:
                _explain_bust(payer, mine)
                continue
            paid.extend(self._pay(payer, mine))
        balances = dict(zip(self.players, self.balances, strict=True))
        for d in paid:
            balances[d.payer] -= d.amount
            balances[d.payee] += d.amount
        bust = self.bust | {p for p, b in balances.items() if b == 0}
        after = Stakes(self.players, tuple(balances[p] for p in self.players), bust)
        return tuple(paid), after

    def _pay(self, payer: str, dues: list[D]) -> list[D]:
        held = self.balance(payer)
        total = sum(d.amount for d in dues)
        if total <= held:
            return dues
        owed: dict[str, int] = {}
        for d in dues:
            owed[d.payee] = owed.get(d.payee, 0) + d.amount
        part = {payee: held * amount // total for payee, amount in owed.items()}
        left = held - sum(part.values())
        leftover = left
        seat = self.players.index(payer)
        for step in range(1, len(self.players)):
            if left == 0:
                break
            payee = self.players[(seat + step) % len(self.players)]
            if payee in part:
                part[payee] += 1
                left -= 1
        _explain_cap(payer, held, total, part, leftover)
        out = []
        for d in dues:
            amount = min(d.amount, part[d.payee])
            part[d.payee] -= amount
            if amount > 0:
                out.append(d if amount == d.amount else attrs.evolve(d, amount=amount))  # type: ignore[misc]
        return out


def _explain_bust(payer: str, dues: Sequence[Due]) -> None:
    """Note, where an explanation is asked for, that a bust payer pays nothing."""
    notes = explained.notes()
    if notes is not None:
        owed = sum(d.amount for d in dues)
        sentence = (explained.N_("stakes.bust"), {"player": payer, "owed": owed})
        notes.why(explained.Why((sentence,), {"player": payer, "bust": True, "owed": owed}))


def _explain_cap(payer: str, held: int, owed: int, parts: Mapping[str, int], leftover: int) -> None:
    """Note, where an explanation is asked for, how a payer's balance was split."""
    notes = explained.notes()
    if notes is not None:
        params = {"player": payer, "held": held, "owed": owed}
        each = explained.Amounts(tuple(parts.items()))
        sentence = (explained.N_("stakes.capped"), {**params, "parts": each})
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
