"""attrs validators that raise mjledger's own errors.

Values are compared by type as well as by equality: in Python ``True == 1`` and
``10.0 == 10``, but the contract says a JSON ``true`` is never an integer and ``3.0`` is never
3, so a check that only used ``in`` would let coerced values through.
"""

from __future__ import annotations

import re
from collections.abc import Iterator
from contextlib import contextmanager
from contextvars import ContextVar
from typing import Any, Final

from mjledger._text import compiled_when_used, shown
from mjledger.errors import FormatError

# Typed as Any: attrs infers a field's type from its validator's, and these serve every type.
Validator = Any

TILE_PATTERN: Final = r"[1-9][mps]|[1-7]z"  # one tile (the schema's pattern)
# The same 34 tiles as a set: a lookup costs a tenth of a match, and every discard has one.
TILE_NAMES: Final = frozenset(
    [f"{n}{s}" for n in range(1, 10) for s in "mps"] + [f"{n}z" for n in range(1, 8)]
)
# One group of compact notation: ranks a suit has, then the suit (log-format.md, "Tiles").
TILE_GROUP: Final = r"[1-9]+[mps]|[1-7]+z"
TILES_PATTERN: Final = rf"(?:{TILE_GROUP})+"
_TILES: Final = compiled_when_used(TILES_PATTERN)

# log-format.md: an id (a player's, a match's) is at most 200 characters and holds no control
# character, no line or paragraph separator and no bidirectional control.
MAX_ID: Final = 200
NOT_IN_ID: Final = "\x00-\x1f\x7f-\x9f\u2028\u2029\u061c\u200e\u200f\u202a-\u202e\u2066-\u2069"
_NOT_IN_ID: Final = compiled_when_used(f"[{NOT_IN_ID}]")
# A legal id, as one pattern (the fast decoder's msgspec constraint says the same).
ID: Final = re.compile(f"[^{NOT_IN_ID}]{{1,{MAX_ID}}}")

# Set while the store reads back rows it wrote: ids recorded before log-format.md bounded them
# are kept as stored (never refused on reading), while every new id is checked.
_AS_STORED: Final[ContextVar[bool]] = ContextVar("mjledger_ids_as_stored", default=False)


def _described(check: Validator, **facts: object) -> Validator:
    """``check``, carrying what it accepts as data, so a decoder that enforces the same
    constraints itself (mjledger.log.fast) can tell it need not run the check again."""
    check.__dict__.update(facts)
    return check


def _in_order(values: tuple[object, ...]) -> list[object]:
    """Values as a message lists them: numbers by value, whatever order declared them (a
    house rule's default first); words as declared (winds in the order of play)."""
    if all(type(v) is int for v in values):
        return sorted(values)  # type: ignore[type-var]
    return list(values)


# The ``what`` of a house rule's checks: their refusals are ``bad_house_rule``s.
HOUSE_RULE: Final = "house rule "


def _code_of(what: str) -> str:
    return "bad_house_rule" if what == HOUSE_RULE else "bad_format"


def one_of(*allowed: object, what: str = "") -> Validator:
    """Accept exactly the listed values, each of the listed value's own type."""
    kinds = {type(a) for a in allowed}
    code = _code_of(what)

    def check(_inst: object, attribute: Any, value: object) -> None:
        if type(value) not in kinds or value not in allowed:
            listed = ", ".join(repr(a) for a in _in_order(allowed))
            raise FormatError(
                f"{what}{attribute.name} must be one of {listed}, not {shown(value)}", code=code
            )

    return _described(check, allowed=allowed)


def int_between(low: int, high: int | None = None, *, what: str = "") -> Validator:
    """An integer (not a bool) in ``[low, high]``; ``high=None`` means no upper bound."""
    code = _code_of(what)

    def check(_inst: object, attribute: Any, value: object) -> None:
        if type(value) is not int or value < low or (high is not None and value > high):
            bound = f"between {low:,} and {high:,}" if high is not None else f"at least {low}"
            raise FormatError(
                f"{what}{attribute.name} must be an integer {bound}, not {shown(value)}",
                code=code,
            )

    return _described(check, low=low, high=high)


def optional(check: Validator) -> Validator:
    def maybe(inst: object, attribute: Any, value: object) -> None:
        if value is not None:
            check(inst, attribute, value)

    return _described(maybe, inner=check)


def non_empty(_inst: object, attribute: Any, value: Any) -> None:
    if type(value) is not str or not value:
        raise FormatError(f"{attribute.name} must be a non-empty string, not {shown(value)}")


def id_problem(value: str) -> str | None:
    """Why ``value`` (a non-empty string) is not an id log-format.md allows; None if it is."""
    if len(value) > MAX_ID:
        return f"is {len(value):,} characters long; an id has at most {MAX_ID}"
    bad = _NOT_IN_ID().search(value)
    if bad is None:
        return None
    return (
        f"holds U+{ord(bad.group()):04X} at character {bad.start() + 1}; an id holds no "
        "control character, line separator or bidirectional control"
    )


def ident(_inst: object, attribute: Any, value: Any) -> None:
    """A player's or a match's id: a non-empty string that log-format.md allows."""
    non_empty(_inst, attribute, value)
    if ID.fullmatch(value) is None and not _AS_STORED.get():  # one C call for a good id
        raise FormatError(f"{attribute.name} {id_problem(value)}")


def reading_stored_ids() -> bool:
    """Whether ids are being read back as stored (:func:`ids_as_stored`)."""
    return _AS_STORED.get()


@contextmanager
def ids_as_stored() -> Iterator[None]:
    """Read rows a store wrote: ids it holds from before they were bounded are kept."""
    token = _AS_STORED.set(True)
    try:
        yield
    finally:
        _AS_STORED.reset(token)


def tile(_inst: object, attribute: Any, value: Any) -> None:
    if type(value) is not str or value not in TILE_NAMES:
        raise FormatError(
            f"{attribute.name} must be one tile such as '5m' or '7z', not {shown(value)}"
        )


def tiles(_inst: object, attribute: Any, value: Any) -> None:
    if type(value) is not str or not _TILES().fullmatch(value):
        raise FormatError(
            f"{attribute.name} must be tiles in compact notation such as '123m55p', "
            f"not {shown(value)}"
        )
