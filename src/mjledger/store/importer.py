"""Whole logs into the store: a log becomes batches of sealed records, one transaction per hand.

:func:`check_log` validates the whole log through the match fold before anything is written
(so a refused line writes nothing), encoding each hand as it will be stored onto a spool;
recording writes from that spool (:meth:`CheckedLog.rows`). :func:`batches_of_log` seals a log
event by event, validating as the batches are drawn (comparing a log with a stored match, and
bulk loading).
"""

from __future__ import annotations

import hashlib
import marshal
import operator
import struct
import tempfile
import uuid
import weakref
from collections.abc import Callable, Iterable, Iterator
from itertools import chain
from typing import Any, BinaryIO, Final, NoReturn

import attrs
import msgspec
from attrs import field, frozen

from mjledger.errors import MjledgerError, StoreError
from mjledger.fold.match import MatchFold, MatchState, evolve, start
from mjledger.fold.stream import SettledHands, quick_hands_of
from mjledger.log.codec import canonical_json
from mjledger.log.events import Event, HandStarted, MatchStarted
from mjledger.log.reader import BLOCK, iter_log_file, iter_text
from mjledger.rules.house import default_rules, rules_to_json
from mjledger.store.events import HandClosed
from mjledger.store.hand_forms import (
    closing_of,
    quick_table_closing,
    stand_alone_start,
    stored_closing,
    stored_start,
)
from mjledger.store.records import (
    GENESIS,
    TOPICS,
    Recorded,
    TableRow,
    canonical_bytes,
    now,
    seal,
    sealed_rows,
    stored_form_of,
    topic_of,
)
from mjledger.store.streams import hand_stream, hand_stream_hex, match_stream

# The numbered events of a log, from its start: a log is read twice, never held.
EventSource = Callable[[], Iterator[tuple[int, Event]]]


@frozen
class RecordResult:
    """What ``record`` did with a log: the match id and how many hands/events it wrote."""

    match: str
    status: str  # "recorded", "unchanged" or "resumed"
    hands: int
    events: int
    id_assigned: bool = False


def new_match_id() -> str:
    return "m-" + uuid.uuid4().hex[:16]


# A checked hand as it will be stored, on the spool: its number, its stand-alone start and its
# closing in stored form, and its events as (topic, canonical JSON of the stored form, UTF-8).
# What is
# the same for every hand (the house rules) or known only at the end of the log (a match id
# derived from the content, hence every digest) is filled in as the hand is written.
SpooledHand = tuple[int, dict[str, Any], list[tuple[str, bytes]], dict[str, Any] | None]
# A hand while it is checked: its start may be read only when it is spooled (None until then),
# its events stored as it is.
_CheckedHand = tuple[int, dict[str, Any] | None, list[Event], None]
# A log's first hands stay in memory up to about this many bytes; the rest go to a file.
SPOOL_MEMORY: Final = 8 << 20
# What a hand held in memory is reckoned to take beside its events' texts: its start and its
# closing as dicts, its list of events (about 1.5 kB for a Sichuan hand of 17 events, whose
# texts are mostly shared with other hands: the reckoning is on the safe side).
_HAND_BYTES: Final = 1024
_EVENT_BYTES: Final = 64
_TEXT: Final = operator.itemgetter(1)


class HandSpool:
    """The hands of a checked log, encoded once while checking and kept until the whole log
    is accepted: recording then only chains digests and writes, without decoding or folding
    the log again. The first hands stay in memory as they are, their events' stored forms
    shared between them (:func:`stored_forms`), up to :data:`SPOOL_MEMORY` reckoned; the
    rest go to a temporary file, :data:`SPILLED_AT_ONCE` hands a chunk (one not yet full waits
    in memory), so memory stays bounded whatever the log's length. A chunk is one call of
    :mod:`marshal` (in C, faster than :mod:`pickle`; a text its hands share written once),
    after its length; its hands hold plain values only (strings, bytes, integers, booleans,
    None, lists, tuples and dicts of them), read back by the process that wrote them.
    Neither is changed by reading it."""

    def __init__(self) -> None:
        self._kept: list[SpooledHand] = []
        self._room = SPOOL_MEMORY
        self._file: BinaryIO | None = None
        self._finalizer: weakref.finalize[Any, Any] | None = None
        self._pending: list[SpooledHand] = []  # spilled hands not yet on the file
        self._chunks = 0  # on the file
        self.hands = 0

    def add(self, hand: SpooledHand) -> None:
        self.hands += 1
        if self._file is None:
            events = hand[2]
            self._room -= (
                _HAND_BYTES + _EVENT_BYTES * len(events) + sum(map(len, map(_TEXT, events)))
            )
            if self._room >= 0:
                self._kept.append(hand)
                return
            self._file = tempfile.TemporaryFile()  # noqa: SIM115 - closed by close() or the finalizer
            self._finalizer = weakref.finalize(self, self._file.close)
        self._pending.append(hand)
        if len(self._pending) == SPILLED_AT_ONCE:
            data = marshal.dumps(self._pending)
            self._file.write(_LENGTH.pack(len(data)) + data)
            self._chunks += 1
            self._pending = []

    @property
    def spilled(self) -> int:
        """How many of the hands are past the memory kept (on the file, or waiting for it)."""
        return self.hands - len(self._kept)

    def __iter__(self) -> Iterator[SpooledHand]:
        yield from self._kept
        if self._file is None:
            return
        read = self._file.read
        self._file.seek(0)
        for _ in range(self._chunks):
            (size,) = _LENGTH.unpack(read(_LENGTH.size))
            chunk: list[SpooledHand] = marshal.loads(read(size))
            yield from chunk
        yield from self._pending

    def close(self) -> None:
        self._kept, self._pending = [], []
        if self._finalizer is not None:
            self._finalizer()


_LENGTH: Final = struct.Struct("<Q")
SPILLED_AT_ONCE: Final = 64  # hands a chunk of the spool's file holds


@frozen
class CheckedLog:
    """A match log validated whole, not yet written anywhere: what recording it needs, its
    hands encoded as they will be stored (:class:`HandSpool`), none of its records sealed."""

    source: EventSource = field(eq=False, repr=False)  # the log's events again, from the start
    first: MatchStarted  # with its match id and house rules filled in
    first_line: int
    id_assigned: bool
    hands: int
    events: int
    spool: HandSpool = field(eq=False, repr=False)

    @property
    def match(self) -> str:
        return self.first.match or ""

    def batches(self) -> Iterator[tuple[list[Recorded], list[int | None]]]:
        """The log's transactions with their lines (see :func:`batches_of_log`), decoded
        again from the log: memory stays one hand, whatever the log's length."""
        numbered = self.source()
        next(numbered)
        return batches_of_log(self.first, self.first_line, numbered)

    def rows(self) -> Iterator[list[TableRow]]:
        """The log's transactions as the events table will hold them, from the spool: the
        rows of :meth:`batches` byte for byte (sealed at one moment), but neither decoded nor
        folded again, and no per-row object on the way (stream ids spelled once a hand)."""
        stamp = now()
        match_id = self.match
        m_record = seal(match_stream(match_id), 1, self.first, GENESIS, stamp)
        assert m_record.row is not None
        m_stream = m_record.originator_id.hex
        yield [(m_stream, 1, MATCH_STARTED, m_record.row)]
        # Digests stay bytes (ASCII hex) from row to row: one hash and one join a row.
        m_version, m_digest = 1, m_record.digest.encode("ascii")
        recorded_at = stamp.encode("ascii")
        # The house rules, the same in every hand's start, encoded once (canonical JSON of a
        # value inside canonical JSON is that value's canonical JSON).
        rules = msgspec.Raw(canonical_bytes(rules_to_json(self.first.rules)))
        for number, opening, events, closing in self.spool:
            h_stream = hand_stream_hex(match_id, number)
            # (Filled in a copy: a hand the spool keeps in memory is read again as it was.)
            opening = {**opening, "match": match_id, "rules": rules}
            # The hand's stream, its start first, chained from the match's latest digest.
            stream = [(HAND_STARTED, canonical_bytes(opening)), *events]
            batch: list[TableRow] = []
            h_digest = sealed_rows(m_digest, h_stream, 1, stream, recorded_at, batch)
            if closing is not None:
                closing = {**closing, "hand_digest": h_digest.decode("ascii")}
                m_version += 1
                closed = ((HAND_CLOSED, canonical_bytes(closing)),)
                m_digest = sealed_rows(m_digest, m_stream, m_version, closed, recorded_at, batch)
            yield batch


MATCH_STARTED: Final = topic_of(MatchStarted)
HAND_STARTED: Final = topic_of(HandStarted)
HAND_CLOSED: Final = topic_of(HandClosed)


def check_log(text: str) -> CheckedLog:
    """Validate a match log for recording in one streaming pass (every line through the
    folds, as ``replay`` does, holding one hand), encoding each hand as it will be stored
    onto a spool; nothing is opened or written, so a refused log leaves no file behind. A log
    without a match id gets one from its content."""
    return check_events(lambda: iter_text(text))


def check_log_stream(stream: BinaryIO, block: int = BLOCK) -> CheckedLog:
    """:func:`check_log` of a log in a seekable binary file, read a block at a time (and
    again from its start if recording must compare it with a match partly stored), so that
    memory holds a block and a hand, never the log."""

    def source() -> Iterator[tuple[int, Event]]:
        stream.seek(0)
        return iter_log_file(stream, block)

    return check_events(source)


def _refuse_stand_alone(line: int, first: Event, numbered: Iterator[tuple[int, Event]]) -> NoReturn:
    """A log that is not a match's is not recorded; but a log ``replay`` refuses is refused
    with replay's own error first, so that both say the same of it (docs/cli.md)."""
    fold = MatchFold(start(first, line))
    for _ in fold.feed_all(numbered):
        pass
    raise StoreError(
        "record takes a match log (first line match_started); "
        "a stand-alone hand can be replayed but not recorded",
        code="wrong_event_type",
    )


def check_events(source: EventSource) -> CheckedLog:
    """:func:`check_log` of the numbered events ``source()`` gives (each call from the
    log's start, in the codec's order of errors)."""
    numbered = source()
    first_line, first = next(numbered)
    spool = HandSpool()
    try:
        if not isinstance(first, MatchStarted):
            _refuse_stand_alone(first_line, first, numbered)
        if first.rules is None:  # (evolved only then: its validators cost a log 20 µs)
            first = attrs.evolve(first, rules=default_rules(first.ruleset))
        assigned = first.match is None
        digest = content_digest(first) if assigned else None
        state = start(first, first_line)
        if quick_hands_of(state) is not None:  # each hand settled as replay --json settles it
            settled = _SettledHands(state, spool, digest)
            settled.check((first_line, first), numbered)
            hands, events = settled.hands, settled.events
        else:
            folded = _Hands(MatchFold(state), spool, digest)
            for _ in folded.fold.feed_all(folded.taken(numbered)):
                pass  # the settled hands are not kept: their events are on the spool
            folded.spool_last()
            hands, events = folded.hands, folded.events
    except MjledgerError:
        spool.close()
        for _ in numbered:  # a later line the codec refuses is the log's error first
            pass
        raise
    except BaseException:
        spool.close()
        raise
    if digest is not None:
        first = attrs.evolve(first, match="m-" + digest.hexdigest()[:16])
    return CheckedLog(source, first, first_line, assigned, hands, events, spool)


class _SettledHands:
    """What :func:`check_events` keeps of the hands of a table with a quick fold: each hand
    settled as ``replay --json`` settles it (:class:`~mjledger.fold.stream.SettledHands`: the
    quick fold, the general fold where it leaves a hand), its start and closing built from
    the settled hand as events and stored in their stored forms (never read off the replay
    output), its events put aside as the stream draws them and stored once it is settled."""

    def __init__(self, head: MatchState, spool: HandSpool, digest: Any) -> None:
        self.head, self.spool, self.digest = head, spool, digest
        self.hands, self.events = 0, 1
        self._drawn: dict[int, list[Event]] = {}  # each hand's events, by its number

    def check(self, first: tuple[int, Event], numbered: Iterator[tuple[int, Event]]) -> None:
        head, spool, drawn = self.head, self.spool, self._drawn
        if self.digest is not None:
            numbered = _digested(self.digest, numbered)
        for hand in SettledHands(chain([first], self._taken(numbered))):
            number = hand.number
            events = drawn.pop(number)
            closing = None
            if hand.outcome != "unfinished":
                closing = quick_table_closing(hand, len(events) + 1)
            spool.add((number, stored_start(head, hand), stored_forms(events), closing))
            self.events += len(events) + 1

    def _taken(self, numbered: Iterator[tuple[int, Event]]) -> Iterator[tuple[int, Event]]:
        """The events of ``numbered``, each put aside, with its hand's, as it goes to the
        stream (an event before the first hand has none: the fold refuses it)."""
        drawn: list[Event] = []
        for item in numbered:
            event = item[1]
            if type(event) is HandStarted:
                self.hands += 1
                drawn = self._drawn[self.hands] = []
            else:
                drawn.append(event)
            yield item


# The stored forms of events met before, by identity (see :func:`stored_forms`): each entry
# holds its event, so no other object can have its id while it is kept. At most this many.
_KEPT_FORMS: Final[dict[int, tuple[Event, tuple[str, bytes]]]] = {}
KEPT_FORMS: Final = 1 << 14


def stored_forms(events: list[Event]) -> list[tuple[str, bytes]]:
    """Each event's topic and stored form as canonical JSON bytes. The log's fast decoder
    gives a line seen before the very event it gave then (``mjledger.log.fast``: a long
    log repeats the same discards, void suits and wins, some five thousand events among
    175,000), so an event met before is looked up by identity, its topic and bytes shared,
    instead of being laid out and encoded again."""
    get = _KEPT_FORMS.get
    return [
        kept[1] if (kept := get(id(event))) is not None else _stored_form(event) for event in events
    ]


def _stored_form(event: Event) -> tuple[str, bytes]:
    """:func:`stored_forms` of an event not met before (or forgotten since), kept for its
    identity when it is an immutable value (it hashes: no dict or list in it, so its form
    cannot change while it is kept)."""
    cls = type(event)
    form = (TOPICS[cls], canonical_bytes(stored_form_of(cls)(event)))
    try:
        hash(event)
    except TypeError:
        return form
    if len(_KEPT_FORMS) >= KEPT_FORMS:
        _KEPT_FORMS.clear()
    _KEPT_FORMS[id(event)] = (event, form)
    return form


def _digested(digest: Any, numbered: Iterator[tuple[int, Event]]) -> Iterator[tuple[int, Event]]:
    """The events of ``numbered``, each taken into the content digest of a log without a
    match id as it goes by."""
    for item in numbered:
        _digest_line(digest, item[1])
        yield item


def _digest_line(digest: Any, event: Event) -> None:
    """The content digest of a log without a match id, over one more line."""
    digest.update(b"\n")
    digest.update(canonical_json(event).encode("utf-8"))


class _Hands:
    """What :func:`check_events` keeps of the hands while the match fold checks them, fed
    the log's events through :meth:`taken`: the fold draws each event from there (a hand's
    events in one loop, :meth:`MatchFold.feed_all`), and the event drawn before it has been
    folded by then, so the fold's state says what the hand's start and closing are."""

    def __init__(self, fold: MatchFold, spool: HandSpool, digest: Any) -> None:
        self.fold, self.spool, self.digest = fold, spool, digest
        self.hands, self.events = 0, 1
        self.hand: _CheckedHand | None = None
        # A hand's start is read off the hand in play (frozen for it) only under table
        # stakes, whose balances change as the hand settles; otherwise everything it holds
        # stays as the hand began, and it is read off the hand once the hand has ended
        # (frozen by the fold anyway), or when the log ends with it in play.
        self.at_start = fold.state.stakes is not None

    def taken(self, numbered: Iterator[tuple[int, Event]]) -> Iterator[tuple[int, Event]]:
        """The events of ``numbered``, each put aside as it goes to the fold."""
        if self.digest is not None:
            numbered = _digested(self.digest, numbered)
        drawn: list[Event] = []
        opening = False  # a hand_started went to the fold last: its hand is in play now
        for item in numbered:
            if opening:
                self._open(drawn)
                opening = False
            event = item[1]
            if type(event) is HandStarted:
                self.spool_last()  # the hand before it, ended (or the fold refuses this one)
                self.hands += 1
                self.events += len(drawn) + 1
                drawn = []
                opening = True
            else:
                drawn.append(event)
            yield item
        if opening:
            self._open(drawn)
        self.events += len(drawn)

    def _open(self, drawn: list[Event]) -> None:
        """The hand_started drawn last has been folded: its hand is in play."""
        if not self.at_start:
            self.hand = (0, None, drawn, None)  # its start: when it is spooled
            return
        state = self.fold.state
        assert state.hand is not None
        # Its house rules are the match's: added to each hand as it is written.
        self.hand = (state.hand.number, stored_start(state, state.hand), drawn, None)

    def spool_last(self) -> None:
        """The last hand started onto the spool, with its closing if it has ended (the fold
        rotates the deal with the event that ends a hand, and no event of a hand follows)."""
        hand = self.hand
        if hand is None:
            return
        state = self.fold.state  # the hand in play, or the match after it ended
        assert state.hand is not None
        number, opening, drawn, _ = hand
        if opening is None:
            number, opening = state.hand.number, stored_start(state, state.hand)
        closing = None
        if not self.fold.in_play:
            # The hand's digest is known once the match id is: filled in as it is written.
            closing = stored_closing(state.hand, state, len(drawn) + 1)
        self.spool.add((number, opening, stored_forms(drawn), closing))
        self.hand = None


def content_digest(first: MatchStarted) -> Any:
    """The running digest behind the id of a match log that names none: SHA-256 over its
    whole canonical content, one event a line, so the same log recorded twice is the same
    match (and a different log a different one)."""
    return hashlib.sha256(canonical_json(attrs.evolve(first, match=None)).encode("utf-8"))


def batches_of_log(
    first: MatchStarted, first_line: int | None, events: Iterable[tuple[int, Event]]
) -> Iterator[tuple[list[Recorded], list[int | None]]]:
    """The records of a match log, one batch per transaction: the match's start, then each
    hand with its closing (a whole hand, or nothing, survives a crash); with each record, the
    log line it comes from (a hand's closing: the line that ended the hand).

    Every event goes through the match fold here, so drawing all the batches is the log's
    validation: a rejected line raises (naming its line) before anything is written.
    """
    stamp = now()
    state = start(first, 1)
    match_id = state.match_id or ""
    m_stream = match_stream(match_id)
    m_record = seal(m_stream, 1, first, GENESIS, stamp)
    m_version, m_digest = 1, m_record.digest
    yield [m_record], [first_line]
    batch: list[Recorded] = []
    lines: list[int | None] = []
    h_stream, h_version, h_digest = m_stream, 0, ""
    for line, event in events:
        state = evolve(state, event, line)
        hand = state.hand
        assert hand is not None
        if isinstance(event, HandStarted):
            if batch:
                yield batch, lines
            h_stream = hand_stream(match_id, hand.number)
            h_record = seal(h_stream, 1, stand_alone_start(state, hand), m_digest, stamp)
            h_version, h_digest, batch, lines = 1, h_record.digest, [h_record], [line]
            continue
        h_version += 1
        record = seal(h_stream, h_version, event, h_digest, stamp)
        h_digest = record.digest
        batch.append(record)
        lines.append(line)
        if hand.ended:  # this event ended the hand: the fold has rotated the deal already
            m_version += 1
            closed = seal(
                m_stream, m_version, closing_of(hand, state, h_version, h_digest), m_digest, stamp
            )
            m_digest = closed.digest
            batch.append(closed)
            lines.append(line)
    if batch:
        yield batch, lines
