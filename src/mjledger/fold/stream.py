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
from mjledger.fold.match import MatchState, evolve, finish, start
from mjledger.fold.replay import hand_to_json
from mjledger.log.events import Event, HandStarted
from mjledger.rules.house import rules_to_json


class HandStream:
    """Iterating yields each hand once it is settled; afterwards ``state`` is the final match
    state and ``totals`` every player's balance.

    Only the hand in play is held: a hand is settled when the next one starts (it must have
    ended by then) or when the log ends.
    """

    __slots__ = ("_events", "state", "totals")

    def __init__(self, events: Iterable[tuple[int | None, Event]]) -> None:
        self._events = events
        self.state: MatchState | None = None
        self.totals: dict[str, int] = {}

    def __iter__(self) -> Iterator[HandState]:
        events = iter(self._events)
        hand: HandState | None = None
        for line, event in events:
            try:
                state = (
                    start(event, line) if self.state is None else evolve(self.state, event, line)
                )
            except MjledgerError:
                for _ in events:  # a line the codec refuses further down comes first
                    pass
                raise
            if self.state is None:
                self.totals = dict.fromkeys(state.players, 0)
            self.state = state
            if state.hand is None:
                continue
            if isinstance(event, HandStarted) and hand is not None:
                yield self._settled(hand)
            hand = state.hand
        if self.state is None:
            raise FormatError("the log is empty", line=1)
        self.state = finish(self.state)
        if self.state.hand is not None:
            yield self._settled(self.state.hand)

    def _next(self, line: int | None, event: Event) -> MatchState:
        return start(event, line) if self.state is None else evolve(self.state, event, line)

    def _settled(self, hand: HandState) -> HandState:
        totals = self.totals
        for t in hand.transfers:
            totals[t.payer] -= t.amount
            totals[t.payee] += t.amount
        return hand


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
    a hand at a time (log-format.md, "Replay output")."""
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
    yield b',\n  "totals": ' + _nested(stream.totals, 1) + b"\n}"


def _head(state: MatchState) -> bytes:
    head = {
        "ruleset": state.ruleset,
        "match": state.match_id,
        "players": list(state.players),
        "rules": rules_to_json(state.rules),
    }
    return dumps_indented(head)[: -len(b"\n}")] + b',\n  "hands": ['
