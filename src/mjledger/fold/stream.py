"""Replay hand by hand: the folds over a stream of events, holding only what the next hand
needs, and the contract's replay output written as each hand is settled.

All or nothing still holds, but it is the caller's to keep: nothing here is final until the
stream is exhausted without an error (the command line spools the output and prints it only
then). The errors are :func:`mjledger.fold.replay.replay_bytes`'s, in its order: a log is
decoded to its end before a refused event is reported, because a line the codec refuses
further down is the log's error, as when the whole log is parsed before it is folded.
"""

from __future__ import annotations

import json
from collections.abc import Iterable, Iterator
from typing import Any

import orjson

from mjledger.errors import FormatError, MjledgerError
from mjledger.fold.hand import HandState
from mjledger.fold.match import MatchFold, MatchState, start
from mjledger.fold.replay import hand_to_json
from mjledger.log.events import Event
from mjledger.rules.house import rules_to_json


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


def dumps_indented(value: Any) -> bytes:
    """``json.dumps(value, ensure_ascii=False, indent=2)`` as UTF-8, encoded in C where it can
    be (orjson writes the same bytes for the values a replay holds, but refuses integers
    beyond 64 bits: those take :mod:`json`)."""
    try:
        return orjson.dumps(value, option=orjson.OPT_INDENT_2)
    except TypeError:
        return json.dumps(value, ensure_ascii=False, indent=2).encode("utf-8")


def _nested(value: Any, depth: int) -> bytes:
    return dumps_indented(value).replace(b"\n", b"\n" + b"  " * depth)


def replay_json_parts(events: Iterable[tuple[int | None, Event]]) -> Iterator[bytes]:
    """The bytes of ``json.dumps(replay.to_json(), ensure_ascii=False, indent=2)``, in pieces,
    a hand at a time (log-format.md, "Replay output"; with table stakes, ``stakes`` last)."""
    stream = HandStream(events)
    opened = False
    for hand in stream:
        if not opened:
            assert stream.state is not None
            yield _head(stream.state) + b"\n    "
            opened = True
        else:
            yield b",\n    "
        yield _nested(hand_to_json(hand), 2)
    if not opened:
        assert stream.state is not None
        yield _head(stream.state) + b"]"
    else:
        yield b"\n  ]"
    yield b',\n  "totals": ' + _nested(stream.totals, 1)
    state = stream.state
    assert state is not None
    if state.initial_stakes is not None:  # table stakes (variants.md), after the totals
        stakes = {p: state.initial_stakes[p] for p in state.players}
        yield b',\n  "stakes": ' + _nested(stakes, 1)
    yield b"\n}"


def _head(state: MatchState) -> bytes:
    head = {
        "ruleset": state.ruleset,
        "match": state.match_id,
        "players": list(state.players),
        "rules": rules_to_json(state.rules),
    }
    return dumps_indented(head)[: -len(b"\n}")] + b',\n  "hands": ['
