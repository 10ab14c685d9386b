"""Refusals over HTTP: RFC 9457 problems with a stable ``code`` (http-api.md, "Errors").

One table gives each code its status and title; :func:`code_of` is the one place a library
error gets its code: the error's own ``.code`` where it has one, else read off its class and
message (kept only until every ``MjledgerError`` carries ``.code``).
"""

from __future__ import annotations

import re
from typing import Any, Final

from mjledger.errors import (
    ConcurrencyError,
    FormatError,
    LogError,
    MjledgerError,
    RuleError,
    SimulationError,
    StoreConnectionError,
    StoreError,
    TileError,
    UnknownRulesetError,
)

# code: (status, title) — the titles are fixed per code.
CODES: Final[dict[str, tuple[int, str]]] = {
    "bad_parameter": (400, "A path or query value is out of its syntax or range"),
    "bad_json": (400, "The body is not one strict JSON object"),
    "bad_format": (400, "The JSON is not a well-formed event"),
    "unknown_ruleset": (400, "No rule set of that name"),
    "bad_house_rule": (400, "A house rule is unknown or out of range"),
    "unauthorized": (401, "A valid bearer token is needed"),
    "forbidden": (403, "The token's role may not do this"),
    "out_of_scope": (403, "The match is outside the token's scope"),
    "csrf_failed": (403, "The form post failed its CSRF check"),
    "not_found": (404, "No such path"),
    "no_match": (404, "No such match"),
    "no_hand": (404, "No such hand or stored event"),
    "method_not_allowed": (405, "The method is not allowed on this path"),
    "request_timeout": (408, "The body did not arrive in time"),
    "conflict": (409, "The place named is not the next one"),
    "match_exists": (409, "The match exists with another match_started"),
    "hand_in_play": (409, "A hand is in play"),
    "hand_not_in_play": (409, "The hand has ended"),
    "match_over": (409, "The match is over"),
    "log_conflict": (409, "The log differs from the match stored"),
    "too_large": (413, "The body is over its limit"),
    "unsupported_media_type": (415, "The Content-Type is not the endpoint's"),
    "wrong_event_type": (422, "This endpoint does not take that type of event"),
    "match_id_mismatch": (422, "The body's match is not the path's"),
    "not_at_table": (422, "The player is not at the table"),
    "already_won": (422, "The player has already won"),
    "self_reference": (422, "The event names the acting player"),
    "below_minimum_fan": (422, "The win is below the table minimum"),
    "wrong_ruleset": (422, "The match's rule set does not have this"),
    "bad_tiles": (422, "The tiles cannot be"),
    "wrong_dealer": (422, "The dealer is not the one the rotation gives"),
    "rule_violation": (422, "The event breaks the rules of play"),
    "correction_refused": (422, "The correction is refused"),
    "internal_error": (500, "Internal error"),
    "store_damaged": (500, "The store is damaged"),
    "not_ready": (503, "Not ready"),
    "store_unavailable": (503, "The store cannot be reached now"),
    "busy": (503, "Too many logs are being received"),
}

PROBLEM_TYPE: Final = "application/problem+json"


class Problem(Exception):  # noqa: N818 - an answer, raised to end the request
    """A refusal on its way to the client: its code and the members the spec adds."""

    def __init__(self, code: str, detail: str, **members: Any) -> None:
        super().__init__(detail)
        self.code = code
        self.detail = detail
        self.members = members
        self.headers: dict[str, str] = {}

    @property
    def status(self) -> int:
        return CODES[self.code][0]

    def body(self, instance: str) -> dict[str, Any]:
        return {
            "type": f"urn:mjledger:problem:{self.code}",
            "title": CODES[self.code][1],
            "status": self.status,
            "detail": self.detail,
            "instance": instance,
            "code": self.code,
            **self.members,
        }


# Read off a RuleError's message while the library does not name its code (first match wins).
_RULE_CODES: Final = (
    (re.compile(r"has already won"), "already_won"),
    (re.compile(r"is not at the table|names .* who (is|has)|leaves out"), "not_at_table"),
    (re.compile(r"own discard|names the (winner|acting)|themselves|itself"), "self_reference"),
    (re.compile(r"below the table minimum"), "below_minimum_fan"),
    (
        re.compile(r"is a Hong Kong rule|has none|has no |not part of \w+ play|carries no"),
        "wrong_ruleset",
    ),
    (re.compile(r"dealer .*(rotation|should|is due|deals)|rotation"), "wrong_dealer"),
    (
        re.compile(
            r"the tiles make|tiles? (cannot|do not)|not complete|void suit|times; there are"
        ),
        "bad_tiles",
    ),
    (re.compile(r"has already ended"), "hand_not_in_play"),
    (re.compile(r"the match is over"), "match_over"),
    (re.compile(r"has not ended yet"), "hand_in_play"),
)
_FORMAT_JSON: Final = re.compile(
    r"JSON|repeated key|nest|surrogate|NaN|Infinity|UTF-8|not an object|a JSON object"
)
_FORMAT_RULES: Final = re.compile(r"house rule|'rules'|stakes|rules\.")


def code_of(error: MjledgerError) -> str:
    """The API's code for a library error (the error's own ``.code`` when it has one)."""
    given = getattr(error, "code", None)
    if isinstance(given, str) and given in CODES:
        return given
    text = str(error)
    if isinstance(error, UnknownRulesetError) or "ruleset: expected one of" in text:
        return "unknown_ruleset"
    if isinstance(error, RuleError):
        return next(
            (code for pattern, code in _RULE_CODES if pattern.search(text)), "rule_violation"
        )
    if isinstance(error, FormatError):
        if _FORMAT_JSON.search(text):
            return "bad_json"
        return "bad_house_rule" if _FORMAT_RULES.search(text) else "bad_format"
    if isinstance(error, TileError):
        return "bad_tiles"
    if isinstance(error, ConcurrencyError):
        return "conflict"
    if isinstance(error, StoreConnectionError):
        return "store_unavailable"
    if isinstance(error, StoreError):
        return _store_code(text)
    if isinstance(error, SimulationError):
        return "bad_parameter"
    return "correction_refused" if "correction" in text or "void" in text else "bad_format"


def _store_code(text: str) -> str:
    if text.startswith("no match"):
        return "no_match"
    if "has no hand" in text:
        return "no_hand"
    if "already exists" in text:
        return "match_exists"
    if "already recorded with" in text:
        return "log_conflict"
    if "still in progress" in text:
        return "hand_in_play"
    if "cannot" in text or "failed" in text:
        return "store_unavailable"
    return "store_damaged"


def problem_of(error: MjledgerError, **members: Any) -> Problem:
    """A library error as a problem; a refused event or log line carries ``line`` and
    ``event_type``. A store's damage or unavailability names no path or URL."""
    code = code_of(error)
    if code in ("store_damaged", "store_unavailable"):
        detail = (
            "the store is damaged" if code == "store_damaged" else "the store failed: retry later"
        )
        return Problem(code, detail, **members)
    if isinstance(error, LogError):
        members.setdefault("line", error.line)
        members.setdefault("event_type", error.event_type)
    return Problem(code, str(error), **members)
