"""Match ids in paths: decoded segment by segment, checked as a log's ids are, written back
percent-encoded.

A path is split on its ``/`` first and each segment percent-decoded after (RFC 3986, UTF-8), so
``%2F`` belongs to its segment and every id a log can name has an address.
"""

from __future__ import annotations

import re
from typing import Final
from urllib.parse import quote

MAX_ID: Final = 200
# Controls, line and paragraph separators, bidirectional controls (log-format.md, "Lines").
_REFUSED: Final = re.compile(
    "[\x00-\x1f\x7f-\x9f\u2028\u2029\u061c\u200e\u200f\u202a-\u202e\u2066-\u2069]"
)
_ESCAPE: Final = re.compile(rb"%([0-9A-Fa-f]{2})")
_INTEGER: Final = re.compile(r"[1-9][0-9]{0,17}")


def id_problem(value: str) -> str | None:
    """Why ``value`` is not a legal id, or None when it is."""
    if not value:
        return "an id is not empty"
    if len(value) > MAX_ID:
        return f"an id is at most {MAX_ID} characters"
    if _REFUSED.search(value):
        return "an id holds no control, separator or bidirectional control character"
    return None


def decode_segment(raw: str) -> str | None:
    """One path segment percent-decoded as UTF-8, or None for a bad escape or bad UTF-8."""
    data = raw.encode("latin-1", "strict") if raw.isascii() else raw.encode("utf-8")
    out = bytearray()
    i = 0
    while i < len(data):
        if data[i] == 0x25:  # "%"
            found = _ESCAPE.match(data, i)
            if found is None:
                return None
            out.append(int(found.group(1), 16))
            i += 3
        else:
            out.append(data[i])
            i += 1
    try:
        return out.decode("utf-8")
    except UnicodeDecodeError:
        return None


def encode_id(value: str) -> str:
    """An id as the server writes it into a path: every byte outside ``A–Z a–z 0–9 - . _ ~``
    percent-encoded."""
    return quote(value, safe="")


def positive(raw: str) -> int | None:
    """A positive decimal integer without leading zeros, or None."""
    return int(raw) if _INTEGER.fullmatch(raw) else None
