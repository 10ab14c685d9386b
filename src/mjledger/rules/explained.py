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

from collections.abc import Iterator, Sequence
from contextlib import contextmanager
from contextvars import ContextVar
from typing import TYPE_CHECKING, Any, Final

if TYPE_CHECKING:
    from mjledger.rules.explained_values import Amounts as Amounts
    from mjledger.rules.explained_values import Batch as Batch
    from mjledger.rules.explained_values import Due as Due
    from mjledger.rules.explained_values import NotedDue as NotedDue
    from mjledger.rules.explained_values import Params as Params
    from mjledger.rules.explained_values import Term as Term
    from mjledger.rules.explained_values import Why as Why


def N_(message_id: str) -> str:  # noqa: N802 - the gettext convention for "mark only"
    """Mark a message id for extraction (``pybabel extract -k N_``); returns it unchanged."""
    return message_id


# Each kind of kong, as a word inside a sentence.
KONG_TERMS: Final = {
    "exposed": N_("kong.exposed"),
    "added": N_("kong.added"),
    "concealed": N_("kong.concealed"),
}


class Notes:
    """What the hooks and the fold noted while a caller was asking (:func:`explaining`)."""

    def __init__(self) -> None:
        self.items: list[Why | Batch] = []

    def why(self, why: Why) -> None:
        self.items.append(why)

    def batch(self, dues: Sequence[NotedDue], paid: Sequence[NotedDue]) -> None:
        from mjledger.rules.explained_values import Batch

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


# The values a note is made of, made the first time one is asked for: a replay nobody asks to
# explain never notes one (its hooks find :func:`notes` None), so it never makes their classes.
_VALUES: Final = frozenset({"Term", "Amounts", "Due", "NotedDue", "Params", "Why", "Batch"})


def __getattr__(name: str) -> Any:
    """:class:`Term`, :class:`Amounts`, :class:`Why`, :class:`Batch` and the dues they name
    (:class:`Due`, :class:`NotedDue`, ``Params``), from :mod:`mjledger.rules.explained_values`,
    where they are declared."""
    if name in _VALUES:
        from mjledger.rules import explained_values

        value = getattr(explained_values, name)
        globals()[name] = value
        return value
    raise AttributeError(f"module {__name__!r} has no attribute {name!r}")
