"""The replays pass: a match stream and its hands, each hand replayed under the match's rules.

Per match: each hand chained into its match; replayed (legal, zero-sum, fans and wall facts
from tiles where tiles are logged) from the rotation the hands before it give; its first row's
context and rotation as the match gives them; its ``hand_closed`` equal to the replay; its
read-model rows (:mod:`mjledger.store.audit.views`) and signatures as it goes; the match's
corrections after its last hand. A hand that cannot be replayed leaves the rotation to its
``hand_closed``, and with neither the rotation is lost for the hands after it (they are not
replayed until a later ``hand_closed`` gives it). A ``hand_closed`` whose rotation is none a
match of its table can have (a next dealer not at the table, none while the match goes on, one
though it is over, a negative streak; with table stakes, balances not of its players) is
``rotation_unusable``, and the rotation lost likewise.

A hand is replayed by its rule set's quick fold where the match's table has one
(:func:`mjledger.fold.stream.quick_hands_of`, as recording and ``replay --json`` settle it) and
the fold decides the hand: opened by the match fold's own rule, every row read, the hand
ended at its stream's last row, zero-sum. Anything else — an undecided hand, a row after the
hand's end, a row that does not read, a rotation a tampered closing gave — is replayed by the
general fold, which words every ``replay_refused`` and ``not_zero_sum``; the closing and the
read-model rows are compared with the quick fold's hand in the stored forms recording writes
of it (:func:`mjledger.store.hand_forms.quick_table_closing`).
"""

from __future__ import annotations

from collections.abc import Iterator
from functools import lru_cache
from typing import Any, Final

import attrs

from mjledger._replace import replacer
from mjledger.errors import RuleError, StoreError
from mjledger.fold.hand import HandState
from mjledger.fold.match import (
    MatchFold,
    MatchState,
    evolve,
    open_hand,
    start,
    streak_after,
)
from mjledger.fold.stream import quick_hands_of
from mjledger.log.events import WINDS, HandStarted, MatchStarted
from mjledger.rules.protocol import QuickHand, QuickHands, Undecided
from mjledger.rules.table import Stakes
from mjledger.store.audit.chains import Row, read_chain, read_stream
from mjledger.store.audit.closings import TableContext, check_closing, check_context
from mjledger.store.audit.corrections import Corrections
from mjledger.store.audit.run import Run
from mjledger.store.audit.signatures import check_signature
from mjledger.store.audit.views import MatchView, check_view_match
from mjledger.store.events import HandClosed
from mjledger.store.records import GENESIS, with_rules
from mjledger.store.streams import hand_stream_hex


def audit_match(run: Run, stream: str, match_id: str | None) -> None:
    """Audit one match stream (``match_id`` None: as its first row names it)."""
    rows = read_chain(run, run.rows.stream(stream), GENESIS, stream, lambda v: {"match": match_id})
    first = next(rows, None)
    if first is None:
        raise StoreError(f"no match {match_id!r} in {run.summary.store}", code="no_match")
    started = first.event
    if not isinstance(started, MatchStarted) or first.version != 1:
        run.find(
            "row_misplaced",
            "a match stream must start with match_started",
            stream=stream,
            version=first.version,
            match=match_id,
        )
        for _ in rows:
            pass
        return
    MatchAudit(run, stream, first, started, rows).audit()


class MatchAudit:
    """One match as the pass goes through its hands: the rotation so far (``state``), the last
    digest of its chain, the export line of the last event, and whether the rotation is lost."""

    def __init__(
        self, run: Run, stream: str, first: Row, started: MatchStarted, rows: Iterator[Row]
    ) -> None:
        self.run = run
        self.stream = stream
        self.rows = rows
        self.match = match_id = started.match
        run.summary.matches += 1
        started = with_rules(started)
        check_view_match(run, match_id, first.rowid, stream, started)
        self.fixes = Corrections(run, match_id or "")
        self.view = MatchView(run, match_id, self.fixes)
        self.table = TableContext()
        self.state = start(started, 1)
        self.quick: QuickHands | None = quick_hands_of(self.state) if QUICK else None
        self.previous = first.digest
        self.fixes.anchor(self.previous)
        self.line = 1  # the export line of the last event so far
        self.number = 1
        self.held: Row | None = None  # a hand_closed of a later hand (this one's is missing)
        self.lost = False  # a hand neither replays nor has a hand_closed: the rotation is unknown
        self.unfinished = False

    def audit(self) -> None:
        while True:
            hand = self._hand_rows()
            closing, closed = self._closing()
            if hand:
                self._hand(hand, closing, closed)
            elif closing is None and self.held is None:
                break
            else:
                self._missing(closing, closed)
            self.number += 1
        for extra in self.rows:
            self.run.find(
                "row_misplaced",
                "a match stream row after its last hand",
                match=self.match,
                stream=self.stream,
                version=extra.version,
            )
        self.view.finish(self.number)
        self.fixes.audit(self.previous)

    def _hand_rows(self) -> list[Row]:
        match_id, number, line = self.match, self.number, self.line
        stream = hand_hex(match_id, number)
        return read_stream(
            self.run,
            self.run.rows.stream_rows(stream),
            self.previous,
            stream,
            lambda v: {"match": match_id, "hand": number, "line": line + v},
        )

    def _closing(self) -> tuple[Row | None, HandClosed | None]:
        """The match stream's next row, as this hand's closing (and its event when it is a
        hand_closed of this hand; a hand_closed of the next one is held for it)."""
        closing, self.held = (
            (self.held, None) if self.held is not None else (next(self.rows, None), None)
        )
        closed = closing.event if closing is not None else None
        if closing is not None and not isinstance(closed, HandClosed):
            if closed is not None:
                self.run.find(
                    "row_misplaced",
                    "after match_started a match stream holds hand_closed rows only",
                    match=self.match,
                    stream=self.stream,
                    version=closing.version,
                )
            closed = None
        if closed is not None and closed.number == self.number + 1:
            # This hand's hand_closed is missing; the row is the next hand's. (Only one
            # ahead: a number from further off is this hand's closing, and wrong.)
            self.held, closing, closed = closing, None, None
        return closing, closed

    def _missing(self, closing: Row | None, closed: HandClosed | None) -> None:
        """A hand whose stream is empty, though the match closes it or a later hand."""
        number = self.number
        self.run.find(
            "hand_missing",
            f"the match stream closes hand {number}, but its stream is empty"
            if closing is not None
            else f"hand {number} is missing (a later hand is closed)",
            match=self.match,
            hand=number,
            stream=hand_hex(self.match, number),
            version=1,
            line=self.line + 1,
        )
        if closing is not None:
            check_signature(self.run, closing, self.match, number, self.stream, self.line)
            self.previous = closing.digest
            self.fixes.anchor(self.previous)
        if closed is not None:
            assert closing is not None
            self._from_closing(closing, closed, self.line)
            self.line += closed.events
        else:
            self.lost = True
        self.view.skip(number)

    def _hand(self, hand: list[Row], closing: Row | None, closed: HandClosed | None) -> None:
        run, number = self.run, self.number
        run.summary.hands += 1
        replayed: HandState | QuickHand | None = None
        if self.unfinished:
            run.find(
                "hand_extra",
                f"hand {number} is stored after hand {number - 1}, which is unfinished",
                match=self.match,
                hand=number,
                stream=hand_hex(self.match, number),
                version=1,
                line=self.line + 1,
            )
            self.lost = True
        elif not self.lost:
            quick = self._quick(hand) if self.quick is not None else None
            self.state, replayed = self._replay(hand) if quick is None else quick
        end = self.line + len(hand)
        if closing is not None:
            check_signature(run, closing, self.match, number, self.stream, end)
            check_closing(
                run, closing, replayed, self.state, hand, self.match, number, self.stream, end
            )
        elif replayed is not None and ended(replayed):
            run.find(
                "closing_missing",
                f"hand {number} ended at line {end} but the match has no hand_closed for it",
                match=self.match,
                hand=number,
                stream=self.stream,
                line=end,
            )
        self._go_on(replayed, closing, closed, end)
        self.line = end
        self.previous = closing.digest if closing is not None else hand[-1].digest
        if closing is not None:
            self.fixes.anchor(self.previous)

    def _go_on(
        self,
        replayed: HandState | QuickHand | None,
        closing: Row | None,
        closed: HandClosed | None,
        end: int,
    ) -> None:
        """The rotation after the hand: the replay's, else its hand_closed's, else lost."""
        if replayed is None:
            if closed is not None:
                assert closing is not None
                self._from_closing(closing, closed, end)
            elif closing is None:
                self.lost = True
            self.view.skip(self.number)
            return
        if isinstance(replayed, QuickHand):  # ended, settled: the next hand goes on from it
            self.view.compare_quick(self.number, self.state.ruleset, replayed, end)
            self.unfinished = False
            return
        assert isinstance(replayed, HandState)
        self.view.compare_hand(self.number, replayed, end)
        if not replayed.ended and closing is not None:
            # Closed in the store, unfinished by its events (a cut hand): go on from the
            # rotation its hand_closed states, as for a hand that does not replay.
            if closed is not None:
                assert closing is not None
                self._from_closing(closing, closed, end)
            else:
                self.lost = True
        else:
            self.unfinished = not replayed.ended

    def _from_closing(self, closing: Row, closed: HandClosed, line: int) -> None:
        """Go on from the rotation the hand's closing states (the hand not replayed), or, where
        it is none a match of this table can have, report it and leave the rotation lost: the
        hands after it are not replayed until a hand_closed gives one, as after a hand that
        neither replays nor has a closing."""
        number = self.number
        reasons = unusable(self.state, closed, number)
        if not reasons:
            self.state, self.lost = after(self.state, closed, number), False
            return
        self.run.find(
            "rotation_unusable",
            f"hand {number} does not replay and its hand_closed's rotation cannot be gone on "
            f"from: {'; '.join(reasons.values())}",
            found={f: getattr(closed, f) for f in reasons},
            match=self.match,
            hand=number,
            stream=self.stream,
            version=closing.version,
            line=line,
        )
        self.lost = True

    def _quick(self, hand: list[Row]) -> tuple[MatchState, QuickHand] | None:
        """The match after the hand and the hand as the quick fold settles it, or None where
        the general fold must replay it (see the module's docstring). The hand is opened by
        :func:`~mjledger.fold.match.open_hand`, the match fold's own rule, as :meth:`_replay`
        opens it; its context is checked as there."""
        quick, state, number, line = self.quick, self.state, self.number, self.line
        first = hand[0]
        if type(first.event) is not HandStarted or first.version != 1:
            return None
        if state.wind_index != 0:
            return None  # a round wind only a (tampered) closing gives: the general fold's
        for row in hand:
            if row.event is None:
                return None
        try:
            opened = open_hand(state, _in_match(first.event, number), line + 1)
        except RuleError:
            return None
        new = opened.hand
        assert quick is not None
        assert new is not None
        events = ((line + row.version, row.event) for row in hand[1:])
        dealer, streak = new.dealer, new.dealer_streak
        try:
            settled = quick.fold(new.number, dealer, streak, events, [])
        except Undecided:
            return None
        if next(events, None) is not None or sum(settled.net.values()) != 0:
            return None  # a row after the hand's end (refused), or not zero-sum: as folded
        match = self.match
        check_context(
            self.run, first, self.table.of(opened, new), lambda: _where(match, number, line)(first)
        )
        after = _replace_state(
            opened,
            hand=None,
            next_dealer=settled.next_dealer,
            next_streak=streak_after(dealer, streak, settled.next_dealer),
        )
        return after, settled

    def _replay(self, hand: list[Row]) -> tuple[MatchState, HandState | None]:
        """The match after the hand and the hand as replayed (None when it does not replay)."""
        run, state, number, line = self.run, self.state, self.number, self.line
        first = hand[0]
        where = _where(self.match, number, line)
        if not isinstance(first.event, HandStarted) or first.version != 1:
            if first.event is not None:
                run.find("row_misplaced", "a hand starts with hand_started", **where(first))
            return state, None
        try:
            state = open_hand(state, _in_match(first.event, number), line + 1)
        except RuleError as exc:
            run.find("replay_refused", exc.problem, **where(first))
            return state, None
        assert state.hand is not None
        check_context(run, first, self.table.of(state, state.hand), lambda: where(first))
        opened = state
        fold = MatchFold(state)  # the hand folded in place: evolve without a copy per event
        for i, row in enumerate(hand[1:], 1):
            if row.event is None:
                return fold.state, None  # already a finding; the hand cannot be replayed
            try:
                fold.feed(row.event, line + row.version)
            except RuleError as exc:
                run.find("replay_refused", exc.problem, **where(row))
                # The match as it stood before the refused event (a refused fold is not to
                # be read): the events before it again, through the pure fold.
                for before in hand[1:i]:
                    opened = evolve(opened, before.event, line + before.version)
                return opened, None
        state = fold.state
        replayed = state.hand
        assert replayed is not None
        net = replayed.net()
        if sum(net.values()) != 0:
            total = sum(net.values())
            run.find(
                "not_zero_sum", f"hand {number} settles to {total}", found=net, **where(hand[-1])
            )
        return state, replayed


def _where(match_id: str | None, number: int, line: int) -> Any:
    """Where a row of hand ``number`` is, for its findings."""
    stream = hand_hex(match_id, number)

    def where(row: Row) -> dict[str, Any]:
        version = row.version
        return {
            "match": match_id,
            "hand": number,
            "stream": stream,
            "version": version,
            "line": line + version,
        }

    return where


def _in_match(started: HandStarted, number: int) -> HandStarted:
    """The hand_started hand ``number`` opens with in its match: the stored one's dealer at
    the first hand, nothing after it (an event, frozen, so the one without a dealer is
    shared: :func:`~mjledger.fold.match.open_hand` only reads it)."""
    return HandStarted(dealer=started.dealer) if number == 1 else _NEXT_HAND


_NEXT_HAND: Final = HandStarted()

# Whether hands are replayed by their rule set's quick fold where it decides them (the tests
# audit every store both ways and require the same report).
QUICK = True
_replace_state = replacer(MatchState)


def ended(replayed: HandState | QuickHand) -> bool:
    """Whether the replayed hand has ended (a quick fold settles only ended hands)."""
    return isinstance(replayed, QuickHand) or replayed.ended


@lru_cache(maxsize=16)
def hand_hex(match_id: str | None, number: int) -> str:
    """A hand's stream id (each is asked for more than once: reading, replaying, findings)."""
    return hand_stream_hex(match_id or "", number)


def unusable(state: MatchState, closed: HandClosed, number: int) -> dict[str, str]:
    """Why the rotation hand ``number``'s hand_closed states is none a match of this table
    can have, by field (empty: :func:`after` may go on from it). The match fold's own
    invariants: a next dealer at the table while the match goes on and none once it is over,
    a streak that counts hands, the first hand's dealer at the table, and with table stakes
    a balance for each of its players, none negative, and only its players bust. (The
    converter has already refused a round wind that is no wind, a streak that is no
    integer.)"""
    players = state.players
    at_table = ", ".join(players)
    reasons = {}
    if number == 1 and closed.dealer not in players:
        reasons["dealer"] = f"dealer {closed.dealer!r} is not at the table ({at_table})"
    dealer = closed.next_dealer
    if closed.match_over:
        if dealer is not None:
            reasons["next_dealer"] = f"next_dealer {dealer!r}, though the match is over"
    elif dealer is None:
        reasons["next_dealer"] = "no next_dealer, though the match is not over"
    elif dealer not in players:
        reasons["next_dealer"] = f"next_dealer {dealer!r} is not at the table ({at_table})"
    if closed.next_streak < 0:
        reasons["next_streak"] = f"next_streak {closed.next_streak} is negative"
    if state.stakes is not None:  # the next hand plays from the balances it states
        balances = closed.balances
        if balances is None or sorted(balances) != sorted(players):
            reasons["balances"] = f"balances not of the table's players ({at_table})"
        elif any(v < 0 for v in balances.values()):
            reasons["balances"] = "a balance is negative"
        if not set(closed.bust) <= set(players):
            reasons["bust"] = f"bust names a player not at the table ({at_table})"
    return reasons


def after(state: MatchState, closed: HandClosed, number: int) -> MatchState:
    """The rotation a hand_closed states (:func:`unusable` found nothing wrong with it), to
    go on with hand ``number``, which could not be replayed: with table stakes, from the
    balances it states. The hand's number is its place in the match, not the closing's (a
    wrong one is a ``closing_differs`` already)."""
    stakes = state.stakes
    if stakes is not None:
        balances = closed.balances
        assert balances is not None
        stakes = Stakes(
            state.players, tuple(balances[p] for p in state.players), frozenset(closed.bust)
        )
    return attrs.evolve(
        state,
        first_dealer=state.first_dealer if number > 1 else closed.dealer,
        next_dealer=closed.next_dealer,
        next_streak=closed.next_streak,
        wind_index=WINDS.index(closed.next_round_wind),
        hands_started=number,
        over=closed.match_over,
        hand=None,
        stakes=stakes,
    )
