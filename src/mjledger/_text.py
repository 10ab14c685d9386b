"""Bounded, single-line text for error messages.

A log is untrusted input: a field name may hold a newline or a terminal escape, a value may be
a megabyte long. An error message echoes such things to a terminal and to a support ticket, so
every message is one line of bounded length, with control characters written as escapes.
"""

from __future__ import annotations

import re
from collections.abc import Callable
from functools import cache
from typing import Final

MAX_PROBLEM: Final = 240  # a LogError's problem; with "line N: type: " it stays under 300
MAX_MESSAGE: Final = 290  # any error's whole text
MAX_VALUE: Final = 40  # one value echoed inside a message


def compiled_when_used(pattern: str) -> Callable[[], re.Pattern[str]]:
    """``re.compile(pattern)``, compiled the first time it is called for and kept. Most of
    the package's patterns serve a problem's message or another command (a bad id's, a bad
    line's, the schema's): compiling them all at import cost ``replay --json`` of a short
    log about 1 % of its instructions, so each is compiled only where it is matched with."""
    return cache(lambda: re.compile(pattern))


# Never printed raw: C0 and C1 controls, DEL, the line and paragraph separators, and the
# bidirectional marks, embeddings, overrides and isolates (they reorder what a reader sees).
_CONTROL: Final = compiled_when_used(
    "[\x00-\x1f\x7f-\x9f\u2028\u2029\u061c\u200e\u200f\u202a-\u202e\u2066-\u2069]"
)


def _escape(match: re.Match[str]) -> str:
    char = match.group()
    code = ord(char)
    named = {"\n": "\\n", "\r": "\\r", "\t": "\\t"}.get(char)
    return named or (f"\\x{code:02x}" if code <= 0xFF else f"\\u{code:04x}")


def escaped(text: str) -> str:
    """``text`` with every control character written as an escape (one line, no raw ESC, no
    reordering): the one way text from a log or a store reaches a terminal, in messages and
    in every view (:func:`mjledger.cli.render.inert`)."""
    control = _CONTROL()
    return control.sub(_escape, text) if control.search(text) else text


def shortened(text: str, limit: int = MAX_VALUE) -> str:
    """``text`` cut to at most ``limit`` characters, the cut shown by "..."."""
    return text if len(text) <= limit else text[: limit - 3] + "..."


def shown(value: object, limit: int = MAX_VALUE) -> str:
    """A value as a message quotes it: its repr, escaped and shortened."""
    if isinstance(value, str) and len(value) > 4 * limit:
        value = value[: 4 * limit]  # repr of a huge string is never built
    return shortened(escaped(repr(value)), limit)


def one_line(text: str, limit: int = MAX_PROBLEM) -> str:
    """A whole message made safe: escaped, and shortened in the middle (its start says what
    went wrong, its end often names the fix)."""
    text = escaped(text)
    if len(text) <= limit:
        return text
    head = (limit * 2) // 3
    tail = limit - head - 3
    return text[:head] + "..." + text[-tail:]


def plural(count: int, word: str, words: str | None = None) -> str:
    """``1 hand``, ``2 hands``, ``0 melds``: a count with its noun agreeing."""
    return f"{count} {word if count == 1 else (words or word + 's')}"
