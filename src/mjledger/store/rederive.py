"""Re-deriving every match of a store in one pass over its rows, holding one hand per match.

Bulk work reads the rows straight from SQLite, a page at a time, and only the rows the folds
need (a match's start, each hand's events: not the closings, not the tables); a row becomes
its event through the fast decoder (:func:`mjledger.store.records.row_decoder`) and, where that
cannot decide (a start with its house rules, an old row to upcast), through the store's
mapper, as any read does. Another persistence module is read through its notifications.
"""

from __future__ import annotations

import uuid
from collections.abc import Callable, Iterator, Sequence
from typing import Any, Final, cast

import attrs
import msgspec
from eventsourcing.persistence import StoredEvent
from eventsourcing.sqlite import SQLiteAggregateRecorder

from mjledger.fold.hand import HandState
from mjledger.fold.replay import Replay
from mjledger.fold.stream import HandFolder
from mjledger.log.events import EVENT_CLASSES, Event, HandStarted, MatchStarted
from mjledger.rules.house import default_rules
from mjledger.store.corrections import corrections_stream
from mjledger.store.events import HandCorrected, HandVoided
from mjledger.store.records import Recorded, row_decoder, topic_of
from mjledger.store.streams import hand_stream

PAGE: Final = 2000
_MATCH_STARTED: Final = topic_of(MatchStarted)
_HAND_STARTED: Final = topic_of(HandStarted)
# The rows a re-derivation reads: the log's own event classes (a hand's closing, a table's
# records and anything else the store adds are not folded).
_FOLDED: Final = tuple(topic_of(cls) for cls in EVENT_CLASSES)
_CORRECTIONS: Final = (topic_of(HandCorrected), topic_of(HandVoided))


def _uuid(value: Any) -> uuid.UUID:
    return value if isinstance(value, uuid.UUID) else uuid.UUID(value)


class _HandOpening(msgspec.Struct):
    """What a stored hand's first row tells the match fold: the match and the dealer (the
    rest of its context is the match's own)."""

    match: str | None = None
    dealer: str | None = None
    number: int | None = None


Row = tuple[Any, int, str, bytes]  # originator id and version, topic, state
# The rows of some topics in notification order (a backend's reader, as :func:`rows` is).
RowReader = Callable[[Sequence[str]], Iterator[Row]]


def rows(recorder: Any, topics: Sequence[str] = _FOLDED) -> Iterator[Row]:
    """The rows of ``topics`` (the folded classes) in notification order, a page at a time:
    a SQLite recorder's read straight from its table, any other's through its notifications."""
    if not isinstance(recorder, SQLiteAggregateRecorder):
        start = 1
        while True:
            batch = recorder.select_notifications(start, PAGE, topics=topics)
            for n in batch:
                yield n.originator_id, n.originator_version, n.topic, n.state
            if len(batch) < PAGE:
                return
            start = batch[-1].id + 1
    marks = ",".join("?" * len(topics))
    query = (
        "SELECT rowid, originator_id, originator_version, topic, state "
        f"FROM {recorder.events_table_name} WHERE rowid > ? AND topic IN ({marks}) "
        f"ORDER BY rowid LIMIT {PAGE}"
    )
    after = 0
    while True:
        with recorder.datastore.transaction(commit=False) as c:
            c.execute(query, (after, *topics))
            page = c.fetchall()
        for row in page:
            yield row[1], row[2], row[3], row[4]
        if len(page) < PAGE:
            return
        after = page[-1][0]


class Rederivation:
    """Iterating yields ``(match id, hand)`` for every hand of every match in the store as it
    is settled; afterwards ``folders`` holds each match's final state and totals.

    The same folds as ``replay`` of each match's export, line numbers included. A match with
    upheld disputes (:mod:`mjledger.store.corrections`) is re-derived from its corrected
    export after the pass, one match at a time.
    """

    def __init__(
        self,
        read: RowReader,
        to_event: Callable[[StoredEvent], Any],
        replay_match: Callable[[str], Replay],
    ) -> None:
        """``read``: the store's rows by topic; ``to_event``: the store's mapper (a stored row
        to its record); ``replay_match``: a corrected match re-derived from its export."""
        self.read = read
        self.to_event = to_event
        self.replay_match = replay_match
        self.folders: dict[str, HandFolder] = {}

    def __iter__(self) -> Iterator[tuple[str, HandState]]:
        # The ledger's own rows, validated when written: not validated again (audit does).
        decoders = {topic_of(cls): row_decoder(cls, trusted=True) for cls in EVENT_CLASSES}
        opening = msgspec.json.Decoder(_HandOpening).decode
        lines: dict[str, int] = {}
        # The hand in play of each match, by stream: a match plays one hand at a time, so a
        # stream is forgotten when its match's next hand starts (memory grows with matches,
        # never with hands).
        match_of_stream: dict[Any, str] = {}
        stream_of_match: dict[str, Any] = {}
        folders = self.folders
        corrected_streams = {_uuid(r[0]) for r in self.read(_CORRECTIONS)}
        corrected: list[str] = []
        for stream, version, topic, state in self.read(_FOLDED):
            if topic == _MATCH_STARTED:
                started = cast(MatchStarted, self._mapped(stream, version, topic, state))
                match = started.match or ""
                folders[match] = HandFolder()
                if corrections_stream(match) in corrected_streams:
                    corrected.append(match)
                    continue
                lines[match] = 1
                rules = started.rules or default_rules(started.ruleset)
                folders[match].feed(1, attrs.evolve(started, rules=rules))
                continue
            event: Event | None
            if topic == _HAND_STARTED:
                try:
                    head = opening(state)
                    match, dealer, number = head.match or "", head.dealer, head.number
                except msgspec.MsgspecError:
                    full = cast(HandStarted, self._mapped(stream, version, topic, state))
                    match, dealer, number = full.match or "", full.dealer, full.number
                if match not in lines or _uuid(stream) != hand_stream(match, number or 0):
                    continue  # a corrected match's, or a correction's own stream
                match_of_stream.pop(stream_of_match.get(match), None)
                match_of_stream[stream] = match
                stream_of_match[match] = stream
                event = HandStarted(dealer=dealer)
            elif stream in match_of_stream:
                match = match_of_stream[stream]
                fast = decoders[topic]
                decoded = None if fast is None else fast(state)
                if decoded is not None:
                    event = decoded[0]
                else:
                    event = cast(Event, self._mapped(stream, version, topic, state))
            else:
                continue
            lines[match] += 1
            settled = folders[match].feed(lines[match], event)
            if settled is not None:
                yield match, settled
        for match, folder in folders.items():
            if match in corrected:
                continue
            last = folder.close()
            if last is not None:
                yield match, last
        for match in corrected:
            replay = self.replay_match(match)
            yield from ((match, hand) for hand in replay.hands)
            folders[match].state = replay.state
            folders[match].totals = replay.totals()

    def _mapped(self, stream: Any, version: int, topic: str, state: bytes) -> Any:
        stored = StoredEvent(
            originator_id=_uuid(stream),
            originator_version=version,
            topic=topic,
            state=state,
        )
        return cast(Recorded, self.to_event(stored)).event
