"""How an event is refused: a :class:`RuleError` naming the line, the event's type, the
problem and its code. Below the folds, so that what a win is worth (:mod:`mjledger.rules.wins`)
refuses a win the same way whichever fold asks."""

from __future__ import annotations

from mjledger.errors import RuleError
from mjledger.log.events import Event

__all__ = ["refusal"]


def refusal(
    event: Event, line: int | None, problem: str, code: str = "rule_violation"
) -> RuleError:
    return RuleError(problem, line=line, event_type=type(event).TYPE, code=code)
