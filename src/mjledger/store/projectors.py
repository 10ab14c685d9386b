"""Stream states as pure folds over stored records: a match, a hand, a table as their streams
tell them (eventsourcing's projector functions, over :class:`Recorded` envelopes)."""

from __future__ import annotations

from collections.abc import Iterable, Sequence
from typing import Any, TypeVar

import attrs
from attrs import frozen

from mjledger._growing import Growing
from mjledger.fold.hand import HandState, apply_event
from mjledger.fold.in_play import HandFold
from mjledger.fold.match import MatchState, start
from mjledger.log.events import WINDS, Event, MatchStarted
from mjledger.rules.protocol import HouseRules
from mjledger.rules.table import Stakes
from mjledger.store.events import HandClosed, MatchOpened, RulesChanged, TableOpened
from mjledger.store.records import Recorded

T = TypeVar("T")


@frozen
class MatchRecord:
    """A match as its stream tells it: the table, the rotation, and each closed hand."""

    version: int
    digest: str
    started: MatchStarted
    state: MatchState
    # Grown by one per closed hand without copying (a tuple copy per hand made folding a long
    # match, and so catching its views up, quadratic).
    closed: Sequence[HandClosed] = attrs.field(factory=Growing)
    digests: Sequence[str] = attrs.field(factory=Growing)  # the stream's digest after each event
    ends: Sequence[int] = attrs.field(factory=Growing)  # export line of each closed hand's end

    def first_line(self, number: int) -> int:
        """The export line of hand ``number``'s ``hand_started``."""
        return (self.ends[number - 2] if number > 1 else 1) + 1

    @property
    def match_id(self) -> str:
        assert self.started.match is not None
        return self.started.match


@frozen
class HandRecord:
    """A hand as its stream tells it; transfer lines are positions in the hand stream."""

    version: int
    digest: str
    state: HandState
    events: Sequence[Event] = attrs.field(factory=Growing)  # grown without a copy per event


@frozen
class TableRecord:
    version: int
    digest: str
    table: str
    ruleset: str
    players: tuple[str, ...]
    rules: HouseRules
    matches: tuple[str, ...] = ()


def project_match(record: MatchRecord | None, stored: Iterable[Recorded]) -> MatchRecord | None:
    for r in stored:
        event = r.event
        if isinstance(event, MatchStarted):
            record = MatchRecord(
                version=r.originator_version,
                digest=r.digest,
                started=event,
                state=start(event),
                digests=Growing((r.digest,)),
            )
            continue
        assert record is not None
        assert isinstance(event, HandClosed)
        state = attrs.evolve(
            record.state,
            first_dealer=record.state.first_dealer if event.number > 1 else event.dealer,
            next_dealer=event.next_dealer,
            next_streak=event.next_streak,
            wind_index=WINDS.index(event.next_round_wind),
            hands_started=event.number,
            over=event.match_over,
            stakes=record.state.stakes
            if event.balances is None
            else Stakes.start(record.state.players, event.balances).with_bust(event.bust),
        )
        record = MatchRecord(
            version=r.originator_version,
            digest=r.digest,
            started=record.started,
            state=state,
            closed=_grow(record.closed, event),
            digests=_grow(record.digests, r.digest),
            ends=_grow(record.ends, (record.ends[-1] if record.ends else 1) + event.events),
        )
    return record


def _grow(items: Sequence[T], item: T) -> Sequence[T]:
    return items.appended(item) if isinstance(items, Growing) else Growing((*items, item))


def project_hand(record: HandRecord | None, stored: Iterable[Recorded]) -> HandRecord | None:
    """The hand's stream folded: in place (:class:`~mjledger.fold.in_play.HandFold`, the fold
    :func:`~mjledger.fold.hand.evolve_hand` makes one frozen copy of per event) and frozen once,
    since a stored hand is read whole (``settlement``, ``explain``, ``report``)."""
    fold: HandFold | None = None
    version, digest = 0, ""
    events: Sequence[Event] = ()
    for r in stored:
        event = r.event
        if record is None:
            hand = start(event, r.originator_version).hand
            assert hand is not None
            record = HandRecord(r.originator_version, r.digest, hand, Growing((event,)))
            continue
        if fold is None:
            fold, events = HandFold.thaw(record.state), record.events
        apply_event(fold, event, r.originator_version)
        version, digest, events = r.originator_version, r.digest, _grow(events, event)
    if fold is None or record is None:
        return record
    return HandRecord(version, digest, fold.freeze(), events)


def project_table(record: TableRecord | None, stored: Iterable[Recorded]) -> TableRecord | None:
    for r in stored:
        event = r.event
        if isinstance(event, TableOpened):
            record = TableRecord(
                r.originator_version,
                r.digest,
                event.table,
                event.ruleset,
                event.players,
                event.rules,
            )
        elif isinstance(event, RulesChanged):
            assert record is not None
            record = attrs.evolve(
                record, version=r.originator_version, digest=r.digest, rules=event.rules
            )
        else:
            assert record is not None
            assert isinstance(event, MatchOpened)
            record = attrs.evolve(
                record,
                version=r.originator_version,
                digest=r.digest,
                matches=(*record.matches, event.match),
            )
    return record


def projector(func: Any) -> Any:
    """eventsourcing types projectors over its own aggregate protocol; ours fold records."""
    return func
