"""The log's wire format: strict JSON Lines in, events out, and events back to the same JSON.

Two standard tools are too lenient for a money contract, so this module tightens both:

* cattrs' default converter coerces (``true`` becomes 1, ``"3"`` becomes 3, ``3.0`` becomes 3,
  a string is accepted as a list of characters). log-format.md says integers are JSON integers,
  never ``true`` and never ``3.0``; a coerced stake or fan is silently wrong money. So every
  scalar, literal and container gets a hook that checks the JSON type exactly.
* :mod:`json` keeps the last of two repeated keys and accepts ``NaN``/``Infinity``; the
  contract makes a repeated key an error (a backend that writes ``"fan"`` twice has a bug we
  must not paper over), so objects are built through a hook that refuses duplicates.

Lines are split on ``\\n`` only (``str.splitlines`` also splits on form feeds, ``\\x85`` and
``\\u2028``, which would shift every line number after them).
"""

from __future__ import annotations

import typing
from collections.abc import Callable, Iterable, Iterator
from functools import cache
from typing import TYPE_CHECKING, Any, Final, Literal, TypeVar, get_args, get_origin

import attrs

from mjledger._text import escaped, shortened, shown
from mjledger.errors import FormatError, LogError, UnknownRulesetError
from mjledger.log.events import (
    EVENT_CLASSES,
    EVENT_TYPES,
    Event,
    HandStarted,
    MatchStarted,
    MeldRecord,
    PlayerAtWallEnd,
    RulesetName,
    json_name,
)
from mjledger.log.jsontext import MAX_DEPTH as MAX_DEPTH
from mjledger.log.jsontext import canonical as canonical
from mjledger.log.jsontext import canonical_bytes as canonical_bytes
from mjledger.log.jsontext import decode_json as decode_json
from mjledger.rules.house import rules_from_json, rules_to_json
from mjledger.rules.registry import find_ruleset, is_rules_class, ruleset_names

# cattrs is imported with the converter, when a line first needs it (:func:`converter`): the
# fast decoder (log/fast.py) reads a well-formed log without it.
if TYPE_CHECKING:
    import cattrs

T = TypeVar("T")

_JSON_NAMES: Final = {int: "an integer", str: "a string", bool: "true or false"}


def _describe(value: object) -> str:
    import json

    try:
        text = json.dumps(value, ensure_ascii=False)
    except (TypeError, ValueError):
        text = repr(value)
    return shortened(escaped(text))


def _strict_scalar(kind: type) -> Callable[[object, type], object]:
    def structure(value: object, _type: type) -> object:
        if type(value) is not kind:
            raise FormatError(f"expected {_JSON_NAMES[kind]}, not {_describe(value)}")
        return value

    return structure


@cache
def _literal_members(literal: Any) -> frozenset[tuple[type, object]]:
    # Keyed by type as well as value: True == 1 and 10.0 == 10 in Python, never in the log.
    return frozenset((type(a), a) for a in get_args(literal))


def _strict_literal(value: object, literal: Any) -> object:
    if (type(value), value) not in _literal_members(literal):
        import json

        shown = ", ".join(json.dumps(a) for a in get_args(literal))
        raise FormatError(f"expected one of {shown}, not {_describe(value)}")
    return value


def _is_literal(t: Any) -> bool:
    return bool(get_origin(t) is Literal)


def _is_homogeneous_tuple(t: Any) -> bool:
    args = get_args(t)
    return get_origin(t) is tuple and len(args) == 2 and args[1] is Ellipsis


def _is_str_dict(t: Any) -> bool:
    return get_origin(t) is dict and get_args(t)[0] is str


def check_ruleset_name(value: object) -> str:
    """``value`` if it names a registered rule set (a log line's ``ruleset``), else a
    FormatError listing those that are (the plugins' entry points are read only for a name
    that is not built in)."""
    if type(value) is str:
        try:
            find_ruleset(value)
            return value
        except UnknownRulesetError:
            pass
    names = ruleset_names()
    if type(value) is not str or value not in names:
        import json

        shown = ", ".join(json.dumps(n) for n in sorted(names))
        problem = f"expected one of {shown}, not {_describe(value)}"
        if type(value) is str:  # a name, but no rule set's
            raise UnknownRulesetError(problem)
        raise FormatError(problem)
    return value


def _structure_ruleset_name(value: object, _t: Any) -> str:
    return check_ruleset_name(value)


def _upcast_match_started_v1(state: dict[str, Any]) -> None:
    """Write out the rules a v1 ``match_started`` row left to the defaults in force when it
    was written (v2 always stores every key, so that a later change of a default can never
    change the money of a recorded match)."""
    given = state.get("rules") or {}
    assert isinstance(given, dict)
    state["rules"] = {**find_ruleset(str(state["ruleset"])).v1_defaults, **given}


# Each event class's upcasters, by the version they read: an old stored row of that class is
# brought to the class's ``class_version`` one step at a time.
UPCASTERS: Final[dict[tuple[type, int], Callable[[dict[str, Any]], None]]] = {
    (MatchStarted, 1): _upcast_match_started_v1,
}


def upcast(cls: type, state: dict[str, Any], version: int) -> None:
    """Bring the fields of a stored row of ``cls`` written at ``version`` up to the class's
    own version, in place."""
    while version < getattr(cls, "class_version", 1):
        UPCASTERS[cls, version](state)
        version += 1


def _is_rules_class(t: Any) -> bool:
    # Only an attrs class of no event can be house rules: the types of the events' own
    # fields are told apart without loading every rule set.
    if not isinstance(t, type) or t in _RECORD_CLASSES or not attrs.has(t):
        return False
    return is_rules_class(t)


_RECORD_CLASSES: Final = frozenset((*EVENT_CLASSES, MeldRecord, PlayerAtWallEnd))


def make_converter() -> cattrs.Converter:
    """The one converter for the log format, strict in and compact out, composed of the
    ``configure_*`` steps below (the store adds its own classes the same way, to its own
    converter: nothing registers hooks on a shared converter when it is imported).

    Unstructuring omits fields at their default, so a stored or exported event reads like a
    line a backend would write; house rules are written out in full (every key present), since
    a default can change between versions but a recorded match's rules must not.
    """
    import cattrs

    conv = cattrs.Converter(forbid_extra_keys=True, detailed_validation=True)
    configure_strict_json(conv)
    configure_house_rules(conv)
    configure_nested_records(conv)
    configure_event_classes(conv, EVENT_CLASSES)
    conv.register_structure_hook(Event, lambda obj, _t: event_from_json(obj))
    return conv


def configure_strict_json(conv: cattrs.Converter) -> None:
    """JSON types exactly: no coercion of scalars, literals, arrays or objects."""
    from cattrs.errors import ClassValidationError, IterableValidationError

    for kind in (int, str, bool):
        conv.register_structure_hook(kind, _strict_scalar(kind))
    conv.register_structure_hook_func(_is_literal, _strict_literal)

    def structure_tuple(value: object, t: Any) -> tuple[Any, ...]:
        if type(value) is not list:
            raise FormatError(f"expected a JSON array, not {_describe(value)}")
        item = get_args(t)[0]
        return tuple(conv.structure(v, item) for v in value)

    def structure_dict(value: object, t: Any) -> dict[str, Any]:
        if type(value) is not dict:
            raise FormatError(f"expected a JSON object, not {_describe(value)}")
        item = get_args(t)[1]
        out = {}
        for key, v in value.items():
            try:
                out[key] = conv.structure(v, item)
            except (LogError, ClassValidationError, IterableValidationError) as exc:
                problem = f"{shown(key)}: {_first_problem(exc)}"
                raise FormatError(problem, code=_first_code(exc)) from None
        return out

    conv.register_structure_hook_func(_is_homogeneous_tuple, structure_tuple)
    conv.register_structure_hook_func(_is_str_dict, structure_dict)


def configure_house_rules(conv: cattrs.Converter) -> None:
    """Rule-set names from the registry; any registered rule set's house rules written out."""
    conv.register_structure_hook(RulesetName, _structure_ruleset_name)
    conv.register_unstructure_hook_func(_is_rules_class, rules_to_json)


def configure_nested_records(conv: cattrs.Converter) -> None:
    """Records inside events (melds, wall entries): objects only, defaults left out."""
    from cattrs.gen import make_dict_structure_fn, make_dict_unstructure_fn

    for cls in (MeldRecord, PlayerAtWallEnd):
        conv.register_structure_hook(cls, _object_only(make_dict_structure_fn(cls, conv)))
        conv.register_unstructure_hook(
            cls, make_dict_unstructure_fn(cls, conv, _cattrs_omit_if_default=True)
        )


def configure_event_classes(conv: cattrs.Converter, classes: Iterable[Any]) -> None:
    """Hooks for tagged event classes (a ``TYPE``): strict in, ``type`` first, defaults out."""
    for cls in classes:
        _register_event_class(conv, cls)


def _register_event_class(conv: cattrs.Converter, cls: Any) -> None:
    """Hooks for one tagged event class: strict in, ``type`` first and defaults left out."""
    from cattrs.gen import make_dict_structure_fn, make_dict_unstructure_fn, override

    renames: dict[str, Any] = {
        a.name: override(rename=json_name(a)) for a in attrs.fields(cls) if json_name(a) != a.name
    }
    has_rules = "rules" in attrs.fields_dict(cls)
    if has_rules:
        renames["rules"] = override(struct_hook=lambda value, _t: value)
    structure = _object_only(make_dict_structure_fn(cls, conv, **renames))
    if has_rules:
        structure = _with_rules(structure)
    conv.register_structure_hook(cls, structure)
    unstructure_renames = {k: v for k, v in renames.items() if k != "rules"}
    conv.register_unstructure_hook(
        cls,
        _tagged(
            cls.TYPE,
            make_dict_unstructure_fn(
                cls, conv, _cattrs_omit_if_default=True, **unstructure_renames
            ),
        ),
    )


def _object_only(structure: Callable[[Any, Any], Any]) -> Callable[[Any, Any], Any]:
    def hook(value: object, t: Any) -> Any:
        if type(value) is not dict:
            raise FormatError(f"expected a JSON object, not {_describe(value)}")
        return structure(value, t)

    return hook


def _with_rules(structure: Callable[[Any, Any], Any]) -> Callable[[Any, Any], Any]:
    def hook(value: dict[str, Any], t: Any) -> Any:
        return read_house_rules(structure(value, t))

    return hook


def read_house_rules(event: Any) -> Any:
    """``event`` made with its line's ``rules`` object as written, with those read as its rule
    set's house rules: they are typed by the ruleset named on the same line, so they are read
    after it (here, for the strict codec and the fast decoder both)."""
    if event.rules is None:
        return event
    if event.ruleset is None:
        raise FormatError("'rules' needs a 'ruleset' on the same line", code="bad_house_rule")
    return attrs.evolve(event, rules=rules_from_json(event.ruleset, event.rules))


def _tagged(tag: str, unstructure: Callable[[Any], dict[str, Any]]) -> Callable[[Any], Any]:
    def hook(event: Any) -> dict[str, Any]:
        out: dict[str, Any] = {"type": tag}
        out.update(unstructure(event))
        if getattr(event, "rules", None) is not None:
            out["rules"] = rules_to_json(event.rules)
        return out

    return hook


@cache
def converter() -> cattrs.Converter:
    """The log's converter (:func:`make_converter`), made when first needed."""
    return make_converter()


def structure(data: dict[str, Any], cls: type[T]) -> T:
    """Structure ``data`` (an event's fields, without ``type``) strictly into ``cls``."""
    result: T = converter().structure(data, cls)
    return result


def event_from_json(obj: object) -> Event:
    """Structure one decoded JSON object into its event, or raise a :class:`FormatError`.

    The error names the event type when the ``type`` could be read, and the offending field.
    """
    if type(obj) is not dict:
        raise FormatError(f"a line must be a JSON object, not {_describe(obj)}", code="bad_json")
    tag = obj.get("type")
    if tag is None:
        raise FormatError('the object has no "type"')
    if type(tag) is not str or tag not in EVENT_TYPES:
        known = ", ".join(EVENT_TYPES)
        raise FormatError(f"unknown event type {_describe(tag)} (known: {known})")
    cls = EVENT_TYPES[tag]
    if cls is HandStarted and "stakes" in obj:
        # Only the store's copy of a hand's context holds its opening balances.
        raise FormatError(
            "hand_started carries no stakes: a match sets them on match_started, and a "
            "stand-alone hand cannot carry them",
            event_type=tag,
        )
    fields = {k: v for k, v in obj.items() if k != "type"}
    try:
        event: Event = structure(fields, cls)
        return event
    except LogError as exc:
        raise FormatError(exc.problem, event_type=tag, code=exc.code) from None
    except Exception as exc:
        if not isinstance(exc, _validation_errors()):
            raise
        raise FormatError(_first_problem(exc), event_type=tag, code=_first_code(exc)) from None


@cache
def _validation_errors() -> tuple[type[Exception], ...]:
    """cattrs' exceptions for a value that does not fit (imported with the converter)."""
    from cattrs.errors import ClassValidationError, ForbiddenExtraKeysError, IterableValidationError

    return (ClassValidationError, IterableValidationError, ForbiddenExtraKeysError)


def _first_problem(exc: BaseException, path: str = "") -> str:
    """Flatten cattrs' exception group into one sentence naming the field at fault."""
    from cattrs.errors import ClassValidationError, ForbiddenExtraKeysError, IterableValidationError

    if isinstance(exc, ForbiddenExtraKeysError):
        names = sorted(exc.extra_fields)
        extra = ", ".join(shortened(escaped(name)) for name in names[:3])
        if len(names) > 3:
            extra += f" (and {len(names) - 3} more)"
        where = f" in {path}" if path else ""
        return f"unknown field{'s' if len(names) > 1 else ''}{where}: {extra}"
    if isinstance(exc, (ClassValidationError, IterableValidationError)):
        for sub in exc.exceptions:
            return _first_problem(sub, _extend(path, sub))
    if isinstance(exc, KeyError):
        return f"missing field {path!r}" if path else "missing field"
    problem = exc.problem if isinstance(exc, LogError) else str(exc)
    return f"{path}: {problem}" if path else problem


def _first_code(exc: BaseException) -> str:
    """The code of the problem :func:`_first_problem` names (``bad_format`` for cattrs' own)."""
    from cattrs.errors import ClassValidationError, IterableValidationError

    while isinstance(exc, (ClassValidationError, IterableValidationError)) and exc.exceptions:
        exc = exc.exceptions[0]
    return exc.code if isinstance(exc, LogError) else "bad_format"


# Each field whose key in a log line is not its name, by its name (for error paths).
_LINE_KEYS: Final = {
    a.name: json_name(a)
    for cls in EVENT_CLASSES
    for a in attrs.fields(cls)
    if json_name(a) != a.name
}


def _extend(path: str, exc: BaseException) -> str:
    for note in getattr(exc, "__notes__", ()):
        name = getattr(note, "name", None)
        if name is None:
            name = getattr(note, "index", None)
        if name is not None:
            name = _LINE_KEYS.get(name, name)
            if isinstance(name, int):
                return f"{path}[{name}]"
            return f"{path}.{name}" if path else str(name)
    return path


def event_to_json(event: Event) -> dict[str, Any]:
    """The event as its log line's JSON object (``type`` first, defaults left out)."""
    return typing.cast(dict[str, Any], converter().unstructure(event))


def dumps_event(event: Event) -> str:
    """One log line, without the newline."""
    import json

    return json.dumps(event_to_json(event), ensure_ascii=False, separators=(", ", ": "))


def canonical_json(event: Event) -> str:
    """The event's log line in canonical JSON (:func:`canonical`): the form digests are taken
    over."""
    return canonical(event_to_json(event))


def decode_line(text: str, line: int | None = None) -> Event:
    """One log line to its event; errors carry ``line`` and, where readable, the event type."""
    try:
        obj = decode_json(text)
    except FormatError as exc:
        raise exc.at(line) from None
    try:
        return event_from_json(obj)
    except FormatError as exc:
        tag = obj.get("type") if isinstance(obj, dict) else None
        raise exc.at(line, tag if isinstance(tag, str) and tag in EVENT_TYPES else None) from None


def iter_lines(text: str) -> Iterator[tuple[int, str]]:
    """Numbered non-blank lines, numbered as an editor shows them (blank lines still count)."""
    for number, raw in enumerate(text.split("\n"), 1):
        line = raw[:-1] if raw.endswith("\r") else raw
        if line.strip():
            yield number, line


def parse_log(text: str) -> list[tuple[int, Event]]:
    """Every event of a log with its line number; an empty log is an error of line 1.

    A leading byte order mark is ignored (editors on Windows write one), as for bytes."""
    if text.startswith("\ufeff"):
        text = text[1:]
    events = [(number, decode_line(line, number)) for number, line in iter_lines(text)]
    if not events:
        raise FormatError("the log is empty", line=1)
    return events


def read_log_bytes(data: bytes) -> list[tuple[int, Event]]:
    """Like :func:`parse_log` for raw bytes, naming the line of any invalid UTF-8."""
    try:
        text = data.decode("utf-8")
    except UnicodeDecodeError as exc:
        line = data.count(b"\n", 0, exc.start) + 1
        raise FormatError("the line is not valid UTF-8", line=line, code="bad_json") from None
    return parse_log(text)
