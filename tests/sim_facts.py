"""The facts a simulated log's tiles make, written back as asserted facts (tiles removed).

The fan of each win is found by asking the ledger itself: it accepts a ``fan`` next to the
tiles only when it equals the fan it derives, so the one figure it accepts is the derived one
(a Hong Kong limit hand accepts ``"limit": true`` instead). Wall entries go through the
evaluator, against the void suit the hand logged. Nothing here re-implements what the log
implies (kong bloom, kong cannon, first turns): that stays the ledger's job.
"""

from __future__ import annotations

import attrs

from mjledger.errors import RuleError
from mjledger.fold.match import MatchState, evolve, start
from mjledger.log.codec import dumps_event, parse_log
from mjledger.log.events import (
    Event,
    HandStarted,
    PlayerAtWallEnd,
    SelfDrawn,
    VoidSuitChosen,
    WallExhausted,
    WonOnDiscard,
)
from mjledger.rules.registry import table_of
from mjledger.rules.tiles import melds_of
from mjledger.tiles.notation import parse_tiles


def _asserted_win(
    state: MatchState, event: WonOnDiscard | SelfDrawn, line: int
) -> WonOnDiscard | SelfDrawn:
    bare = {"tiles": None, "winning_tile": None, "melds": None, "last_tile": False}
    if state.ruleset == "hongkong":
        try:
            evolve(state, attrs.evolve(event, limit=True), line)
        except RuleError:
            pass
        else:
            return attrs.evolve(event, limit=True, **bare)
    for fan in range(64):
        try:
            evolve(state, attrs.evolve(event, fan=fan), line)
        except RuleError:
            continue
        return attrs.evolve(event, fan=fan, **bare)
    raise AssertionError(f"line {line}: no fan accepted next to the tiles")


def _asserted_wall(state: MatchState, event: WallExhausted, voids: dict[str, str]) -> WallExhausted:
    assert event.remaining is not None
    table = table_of(state.ruleset, state.rules, state.players)
    remaining = {}
    for player, entry in event.remaining.items():
        assert entry.tiles is not None, "a simulated wall entry always shows its tiles"
        status = table.evaluate_wall(parse_tiles(entry.tiles), melds_of(entry.melds), voids[player])
        if status.flower_pig:
            remaining[player] = PlayerAtWallEnd(flower_pig=True)
        elif status.ready:
            remaining[player] = PlayerAtWallEnd(ready=True, best_fan=status.best_fan)
        else:
            remaining[player] = PlayerAtWallEnd(ready=False)
    return WallExhausted(remaining=remaining)


def asserted_log(text: str) -> str:
    """``text`` with every win's and wall entry's tiles replaced by the facts they make."""
    out: list[Event] = []
    state: MatchState | None = None
    voids: dict[str, str] = {}
    for line, event in parse_log(text):
        written: Event = event
        if isinstance(event, HandStarted):
            voids = {}
        elif isinstance(event, VoidSuitChosen):
            voids[event.player] = event.suit
        elif isinstance(event, (WonOnDiscard, SelfDrawn)) and event.tiles is not None:
            assert state is not None
            written = _asserted_win(state, event, line)
        elif isinstance(event, WallExhausted) and event.remaining is not None:
            assert state is not None
            written = _asserted_wall(state, event, voids)
        out.append(written)
        state = start(event, line) if state is None else evolve(state, event, line)
    return "".join(dumps_event(e) + "\n" for e in out)
