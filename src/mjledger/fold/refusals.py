"""How the hand fold refuses an event: a :class:`RuleError` naming the line, the event's
type, the problem and its code — and the two checks every kind of event makes before it
changes anything: that its players are still in the hand, and whether a win continues the
open run of wins on one discard (or may not)."""

from __future__ import annotations

from mjledger.errors import RuleError
from mjledger.log.events import Event, WonOnDiscard
from mjledger.rules.refusals import refusal
from mjledger.rules.values import HandView, OpenWins

__all__ = ["check_in_play", "continues_wins", "located", "refusal"]


def located(exc: RuleError, event: Event, line: int | None) -> RuleError:
    """``exc`` as the refusal of ``event`` at ``line``: a rule set's hook names the problem
    only, and the fold adds where it is."""
    if exc.line is None and exc.event_type is None:
        return refusal(event, line, exc.problem, exc.code)
    return exc


def check_in_play(hand: HandView, player: str, role: str, event: Event, line: int | None) -> None:
    """Refuse ``player`` unless still in the hand (callers on the hot path test
    ``player in hand.still_in`` first and call this only to refuse)."""
    if player in hand.still_in:
        return
    if player not in hand.players:
        raise refusal(
            event,
            line,
            f"{role} {player!r} is not at the table ({', '.join(hand.players)})",
            "not_at_table",
        )
    raise refusal(
        event,
        line,
        f"{role} {player!r} has already won and takes no further part in the hand",
        "already_won",
    )


def continues_wins(run: OpenWins, event: Event, line: int | None) -> bool:
    """Whether ``event`` is one more win on the open run's discard (else the run closes
    first); a win on that discard that cannot join the run is refused."""
    if not isinstance(event, WonOnDiscard) or not event.joins_run(run.discarder):
        return False
    if event.robbing_kong != run.robbing_kong:
        raise refusal(
            event,
            line,
            "robbing-kong wins and ordinary wins cannot share one run of wins "
            f"on {run.discarder!r}'s tile",
        )
    if any(event.player == w for w, _ in run.winners):
        raise refusal(
            event,
            line,
            f"{event.player!r} has already won on this tile of {run.discarder!r}",
            "already_won",
        )
    return True
