"""Replay hand by hand: the folds over a stream of events, holding only what the next hand
needs, and the contract's replay output written as each hand is settled.

All or nothing still holds, but it is the caller's to keep: nothing here is final until the
stream is exhausted without an error (the command line spools the output and prints it only
then). The errors are :func:`mjledger.fold.replay.replay_bytes`'s, in its order: a log is
decoded to its end before a refused event is reported, because a line the codec refuses
further down is the log's error, as when the whole log is parsed before it is folded.
"""

from __future__ import annotations

from collections.abc import Iterable, Iterator
from itertools import chain
from typing import Any, Final

import attrs

from mjledger._msgspec import EncodeError, JSONEncoder, json_format
from mjledger.errors import FormatError, MjledgerError
from mjledger.fold.hand import HandState
from mjledger.fold.match import MatchFold, MatchState, start, streak_after
from mjledger.fold.output import hand_to_json
from mjledger.log.events import Event, HandStarted
from mjledger.rules.house import rules_to_json
from mjledger.rules.protocol import HandJson, QuickHand, QuickHands, Undecided
from mjledger.rules.registry import table_of


class HandFolder:
    """The match fold fed one event at a time, holding only the hand in play: :meth:`feed`
    answers a hand once it is settled (when the next one starts; it must have ended by then),
    :meth:`close` the last one. ``totals`` is every player's balance over the settled hands.
    """

    __slots__ = ("fold", "totals")

    def __init__(self) -> None:
        self.fold: MatchFold | None = None
        self.totals: dict[str, int] = {}

    @property
    def state(self) -> MatchState | None:
        """The match so far (None before the first event)."""
        return None if self.fold is None else self.fold.state

    @state.setter
    def state(self, state: MatchState) -> None:
        self.fold = MatchFold(state)

    @property
    def hand(self) -> HandState | None:
        """The latest hand, as it stands."""
        state = self.state
        return None if state is None else state.hand

    def feed(self, line: int | None, event: Event) -> HandState | None:
        fold = self.fold
        if fold is None:
            self.fold = MatchFold(start(event, line))
            self.totals = dict.fromkeys(self.fold.state.players, 0)
            return None
        settled = fold.feed(event, line)
        return None if settled is None else self.settled(settled)

    def close(self) -> HandState | None:
        """Settle the end of the log (an open run of wins closes); the last hand, if any."""
        if self.fold is None:
            raise FormatError("the log is empty", line=1)
        self.fold.finish()
        hand = self.fold.state.hand
        return None if hand is None else self.settled(hand)

    def settled(self, hand: HandState) -> HandState:
        """``hand``, settled: its transfers added to the totals (the fold answered it)."""
        totals = self.totals
        for t in hand.transfers:
            totals[t.payer] -= t.amount
            totals[t.payee] += t.amount
        return hand


class HandStream:
    """Iterating yields each hand once it is settled; afterwards ``state`` is the final match
    state and ``totals`` every player's balance."""

    __slots__ = ("_events", "folder")

    def __init__(self, events: Iterable[tuple[int | None, Event]]) -> None:
        self._events = events
        self.folder = HandFolder()

    @property
    def state(self) -> MatchState | None:
        return self.folder.state

    @property
    def totals(self) -> dict[str, int]:
        return self.folder.totals

    def __iter__(self) -> Iterator[HandState]:
        events = iter(self._events)
        folder = self.folder
        try:
            for line, event in events:  # the first event starts the match ...
                folder.feed(line, event)
                break
            if folder.fold is not None:  # ... and every later one goes straight to its fold
                for settled in folder.fold.feed_all(events):
                    yield folder.settled(settled)
        except MjledgerError:
            for _ in events:  # a line the codec refuses further down comes first
                pass
            raise
        last = self.folder.close()
        if last is not None:
            yield last


_ENCODER: Final = JSONEncoder()


def dumps_indented(value: Any, *, long: bool = False) -> bytes:
    """``json.dumps(value, ensure_ascii=False, indent=2)`` as UTF-8, encoded in C where it can
    be: both msgspec and orjson write the same bytes for the values a replay holds (orjson
    refuses integers beyond 64 bits, and each refuses a lone surrogate: those take
    :mod:`json`). A ``long`` part (a full batch of hands) takes orjson, about four times
    faster at indenting; any other part msgspec, which the decoder has imported already:
    importing orjson costs a short replay (a match of 27 hands) more than its output."""
    try:
        if long:
            import orjson

            return orjson.dumps(value, option=orjson.OPT_INDENT_2)
        return json_format(_ENCODER.encode(value), indent=2)
    except (TypeError, UnicodeError, EncodeError):
        import json

        return json.dumps(value, ensure_ascii=False, indent=2).encode("utf-8")


def _nested(value: Any, depth: int) -> bytes:
    return dumps_indented(value).replace(b"\n", b"\n" + b"  " * depth)


class SettledHands:
    """:class:`HandStream`'s hands as values, each hand settled by its rule set's quick fold
    where it has one for the table (:class:`~mjledger.rules.protocol.HasQuickHands`: a
    :class:`~mjledger.rules.protocol.QuickHand`), and by the general fold (a
    :class:`~mjledger.fold.hand.HandState`) wherever the quick fold leaves a hand undecided:
    from that hand's ``hand_started`` on, with the events the quick fold drew, and from there
    to the end of the log at anything between hands but a plain ``hand_started`` (a refusal).
    ``head`` is the match as its first line opens it. What ``replay --json`` writes
    (:class:`HandJsonStream`) and what recording stores are each read off these values."""

    __slots__ = ("_events", "head")

    def __init__(self, events: Iterable[tuple[int | None, Event]]) -> None:
        self._events = events
        self.head: MatchState | None = None

    def __iter__(self) -> Iterator[QuickHand | HandState]:
        events = iter(self._events)
        try:
            for line, event in events:
                self.head = state = start(event, line)
                break
            else:
                raise FormatError("the log is empty", line=1)
            quick = quick_hands_of(state)
            if quick is None:
                yield from self._general(MatchFold(state), events, 0)
            else:
                yield from self._quick(quick, state, events)
        except MjledgerError:
            for _ in events:  # a line the codec refuses further down comes first
                pass
            raise

    @staticmethod
    def _general(
        fold: MatchFold, events: Iterator[tuple[int | None, Event]], written: int
    ) -> Iterator[HandState]:
        """The general fold from here to the end of the log, each hand after the first
        ``written`` hands given."""
        for hand in fold.feed_all(events):
            if hand.number > written:
                yield hand
        fold.finish()
        last = fold.state.hand
        if last is not None and last.number > written:
            yield last

    def _quick(
        self, quick: QuickHands, state: MatchState, events: Iterator[tuple[int | None, Event]]
    ) -> Iterator[QuickHand | HandState]:
        players = state.players
        number, dealer, streak = 0, "", 0  # the latest hand's
        next_dealer: str | None = None  # the rotation's dealer of the next hand (None: first)
        next_streak = 0
        first_dealer = ""
        drawn: list[tuple[int | None, Event]] = []  # the latest hand's lines, hand_started first
        for line, event in events:
            if not _plain_start(event, players, next_dealer):  # refused: as the general fold
                fold = self._replayed(state, first_dealer, number, dealer, streak, drawn)  # says
                yield from self._general(fold, chain([(line, event)], events), number)
                return
            assert isinstance(event, HandStarted)
            if next_dealer is None:
                next_dealer = first_dealer = event.dealer or players[0]
            number, dealer, streak = number + 1, next_dealer, next_streak
            drawn = [(line, event)]
            hand: QuickHand | HandState
            try:
                hand = quick.fold(number, dealer, streak, events, drawn)
                next_dealer = hand.next_dealer
                next_streak = streak_after(dealer, streak, next_dealer)
            except Undecided:
                fold = self._replayed(state, first_dealer, number, dealer, streak, drawn)
                # The lines the general fold draws are the hand's too: a refusal after it
                # replays the hand from ``drawn``, whole.
                pending = fold.finish_hand(_drawing(events, drawn))
                if pending is not None or fold.in_play:  # a refusal, or the log's end
                    rest = events if pending is None else chain([pending], events)
                    yield from self._general(fold, rest, number - 1)
                    return
                after = fold.state
                assert after.hand is not None
                assert after.next_dealer is not None
                hand = after.hand
                next_dealer, next_streak = after.next_dealer, after.next_streak
            yield hand

    @staticmethod
    def _replayed(
        state: MatchState,
        first_dealer: str,
        number: int,
        dealer: str,
        streak: int,
        drawn: list[tuple[int | None, Event]],
    ) -> MatchFold:
        """The general fold of the match after ``drawn``, the lines of hand ``number`` so far
        (dealt by ``dealer`` on a streak of ``streak``), from the match as that hand started
        (``state`` as the match's first line opened it, before its first hand). The hands
        before it are not held: nothing the general fold checks reads them."""
        before = state
        if number > 1:
            before = attrs.evolve(
                state,
                first_dealer=first_dealer,
                next_dealer=dealer,
                next_streak=streak,
                hands_started=number - 1,
            )
        fold = MatchFold(before)
        for line, event in drawn:
            fold.feed(event, line)
        return fold


class HandJsonStream:
    """:class:`SettledHands`' hands as the replay output writes them (a quick fold's hand as
    it settled it, a general fold's through :func:`hand_to_json`); ``head`` is the match as
    its first line opens it, ``totals`` every player's balance over the hands yielded."""

    __slots__ = ("_hands", "totals")

    def __init__(self, events: Iterable[tuple[int | None, Event]]) -> None:
        self._hands = SettledHands(events)
        self.totals: dict[str, int] = {}

    @property
    def head(self) -> MatchState | None:
        return self._hands.head

    def __iter__(self) -> Iterator[HandJson]:
        totals: dict[str, int] | None = None
        for settled in self._hands:
            if totals is None:
                assert self.head is not None
                self.totals = totals = dict.fromkeys(self.head.players, 0)
            hand = settled._asdict() if isinstance(settled, QuickHand) else hand_to_json(settled)
            for player, amount in hand["net"].items():
                totals[player] += amount
            yield hand
        if totals is None and self.head is not None:
            self.totals = dict.fromkeys(self.head.players, 0)


def _drawing(
    events: Iterator[tuple[int | None, Event]], drawn: list[tuple[int | None, Event]]
) -> Iterator[tuple[int | None, Event]]:
    """``events``, each appended to ``drawn`` as it is drawn."""
    for item in events:
        drawn.append(item)
        yield item


def quick_hands_of(state: MatchState) -> QuickHands | None:
    """The quick fold of the match ``state`` opens (its first line's), or None: its rule set
    has none for the table, or the log is a stand-alone hand, or the match plays table stakes
    (their balances cap each batch of payments: the general fold's)."""
    if state.stand_alone or state.stakes is not None:
        return None
    table = table_of(state.ruleset, state.rules, state.players)
    kept, quick = _last_quick[0]  # one read: another thread may replace the pair
    if kept is not table:
        quick = table.quick_hands()
        _last_quick[0] = (table, quick)
    return quick


# The quick fold of the table bound last, and that table (kept alive, so compared by
# identity): recording asks whether a log's table has one and then settles its hands with
# it, and building a table's quick fold (its amounts) twice cost a log about 50 µs.
_last_quick: list[tuple[object, QuickHands | None]] = [(None, None)]


def _plain_start(event: Event, players: tuple[str, ...], dealer: str | None) -> bool:
    """Whether ``event`` starts a match's next hand, which ``dealer`` deals by the rotation
    (None before the first hand), as every accepted ``hand_started`` of a match does unless
    table stakes end the match: anything else between hands is refused."""
    if type(event) is not HandStarted or event.format is not None or event.stand_alone:
        return False
    given = event.dealer
    if dealer is None:
        return given is None or given in players
    return given is None or given == dealer


# Hands encoded at once by :func:`replay_json_parts` (one call into the encoder, one part).
HANDS_AT_ONCE = 64


def replay_json_parts(events: Iterable[tuple[int | None, Event]]) -> Iterator[bytes]:
    """The bytes of ``json.dumps(replay.to_json(), ensure_ascii=False, indent=2)``, in pieces,
    a few hands at a time (log-format.md, "Replay output"; with table stakes, ``stakes``
    last)."""
    stream = HandJsonStream(events)
    opened = False
    batch: list[HandJson] = []
    for hand in stream:
        batch.append(hand)
        if len(batch) == HANDS_AT_ONCE:
            yield (b",\n    " if opened else _head(stream.head) + b"\n    ") + _hands(batch)
            opened = True
            batch = []
    if batch:
        yield (b",\n    " if opened else _head(stream.head) + b"\n    ") + _hands(batch)
        opened = True
    if not opened:
        yield _head(stream.head) + b"]"
    else:
        yield b"\n  ]"
    yield b',\n  "totals": ' + _nested(stream.totals, 1)
    state = stream.head
    assert state is not None
    if state.initial_stakes is not None:  # table stakes (variants.md), after the totals
        stakes = {p: state.initial_stakes[p] for p in state.players}
        yield b',\n  "stakes": ' + _nested(stakes, 1)
    yield b"\n}"


def _hands(hands: list[HandJson]) -> bytes:
    """Hands as they follow each other in the output's ``hands`` (each as ``_nested(hand,
    2)``, joined by ``,\n    ``): the list encoded at once, less its brackets and first
    indent, each line indented one level further."""
    long = len(hands) == HANDS_AT_ONCE
    return dumps_indented(hands, long=long)[4:-2].replace(b"\n", b"\n  ")


def _head(state: MatchState | None) -> bytes:
    assert state is not None
    head = {
        "ruleset": state.ruleset,
        "match": state.match_id,
        "players": list(state.players),
        "rules": rules_to_json(state.rules),
    }
    return dumps_indented(head)[: -len(b"\n}")] + b',\n  "hands": ['
