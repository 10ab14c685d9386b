"""Request bodies decoded as a log line is: strict JSON, then the event codec.

A JSON body is one strict JSON object (no repeated keys, ``NaN``, deep nesting or lone
surrogates; a leading BOM ignored); its problems are ``bad_json``, the event's ``bad_format``
(or ``unknown_ruleset``, ``bad_house_rule``), each carrying line 1 of the body.
"""

from __future__ import annotations

from typing import Any

from mjledger.errors import FormatError
from mjledger.http.problems import Problem, problem_of
from mjledger.log.codec import decode_json, event_from_json
from mjledger.log.events import EVENT_TYPES, Event


def json_object(data: bytes) -> dict[str, Any]:
    """The body as one strict JSON object, or ``bad_json``."""
    try:
        text = data.decode("utf-8")
    except UnicodeDecodeError:
        raise Problem("bad_json", "the body is not valid UTF-8") from None
    text = text.removeprefix("\ufeff")
    try:
        obj = decode_json(text)
    except FormatError as exc:
        raise Problem("bad_json", str(exc)) from None
    if not isinstance(obj, dict):
        raise Problem("bad_json", "the body is not a JSON object")
    return obj


def event_body(data: bytes, line: int | None = None) -> Event:
    """The body as one event of the log format; its problem carries ``line`` when given."""
    obj = json_object(data)
    try:
        return event_from_json(obj)
    except FormatError as exc:
        tag = obj.get("type")
        known = tag if isinstance(tag, str) and tag in EVENT_TYPES else None
        raise problem_of(exc.at(line, known)) from None
