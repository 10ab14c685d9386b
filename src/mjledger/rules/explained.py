"""How settlement explains itself: the hooks say what they computed *and how*.

A disputed hand is answered with the arithmetic the rule set ran, not a second statement of
it (the anchor: the ``mahjong`` package's ``HandResponse`` carries the ``fu_details`` and
``yaku`` its calculator produced). Next to each sum, a hook notes a :class:`Why`: stable
message ids with their operands (fan, cap, base, share …) and the dues that sum gives; the
hand fold notes each batch of dues and what was actually paid of it (table stakes may cut
it). :mod:`mjledger.explain` turns the notes into steps and sentences in six languages.

Notes are kept only while a caller asks for them (:func:`explaining`): otherwise
:func:`notes` is None, and a hook pays one lookup of a context variable for the question.
Nothing here knows a rule set; a plugin that notes nothing is explained from its payments.
"""

from __future__ import annotations

from collections.abc import Iterator, Mapping, Sequence
from contextlib import contextmanager
from contextvars import ContextVar
from typing import Final, Protocol

from attrs import field, frozen


def N_(message_id: str) -> str:  # noqa: N802 - the gettext convention for "mark only"
    """Mark a message id for extraction (``pybabel extract -k N_``); returns it unchanged."""
    return message_id


@frozen
class Term:
    """A word to translate inside a sentence (a kong's kind, a suit, a table's name)."""

    id: str


# Each kind of kong, as a word inside a sentence.
KONG_TERMS: Final = {
    "exposed": N_("kong.exposed"),
    "added": N_("kong.added"),
    "concealed": N_("kong.concealed"),
}


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


class Notes:
    """What the hooks and the fold noted while a caller was asking (:func:`explaining`)."""

    def __init__(self) -> None:
        self.items: list[Why | Batch] = []

    def why(self, why: Why) -> None:
        self.items.append(why)

    def batch(self, dues: Sequence[NotedDue], paid: Sequence[NotedDue]) -> None:
        self.items.append(Batch(tuple(dues), tuple(paid)))

    def take(self) -> list[Why | Batch]:
        """Everything noted so far, emptied."""
        items, self.items = self.items, []
        return items


_NOTES: Final[ContextVar[Notes | None]] = ContextVar("mjledger_explained", default=None)


def notes() -> Notes | None:
    """Where to note explanations, or None when nobody asks (the hooks then note nothing)."""
    return _NOTES.get()


@contextmanager
def explaining() -> Iterator[Notes]:
    """Keep the hooks' explanations while the block runs (in this thread or task only)."""
    kept = Notes()
    token = _NOTES.set(kept)
    try:
        yield kept
    finally:
        _NOTES.reset(token)
