"""The values a settlement's explanation is made of (:mod:`mjledger.rules.explained`, which
offers them under its own name): a word to translate, amounts by player, one step of the
arithmetic, one batch of dues. Declared apart so that a replay nobody asks to explain, whose
hooks never note a step, never makes these classes.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Protocol

from attrs import field, frozen


@frozen
class Term:
    """A word to translate inside a sentence (a kong's kind, a suit, a table's name)."""

    id: str


@frozen
class Amounts:
    """Amounts by player (``bo 2, cy 3``), each number formatted for the reader's locale."""

    items: tuple[tuple[str, int], ...]


class Due(Protocol):
    """What a batch of dues is made of: the hand's transfers, before table stakes (a
    :class:`mjledger.rules.values.Transfer`; this module sits below the values)."""

    @property
    def payer(self) -> str: ...

    @property
    def payee(self) -> str: ...

    @property
    def amount(self) -> int: ...


class NotedDue(Due, Protocol):
    """A due as a hook notes it: with its transfer reason and the line that caused it."""

    @property
    def reason(self) -> str: ...

    @property
    def line(self) -> int | None: ...


# A sentence's placeholder values: a player or free text, a number, players or lines, a term.
Params = Mapping[str, object]


@frozen
class Why:
    """One step of a settlement's arithmetic, as the code that computed it states it.

    ``sentences`` are ``(message id, params)`` pairs; ``operands`` the inputs and results by
    name; ``dues`` the transfers this arithmetic gives, before table stakes, or None for the
    payments the hook returns (the fold makes them the event's batch of dues). A step that
    belongs to another line than the event being folded (the close of a run of wins) names
    its ``event`` and ``line``, with ``at_event`` false.
    """

    sentences: tuple[tuple[str, Params], ...]
    operands: Mapping[str, object] = field(factory=dict)
    dues: tuple[NotedDue, ...] | None = ()
    event: str | None = None
    line: int | None = None
    at_event: bool = True


@frozen
class Batch:
    """One batch of dues (variants.md, "Each event settles as one batch") and what was paid
    of it, due by due, in order (a due cut to nothing is missing from ``paid``)."""

    dues: tuple[NotedDue, ...]
    paid: tuple[NotedDue, ...]
