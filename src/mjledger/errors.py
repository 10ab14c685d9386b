"""One exception hierarchy, so a caller can catch everything mjledger refuses with one clause.

Every error raised by the library is an :class:`MjledgerError`. Errors about a log carry the
1-based line number and the event type (where it could be read), because a support person
fixing a disputed hand needs to know exactly where to look. Every error also carries a stable
``code`` (http-api.md's table of error codes, :data:`CODES`), so that a program tells one
refusal from another without parsing English: a class gives its usual code, a raise site that
means another passes ``code=``. Codes never change once released.
"""

from __future__ import annotations

from typing import Final

from mjledger._text import MAX_MESSAGE, one_line

# The codes of http-api.md's error table, each with its HTTP status. The library's errors use
# those a library can mean; the service adds the rest (authentication, limits, methods).
CODES: Final[dict[str, int]] = {
    "bad_parameter": 400,
    "bad_json": 400,
    "bad_format": 400,
    "unknown_ruleset": 400,
    "bad_house_rule": 400,
    "unauthorized": 401,
    "forbidden": 403,
    "out_of_scope": 403,
    "csrf_failed": 403,
    "not_found": 404,
    "no_match": 404,
    "no_hand": 404,
    "method_not_allowed": 405,
    "request_timeout": 408,
    "conflict": 409,
    "match_exists": 409,
    "hand_in_play": 409,
    "hand_not_in_play": 409,
    "match_over": 409,
    "log_conflict": 409,
    "too_large": 413,
    "unsupported_media_type": 415,
    "wrong_event_type": 422,
    "match_id_mismatch": 422,
    "not_at_table": 422,
    "already_won": 422,
    "self_reference": 422,
    "below_minimum_fan": 422,
    "wrong_ruleset": 422,
    "bad_tiles": 422,
    "wrong_dealer": 422,
    "rule_violation": 422,
    "correction_refused": 422,
    "internal_error": 500,
    "store_damaged": 500,
    "not_ready": 503,
    "store_unavailable": 503,
    "busy": 503,
}


class MjledgerError(Exception):
    """Root of every error mjledger raises on purpose.

    Its text is one line of bounded length whatever it quotes (a log is untrusted input).
    ``code`` is the refusal's code (:data:`CODES`); ``hand`` the number of the hand it is
    about, where it is about one; ``line`` and ``event_type`` are a log's (:class:`LogError`;
    a store's refusal of a log may name the ``line`` too), else None.
    """

    default_code: str = "bad_parameter"
    line: int | None = None
    event_type: str | None = None

    def __init__(
        self,
        *args: object,
        code: str | None = None,
        hand: int | None = None,
        line: int | None = None,
    ):
        super().__init__(*args)
        self.code = code or self.default_code
        self.hand = hand
        if line is not None:  # a store's refusal of a log naming the line (``log_conflict``)
            self.line = line

    def __str__(self) -> str:
        return one_line(super().__str__(), MAX_MESSAGE)


class LogError(MjledgerError):
    """A log (or one event of it) breaks the format or the rules; nothing was recorded.

    ``line`` is the 1-based line of the log (for an event recorded into a stored hand, its
    line in the match's export), ``event_type`` the event's ``"type"`` where it could be read,
    ``problem`` a plain sentence.
    """

    default_code = "rule_violation"

    def __init__(
        self,
        problem: str,
        *,
        line: int | None = None,
        event_type: str | None = None,
        code: str | None = None,
        hand: int | None = None,
        in_export: bool = False,
    ):
        self.problem = one_line(problem)
        self.line = line
        self.event_type = event_type
        # An event recorded into a stored hand: its line is named after the problem, as a line
        # of the match's export (a stored hand has no log of its own).
        self.in_export = in_export
        self.hand = hand
        super().__init__(self._render(), code=code, hand=hand)

    def _render(self) -> str:
        if self.in_export:
            located = f"{self.problem} (hand {self.hand}, line {self.line} of the match's export)"
            return f"{self.event_type}: {located}" if self.event_type else located
        where = []
        if self.line is not None:
            where.append(f"line {self.line}")
        if self.event_type is not None:
            where.append(self.event_type)
        return f"{': '.join(where)}: {self.problem}" if where else self.problem

    def at(self, line: int | None, event_type: str | None = None) -> LogError:
        """The same problem, placed at ``line`` (keeps an event type already known)."""
        return type(self)(
            self.problem,
            line=line,
            event_type=self.event_type or event_type,
            code=self.code,
            hand=self.hand,
        )

    def in_stored_hand(self, hand: int, line: int) -> LogError:
        """The same problem, of an event recorded into stored hand ``hand`` at ``line`` of the
        match's export (``Ledger.record``)."""
        return type(self)(
            self.problem,
            line=line,
            event_type=self.event_type,
            code=self.code,
            hand=hand,
            in_export=True,
        )


class FormatError(LogError):
    """The line is not a well-formed event: bad JSON, unknown type or field, wrong value type
    (``bad_json``, ``bad_format`` or ``bad_house_rule``)."""

    default_code = "bad_format"


class RuleError(LogError):
    """The event is well-formed but breaks the rules of play or of the house rules (a 422
    code: ``rule_violation`` unless the refusal has its own; ``correction_refused`` for a
    correction)."""


class TileError(MjledgerError):
    """Tile notation that cannot be read, or a tile count that cannot be."""

    default_code = "bad_tiles"


class SimulationError(MjledgerError):
    """The simulator was asked to play what it cannot: a rule set it has no players for (one
    registered by a plugin), no hands."""

    default_code = "bad_parameter"


class StoreError(MjledgerError):
    """The ledger store refused an operation (missing match or hand, conflicting record):
    ``match_exists``, ``no_match``, ``no_hand``, ``store_damaged`` or ``store_unavailable`` as
    its cause is."""

    default_code = "store_damaged"


class ConcurrencyError(StoreError):
    """Another writer appended to the same stream first; reload and retry."""

    default_code = "conflict"


class UnknownRulesetError(FormatError):
    """No rule set of that name is registered (built in, from a plugin, or in process)."""

    default_code = "unknown_ruleset"


class StoreConnectionError(StoreError):
    """The store's database could not be reached or failed mid-operation (a server restarting,
    refused credentials, a pool exhausted); what was not acknowledged was not written."""

    default_code = "store_unavailable"
