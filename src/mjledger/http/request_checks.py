"""What a ``/v1`` request names, checked before an endpoint's work: that the match, hand or
event of its path exists, its query string (UTF-8, each parameter given once) and the page it
asks for (an opaque cursor this server made, a bounded limit).

Kept apart from :mod:`mjledger.http.api`, whose endpoints and route table use these (and which
re-exports :func:`check_exists` and :func:`parse_query` for the application), so that the
rules of a request's shape are read in one place.
"""

from __future__ import annotations

import base64
import hashlib
from typing import Any
from urllib.parse import parse_qs, urlencode

from mjledger.http.problems import Problem
from mjledger.http.service import Call

__all__ = ["check_exists", "one_value", "page", "parse_query", "query"]


# --- existence ---------------------------------------------------------------------------------


def check_exists(call: Call, what: str | None) -> None:
    """404 ``no_match`` / ``no_hand`` for what the path names, where the endpoint reads it."""
    if what is None:
        return
    ledger = call.ledger
    if not ledger.has_match(call.match):
        raise Problem("no_match", f"no match {call.match!r}")
    if what == "match":
        return
    number = call.params["number"]
    if number > ledger.hands_in(call.match):
        raise Problem("no_hand", f"match {call.match!r} has no hand {number}")
    if what == "event" and call.params["seq"] > ledger.hand(call.match, number).version:
        raise Problem("no_hand", f"hand {number} has no event at seq {call.params['seq']}")


# --- queries -----------------------------------------------------------------------------------


def query(call: Call) -> dict[str, list[str]]:
    found: dict[str, list[str]] = call.params.setdefault("_query", {})
    return found


def one_value(call: Call, name: str) -> str | None:
    values = query(call).get(name)
    if not values:
        return None
    if len(values) > 1:
        raise Problem("bad_parameter", f"?{name} is given once", parameter=name)
    return values[0]


def page_limit(call: Call) -> int:
    raw = one_value(call, "limit")
    if raw is None:
        return 50
    if not raw.isdigit() or not 1 <= int(raw) <= 200 or (raw.startswith("0")):
        raise Problem("bad_parameter", "?limit is an integer from 1 to 200", parameter="limit")
    return int(raw)


def _cursor_mac(index: int) -> str:
    return hashlib.sha256(f"mjledger-cursor:{index}".encode()).hexdigest()[:12]


def make_cursor(index: int) -> str:
    """An opaque cursor: where the next page starts, with a check that the server made it."""
    return base64.urlsafe_b64encode(f"{index}.{_cursor_mac(index)}".encode()).decode().rstrip("=")


def read_cursor(call: Call) -> int:
    raw = one_value(call, "cursor")
    if raw is None:
        return 0
    try:
        text = base64.urlsafe_b64decode(raw + "=" * (-len(raw) % 4)).decode()
        index_text, mac = text.split(".")
        index = int(index_text)
    except (ValueError, UnicodeDecodeError):
        index, mac = -1, ""
    if index < 0 or mac != _cursor_mac(index) or not index_text.isdigit():
        raise Problem("bad_parameter", "?cursor is not one this server gave", parameter="cursor")
    return index


def page(call: Call, items: list[Any], path: str, extra: dict[str, str]) -> dict[str, Any]:
    """``{"items", "next"}`` of the items after the cursor."""
    start, limit = read_cursor(call), page_limit(call)
    chosen = items[start : start + limit]
    more = start + limit < len(items)
    nxt = None
    if more:
        nxt = (
            path + "?" + urlencode({**extra, "limit": limit, "cursor": make_cursor(start + limit)})
        )
    return {"items": chosen, "next": nxt}


def parse_query(raw: bytes) -> dict[str, list[str]]:
    """A query string decoded as UTF-8 (``+`` a space, as forms write it); bad UTF-8 refused."""
    try:
        text = raw.decode("ascii")
        return parse_qs(text, keep_blank_values=True, errors="strict")
    except (UnicodeDecodeError, ValueError):
        raise Problem(
            "bad_parameter", "the query is not percent-encoded UTF-8", parameter="query"
        ) from None
