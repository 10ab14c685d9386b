"""What an explanation of a hand is, as values: its steps, each step's sentences (a message id
of the catalogs and its parameters), payments and running net, the corrections on record,
and the hand's closing summary, each with its ``--json`` form.

Kept apart from :mod:`mjledger.explain.steps`, which builds these from a hand's events (and
re-exports every name here), so that the renderers (``i18n``, the report, the desk) read the
shape of an explanation without the fold that makes it.
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping
from typing import Any, Final

import attrs
from attrs import field, frozen

from mjledger.rules.explained import N_, Amounts, Term
from mjledger.rules.house import rules_to_json
from mjledger.rules.protocol import HouseRules

# Message ids chosen at run time, each written out once so that extraction finds it.
OUTCOMES: Final = {
    "won": N_("outcome.won"),
    "void": N_("outcome.void"),
    "unfinished": N_("outcome.unfinished"),
}
CORRECTIONS: Final = {"corrected": N_("correction.corrected"), "voided": N_("correction.voided")}


@frozen
class Moment:
    """When something was stored: an ISO 8601 time as the store keeps it, shown as a date and
    time in the reader's locale (``--json`` keeps the ISO text)."""

    iso: str


@frozen
class Net:
    """Each player's balance, rendered as signed numbers in seat order."""

    amounts: tuple[tuple[str, int], ...]

    @classmethod
    def of(cls, players: Iterable[str], net: Mapping[str, int]) -> Net:
        """``net`` in seat order."""
        return cls(tuple((p, net[p]) for p in players))


# A parameter of a sentence: a player or free text (str), a number (int, formatted per
# locale), players or lines (tuple, joined per locale), a term to translate, amounts by
# player, a net, or a time.
Param = str | int | tuple[str, ...] | tuple[int, ...] | Term | Amounts | Net | Moment


@frozen
class Sentence:
    """One message of the catalogs and the values of its placeholders."""

    id: str
    params: dict[str, Param] = field(factory=dict)

    def to_json(self) -> dict[str, Any]:
        return {"id": self.id, "params": {k: _param_json(v) for k, v in self.params.items()}}


def _param_json(value: Param) -> Any:
    if isinstance(value, Term):
        return value.id
    if isinstance(value, Amounts):
        return dict(value.items)
    if isinstance(value, Net):
        return dict(value.amounts)
    if isinstance(value, Moment):
        return value.iso
    if isinstance(value, tuple):
        return list(value)
    return value


@frozen
class Payment:
    """Money between two players: ``amount`` from ``payer`` to ``payee``."""

    payer: str
    payee: str
    amount: int

    def to_json(self) -> dict[str, Any]:
        return {"from": self.payer, "to": self.payee, "amount": self.amount}


@frozen
class Step:
    """One thing that happened and what it caused.

    ``computed`` is the arithmetic's result as the rule set's hooks noted it (each due as
    table stakes let it through); ``money`` is what the settlement actually holds for this
    step (its transfers). They are equal; the tests hold the explanation to that.
    """

    line: int | None
    event: str
    reason: str | None  # a transfer's reason code, or "hand_voided"
    sentences: tuple[Sentence, ...]
    operands: dict[str, Any]
    computed: tuple[Payment, ...] = ()
    money: tuple[Payment, ...] = ()
    net_after: dict[str, int] = field(factory=dict)

    def to_json(self) -> dict[str, Any]:
        return {
            "line": self.line,
            "event": self.event,
            "reason": self.reason,
            "messages": [s.to_json() for s in self.sentences],
            "operands": self.operands,
            "money": [p.to_json() for p in self.money],
            "net_after": self.net_after,
        }


@frozen
class CorrectionNote:
    """A correction on record for the hand (see :mod:`mjledger.store.corrections`)."""

    kind: str  # "corrected" or "voided"
    when: str
    by: str
    reason: str
    original_net: dict[str, int]
    net: dict[str, int]

    def to_json(self) -> dict[str, Any]:
        return attrs.asdict(self)


@frozen
class HandExplanation:
    """Every step of one hand, the hand's figures, and its closing summary."""

    ruleset: str
    match: str | None
    players: tuple[str, ...]
    rules: HouseRules
    number: int
    dealer: str
    dealer_streak: int
    round_wind: str
    outcome: str
    winners: tuple[str, ...]
    next_dealer: str | None
    steps: tuple[Step, ...]
    net: dict[str, int]
    corrections: tuple[CorrectionNote, ...] = ()

    @property
    def summary(self) -> tuple[Sentence, ...]:
        out = [Sentence(OUTCOMES[self.outcome], {"winners": self.winners})]
        if self.outcome == "won" and not self.winners:  # a voided hand keeps its outcome
            out = [Sentence(N_("outcome.void"))]
        out.append(Sentence(N_("summary.net"), {"number": self.number, "net": self._net()}))
        if self.next_dealer is not None:
            out.append(Sentence(N_("summary.next_dealer"), {"dealer": self.next_dealer}))
        for c in self.corrections:
            out.append(
                Sentence(
                    CORRECTIONS[c.kind],
                    {
                        "when": Moment(c.when),
                        "by": c.by,
                        "reason": c.reason,
                        "original": Net.of(self.players, c.original_net),
                        "net": Net.of(self.players, c.net),
                    },
                )
            )
        return tuple(out)

    def _net(self) -> Net:
        return Net.of(self.players, self.net)

    def to_json(self) -> dict[str, Any]:
        return {
            "ruleset": self.ruleset,
            "match": self.match,
            "players": list(self.players),
            "rules": rules_to_json(self.rules),
            "number": self.number,
            "dealer": self.dealer,
            "dealer_streak": self.dealer_streak,
            "round_wind": self.round_wind,
            "outcome": self.outcome,
            "winners": list(self.winners),
            "steps": [s.to_json() for s in self.steps],
            "net": self.net,
            "next_dealer": self.next_dealer,
            "summary": [s.to_json() for s in self.summary],
            "corrections": [c.to_json() for c in self.corrections],
        }


class ExplanationError(AssertionError):
    """The explanation does not account for the settlement: a bug in mjledger, not the log."""
