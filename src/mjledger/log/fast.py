"""The fast path of the log codec: many lines decoded and type-checked in C at once.

The strict codec (:mod:`mjledger.log.codec`) is the contract; this module only accelerates it
and never decides anything the strict codec would decide differently. A batch of lines is
decoded by msgspec into structs generated from the attrs event classes (strict JSON types,
unknown fields refused, and the constraints of the fields' validators — a non-empty string,
an id log-format.md allows, one of the 34 tiles, tiles in compact notation, an integer in
range — as msgspec constraints), and each struct becomes its attrs event as the class's
``__init__`` would make it, running the validators msgspec could not express and
``__attrs_post_init__``. Wherever the fast path cannot decide, or refuses, the strict codec
reads the line, so errors, their wording and their line numbers are exactly the strict
codec's.

What msgspec alone would get wrong, and how it is covered:

* repeated keys: msgspec keeps the last one. One count over the whole batch decides: every
  ``:`` of a batch without backslashes is a key's or sits in a string, and the strings come
  back verbatim when the decoded structs are encoded again, so the batch repeats no key
  exactly when both hold as many colons. A batch with a backslash (an escape could hide or add
  a colon, or spell a lone surrogate) is read line by line by the strict codec.
* deep nesting raises ``RecursionError`` (caught: the strict codec reads the batch);
  integers beyond 64 bits are refused by msgspec (the strict codec reads them);
  fields whose type has no other msgspec form are read by the strict codec whenever a line
  carries them; house rules are decoded as plain JSON and read by the codec's own
  :func:`~mjledger.log.codec.read_house_rules` (a refusal there sends the line to the strict
  codec); a rule set's name is checked as the strict codec checks it.

orjson is never used to decode: it turns integers beyond 64 bits into floats.
"""

from __future__ import annotations

import itertools
import operator
import types
from collections.abc import Callable, Iterable, Iterator, Sequence
from functools import cache
from typing import (
    Annotated,
    Any,
    Final,
    Literal,
    NewType,
    Optional,
    Union,
    cast,
    get_args,
    get_origin,
)

import attrs

from mjledger import _checks as check
from mjledger import _msgspec as msgspec
from mjledger._codegen import compile_function
from mjledger.errors import MjledgerError
from mjledger.log.codec import check_ruleset_name, decode_line, read_house_rules
from mjledger.log.events import EVENT_CLASSES, Event, json_name
from mjledger.log.hints import type_hints
from mjledger.log.kept import kept_for_its_bytes, names_ruleset, registry_fields

UNSET: Final = msgspec.UNSET
# What msgspec raises for a line this path does not decide (the strict codec reads it), and
# what building an event raises for a value only the strict codec words the refusal of.
UNDECODED: Final = (msgspec.DecodeError, msgspec.ValidationError, RecursionError)
UNBUILT: Final = (MjledgerError, TypeError, ValueError)
# Lines decoded together: big enough that the per-batch work is paid rarely, small enough that
# a batch the strict codec must read costs little.
BATCH_LINES: Final = 512
# Lines whose events :class:`FastDecoder` keeps, to give a line seen again its event at once.
SEEN_LINES: Final = 1 << 14


class _UntranslatableError(Exception):
    """A field type with no msgspec form: such fields are left to the strict codec."""


# A builder turns one decoded struct into its attrs value, or None when the strict codec must
# read the line (a field only it can type is present).
_Builder = Callable[[Any], Any]


@attrs.frozen
class _FieldPlan:
    attribute: attrs.Attribute[Any]
    convert: Callable[[Any], Any] | None
    strict_only: bool
    required: bool
    # The field's validator where the wire type does not already enforce it (None where it
    # does): the builder runs it, as the class's own ``__init__`` would.
    check: Any


def _wire_type(t: Any) -> tuple[Any, Callable[[Any], Any] | None]:
    """The msgspec type that accepts exactly the JSON ``t`` is written as, and how a decoded
    value becomes ``t``'s value (None: it already is)."""
    if t in (str, int, bool):
        return t, None
    if t is type(None):
        return None, None
    if isinstance(t, NewType):
        return _wire_type(t.__supertype__)
    origin = get_origin(t)
    args = get_args(t)
    if origin is Literal:
        if all(type(a) is str for a in args):
            return t, None
        raise _UntranslatableError(t)
    if origin in (Union, types.UnionType):
        parts = [_wire_type(a) for a in args]
        converts = [c for _, c in parts if c is not None]
        if len(converts) > 1:
            raise _UntranslatableError(t)
        convert = converts[0] if converts else None
        wire = _union(p for p, _ in parts)
        return wire, (None if convert is None else _unless_none(convert))
    if origin is tuple and len(args) == 2 and args[1] is Ellipsis:
        item, convert = _wire_type(args[0])
        if convert is None:
            return tuple[item, ...], None  # type: ignore[valid-type]
        return tuple[item, ...], _each(convert)  # type: ignore[valid-type]
    if origin is dict and args and args[0] is str:
        item, convert = _wire_type(args[1])
        if convert is None:
            return dict[str, item], None  # type: ignore[valid-type]
        return dict[str, item], _each_value(convert)  # type: ignore[valid-type]
    if attrs.has(t):
        struct, build = _nested(t)
        return struct, build
    raise _UntranslatableError(t)


NONE: Final = type(None)
# The wire types that make msgspec refuse exactly what mjledger._checks' validators refuse.
_NON_EMPTY: Final = Annotated[str, msgspec.Meta(min_length=1)]
_ID: Final = Annotated[str, msgspec.Meta(pattern=rf"^{check.ID.pattern}\Z")]
_ONE_TILE: Final = Literal[tuple(sorted(check.TILE_NAMES))]
# msgspec searches for a pattern: anchored at both ends it is the validator's fullmatch.
_TILES: Final = Annotated[str, msgspec.Meta(pattern=rf"^(?:{check.TILES_PATTERN})\Z")]


def _enforcing(validator: Any, wire: Any) -> Any:
    """``wire`` narrowed so that decoding refuses exactly what ``validator`` refuses, or None
    where msgspec cannot say it (then the builder runs the validator itself)."""
    if wire is str and validator is check.non_empty:
        return _NON_EMPTY
    if wire is str and validator is check.ident:
        return _ID
    if wire is str and validator is check.tile:
        return _ONE_TILE
    if wire is str and validator is check.tiles:
        return _TILES
    facts = getattr(validator, "__dict__", {})
    args = get_args(wire)
    if "inner" in facts and get_origin(wire) is Union and len(args) == 2 and args[1] is NONE:
        inner = _enforcing(facts["inner"], args[0])
        return None if inner is None else Optional[inner]  # noqa: UP045 - built at run time
    if "allowed" in facts:
        allowed = set(facts["allowed"])
        if wire is bool and allowed == {False, True} and all(type(a) is bool for a in allowed):
            return bool
        if get_origin(wire) is Literal and allowed == set(args):
            return wire  # the Literal's strings, each a str (see _wire_type)
    if "low" in facts and wire is int:
        return Annotated[int, msgspec.Meta(ge=facts["low"], le=facts["high"])]
    return None


def _union(types_: Iterable[Any]) -> Any:
    """``A | B | ...`` of types known only at run time."""
    return Union[tuple(types_)]  # noqa: UP007 - built at run time


def _unless_none(convert: Callable[[Any], Any]) -> Callable[[Any], Any]:
    return lambda v: None if v is None else convert(v)


def _each(convert: Callable[[Any], Any]) -> Callable[[Any], Any]:
    return lambda v: tuple(convert(x) for x in v)


def _each_value(convert: Callable[[Any], Any]) -> Callable[[Any], Any]:
    return lambda v: {k: convert(x) for k, x in v.items()}


def _known_ruleset(_inst: object, _attribute: object, value: str | None) -> None:
    if value is not None:
        check_ruleset_name(value)


def _plan(cls: type) -> tuple[list[tuple[str, Any, Any]], list[_FieldPlan]]:
    hints = type_hints(cls)
    fields: list[tuple[str, Any, Any]] = []
    plans: list[_FieldPlan] = []
    for a in attrs.fields(cls):
        key = json_name(a)
        validator = a.validator
        if names_ruleset(hints[a.name]):
            validator = _known_ruleset  # the codec's check, as the strict path makes it
        try:
            # House rules: decoded as the JSON they are, read by the codec's own function once
            # the value is built (the builder's ``finish``).
            wire, convert = (Any, None) if a.name == "rules" else _wire_type(hints[a.name])
            if isinstance(a.default, attrs.Factory) and a.default.takes_self:  # type: ignore[arg-type]
                raise _UntranslatableError(a.default)
            if validator is not None and (enforced := _enforcing(validator, wire)) is not None:
                wire, validator = enforced, None
            # A field only the store writes: a log line carrying it is the strict codec's to
            # refuse (HandStarted.stakes).
            strict_only = bool(a.metadata.get("store_only"))
        except _UntranslatableError:
            wire, convert, strict_only = Any, None, True
        required = a.default is attrs.NOTHING and not strict_only
        if required:
            fields.append((a.name, wire, msgspec.field(name=key)))
        else:
            unset = msgspec.field(default=UNSET, name=key)
            fields.append((a.name, _union([wire, msgspec.UnsetType]), unset))
        plans.append(_FieldPlan(a, convert, strict_only, required, validator))
    return fields, plans


def _builder(
    cls: type,
    plans: Sequence[_FieldPlan],
    *,
    trusted: bool = False,
    finish: Callable[[Any], Any] | None = None,
) -> _Builder:
    """Straight-line code that builds ``cls``'s value from a decoded struct as the class's own
    ``__init__`` does (each field set, the validators run, ``__attrs_post_init__``), minus the
    validators the struct's types already enforced — most of the time a line took to decode.
    A field absent from the line takes the class's default; None where a field only the
    strict codec reads is present.

    ``trusted``: for values already validated when they were written (the ledger's own rows):
    no validator runs, nor ``__attrs_post_init__``. ``finish``: the strict codec's last step."""
    scope: dict[str, Any] = {"cls": cls, "UNSET": UNSET, "new": object.__new__, "finish": finish}
    scope["put"] = object.__setattr__
    refusals, sets, checks = [], [], []
    for i, p in enumerate(plans):
        name = p.attribute.name
        got = f"s.{name}"
        scope[f"convert{i}"], scope[f"attribute{i}"], scope[f"check{i}"] = (
            p.convert,
            p.attribute,
            p.check,
        )
        default = p.attribute.default
        if default is attrs.NOTHING:
            missing = "UNSET"
        else:
            factory = isinstance(default, attrs.Factory)  # type: ignore[arg-type]
            scope[f"default{i}"] = default.factory if factory else default  # type: ignore[union-attr]
            missing = f"default{i}()" if factory else f"default{i}"
        if p.strict_only and default is attrs.NOTHING:  # a field only the strict codec reads,
            refusals.append("    return None")  # and every line must give it
            value = missing
        elif p.strict_only:  # present: the strict codec reads the line; absent: the default
            refusals.append(f"    if {got} is not UNSET:\n        return None")
            value = missing
        else:
            value = got if p.required else "v"
            if p.convert is not None:
                value = f"convert{i}({value})"
            if not p.required:
                value = f"{missing} if (v := {got}) is UNSET else {value}"
        slot = cls.__dict__.get(name)
        if isinstance(slot, types.MemberDescriptorType):  # a slot: its setter is the quickest
            scope[f"set{i}"] = slot.__set__
            sets.append(f"    set{i}(o, {value})")
        else:
            sets.append(f"    put(o, {name!r}, {value})")
        if p.check is not None and not trusted:
            checks.append(f"    check{i}(o, attribute{i}, o.{name})")
    if not trusted and hasattr(cls, "__attrs_post_init__"):
        checks.append("    o.__attrs_post_init__()")
    done = "    return o" if finish is None else "    return finish(o)"
    body = [*refusals, "    o = new(cls)", *sets, *checks, done]
    source = "def build(s):\n" + "\n".join(body) + "\n"
    build: _Builder = compile_function("build", source, scope, what=f"build of {cls.__qualname__}")
    return build


@cache
def _nested(cls: type) -> tuple[type, Callable[[Any], Any]]:
    fields, plans = _plan(cls)
    if any(p.strict_only for p in plans):
        raise _UntranslatableError(cls)
    struct = msgspec.defstruct(
        f"{cls.__name__}Wire", fields, kw_only=True, forbid_unknown_fields=True
    )
    return struct, _builder(cls, plans)


def _event_struct(
    cls: type, extra: Sequence[tuple[str, Any]] = (), *, trusted: bool = False
) -> tuple[type, _Builder]:
    fields, plans = _plan(cls)
    struct = msgspec.defstruct(
        f"{cls.__name__}Wire",
        [*fields, *extra],
        tag_field="type",
        tag=cls.TYPE,  # type: ignore[attr-defined]
        kw_only=True,
        forbid_unknown_fields=True,
    )
    finish = read_house_rules if "rules" in attrs.fields_dict(cls) else None
    return struct, _builder(cls, plans, trusted=trusted, finish=finish)


def _as_tuple(get: Callable[[Any], Any], n: int) -> Callable[[Any], tuple[Any, ...]]:
    return get if n > 1 else (lambda obj: (get(obj),))


class ObjectDecoder:
    """Decodes one JSON object of one tagged event class that also holds ``extra`` fields of
    its own (a stored row's metadata, say): the event and the extra fields' values, or None
    where the strict path must read the object (anything refused, or a field only the strict
    codec types present). Unknown fields are refused, as in a log line.

    ``trusted``: for objects this library wrote itself and only reads back in bulk (a store
    re-derived; an audit reads strictly): JSON types are still checked, the attrs validators
    are not run."""

    def __init__(
        self, cls: type, extra: Sequence[tuple[str, Any]] = (), *, trusted: bool = False
    ) -> None:
        struct, self._build = _event_struct(cls, extra, trusted=trusted)
        self._decode: Callable[[bytes], Any] = msgspec.JSONDecoder(struct).decode
        names = [name for name, _ in extra]
        self._extra: Callable[[Any], tuple[Any, ...]] = (
            (lambda _: ()) if not names else _as_tuple(operator.attrgetter(*names), len(names))
        )

    def __call__(self, data: bytes) -> tuple[Event, tuple[Any, ...]] | None:
        try:
            decoded = self._decode(data)
            event: Event | None = self._build(decoded)
        except UNDECODED:
            return None
        except UNBUILT:
            return None
        if event is None:
            return None
        return event, self._extra(decoded)


class FastDecoder:
    """Decodes batches of log lines for a set of tagged event classes.

    Built from the attrs classes themselves, so a field or an event class added to the log
    is decoded here without a change to this module.
    """

    def __init__(self, classes: Iterable[type] = EVENT_CLASSES) -> None:
        self.builders: dict[type, _Builder] = {}
        structs = []
        classes = tuple(classes)
        # What decides whether :meth:`decode_batch` keeps an event for its line: the fields
        # that must all be None (absent) for it to be read from the line alone.
        self._registry = {cls: registry_fields(cls) for cls in classes}
        for cls in classes:
            struct, build = _event_struct(cls)
            structs.append(struct)
            self.builders[struct] = build
        union = _union(structs)
        self._one = msgspec.JSONDecoder(union)
        self._encode = msgspec.JSONEncoder().encode
        self._seen: dict[bytes, Event] = {}

    def decode_batch(self, lines: Sequence[bytes]) -> list[Event | None] | None:
        """The events of ``lines`` (non-blank lines of UTF-8 JSON, one object each), None for
        a line the strict codec must read; None for the whole batch when this path cannot
        decide it.

        A line's event depends on its bytes alone, and an event is an immutable value: a line
        seen before (a log repeats the same discards, void suits and wins over and over) is
        given the event decoded for it then, the others decoded as a batch of their own."""
        seen = self._seen
        events: list[Event | None] = list(map(seen.get, lines))
        missing = [i for i, event in enumerate(events) if event is None]
        if not missing:
            return events
        if len(missing) == len(lines):
            return self._remembered(lines, self._decode_batch(lines))
        new = [lines[i] for i in missing]
        decided = self._remembered(new, self._decode_batch(new))
        if decided is None:
            return events  # the lines not seen before: the strict codec's
        for i, event in zip(missing, decided, strict=True):
            events[i] = event
        return events

    def _remembered(
        self, lines: Sequence[bytes], events: list[Event | None] | None
    ) -> list[Event | None] | None:
        """``events``, each decided one kept for its line (all of them forgotten once
        :data:`SEEN_LINES` are kept) where it is read from the line alone (no field of
        :func:`registry_fields` given) and immutable (it hashes: no dict in it)."""
        if events is None:
            return None
        seen, registry = self._seen, self._registry
        if len(seen) + len(lines) > SEEN_LINES:
            seen.clear()
        for line, event in zip(lines, events, strict=True):
            if event is not None and kept_for_its_bytes(event, registry[type(event)]):
                seen[line] = event
        return events

    def _decode_batch(self, lines: Sequence[bytes]) -> list[Event | None] | None:
        """:meth:`decode_batch` of lines not seen before."""
        buffer = b"".join(lines)
        if b"\\" in buffer:
            return None
        decode = self._one.decode
        try:  # the common case, in one comprehension
            structs: list[Any] = [decode(line) for line in lines]
        except UNDECODED:
            structs = [self._decoded(line) for line in lines]
        if buffer.count(b":") != self._encode(structs).count(b":"):
            return None  # a repeated key (or a refused line): the strict codec decides
        builders = self.builders
        try:
            return [builders[type(s)](s) for s in structs]
        except (KeyError, *UNBUILT):  # a refused line (None) among them
            return [self._built(s) for s in structs]

    def _decoded(self, line: bytes) -> Any:
        try:
            return self._one.decode(line)
        except UNDECODED:
            return None

    def _built(self, struct: Any) -> Event | None:
        if struct is None:
            return None
        try:
            event: Event | None = self.builders[type(struct)](struct)
        except UNBUILT:
            return None
        return event


_DECODER: FastDecoder | None = None


def fast_decoder() -> FastDecoder:
    """The decoder for the log's event classes, built on first use."""
    global _DECODER
    if _DECODER is None:
        _DECODER = FastDecoder()
    return _DECODER


def decode_numbered(numbers: Sequence[int], lines: Sequence[bytes]) -> Iterable[tuple[int, Event]]:
    """The numbered events of non-blank lines, in order; the first refused line raises the
    strict codec's error for it (once the events before it have been taken)."""
    events = fast_decoder().decode_batch(lines)
    if events is None:
        return _strictly(numbers, lines, [None] * len(lines))
    if any(map(operator.is_, events, itertools.repeat(None))):  # no __eq__ called
        return _strictly(numbers, lines, events)
    return zip(numbers, cast(list[Event], events), strict=True)


def _strictly(
    numbers: Sequence[int], lines: Sequence[bytes], events: Sequence[Event | None]
) -> Iterator[tuple[int, Event]]:
    """The strict codec's reading of each line this path left undecided (None)."""
    for number, line, event in zip(numbers, lines, events, strict=True):
        yield number, (event if event is not None else decode_line(line.decode("utf-8"), number))


def event_struct(
    cls: type, extra: Sequence[tuple[str, Any]] = ()
) -> tuple[type, Callable[[Any], Any]]:
    """The msgspec struct of ``cls``'s JSON objects (tagged by ``type``, strict types, unknown
    fields refused; with ``extra`` fields of the struct's own, which the builder leaves out)
    and the builder of its attrs value from a decoded struct (None where the strict codec
    must read the object), for readers that need the decoded struct itself."""
    return _event_struct(cls, extra)
