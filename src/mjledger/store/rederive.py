"""Re-deriving every match of a store in one pass over its rows, holding one hand per match.

Bulk work reads the rows through the store's backend (:mod:`mjledger.store.backends`:
straight from SQLite, a page at a time), and only the rows the folds need (a match's start,
each hand's events: not the closings, not the tables); a row becomes its event through the
fast decoder (:func:`mjledger.store.records.row_decoder`) and, where that cannot decide (a
start with its house rules, an old row to upcast), through the store's mapper, as any read
does.
"""

from __future__ import annotations

import uuid
from collections.abc import Callable, Iterator, Sequence
from typing import Any, Final, cast

import attrs
import msgspec
from eventsourcing.persistence import StoredEvent

from mjledger._gc import gc_paused
from mjledger.errors import StoreError
from mjledger.fold.hand import HandState
from mjledger.fold.replay import Replay
from mjledger.fold.stream import HandFolder
from mjledger.log.events import EVENT_CLASSES, Event, HandStarted, MatchStarted
from mjledger.rules.house import default_rules
from mjledger.store.correction_log import corrections_stream
from mjledger.store.events import HandCorrected, HandVoided
from mjledger.store.records import Recorded, row_decoder, topic_of
from mjledger.store.streams import hand_stream

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
# The rows of some topics in commit order: a backend's reader (mjledger.store.backends).
RowReader = Callable[[Sequence[str]], Iterator[Row]]


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
                match, dealer, number = self._opening(opening, stream, version, state)
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
        yield from self._corrected(corrected)

    def _corrected(self, corrected: list[str]) -> Iterator[tuple[str, HandState]]:
        """The matches with upheld disputes, each re-derived from its corrected export."""
        for match in corrected:
            replay = self.replay_match(match)
            yield from ((match, hand) for hand in replay.hands)
            self.folders[match].state = replay.state
            self.folders[match].totals = replay.totals()

    def _opening(
        self, opening: Callable[[bytes], _HandOpening], stream: Any, version: int, state: bytes
    ) -> tuple[str, str | None, int | None]:
        """A hand_started row's match, dealer and number (read whole where the quick
        decoder cannot)."""
        try:
            head = opening(state)
            return head.match or "", head.dealer, head.number
        except msgspec.MsgspecError:
            full = cast(HandStarted, self._mapped(stream, version, _HAND_STARTED, state))
            return full.match or "", full.dealer, full.number

    def _mapped(self, stream: Any, version: int, topic: str, state: bytes) -> Any:
        return cast(Recorded, self.to_event(stored_event(stream, version, topic, state))).event


def stored_event(stream: Any, version: int, topic: str, state: bytes) -> StoredEvent:
    """A row as eventsourcing's mapper takes it."""
    return StoredEvent(
        originator_id=_uuid(stream), originator_version=version, topic=topic, state=state
    )


def match_ids(read: RowReader, to_event: Callable[[StoredEvent], Any]) -> list[str]:
    """Every match id of the rows, in the order the matches were started (a
    ``match_started`` row that cannot be read is left out: the other matches stay listed)."""
    found = []
    for row in read([_MATCH_STARTED]):
        try:
            found.append(cast(Recorded, to_event(stored_event(*row))).event.match)
        except StoreError:
            continue
    return found


def replays(rederivation: Rederivation) -> dict[str, Replay]:
    """Each match of one pass, as ``replay`` of its export gives it (the cyclic garbage
    collector paused during the pass: see :meth:`Ledger.replay_all`)."""
    hands: dict[str, list[HandState]] = {}
    with gc_paused():
        for match, hand in rederivation:
            hands.setdefault(match, []).append(hand)
    out = {}
    for match, folder in rederivation.folders.items():
        state = folder.state
        assert state is not None
        out[match] = Replay(
            ruleset=state.ruleset,
            match=state.match_id,
            players=state.players,
            rules=state.rules,
            hands=tuple(hands.get(match, ())),
            state=state,
        )
    return out
