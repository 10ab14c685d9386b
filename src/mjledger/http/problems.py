"""Refusals over HTTP: RFC 9457 problems with a stable ``code`` (http-api.md, "Errors").

The codes and their statuses are the library's (:data:`mjledger.errors.CODES`: every
``MjledgerError`` carries its ``.code``); this module adds only each code's fixed title.
"""

from __future__ import annotations

from typing import Any, Final

from mjledger.errors import CODES, LogError, MjledgerError

# code: title — fixed per code; the status is the library's (errors.CODES).
TITLES: Final[dict[str, str]] = {
    "bad_parameter": "A path or query value is out of its syntax or range",
    "bad_json": "The body is not one strict JSON object",
    "bad_format": "The JSON is not a well-formed event",
    "unknown_ruleset": "No rule set of that name",
    "bad_house_rule": "A house rule is unknown or out of range",
    "unauthorized": "A valid bearer token is needed",
    "forbidden": "The token's role may not do this",
    "out_of_scope": "The match is outside the token's scope",
    "csrf_failed": "The form post failed its CSRF check",
    "not_found": "No such path",
    "no_match": "No such match",
    "no_hand": "No such hand or stored event",
    "method_not_allowed": "The method is not allowed on this path",
    "request_timeout": "The body did not arrive in time",
    "conflict": "The place named is not the next one",
    "match_exists": "The match exists with another match_started",
    "hand_in_play": "A hand is in play",
    "hand_not_in_play": "The hand has ended",
    "match_over": "The match is over",
    "log_conflict": "The log differs from the match stored",
    "too_large": "The body is over its limit",
    "unsupported_media_type": "The Content-Type is not the endpoint's",
    "wrong_event_type": "This endpoint does not take that type of event",
    "match_id_mismatch": "The body's match is not the path's",
    "not_at_table": "The player is not at the table",
    "already_won": "The player has already won",
    "self_reference": "The event names the acting player",
    "below_minimum_fan": "The win is below the table minimum",
    "wrong_ruleset": "The match's rule set does not have this",
    "bad_tiles": "The tiles cannot be",
    "wrong_dealer": "The dealer is not the one the rotation gives",
    "rule_violation": "The event breaks the rules of play",
    "correction_refused": "The correction is refused",
    "internal_error": "Internal error",
    "store_damaged": "The store is damaged",
    "not_ready": "Not ready",
    "store_unavailable": "The store cannot be reached now",
    "busy": "Too many logs are being received",
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
        return CODES[self.code]

    def body(self, instance: str) -> dict[str, Any]:
        return {
            "type": f"urn:mjledger:problem:{self.code}",
            "title": TITLES[self.code],
            "status": self.status,
            "detail": self.detail,
            "instance": instance,
            "code": self.code,
            **self.members,
        }


def problem_of(error: MjledgerError, **members: Any) -> Problem:
    """A library error as a problem; a refused event or log line carries ``line`` and
    ``event_type``. A store's damage or unavailability names no path or URL."""
    code = error.code
    if code in ("store_damaged", "store_unavailable"):
        detail = (
            "the store is damaged" if code == "store_damaged" else "the store failed: retry later"
        )
        return Problem(code, detail, **members)
    if isinstance(error, LogError):
        members.setdefault("line", error.line)
        members.setdefault("event_type", error.event_type)
    return Problem(code, str(error), **members)
