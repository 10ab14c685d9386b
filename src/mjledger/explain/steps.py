"""Explain a settled hand step by step: what each event caused, under which rule, with the sums.

A dispute is about one hand, and the answer must be checkable by hand: for every event, the
rule it fell under, the operands (fan, cap, base, share, who was still in …), the result of
the arithmetic, the money it moved and everyone's running net after it. This module builds
that answer as data, in no language: each step carries message ids and parameters, which
:mod:`mjledger.explain.i18n` turns into sentences and ``--json`` hands to a backend as they are.

Nothing here computes an amount. The explanation re-folds the hand's events with the fold's
own ``evolve_hand`` while asking for explanations (:func:`mjledger.rules.explained.explaining`):
each hook then notes what it computed and how — message ids and operands next to the sum
(:class:`~mjledger.rules.explained.Why`) — and the fold notes each batch of dues with what
table stakes let through. This module orders those notes into steps. The money of each step
is the settlement's own transfers, claimed by line, reason, payer and payee; every transfer
must be claimed exactly once, and the tests check that the noted arithmetic gives exactly the
amounts the settlement holds. A rule set that notes nothing (a plugin's) is explained from
its payments, in a neutral wording.
"""

from __future__ import annotations

from collections.abc import Iterable, Iterator, Mapping, Sequence
from typing import Any, Final

from mjledger.errors import MjledgerError
from mjledger.explain.explanation import CORRECTIONS as CORRECTIONS
from mjledger.explain.explanation import OUTCOMES as OUTCOMES
from mjledger.explain.explanation import CorrectionNote as CorrectionNote
from mjledger.explain.explanation import ExplanationError as ExplanationError
from mjledger.explain.explanation import HandExplanation as HandExplanation
from mjledger.explain.explanation import Moment as Moment
from mjledger.explain.explanation import Net as Net
from mjledger.explain.explanation import Param as Param
from mjledger.explain.explanation import Payment as Payment
from mjledger.explain.explanation import Sentence as Sentence
from mjledger.explain.explanation import Step as Step
from mjledger.fold.hand import HandEvent, HandState, Transfer, close_hand, evolve_hand
from mjledger.fold.replay import Replayer
from mjledger.log.codec import parse_log
from mjledger.log.events import (
    Discarded,
    Event,
    HandStarted,
    SelfDrawn,
    VoidSuitChosen,
    WonOnDiscard,
    win_has_tiles,
)

# N_, Amounts and Term are also the catalogs' helpers of i18n, report and stored.
from mjledger.rules.explained import N_ as N_
from mjledger.rules.explained import Amounts as Amounts
from mjledger.rules.explained import Batch, Why, explaining
from mjledger.rules.explained import NotedDue as Due
from mjledger.rules.explained import Term as Term
from mjledger.rules.house import rules_to_json
from mjledger.rules.registry import find_ruleset

# Message ids chosen at run time, each written out once so that extraction finds it.
# Sentences that name the lines of kongs, and their wording when there is one kong ("the kong on
# line 12", not "the kongs on lines 12"): in most of the languages the article changes too.
ONE_KONG_LINE: Final = {
    N_("discarded.ends_kong_run"): N_("discarded.ends_kong_run.one_line"),
    N_("kong_money_kept.not_split"): N_("kong_money_kept.not_split.one_line"),
    N_("kong_money_kept.off"): N_("kong_money_kept.off.one_line"),
    N_("kong_money_kept.robbing_kong"): N_("kong_money_kept.robbing_kong.one_line"),
    N_("kong_money_passed"): N_("kong_money_passed.one_line"),
    N_("kong_money_passed.split"): N_("kong_money_passed.split.one_line"),
    N_("kong_money_passed.each_full"): N_("kong_money_passed.each_full.one_line"),
}
WIND_TERMS: Final = {
    "east": N_("wind.east"),
    "south": N_("wind.south"),
    "west": N_("wind.west"),
    "north": N_("wind.north"),
}
SUIT_TERMS: Final = {"m": N_("suit.m"), "p": N_("suit.p"), "s": N_("suit.s")}


# --- building the steps -------------------------------------------------------------------


def _key(t: Due) -> tuple[str, str, str, int | None]:
    return t.payer, t.payee, t.reason, t.line


class _Claims:
    """The settlement's transfers, to be claimed once each by the step that caused them."""

    def __init__(self, transfers: Iterable[Transfer]) -> None:
        self.left: list[Transfer] = list(transfers)

    def take(self, due: Due) -> Payment:
        for i, t in enumerate(self.left):
            if _key(t) == _key(due):
                del self.left[i]
                return Payment(t.payer, t.payee, t.amount)
        raise ExplanationError(
            f"the settlement has no {due.reason} transfer {due.payer} -> {due.payee} "
            f"on line {due.line}"
        )


def _paid_amounts(batch: Batch) -> list[int]:
    """What was paid of each due of ``batch``, in order: table stakes fill a payee's dues in
    the order of the batch, so the paid transfers of one kind follow their dues in order."""
    queues: dict[tuple[str, str, str, int | None], list[int]] = {}
    for t in batch.paid:
        queues.setdefault(_key(t), []).append(t.amount)
    return [queues[_key(d)].pop(0) if queues.get(_key(d)) else 0 for d in batch.dues]


class _Builder:
    def __init__(self, start: HandState, settled: HandState) -> None:
        self.players = start.players
        self.title = find_ruleset(start.ruleset).title
        self.claims = _Claims(settled.transfers)
        self.net = dict.fromkeys(self.players, 0)
        self.steps: list[Step] = []
        self.own = False
        self.may_pass: set[int | None] = set()  # lines of kongs whose money may pass on

    def add(
        self,
        line: int | None,
        event: str,
        reason: str | None,
        sentences: Sequence[Sentence],
        operands: dict[str, Any],
        computed: Sequence[Payment] = (),
        money: Sequence[Payment] = (),
    ) -> None:
        """A step: its arithmetic's result and the settlement's money for it."""
        for paid in money:
            self.net[paid.payer] -= paid.amount
            self.net[paid.payee] += paid.amount
        self.steps.append(
            Step(
                line,
                event,
                reason,
                tuple(sentences),
                operands,
                tuple(computed),
                tuple(money),
                dict(self.net),
            )
        )

    def event(
        self, before: HandState, event: HandEvent | None, line: int | None, notes: list[Why | Batch]
    ) -> None:
        """The steps of one event (None: the end of the log) from what was noted folding it."""
        self.own = False  # whether a step stands at the event itself
        pending: list[Why] = []
        for item in notes:
            if isinstance(item, Why):
                pending.append(item)
            else:
                self._batch(pending, item, event, line)
                pending = []
        for why in pending:
            self._step(why, [], [], event, line)
        if event is not None and not self.own:
            self._plain(before, event, line)

    def _batch(
        self, whys: list[Why], batch: Batch, event: HandEvent | None, line: int | None
    ) -> None:
        """Give each due of ``batch`` to the step whose arithmetic gave it: the dues a hook
        listed, or else (a hook that returned them) the step that claims the batch's."""
        amounts = _paid_amounts(batch)
        left = list(range(len(batch.dues)))

        def claim(due: Due) -> int:
            for j, i in enumerate(left):
                if batch.dues[i] == due:
                    del left[j]
                    return i
            raise ExplanationError(f"a step explains a due the settlement never had: {due}")

        given = [[claim(d) for d in why.dues] if why.dues is not None else None for why in whys]
        for why, mine in zip(whys, given, strict=True):
            if mine is None:
                mine, left = left, []
            self._step(why, [batch.dues[i] for i in mine], [amounts[i] for i in mine], event, line)
        if left:  # dues no hook explained: a plugin's, in a neutral wording
            self._neutral(event, line, [batch.dues[i] for i in left], [amounts[i] for i in left])

    def _money(
        self, dues: Sequence[Due], amounts: Sequence[int]
    ) -> tuple[list[Payment], list[Payment]]:
        """Each due as paid (the arithmetic), and the settlement's transfer that holds it."""
        computed = [Payment(d.payer, d.payee, a) for d, a in zip(dues, amounts, strict=True) if a]
        money = [self.claims.take(d) for d, a in zip(dues, amounts, strict=True) if a]
        return computed, money

    def _step(
        self,
        why: Why,
        dues: Sequence[Due],
        amounts: Sequence[int],
        event: HandEvent | None,
        at: int | None,
    ) -> None:
        line = at if why.at_event else why.line
        self.own = self.own or why.at_event
        kind = why.event or (event.TYPE if event is not None else "")
        operands = dict(why.operands)
        if why.dues is None and isinstance(event, WonOnDiscard | SelfDrawn):
            operands["fan_from_tiles"] = win_has_tiles(event)
        if operands.get("kong_money_may_pass"):
            self.may_pass.add(line)
        computed, money = self._money(dues, amounts)
        reason = dues[0].reason if money else None  # the reason of the money it moved
        sentences = [_sentence(i, p) for i, p in why.sentences]
        self.add(line, kind, reason, sentences, operands, computed, money)

    def _neutral(
        self,
        event: HandEvent | None,
        at: int | None,
        dues: Sequence[Due],
        amounts: Sequence[int],
    ) -> None:
        """Dues a rule set gave without saying how: who pays whom, and the sum (at the line
        the dues carry: a run of wins closing carries its first win's)."""
        line = dues[0].line if dues[0].line is not None else at
        self.own = self.own or line == at
        payments = Amounts(tuple((f"{d.payer} → {d.payee}", d.amount) for d in dues))
        total = sum(d.amount for d in dues)
        params: dict[str, Param] = {"ruleset": self.title, "payments": payments, "amount": total}
        operands = {"ruleset": self.title, "amount": total}
        kind = event.TYPE if event is not None else WonOnDiscard.TYPE
        sentence = Sentence(N_("other_ruleset"), params)
        computed, money = self._money(dues, amounts)
        reason = dues[0].reason if money else None
        self.add(line, kind, reason, [sentence], operands, computed, money)

    def _plain(self, hand: HandState, event: HandEvent, line: int | None) -> None:
        """An event no hook noted anything for: what was played."""
        if isinstance(event, VoidSuitChosen):
            params: dict[str, Param] = {
                "player": event.player,
                "suit": Term(SUIT_TERMS[event.suit]),
            }
            sentence = Sentence(N_("void_suit_chosen"), params)
            self.add(
                line, event.TYPE, None, [sentence], {"player": event.player, "suit": event.suit}
            )
        elif isinstance(event, Discarded):
            _discarded(self, hand, event, line)
        else:
            sentence = Sentence(N_("other_ruleset.nothing"), {"ruleset": self.title})
            self.add(line, event.TYPE, None, [sentence], {"ruleset": self.title, "amount": 0})

    def unclaimed(self) -> None:
        if self.claims.left:
            t = self.claims.left[0]
            raise ExplanationError(
                f"no step accounts for the {t.reason} transfer {t.payer} -> {t.payee} "
                f"{t.amount} on line {t.line}"
            )


def _sentence(message_id: str, params: Mapping[str, object]) -> Sentence:
    """A noted sentence; one naming kongs by their ``lines`` is worded for one kong where
    there is one."""
    lines = params.get("lines")
    if message_id in ONE_KONG_LINE and isinstance(lines, tuple) and len(lines) == 1:
        message_id = ONE_KONG_LINE[message_id]
    return Sentence(message_id, dict(params))  # type: ignore[arg-type]


def explain_hand(
    start: HandState,
    events: Sequence[tuple[int | None, HandEvent]],
    settled: HandState,
    *,
    start_line: int | None = None,
    match: str | None = None,
    corrections: Sequence[CorrectionNote] = (),
) -> HandExplanation:
    """The explanation of a hand: ``start`` is its state right after ``hand_started``,
    ``events`` its numbered events, ``settled`` the settlement (as replay reports it).

    Raises :class:`ExplanationError` if some transfer of ``settled`` is not accounted for.
    """
    b = _Builder(start, settled)
    b.add(start_line, HandStarted.TYPE, None, _opening(start), _opening_operands(start))
    hand = start
    with explaining() as notes:
        for line, event in events:
            after = evolve_hand(hand, event, line)
            b.event(hand, event, line, notes.take())
            hand = after
        if hand.open_wins is not None:  # the end of the log closes an open run of wins
            close_hand(hand)
            b.event(hand, None, None, notes.take())
    b.unclaimed()
    return HandExplanation(
        ruleset=start.ruleset,
        match=match,
        players=start.players,
        rules=start.rules,
        number=settled.number,
        dealer=settled.dealer,
        dealer_streak=settled.dealer_streak,
        round_wind=settled.round_wind,
        outcome=settled.outcome,
        winners=settled.winners,
        next_dealer=settled.next_dealer,
        steps=tuple(b.steps),
        net=settled.net(),
        corrections=tuple(corrections),
    )


def _opening(start: HandState) -> tuple[Sentence, ...]:
    params: dict[str, Param] = {
        "number": start.number,
        "dealer": start.dealer,
        "streak": start.dealer_streak,
    }
    if find_ruleset(start.ruleset).round_winds:
        params["wind"] = Term(WIND_TERMS[start.round_wind])
        opening = Sentence(N_("hand_started.round_wind"), params)
    else:
        opening = Sentence(N_("hand_started"), params)
    rules = ", ".join(f"{k}={_rule_text(v)}" for k, v in rules_to_json(start.rules).items())
    return opening, Sentence(N_("hand_started.rules"), {"rules": rules})


def _rule_text(value: object) -> str:
    return str(value).lower() if isinstance(value, bool) else str(value)


def _opening_operands(start: HandState) -> dict[str, Any]:
    return {
        "number": start.number,
        "dealer": start.dealer,
        "dealer_streak": start.dealer_streak,
        "round_wind": start.round_wind,
        "rules": rules_to_json(start.rules),
    }


def _discarded(b: _Builder, hand: HandState, event: Discarded, line: int | None) -> None:
    """A discard; one that ends the player's run of kongs whose money could still pass says
    so (a run of wins on their discard closing first has ended it already)."""
    params: dict[str, Param] = {"player": event.player}
    operands: dict[str, Any] = {"player": event.player}
    if event.tile is not None:
        params["tile"] = operands["tile"] = event.tile
    sentences = [Sentence(N_("discarded.tile") if event.tile else N_("discarded"), params)]
    run = hand.kong_runs[hand.players.index(event.player)]
    closed = hand.open_wins is not None and hand.open_wins.discarder == event.player
    lines = tuple(hand.kongs[k].line for k in run)
    if run and not closed and any(k in b.may_pass for k in lines):
        shown = tuple(k or 0 for k in lines)
        operands["ends_kong_run"] = list(shown)
        params_run: dict[str, Param] = {"player": event.player, "lines": shown}
        sentences.append(_sentence(N_("discarded.ends_kong_run"), params_run))
    b.add(line, event.TYPE, None, sentences, operands)


# --- whole logs ---------------------------------------------------------------------------


def explain_events(events: Iterable[tuple[int | None, Event]]) -> tuple[HandExplanation, ...]:
    """Every hand of a log (numbered events, as ``parse_log`` gives them), in order."""
    replayer = Replayer()
    starts: list[tuple[int | None, HandState]] = []
    in_hand: list[list[tuple[int | None, HandEvent]]] = []
    for line, event in events:
        replayer.feed(line, event)
        if isinstance(event, HandStarted):
            state = replayer.state
            assert state is not None
            assert state.hand is not None
            starts.append((line, state.hand))
            in_hand.append([])
        elif in_hand:
            assert not isinstance(event, HandStarted)
            in_hand[-1].append((line, event))  # type: ignore[arg-type]
    result = replayer.result()
    return tuple(
        explain_hand(start, numbered, settled, start_line=line, match=result.match)
        for (line, start), numbered, settled in zip(starts, in_hand, result.hands, strict=True)
    )


def explain_numbered_hand(
    events: Iterable[tuple[int | None, Event]], number: int
) -> HandExplanation:
    """Hand ``number`` of a log, explained as :func:`explain_events` explains it, keeping only
    that hand's events: the hands before it are folded and let go, and the log is read no
    further than the next hand's start. The caller has checked the whole log (all or
    nothing) before: this reads a log known to be good."""
    replayer = Replayer()
    start: tuple[int | None, HandState] | None = None
    numbered: list[tuple[int | None, HandEvent]] = []
    seen: list[int] = []
    settled: HandState | None = None
    for line, event in events:
        replayer.feed(line, event)
        if isinstance(event, HandStarted):
            if start is not None:
                settled = replayer.settled[-1]  # the next hand began: hand ``number`` ended
                break
            state = replayer.state
            assert state is not None
            assert state.hand is not None
            seen.append(state.hand.number)
            if state.hand.number == number:
                start = (line, state.hand)
        elif start is not None:
            numbered.append((line, event))  # type: ignore[arg-type]
    if start is None:
        known = ", ".join(map(str, seen)) or "none"
        raise MjledgerError(f"the log has no hand {number} (hands: {known})", code="no_hand")
    result = replayer.result()
    if settled is None:  # the log's last hand, as the end of the log settles it
        settled = result.hands[-1]
    return explain_hand(start[1], numbered, settled, start_line=start[0], match=result.match)


def explain_log(text: str) -> tuple[HandExplanation, ...]:
    """Every hand of a log given as text (JSON Lines); a refused log raises its ``LogError``."""
    return explain_events(parse_log(text))


def select_hand(hands: Sequence[HandExplanation], number: int) -> HandExplanation:
    """The hand numbered ``number`` of a log's explanation (``--hand N``)."""
    for hand in hands:
        if hand.number == number:
            return hand
    known = ", ".join(str(h.number) for h in hands) or "none"
    raise MjledgerError(f"the log has no hand {number} (hands: {known})", code="no_hand")


def money_by_player(hand: HandExplanation) -> dict[str, int]:
    """The steps' money summed per player: the hand's ``net`` (the tests hold it to that)."""
    net = dict.fromkeys(hand.players, 0)
    for step in hand.steps:
        for p in step.money:
            net[p.payer] -= p.amount
            net[p.payee] += p.amount
    return net


def iter_sentences(hand: HandExplanation) -> Iterator[Sentence]:
    """Every sentence of the explanation, steps first, then the summary."""
    for step in hand.steps:
        yield from step.sentences
    yield from hand.summary
