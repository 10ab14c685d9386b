"""The in-place folds (one mutable working state per hand: ``MatchFold``, and the
``Replayer``, ``HandFolder`` and ``replay --json`` built on it) against the pure fold
(``start``/``evolve``/``finish``: a new frozen state for every event, the hand thawed afresh
from its frozen value each time): the same state after every event, the same settled hands and
totals, the same error (message, line, event type) — on random legal logs, logs with variants
and table stakes, and mutated ones."""

from __future__ import annotations

import json
from typing import Any

import pytest
from hypothesis import given
from hypothesis import strategies as st

from mjledger.errors import LogError
from mjledger.fold.hand import HandState
from mjledger.fold.match import MatchFold, MatchState, evolve, finish, start
from mjledger.fold.replay import OUTPUT, replay_events, transfer_to_json
from mjledger.fold.stream import HandStream
from mjledger.log.codec import parse_log
from mjledger.log.events import Event
from tests.helpers import Line
from tests.strategies import _mutate, corrupted_log_texts, legal_log_text
from tests.variant_strategies import variant_logs

Numbered = list[tuple[int | None, Event]]


def error_of(exc: LogError) -> tuple[str, str, int | None, str | None]:
    return (type(exc).__name__, str(exc), exc.line, exc.event_type)


def pure_fold(events: Numbered) -> tuple[list[MatchState], Any]:
    """Every state of the pure fold, then its final state (``finish``) or its error."""
    states: list[MatchState] = []
    state: MatchState | None = None
    try:
        for line, event in events:
            state = start(event, line) if state is None else evolve(state, event, line)
            states.append(state)
        assert state is not None
        return states, finish(state)
    except LogError as exc:
        return states, error_of(exc)


def in_place_fold(events: Numbered) -> tuple[list[MatchState], Any]:
    states: list[MatchState] = []
    fold: MatchFold | None = None
    try:
        for line, event in events:
            if fold is None:
                fold = MatchFold(start(event, line))
            else:
                fold.feed(event, line)
            states.append(fold.state)
        assert fold is not None
        fold.finish()
        return states, fold.state
    except LogError as exc:
        return states, error_of(exc)


def hands_of(states: list[MatchState], final: MatchState) -> list[HandState]:
    """Each hand as it last stood in the pure fold (the replay's hands)."""
    hands: dict[int, HandState] = {}
    for state in [*states, final]:
        if state.hand is not None:
            hands[state.hands_started] = state.hand
    return list(hands.values())


def check_against_pure(events: Numbered) -> None:
    expected_states, expected = pure_fold(events)
    states, result = in_place_fold(events)
    assert states == expected_states
    assert result == expected
    if not isinstance(expected, MatchState):
        with pytest.raises(LogError) as refused:
            replay_events(events)
        assert error_of(refused.value) == expected
        with pytest.raises(LogError) as streamed:  # MatchFold.feed_all, a hand in one loop
            list(HandStream(events))
        assert error_of(streamed.value) == expected
        return
    replayed = replay_events(events)
    assert replayed.state == expected
    assert list(replayed.hands) == hands_of(expected_states, expected)
    stream = HandStream(events)
    assert list(stream) == list(replayed.hands)
    assert stream.totals == replayed.totals()


def numbered(text: str) -> Numbered | None:
    try:
        return list(parse_log(text))
    except LogError:
        return None


@given(legal_log_text(max_hands=4))
def test_legal_logs_fold_in_place_as_the_pure_fold(text: str) -> None:
    events = numbered(text)
    assert events is not None
    check_against_pure(events)


@given(corrupted_log_texts())
def test_mutated_logs_fold_in_place_as_the_pure_fold(text: str) -> None:
    events = numbered(text)
    if events is not None:  # a log the codec refuses never reaches the folds
        check_against_pure(events)


@given(variant_logs(max_hands=3), st.data())
def test_variant_logs_and_their_mutations_fold_in_place_as_the_pure_fold(
    lines: list[Line], data: st.DataObject
) -> None:
    texts = [json.dumps(line, ensure_ascii=False) for line in lines]
    for _ in range(data.draw(st.integers(0, 3))):
        texts = data.draw(_mutate(texts, lines))
    events = numbered("\n".join(texts))
    if events is not None:
        check_against_pure(events)


@given(variant_logs(max_hands=3))
def test_transfers_are_written_as_the_output_converter_writes_them(lines: list[Line]) -> None:
    events = numbered("\n".join(json.dumps(line) for line in lines))
    assert events is not None
    for hand in replay_events(events).hands:
        for t in hand.transfers:
            written = transfer_to_json(t)
            assert written == OUTPUT.unstructure(t)
            assert list(written) == list(OUTPUT.unstructure(t))  # the keys' order too


@pytest.mark.parametrize("enabled", [True, False])
def test_replay_pauses_the_collector_and_leaves_it_as_the_caller_set_it(enabled: bool) -> None:
    """A fold makes no cycles: the library's replay pauses the process-wide collector while
    it folds (issue 25), and leaves it as the caller had it, after a refusal too."""
    import gc

    text = "\n".join(json.dumps(line) for line in LEGAL_SMALL_LOG)
    during: list[bool] = []

    def watched() -> Any:
        for item in parse_log(text):
            during.append(gc.isenabled())
            yield item

    was = gc.isenabled()
    (gc.enable if enabled else gc.disable)()
    try:
        replayed = replay_events(watched())
        after = gc.isenabled()
        with pytest.raises(LogError):
            replay_events(iter([(1, parse_log(text)[1][1])]))
        after_refusal = gc.isenabled()
    finally:
        (gc.enable if was else gc.disable)()
    assert during
    assert not any(during)
    assert after is enabled
    assert after_refusal is enabled
    assert replayed.to_json() == replay_events(parse_log(text)).to_json()


LEGAL_SMALL_LOG: list[dict[str, Any]] = [
    {"type": "match_started", "ruleset": "sichuan", "players": ["ana", "bo", "cy", "di"]},
    {"type": "hand_started"},
    {"type": "won_on_discard", "player": "bo", "from": "ana", "fan": 1},
    {"type": "won_on_discard", "player": "cy", "from": "di", "fan": 0},
    {"type": "self_drawn", "player": "di", "fan": 2},
]
