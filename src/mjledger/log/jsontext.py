"""JSON text, below the events: the package's one canonical JSON (what digests and stored
rows are taken over) and the strict decoding of one line (no repeated keys, no NaN, no lone
surrogate, a bounded depth).

Kept apart from :mod:`mjledger.log.codec`, which turns these objects into events and back and
re-exports every name here, so that the byte-level rules of JSON are stated once and read
without the converter around them.
"""

from __future__ import annotations

from functools import cache
from typing import TYPE_CHECKING, Any, Final

from mjledger._msgspec import JSONEncoder
from mjledger._text import compiled_when_used, shown
from mjledger.errors import FormatError

if TYPE_CHECKING:
    import json

__all__ = ["MAX_DEPTH", "canonical", "canonical_bytes", "decode_json"]


def canonical(data: dict[str, Any]) -> str:
    """The one canonical JSON of the package — sorted keys, no spaces, UTF-8 text:
    ``json.dumps(data, ensure_ascii=False, sort_keys=True, separators=(",", ":"))``, written
    in C by msgspec where it can (see :func:`canonical_bytes`; a lone surrogate, which has no
    UTF-8, takes :mod:`json`)."""
    try:
        return _ENCODE(data).decode("utf-8")
    except (TypeError, UnicodeEncodeError):
        return _canonical_text(data)


def canonical_bytes(data: dict[str, Any]) -> bytes:
    """:func:`canonical` in UTF-8, what digests and stored rows are made of. Encoded in C by
    msgspec, which writes json's text for the values an event holds (strings, integers of
    any size, booleans, null, lists, objects with string keys; tested against :mod:`json`),
    and in recording's check pass took less time than orjson; what it refuses takes
    :mod:`json`."""
    try:
        return _ENCODE(data)
    except TypeError:
        return _canonical_text(data).encode("utf-8")


_ENCODE: Final = JSONEncoder(order="sorted").encode


def _canonical_text(data: dict[str, Any]) -> str:
    import json

    return json.dumps(data, ensure_ascii=False, sort_keys=True, separators=(",", ":"))


# --- strict JSON decoding -------------------------------------------------------------------


def _no_duplicate_keys(pairs: list[tuple[str, Any]]) -> dict[str, Any]:
    out = dict(pairs)
    if len(out) != len(pairs):
        seen: set[str] = set()
        for key, _ in pairs:
            if key in seen:
                raise FormatError(f"repeated key {shown(key)}", code="bad_json")
            seen.add(key)
    return out


def _no_constant(name: str) -> Any:
    raise FormatError(f"{name} is not a JSON number", code="bad_json")


@cache
def _decoders() -> tuple[json.JSONDecoder, json.JSONDecoder]:
    """The checking decoder and the plain one (below), made when the strict codec first reads
    a line: the fast decoder reads a good log without :mod:`json` (importing it, with the
    patterns it compiles, was 1.5 % of ``replay --json`` of a short log)."""
    import json

    checking = json.JSONDecoder(object_pairs_hook=_no_duplicate_keys, parse_constant=_no_constant)
    return checking, json.JSONDecoder(parse_constant=_no_constant)


# Most lines repeat no key anywhere, and then the C decoder can build the objects itself. In a
# line without backslashes no string can hold a quote, so this pattern finds every key; a line
# whose keys are all distinct cannot repeat one within an object. Anything else (an escape, a
# key used at two levels) takes the checking decoder.
_KEY: Final = compiled_when_used(r'"([^"]*)"\s*:')


def _decoder_for(text: str) -> json.JSONDecoder:
    checking, plain = _decoders()
    if "\\" in text:
        return checking
    keys = _KEY().findall(text)
    return plain if len(keys) == len(set(keys)) else checking


MAX_DEPTH: Final = 8  # log-format.md: JSON nested deeper than 8 levels is an error
_STRING: Final = compiled_when_used(r'"[^"\\]*(?:\\.[^"\\]*)*"')
_BRACKET: Final = compiled_when_used(r"[\[\]{}]")


def _check_depth(text: str) -> None:
    """Refuse arrays and objects nested deeper than :data:`MAX_DEPTH`, before decoding.

    Checked on the text, by a loop rather than recursion, so the answer never depends on the
    caller's stack or on which decoder would have run: deeper input is always this error.
    """
    if text.count("[") + text.count("{") <= MAX_DEPTH:
        return
    depth = 0
    for bracket in _BRACKET().finditer(_STRING().sub('""', text) if '"' in text else text):
        if bracket.group() in "[{":
            depth += 1
            if depth > MAX_DEPTH:
                raise FormatError(f"JSON nested more than {MAX_DEPTH} levels deep", code="bad_json")
        else:
            depth -= 1


def decode_json(text: str) -> Any:
    """Decode one line of JSON strictly (no repeated keys, no NaN or Infinity, no lone
    surrogate escapes such as ``"\\ud800"``: the log is UTF-8 text, and a string holding half a
    surrogate pair cannot be written back as UTF-8 in the output or the store), nested at most
    :data:`MAX_DEPTH` levels."""
    import json

    _check_depth(text)
    try:
        obj = _decoder_for(text).decode(text)
        if "\\u" in text:  # only an escape can produce a lone surrogate
            json.dumps(obj, ensure_ascii=False).encode("utf-8")
        return obj
    except UnicodeEncodeError:
        raise FormatError(
            "a string holds a lone surrogate escape (\\ud800-\\udfff)", code="bad_json"
        ) from None
    except json.JSONDecodeError as exc:
        raise FormatError(
            f"not valid JSON: {exc.msg} (column {exc.colno})", code="bad_json"
        ) from None
    except RecursionError:
        raise FormatError(
            "not valid JSON here: arrays or objects nested too deeply", code="bad_json"
        ) from None
    except ValueError as exc:  # an integer beyond Python's digit limit (int_max_str_digits)
        raise FormatError(f"not valid JSON here: {exc}", code="bad_json") from None
