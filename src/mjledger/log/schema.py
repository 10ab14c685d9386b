"""JSON Schema of one log line, generated from the event classes themselves.

Backends validate on their side with any JSON Schema library; generating the schema from the
same attrs classes the codec reads keeps the two from drifting apart. Facts a type cannot say
(ranges, tile notation, four distinct players) come from the small table ``_EXTRA`` below;
facts that need the whole log (a player at the table, a hand in progress) are not schema
facts and only ``mjledger replay`` checks them.
"""

from __future__ import annotations

import types
import typing
from typing import Any, Final, Literal, get_args, get_origin

import attrs

from mjledger._checks import TILE_PATTERN, TILES_PATTERN
from mjledger.log.events import EVENT_CLASSES, MAX_TABLE_STAKE, RulesetName, json_name
from mjledger.rules.registry import ruleset_names, rulesets

SCHEMA_ID: Final = "https://mjledger.invalid/schema/log-line-v1.json"

_TILE = {"type": "string", "pattern": f"^(?:{TILE_PATTERN})$"}
_TILES = {"type": "string", "pattern": f"^{TILES_PATTERN}$"}
_PLAYER = {"type": "string", "minLength": 1}
_EXTRA: Final[dict[str, dict[str, Any]]] = {
    "players": {"minItems": 4, "maxItems": 4, "uniqueItems": True, "items": _PLAYER},
    "player": _PLAYER,
    "from": _PLAYER,
    "dealer": _PLAYER,
    "match": {"minLength": 1},
    "fan": {"minimum": 0},
    "best_fan": {"minimum": 0},
    "number": {"minimum": 1},
    "dealer_streak": {"minimum": 0},
    "tile": _TILE,
    "winning_tile": _TILE,
    "tiles": _TILES,
    "format": {"const": 1},
    "liable": _PLAYER,
    "stakes": {
        "additionalProperties": {"type": "integer", "minimum": 1, "maximum": MAX_TABLE_STAKE},
        "propertyNames": {"minLength": 1},
        "minProperties": 4,
        "maxProperties": 4,
    },
}


def _type_schema(t: Any) -> dict[str, Any]:
    origin = get_origin(t)
    if origin in (typing.Union, types.UnionType):
        options = [a for a in get_args(t) if a is not type(None)]
        if len(options) == 1:
            return _type_schema(options[0])
        return {"oneOf": [_type_schema(a) for a in options]}
    if t is RulesetName:
        return {"enum": list(ruleset_names())}
    if origin is Literal:
        return {"enum": list(get_args(t))}
    if origin is tuple:
        return {"type": "array", "items": _type_schema(get_args(t)[0])}
    if origin is dict:
        return {"type": "object", "additionalProperties": _type_schema(get_args(t)[1])}
    if attrs.has(t):
        return _class_schema(t)
    return {str: {"type": "string"}, int: {"type": "integer"}, bool: {"type": "boolean"}}[t]


def _range_of(field: attrs.Attribute[Any]) -> dict[str, Any]:
    """The bounds a house rule's validator checks (``mjledger._checks.int_between``), so a
    rule set's new option needs no line here."""
    low = getattr(field.validator, "low", None)
    if low is None:
        return {}
    high = getattr(field.validator, "high", None)
    return {"minimum": low} if high is None else {"minimum": low, "maximum": high}


def _class_schema(cls: type, tag: str | None = None) -> dict[str, Any]:
    hints = typing.get_type_hints(cls)
    properties: dict[str, Any] = {}
    required: list[str] = []
    if tag is not None:
        properties["type"] = {"const": tag}
        required.append("type")
    for field in attrs.fields(cls):
        if field.metadata.get("store_only"):
            continue  # the store's own copy of a context, never in a log
        name = json_name(field)
        if field.name == "rules":
            properties[name] = {"type": "object"}
            continue
        schema = _type_schema(hints[field.name])
        schema.update(_EXTRA.get(name) or _range_of(field))
        properties[name] = schema
        if field.default is attrs.NOTHING:
            required.append(name)
    return {
        "type": "object",
        "properties": properties,
        "required": required,
        "additionalProperties": False,
    }


def _rules_by_ruleset() -> list[dict[str, Any]]:
    out = []
    for ruleset in rulesets():
        rules = _class_schema(ruleset.rules_class)
        del rules["required"]
        out.append(
            {
                "if": {"properties": {"ruleset": {"const": ruleset.name}}, "required": ["ruleset"]},
                "then": {"properties": {"rules": rules}},
            }
        )
    return out


def log_line_schema() -> dict[str, Any]:
    """A JSON Schema (draft 2020-12) that every line of a valid log satisfies."""
    variants = []
    for cls in EVENT_CLASSES:
        schema = _class_schema(cls, cls.TYPE)
        if "rules" in schema["properties"]:
            schema["allOf"] = _rules_by_ruleset()
        variants.append(schema)
    return {
        "$schema": "https://json-schema.org/draft/2020-12/schema",
        "$id": SCHEMA_ID,
        "title": "mjledger log line (format 1)",
        "description": "One line of a mjledger hand or match log (JSON Lines).",
        "oneOf": variants,
    }
