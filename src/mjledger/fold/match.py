"""A match as a fold over its events: the table, the dealer rotation and the current hand.

The hand fold settles money; this one decides who deals, how long a dealer's streak is, which
round wind is blowing and when a Hong Kong match is over — and routes each in-hand event to the
current hand. It is what the store's aggregates replay, so it holds no storage and no I/O.

``start``/``evolve`` are the pure fold, one frozen :class:`MatchState` per event;
:class:`MatchFold` is the same fold over a stream, the hand in play one mutable working state
(:class:`~mjledger.fold.in_play.HandFold`) and the match's frozen state replaced only when a hand
starts or ends — what replay, record and re-derive run.
"""

from __future__ import annotations

from collections.abc import Iterator
from typing import Any

from attrs import frozen

from mjledger._replace import constructor, replacer
from mjledger.errors import RuleError, UnknownRulesetError
from mjledger.fold.hand import (
    HAND_EVENT_TYPES,
    HandEvent,
    HandState,
    apply_event,
    close_hand,
    close_open_wins,
    evolve_hand,
    run_hand,
)
from mjledger.fold.in_play import HandFold
from mjledger.log.events import WINDS, Event, HandStarted, MatchStarted, Wind
from mjledger.rules.house import default_rules
from mjledger.rules.protocol import HouseRules
from mjledger.rules.registry import find_ruleset, table_of
from mjledger.rules.state import HandView
from mjledger.rules.table import Stakes


@frozen
class MatchState:
    """The match after some prefix of its log; ``hand`` is the latest hand (ended or not)."""

    ruleset: str
    players: tuple[str, ...]
    rules: HouseRules
    match_id: str | None = None
    stand_alone: bool = False
    first_dealer: str | None = None
    next_dealer: str | None = None
    next_streak: int = 0
    wind_index: int = 0
    hands_started: int = 0
    hand: HandState | None = None
    over: bool = False
    # Table stakes (variants.md): the balances between hands, and what the match started with.
    stakes: Stakes | None = None
    initial_stakes: dict[str, int] | None = None

    @property
    def round_wind(self) -> Wind:
        return WINDS[self.wind_index]


def start(event: Event, line: int | None = None) -> MatchState:
    """The state after a log's first line, which must open a match or a stand-alone hand."""
    if isinstance(event, MatchStarted):
        return MatchState(
            ruleset=event.ruleset,
            players=event.players,
            rules=event.rules or default_rules(event.ruleset),
            match_id=event.match,
            stakes=None if event.stakes is None else Stakes.start(event.players, event.stakes),
            initial_stakes=event.stakes,
        )
    if isinstance(event, HandStarted):
        return _start_stand_alone(event, line)
    raise RuleError(
        "a log starts with match_started, or with hand_started carrying "
        "ruleset, players and dealer (a stand-alone hand)",
        line=line,
        event_type=type(event).TYPE,
    )


def _start_stand_alone(event: HandStarted, line: int | None) -> MatchState:
    def refuse(problem: str, code: str = "rule_violation") -> RuleError:
        return RuleError(problem, line=line, event_type=HandStarted.TYPE, code=code)

    if event.ruleset is None or event.players is None or event.dealer is None:
        missing = [
            name
            for name, value in (
                ("ruleset", event.ruleset),
                ("players", event.players),
                ("dealer", event.dealer),
            )
            if value is None
        ]
        raise refuse(
            "a stand-alone hand (a log that starts with hand_started) needs "
            f"ruleset, players and dealer; missing: {', '.join(missing)}"
        )
    if event.dealer not in event.players:
        raise refuse(
            f"dealer {event.dealer!r} is not at the table ({', '.join(event.players)})",
            "not_at_table",
        )
    wind: Wind = event.round_wind or "east"
    try:
        ruleset = find_ruleset(event.ruleset)
    except UnknownRulesetError as exc:
        raise refuse(exc.problem, exc.code) from None
    if not ruleset.round_winds and wind != "east":
        raise refuse(
            f"round_wind is not part of {ruleset.title} play; its hands are all 'east'",
            "wrong_ruleset",
        )
    rules = event.rules or default_rules(event.ruleset)
    # Only the store's copy of a hand's context carries the balances it started with.
    stakes = None if event.stakes is None else Stakes.start(event.players, event.stakes)
    hand = HandState(
        ruleset=event.ruleset,
        rules=rules,
        players=event.players,
        number=event.number if event.number is not None else 1,
        dealer=event.dealer,
        dealer_streak=event.dealer_streak or 0,
        round_wind=wind,
        stakes=stakes,
    )
    return MatchState(
        ruleset=event.ruleset,
        players=event.players,
        rules=rules,
        match_id=event.match,
        stand_alone=True,
        first_dealer=event.dealer,
        wind_index=WINDS.index(wind),
        hands_started=1,
        hand=hand,
        stakes=stakes,
    )


def evolve(state: MatchState, event: Event, line: int | None = None) -> MatchState:
    """The match after ``event``; a :class:`RuleError` (naming line and problem) if illegal."""
    if isinstance(event, HandStarted):
        return open_hand(state, event, line)
    if isinstance(event, MatchStarted):
        raise RuleError(
            "a log holds one match: match_started may only be its first line",
            line=line,
            event_type=MatchStarted.TYPE,
        )
    hand = state.hand
    if hand is None or hand.ended:
        problem = (
            "no hand in progress: a hand begins with hand_started"
            if hand is None
            else f"hand {hand.number} has already ended ({hand.outcome}); "
            "start the next with hand_started"
        )
        if hand is not None and state.stand_alone:
            problem = f"the hand has already ended ({hand.outcome})"
        code = "rule_violation" if hand is None else "hand_not_in_play"
        raise RuleError(problem, line=line, event_type=type(event).TYPE, code=code)
    hand = evolve_hand(hand, _as_hand_event(event), line)
    if hand.ended:
        return rotate(state, hand)
    return _with_hand(state, hand)


_replace_state = replacer(MatchState)
_replace_hand = replacer(HandState)
_new_hand = constructor(HandState)  # a hand starts with every hand of a match


def _with_hand(state: MatchState, hand: HandState) -> MatchState:
    return _replace_state(state, hand=hand)


def _as_hand_event(event: Event) -> HandEvent:
    assert not isinstance(event, (HandStarted, MatchStarted))
    return event


def finish(state: MatchState) -> MatchState:
    """The state at the end of the log: an open run of wins closes (its kong money settles)."""
    if state.hand is None or state.hand.open_wins is None:
        return state
    hand = close_hand(state.hand)
    return rotate(state, hand) if hand.ended else _with_hand(state, hand)


def open_hand(state: MatchState, event: HandStarted, line: int | None) -> MatchState:
    """The match once ``event`` starts its next hand (a :class:`RuleError` if it cannot)."""
    state = _opening(state, event, line)
    assert state.next_dealer is not None
    hand = _new_hand(
        ruleset=state.ruleset,
        rules=state.rules,
        players=state.players,
        number=state.hands_started + 1,
        dealer=state.next_dealer,
        dealer_streak=state.next_streak,
        round_wind=state.round_wind,
        stakes=state.stakes,
    )
    return _replace_state(state, hands_started=state.hands_started + 1, hand=hand)


def _opening(state: MatchState, event: HandStarted, line: int | None) -> MatchState:
    """Check that ``event`` may start the match's next hand; the match with its first dealer
    set at the first hand (the dealer of the new hand is then ``next_dealer``)."""

    def refuse(problem: str, code: str = "rule_violation") -> RuleError:
        return RuleError(problem, line=line, event_type=HandStarted.TYPE, code=code)

    if state.stand_alone:
        raise refuse("a stand-alone hand log holds exactly one hand")
    if event.format is not None:
        raise refuse("'format' may only be given on the first line")
    if event.stand_alone:
        raise refuse("in a match, hand_started carries at most 'dealer'")
    if state.hand is not None and not state.hand.ended:
        raise refuse(f"hand {state.hand.number} has not ended yet", "hand_in_play")
    if state.over:
        bust = state.stakes.bust if state.stakes is not None else ()
        if bust:
            who = ", ".join(repr(p) for p in state.players if p in bust)
            number = state.hand.number if state.hand is not None else state.hands_started
            raise refuse(f"the match is over: {who} went bust in hand {number}", "match_over")
        raise refuse("the match is over: the north round has finished", "match_over")
    if state.hands_started == 0:
        dealer = event.dealer if event.dealer is not None else state.players[0]
        if dealer not in state.players:
            raise refuse(
                f"dealer {dealer!r} is not at the table ({', '.join(state.players)})",
                "not_at_table",
            )
        state = _replace_state(state, first_dealer=dealer, next_dealer=dealer)
    if event.dealer is not None and event.dealer != state.next_dealer:
        raise refuse(
            f"dealer {event.dealer!r} disagrees with the rotation, "
            f"which gives {state.next_dealer!r}",
            "wrong_dealer",
        )
    return state


def rotate(state: MatchState, hand: HandState) -> MatchState:
    """Rotate the deal (rules.md, "End of hand and dealer" and Sichuan "Dealer")."""
    changes = _rotation(state, hand)
    return _replace_state(
        state, hand=_replace_hand(hand, next_dealer=changes["next_dealer"]), **changes
    )


def streak_after(dealer: str, streak: int, next_dealer: str | None) -> int:
    """The next hand's dealer streak: one more when the dealer stays, else none."""
    return streak + 1 if next_dealer == dealer else 0


def _rotation(state: MatchState, hand: HandView) -> dict[str, Any]:
    """What the end of ``hand`` changes in the match besides the hand itself (which gets the
    ``next_dealer``): read off a frozen hand, or the hand fold's before it is frozen once."""
    ruleset = table_of(state.ruleset, hand.rules, hand.players)
    dealer = ruleset.dealer_after(hand)
    streak = streak_after(hand.dealer, hand.dealer_streak, dealer)
    wind_index = state.wind_index
    over = False
    if not state.stand_alone and ruleset.round_ends(hand, dealer, state.first_dealer):
        if wind_index == len(WINDS) - 1:
            over = True
        else:
            wind_index += 1
    if hand.stakes is not None and hand.stakes.bust and not state.stand_alone:
        over = True  # "the match ends with the hand in which anyone went bust"
    return {
        "next_dealer": None if over else dealer,
        "next_streak": streak,
        "wind_index": wind_index,
        "over": over,
        "stakes": hand.stakes,
    }


class MatchFold:
    """The match fold over a stream of events, :func:`evolve` without a copy per event: the
    hand in play is folded in place, the frozen match state is replaced when a hand starts or
    ends, and :attr:`state` is :func:`evolve`'s result, frozen on demand. After a refused
    event the fold is not to be fed further (a refused log is refused whole)."""

    __slots__ = ("_blank", "_hand", "_started", "_state")

    def __init__(self, state: MatchState) -> None:
        self._state = state
        # ``hands_started`` with the hand in play counted: ``_state`` catches up when it ends.
        self._started = state.hands_started
        hand = state.hand
        self._hand = None if hand is None or hand.ended else HandFold.thaw(hand)
        # A hand of this table that has not started, which every new hand is opened from.
        self._blank = HandFold.thaw(
            HandState(state.ruleset, state.rules, state.players, 0, state.players[0])
        )

    @property
    def state(self) -> MatchState:
        """The match after the events fed so far (the hand in play frozen as it stands)."""
        if self._hand is None:
            return self._state
        return _replace_state(self._state, hands_started=self._started, hand=self._hand.freeze())

    def feed(self, event: Event, line: int | None = None) -> HandState | None:
        """Fold ``event`` (a :class:`RuleError` if illegal). At a ``hand_started``, the hand it
        follows, settled (None before the first)."""
        hand = self._hand
        if hand is not None and type(event) in HAND_EVENT_TYPES:  # the common case, first
            apply_event(hand, event, line)  # type: ignore[arg-type]
            if hand.ended:
                self._end_hand(hand)
            return None
        if isinstance(event, HandStarted):
            before = self.state
            state = _opening(before, event, line)
            assert state.next_dealer is not None
            number = state.hands_started + 1
            self._hand = self._blank.opened(
                number, state.next_dealer, state.next_streak, state.round_wind, state.stakes
            )
            # The hand in play is the fold's; ``state`` freezes it when asked.
            self._state = state
            self._started = number
            return before.hand
        if hand is None or isinstance(event, MatchStarted):
            evolve(self._state, event, line)  # no hand in play, or a second match: refused
            raise AssertionError("evolve accepted an event outside a hand")
        apply_event(hand, _as_hand_event(event), line)  # an event no hand holds: refused
        raise AssertionError("a hand accepted an event of no hand")

    def feed_all(self, events: Iterator[tuple[int | None, Event]]) -> Iterator[HandState]:
        """:meth:`feed` every event drawn from ``events``, yielding each settled hand it
        answers; the events of a hand in play go to :func:`~mjledger.fold.hand.run_hand` in
        one loop."""
        pending: tuple[int | None, Event] | None = None
        while True:
            if pending is None:
                drawn = next(events, None)
                if drawn is None:
                    return
                line, event = drawn
            else:
                line, event = pending
            settled = self.feed(event, line)
            if settled is not None:
                yield settled
            pending = self.finish_hand(events)

    def finish_hand(
        self, events: Iterator[tuple[int | None, Event]]
    ) -> tuple[int | None, Event] | None:
        """Fold the hand in play to its end (or the stream's) with the events drawn from
        ``events``; an event that no hand holds, drawn before the hand ended, is returned."""
        hand = self._hand
        if hand is None:
            return None
        pending = run_hand(hand, events)
        if hand.ended:
            self._end_hand(hand)
        return pending

    def _end_hand(self, hand: HandFold) -> None:
        """Rotate the deal, the hand frozen once, with its next dealer."""
        changes = _rotation(self._state, hand)
        hand.next_dealer = changes["next_dealer"]
        self._state = _replace_state(
            self._state, hands_started=self._started, hand=hand.freeze(), **changes
        )
        self._hand = None

    @property
    def in_play(self) -> bool:
        """Whether a hand is in play (started, not ended): after a hand's event, False means
        that event ended it (and the deal has rotated)."""
        return self._hand is not None

    def finish(self) -> None:
        """The end of the log: an open run of wins closes (its kong money settles)."""
        if self._hand is not None:
            close_open_wins(self._hand)
