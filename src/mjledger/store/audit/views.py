"""The views pass: the read models (``view_*``) compared row by row with the replays.

The read models are read as they are, never repaired: a row the replays do not give is a
finding like any other. A corrected or voided hand's rows show the correction in force
(:class:`mjledger.store.audit.corrections.Corrections`).
"""

from __future__ import annotations

import json
from collections.abc import Iterator
from typing import Any

import msgspec

from mjledger.fold.hand import HandState, close_hand
from mjledger.log.events import MatchStarted
from mjledger.rules.house import default_rules, rules_to_json
from mjledger.rules.protocol import QuickHand
from mjledger.store.audit.corrections import Corrections
from mjledger.store.audit.report import Finding
from mjledger.store.audit.run import Run


def check_views_position(run: Run) -> Iterator[Finding]:
    """The read models' tracking position against the store's last row."""
    if run.views is None:
        return run.flush()
    latest = run.rows.last_notification()
    position = run.views.view_position()
    if position > latest:
        run.find(
            "view_differs",
            "the read models have applied rows beyond the store's last one: rows were "
            "removed from the store",
            expected=latest,
            found=position,
        )
    elif position < latest:
        run.find(
            "view_behind",
            "the read models have not applied every stored row (mjledger project catches "
            "them up); they are compared as they are",
            expected=latest,
            found=position,
        )
    return run.flush()


def check_view_match(
    run: Run, match_id: str | None, seq: int, stream: str, started: MatchStarted
) -> None:
    """The match's ``view_matches`` row against its match_started."""
    if run.views is None:
        return
    row = run.views.view_match(match_id)
    expected = [
        seq,
        stream,
        started.ruleset,
        list(started.players),
        rules_to_json(started.rules or default_rules(started.ruleset)),
    ]
    found = None if row is None else [*row[:3], _loads(row[3]), _loads(row[4])]
    if found != expected:
        run.find(
            "view_differs",
            "the match's read-model row (view_matches) is not the store's",
            match=match_id,
            expected=expected,
            found=found,
        )


def check_view_counts(run: Run) -> None:
    """Each read-model table's row count against the hands the store holds."""
    if run.views is None:
        return
    hands = run.summary.hands
    expected = {
        "view_matches": run.summary.matches,
        "view_hands": hands,
        # a corrected hand's stream starts with a hand_started too
        "view_hand_ids": hands + run.corrected_streams,
        "view_hand_net": 4 * hands,
    }
    for table, count in expected.items():
        found = run.views.view_count(table)
        if found != count:
            run.find(
                "view_differs",
                f"{table} holds {found} rows where the store gives {count}",
                expected=count,
                found=found,
            )


class MatchView:
    """The read-model rows of one match, read in hand order alongside the hands."""

    def __init__(self, run: Run, match_id: str | None, fixes: Corrections) -> None:
        self.run = run
        self.match = match_id
        self.fixes = fixes
        views = run.views
        if views is None:
            self.hands: Iterator[Any] = iter(())
            self.nets: Iterator[Any] = iter(())
        else:
            self.hands = views.view_hands(match_id)
            self.nets = views.view_nets(match_id)
        self._reported: tuple[int, str] | None = None
        self._hand: Any = next(self.hands, None)
        self._net: Any = next(self.nets, None)

    def _take(self, number: int) -> tuple[Any, list[Any]]:
        """The view rows of hand ``number`` (rows of earlier hands left over: extra)."""
        while self._hand is not None and self._hand[0] < number:
            self._extra(self._hand[0], "view_hands")
            self._hand = next(self.hands, None)
        hand = None
        if self._hand is not None and self._hand[0] == number:
            hand, self._hand = self._hand, next(self.hands, None)
        nets = []
        while self._net is not None and self._net[0] <= number:
            if self._net[0] < number:
                self._extra(self._net[0], "view_hand_net")
            else:
                nets.append(self._net)
            self._net = next(self.nets, None)
        return hand, nets

    def _extra(self, number: int, table: str) -> None:
        if self._reported == (number, table):
            return
        self._reported = (number, table)
        self.run.find(
            "view_differs",
            f"{table} has a row for hand {number}, which the store does not settle",
            match=self.match,
            hand=number,
            expected=None,
            found=number,
        )

    def skip(self, number: int) -> None:
        if self.run.views is not None:
            self._take(number)

    def compare(self, number: int, expected: dict[str, Any], line: int) -> None:
        if self.run.views is None:
            return
        expected = self.fixes.in_force(number, expected)
        hand, nets = self._take(number)
        self._differs(number, expected, hand, nets, line)

    def _differs(
        self, number: int, expected: dict[str, Any], hand: Any, nets: list[Any], line: int
    ) -> None:
        """Hand ``number``'s rows (``hand``, ``nets``) against what they should show."""
        found: dict[str, Any] | None = None
        if hand is not None:
            found = {
                "ruleset": hand[1],
                "dealer": hand[2],
                "dealer_streak": hand[3],
                "round_wind": hand[4],
                "outcome": hand[5],
                "winners": _loads(hand[6]),
                "next_dealer": hand[7],
                "net": {player: amount for _, player, _, amount in nets},
            }
            if any(ruleset != expected["ruleset"] for _, _, ruleset, _ in nets):
                found["net_ruleset"] = sorted({r for _, _, r, _ in nets})
        if found != expected:
            wrong = (
                sorted(k for k in {*expected, *found} if expected.get(k) != found.get(k))
                if found is not None
                else None
            )
            self.run.find(
                "view_differs",
                f"the history row of hand {number} is not the replay's"
                + (f" ({', '.join(wrong)})" if wrong else " (missing)"),
                match=self.match,
                hand=number,
                line=line,
                expected={k: expected.get(k) for k in wrong} if wrong else expected,
                found={k: found.get(k) for k in wrong} if wrong and found else found,
            )

    def compare_hand(self, number: int, hand: HandState, end: int) -> None:
        """Compare hand ``number``'s rows with the hand as replayed (its last line: ``end``)."""
        settled = close_hand(hand)
        expected = {
            "ruleset": settled.ruleset,
            "dealer": settled.dealer,
            "dealer_streak": settled.dealer_streak,
            "round_wind": settled.round_wind,
            "outcome": settled.outcome,
            "winners": list(settled.winners),
            "next_dealer": settled.next_dealer,
            "net": settled.net(),
        }
        self.compare(number, expected, end)

    def compare_quick(self, number: int, ruleset: str, hand: QuickHand, end: int) -> None:
        """:meth:`compare_hand` of a hand the quick fold settled (of the match's ``ruleset``).
        A hand no correction touches whose rows show it is passed without the dicts
        :meth:`compare` builds: the same comparisons, field by field (a row that shows
        anything else is compared by :meth:`_differs`, which words the finding)."""
        if self.run.views is None:
            return
        taken = self._take(number) if QUICK_ROWS and not self.fixes.rows else None
        if taken is not None and _shows(*taken, ruleset, hand):
            return
        expected = {
            "ruleset": ruleset,
            "dealer": hand.dealer,
            "dealer_streak": hand.dealer_streak,
            "round_wind": hand.round_wind,
            "outcome": hand.outcome,
            "winners": list(hand.winners),
            "next_dealer": hand.next_dealer,
            "net": dict(hand.net),
        }
        if taken is None:
            self.compare(number, expected, end)
        else:
            self._differs(number, expected, *taken, end)

    def finish(self, number: int) -> None:
        if self.run.views is None:
            return
        while self._hand is not None:
            self._extra(self._hand[0], "view_hands")
            self._hand = next(self.hands, None)
        while self._net is not None:
            self._extra(self._net[0], "view_hand_net")
            self._net = next(self.nets, None)


# Whether a quick fold's hand's rows are compared field by field first (the tests audit
# every store both ways and require the same report).
QUICK_ROWS = True


def _shows(row: Any, nets: list[Any], ruleset: str, hand: QuickHand) -> bool:
    """Whether a hand's ``view_hands`` row and ``view_hand_net`` rows show the quick fold's
    hand as :meth:`MatchView.compare` requires (no correction in force): each of its
    comparisons, without the dicts it builds for a finding."""
    return (
        row is not None
        and row[1] == ruleset
        and row[2] == hand.dealer
        and row[3] == hand.dealer_streak
        and row[4] == hand.round_wind
        and row[5] == hand.outcome
        and row[7] == hand.next_dealer
        and _winners(row[6]) == hand.winners
        and all(r == ruleset for _, _, r, _ in nets)
        and {player: amount for _, player, _, amount in nets} == hand.net
    )


def _winners(text: Any) -> Any:
    """A row's winners for :func:`_shows`, decoded in C: a text that decodes so to a list
    of strings decodes to the same list by :mod:`json` (what :func:`_loads` would give);
    anything msgspec refuses is None, so the row goes to :meth:`MatchView._differs`."""
    try:
        return msgspec.json.decode(text)
    except Exception:  # not JSON as msgspec reads it: for the general comparison to word
        return None


def _loads(text: Any) -> Any:
    try:
        return json.loads(text)
    except (TypeError, ValueError):
        return text
