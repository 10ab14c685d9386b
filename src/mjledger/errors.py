"""One exception hierarchy, so a caller can catch everything mjledger refuses with one clause.

Every error raised by the library is an :class:`MjledgerError`. Errors about a log carry the
1-based line number and the event type (where it could be read), because a support person
fixing a disputed hand needs to know exactly where to look.
"""

from __future__ import annotations

from mjledger._text import MAX_MESSAGE, one_line


class MjledgerError(Exception):
    """Root of every error mjledger raises on purpose.

    Its text is one line of bounded length whatever it quotes (a log is untrusted input).
    """

    def __str__(self) -> str:
        return one_line(super().__str__(), MAX_MESSAGE)


class LogError(MjledgerError):
    """A log (or one event of it) breaks the format or the rules; nothing was recorded.

    ``line`` is the 1-based line of the log (``None`` for an event handed over without a log),
    ``event_type`` the event's ``"type"`` where it could be read, ``problem`` a plain sentence.
    """

    def __init__(self, problem: str, *, line: int | None = None, event_type: str | None = None):
        self.problem = one_line(problem)
        self.line = line
        self.event_type = event_type
        super().__init__(self._render())

    def _render(self) -> str:
        where = []
        if self.line is not None:
            where.append(f"line {self.line}")
        if self.event_type is not None:
            where.append(self.event_type)
        return f"{': '.join(where)}: {self.problem}" if where else self.problem

    def at(self, line: int | None, event_type: str | None = None) -> LogError:
        """The same problem, placed at ``line`` (keeps an event type already known)."""
        return type(self)(self.problem, line=line, event_type=self.event_type or event_type)


class FormatError(LogError):
    """The line is not a well-formed event: bad JSON, unknown type or field, wrong value type."""


class RuleError(LogError):
    """The event is well-formed but breaks the rules of play or of the house rules."""


class TileError(MjledgerError):
    """Tile notation that cannot be read, or a tile count that cannot be."""


class SimulationError(MjledgerError):
    """The simulator was asked to play what it cannot: a rule set it has no players for (one
    registered by a plugin), no hands."""


class StoreError(MjledgerError):
    """The ledger store refused an operation (missing match or hand, conflicting record)."""


class ConcurrencyError(StoreError):
    """Another writer appended to the same stream first; reload and retry."""


class UnknownRulesetError(FormatError):
    """No rule set of that name is registered (built in, from a plugin, or in process)."""


class StoreConnectionError(StoreError):
    """The store's database could not be reached or failed mid-operation (a server restarting,
    refused credentials, a pool exhausted); what was not acknowledged was not written."""
