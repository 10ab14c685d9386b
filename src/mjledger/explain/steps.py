"""Explain a settled hand step by step: what each event caused, under which rule, with the sums.

A dispute is about one hand, and the answer must be checkable by hand: for every event, the
rule it fell under, the operands (fan, cap, base, share, who was still in …), the result of
the arithmetic, the money it moved and everyone's running net after it. This module builds
that answer as data, in no language: each step carries message ids and parameters, which
:mod:`mjledger.explain.i18n` turns into sentences and ``--json`` hands to a backend as they are.

The core fold is not touched. The explanation re-folds the hand's events (``evolve_hand``)
only to know the state *before* each event (who is still in, which kongs are in a run), and
rebuilds the arithmetic from the rule tables in the rule sets' ``scoring`` modules
(:mod:`mjledger.rules.sichuan.scoring`, :mod:`mjledger.rules.hongkong.scoring`). The money
of each step is the settlement's own transfers, claimed by line, reason, payer and payee;
every transfer must be claimed exactly once, and the tests check that the arithmetic gives
exactly the amounts the settlement holds.
"""

from __future__ import annotations

from collections.abc import Iterable, Iterator, Mapping, Sequence
from typing import Any, Final, cast

import attrs
from attrs import field, frozen

from mjledger.errors import MjledgerError
from mjledger.fold.hand import (
    HandEvent,
    HandState,
    OpenWins,
    Reason,
    Transfer,
    close_wins,
    evolve_hand,
    win_fan,
)
from mjledger.fold.replay import Replayer
from mjledger.log.codec import parse_log
from mjledger.log.events import (
    Discarded,
    Event,
    FalseWin,
    HandStarted,
    KongDeclared,
    SelfDrawn,
    VoidSuitChosen,
    WallExhausted,
    WonOnDiscard,
    win_has_tiles,
)
from mjledger.rules.hongkong.options import HongKongRules
from mjledger.rules.hongkong.scoring import UNITS, hongkong_counted_fan
from mjledger.rules.house import rules_to_json
from mjledger.rules.payout import next_in_turn
from mjledger.rules.protocol import HouseRules
from mjledger.rules.sichuan.options import SichuanRules
from mjledger.rules.sichuan.scoring import KONG_PAYMENT
from mjledger.rules.sichuan.wall import wall_states


def N_(message_id: str) -> str:  # noqa: N802 - the gettext convention for "mark only"
    """Mark a message id for extraction (``pybabel extract -k N_``); returns it unchanged."""
    return message_id


# Message ids chosen at run time, each written out once so that extraction finds it.
OUTCOMES: Final = {
    "won": N_("outcome.won"),
    "void": N_("outcome.void"),
    "unfinished": N_("outcome.unfinished"),
}
CORRECTIONS: Final = {"corrected": N_("correction.corrected"), "voided": N_("correction.voided")}
# Sentences that name the lines of kongs, and their wording when there is one kong ("the kong on
# line 12", not "the kongs on lines 12"): in most of the languages the article changes too.
ONE_KONG_LINE: Final = {
    N_("discarded.ends_kong_run"): N_("discarded.ends_kong_run.one_line"),
    N_("kong_money_kept.not_split"): N_("kong_money_kept.not_split.one_line"),
    N_("kong_money_kept.off"): N_("kong_money_kept.off.one_line"),
    N_("kong_money_kept.robbing_kong"): N_("kong_money_kept.robbing_kong.one_line"),
    N_("kong_money_passed"): N_("kong_money_passed.one_line"),
    N_("kong_money_passed.split"): N_("kong_money_passed.split.one_line"),
}
WIND_TERMS: Final = {
    "east": N_("wind.east"),
    "south": N_("wind.south"),
    "west": N_("wind.west"),
    "north": N_("wind.north"),
}
SUIT_TERMS: Final = {"m": N_("suit.m"), "p": N_("suit.p"), "s": N_("suit.s")}
KONG_TERMS: Final = {
    "exposed": N_("kong.exposed"),
    "added": N_("kong.added"),
    "concealed": N_("kong.concealed"),
}
TABLE_TERMS: Final = {"half_spicy": N_("table.half_spicy"), "spicy": N_("table.spicy")}
SELF_DRAW_BONUS: Final = {
    "base": N_("self_drawn.sichuan.base"),
    "fan": N_("self_drawn.sichuan.fan"),
    "none": N_("self_drawn.sichuan.none"),
}
KONG_REASONS: Final[dict[str, Reason]] = {
    "exposed": "kong_exposed",
    "added": "kong_added",
    "concealed": "kong_concealed",
}
KONG_SENTENCES: Final = {
    "exposed": N_("kong_exposed"),
    "added": N_("kong_added"),
    "concealed": N_("kong_concealed"),
}


@frozen
class Term:
    """A word to translate inside a sentence (a kong's kind, a suit, a table's name)."""

    id: str


@frozen
class Moment:
    """When something was stored: an ISO 8601 time as the store keeps it, shown as a date and
    time in the reader's locale (``--json`` keeps the ISO text)."""

    iso: str


@frozen
class Net:
    """Each player's balance, rendered as signed numbers in seat order."""

    amounts: tuple[tuple[str, int], ...]

    @classmethod
    def of(cls, players: Iterable[str], net: Mapping[str, int]) -> Net:
        """``net`` in seat order."""
        return cls(tuple((p, net[p]) for p in players))


# A parameter of a sentence: a player or free text (str), a number (int, formatted per
# locale), players or lines (tuple, joined per locale), a term to translate, a net, or a time.
Param = str | int | tuple[str, ...] | tuple[int, ...] | Term | Net | Moment


@frozen
class Sentence:
    """One message of the catalogs and the values of its placeholders."""

    id: str
    params: dict[str, Param] = field(factory=dict)

    def to_json(self) -> dict[str, Any]:
        return {"id": self.id, "params": {k: _param_json(v) for k, v in self.params.items()}}


def _param_json(value: Param) -> Any:
    if isinstance(value, Term):
        return value.id
    if isinstance(value, Net):
        return dict(value.amounts)
    if isinstance(value, Moment):
        return value.iso
    if isinstance(value, tuple):
        return list(value)
    return value


@frozen
class Payment:
    """Money between two players: ``amount`` from ``payer`` to ``payee``."""

    payer: str
    payee: str
    amount: int

    def to_json(self) -> dict[str, Any]:
        return {"from": self.payer, "to": self.payee, "amount": self.amount}


@frozen
class Step:
    """One thing that happened and what it caused.

    ``computed`` is the arithmetic's result, rebuilt from the rule tables; ``money`` is what
    the settlement actually holds for this step (its transfers). They are equal; the tests
    hold the explanation to that.
    """

    line: int | None
    event: str
    reason: str | None  # a transfer's reason code, or "hand_voided"
    sentences: tuple[Sentence, ...]
    operands: dict[str, Any]
    computed: tuple[Payment, ...] = ()
    money: tuple[Payment, ...] = ()
    net_after: dict[str, int] = field(factory=dict)

    def to_json(self) -> dict[str, Any]:
        return {
            "line": self.line,
            "event": self.event,
            "reason": self.reason,
            "messages": [s.to_json() for s in self.sentences],
            "operands": self.operands,
            "money": [p.to_json() for p in self.money],
            "net_after": self.net_after,
        }


@frozen
class CorrectionNote:
    """A correction on record for the hand (see :mod:`mjledger.store.corrections`)."""

    kind: str  # "corrected" or "voided"
    when: str
    by: str
    reason: str
    original_net: dict[str, int]
    net: dict[str, int]

    def to_json(self) -> dict[str, Any]:
        return attrs.asdict(self)


@frozen
class HandExplanation:
    """Every step of one hand, the hand's figures, and its closing summary."""

    ruleset: str
    match: str | None
    players: tuple[str, ...]
    rules: HouseRules
    number: int
    dealer: str
    dealer_streak: int
    round_wind: str
    outcome: str
    winners: tuple[str, ...]
    next_dealer: str | None
    steps: tuple[Step, ...]
    net: dict[str, int]
    corrections: tuple[CorrectionNote, ...] = ()

    @property
    def summary(self) -> tuple[Sentence, ...]:
        out = [Sentence(OUTCOMES[self.outcome], {"winners": self.winners})]
        if self.outcome == "won" and not self.winners:  # a voided hand keeps its outcome
            out = [Sentence(N_("outcome.void"))]
        out.append(Sentence(N_("summary.net"), {"number": self.number, "net": self._net()}))
        if self.next_dealer is not None:
            out.append(Sentence(N_("summary.next_dealer"), {"dealer": self.next_dealer}))
        for c in self.corrections:
            out.append(
                Sentence(
                    CORRECTIONS[c.kind],
                    {
                        "when": Moment(c.when),
                        "by": c.by,
                        "reason": c.reason,
                        "original": Net.of(self.players, c.original_net),
                        "net": Net.of(self.players, c.net),
                    },
                )
            )
        return tuple(out)

    def _net(self) -> Net:
        return Net.of(self.players, self.net)

    def to_json(self) -> dict[str, Any]:
        return {
            "ruleset": self.ruleset,
            "match": self.match,
            "players": list(self.players),
            "rules": rules_to_json(self.rules),
            "number": self.number,
            "dealer": self.dealer,
            "dealer_streak": self.dealer_streak,
            "round_wind": self.round_wind,
            "outcome": self.outcome,
            "winners": list(self.winners),
            "steps": [s.to_json() for s in self.steps],
            "net": self.net,
            "next_dealer": self.next_dealer,
            "summary": [s.to_json() for s in self.summary],
            "corrections": [c.to_json() for c in self.corrections],
        }


class ExplanationError(AssertionError):
    """The explanation does not account for the settlement: a bug in mjledger, not the log."""


# --- building the steps -------------------------------------------------------------------


class _Claims:
    """The settlement's transfers, to be claimed once each by the step that caused them."""

    def __init__(self, transfers: Iterable[Transfer]) -> None:
        self.left: list[Transfer] = list(transfers)

    def take(self, line: int | None, reason: Reason, payer: str, payee: str) -> Payment:
        for i, t in enumerate(self.left):
            if (t.line, t.reason, t.payer, t.payee) == (line, reason, payer, payee):
                del self.left[i]
                return Payment(t.payer, t.payee, t.amount)
        raise ExplanationError(
            f"the settlement has no {reason} transfer {payer} -> {payee} on line {line}"
        )

    def take_all(self, lines: set[int | None], reason: str | None) -> list[Payment]:
        """Every transfer left on ``lines`` (of ``reason``, if given)."""
        found = [t for t in self.left if t.line in lines and (reason is None or t.reason == reason)]
        for t in found:
            self.left.remove(t)
        return [Payment(t.payer, t.payee, t.amount) for t in found]


class _Builder:
    def __init__(self, start: HandState, settled: HandState) -> None:
        self.players = start.players
        self.claims = _Claims(settled.transfers)
        self.net = dict.fromkeys(self.players, 0)
        self.steps: list[Step] = []

    def add(
        self,
        line: int | None,
        event: str,
        reason: str | None,
        sentences: Sequence[Sentence],
        operands: dict[str, Any],
        computed: Sequence[Payment] = (),
        money_line: dict[str, int | None] | None = None,
        money: Sequence[Payment] | None = None,
    ) -> None:
        """A step; its money is claimed from the settlement payment by payment.

        ``money_line`` maps a payee to the line its transfer carries, where that is not the
        step's own line (kong money passed carries each win's line). ``money`` given: already
        claimed, with no arithmetic of mjledger's own behind it (another rule set's).
        """
        if money is None:
            money = []
            for p in computed:
                assert reason is not None
                at = line if money_line is None else money_line[p.payee]
                money.append(self.claims.take(at, cast(Reason, reason), p.payer, p.payee))
        else:
            computed = money
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
    for line, event in events:
        # The state the fold settles the event on: a run of wins that this event does not
        # continue closes first (its kong money passes), as in evolve_hand.
        context = hand
        run = hand.open_wins
        if run is not None and not _continues(run, event):
            _passing(b, hand, run)
            context = close_wins(hand)
        after = evolve_hand(hand, event, line)
        _event_steps(b, context, event, line)
        if isinstance(event, WonOnDiscard) and after.ended and after.ruleset == "sichuan":
            # The third winner ends a blood battle: its run of wins closes at once.
            _passing(b, context, _run_after(context, event, line))
        hand = after
    if hand.open_wins is not None:  # the end of the log closes an open run of wins
        _passing(b, hand, hand.open_wins)
    if b.claims.left:
        t = b.claims.left[0]
        raise ExplanationError(
            f"no step accounts for the {t.reason} transfer {t.payer} -> {t.payee} "
            f"{t.amount} on line {t.line}"
        )
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


def _continues(run: OpenWins, event: Event) -> bool:
    return isinstance(event, WonOnDiscard) and event.from_ == run.discarder


def _run_after(hand: HandState, event: WonOnDiscard, line: int | None) -> OpenWins:
    """The run of wins including ``event`` (before the fold closes it)."""
    run = hand.open_wins
    if run is None or not _continues(run, event):
        return OpenWins(event.from_, event.robbing_kong, ((event.player, line),))
    return OpenWins(run.discarder, run.robbing_kong, (*run.winners, (event.player, line)))


def _opening(start: HandState) -> tuple[Sentence, ...]:
    params: dict[str, Param] = {
        "number": start.number,
        "dealer": start.dealer,
        "streak": start.dealer_streak,
    }
    if start.ruleset == "hongkong":
        params["wind"] = Term(WIND_TERMS[start.round_wind])
        opening = Sentence(N_("hand_started.hongkong"), params)
    else:
        opening = Sentence(N_("hand_started.sichuan"), params)
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


def _uses_variants(hand: HandState) -> bool:
    """Whether the hand's money follows variants (docs/rules.md, "Variants") that this module
    has no arithmetic for: a variant key switched on, a variant value of a contract key, or
    table stakes (which may cut any payment)."""
    rules = hand.rules
    if hand.stakes is not None:
        return True
    for a in attrs.fields(type(rules)):
        if a.metadata.get("variant") and getattr(rules, a.name) != a.default:
            return True
    return getattr(rules, "discard_pays", None) == "half" or (
        getattr(rules, "kong_passing_split", None) == "each_full"
    )


def _event_steps(b: _Builder, hand: HandState, event: HandEvent, line: int | None) -> None:
    rules = hand.rules
    builtin = isinstance(rules, HongKongRules | SichuanRules) and not _uses_variants(hand)
    if isinstance(event, FalseWin) or (
        isinstance(event, WonOnDiscard | SelfDrawn) and event.liable
    ):
        builtin = False  # a false win, a liable player: settled by the variants
    if not builtin and not isinstance(event, VoidSuitChosen | Discarded):
        _other_ruleset(b, hand, event.TYPE, line, {line})
    elif isinstance(event, VoidSuitChosen):
        b.add(
            line,
            event.TYPE,
            None,
            [
                Sentence(
                    N_("void_suit_chosen"),
                    {"player": event.player, "suit": Term(SUIT_TERMS[event.suit])},
                )
            ],
            {"player": event.player, "suit": event.suit},
        )
    elif isinstance(event, Discarded):
        _discarded(b, hand, event, line)
    elif isinstance(event, KongDeclared):
        if isinstance(rules, SichuanRules):
            _sichuan_kong(b, hand, rules, event, line)
        else:
            b.add(
                line,
                event.TYPE,
                None,
                [
                    Sentence(
                        N_("kong_declared.hongkong"),
                        {"player": event.player, "kong": Term(KONG_TERMS[event.kind])},
                    )
                ],
                {"player": event.player, "kind": event.kind},
            )
    elif isinstance(event, (WonOnDiscard, SelfDrawn)):
        fan, limit = win_fan(hand, event, line)  # derived from the tiles, where it has them
        if isinstance(rules, HongKongRules):
            _hongkong_win(b, hand, rules, event, line, fan, limit)
        else:
            assert fan is not None
            _sichuan_win(b, hand, rules, event, line, fan)
    else:
        assert isinstance(event, WallExhausted)
        if isinstance(rules, SichuanRules):
            _sichuan_wall(b, hand, rules, event, line)
        else:
            b.add(line, event.TYPE, None, [Sentence(N_("wall_exhausted.hongkong"))], {})


def _other_ruleset(
    b: _Builder,
    hand: HandState,
    event: str,
    line: int | None,
    lines: set[int | None],
    reason: str | None = None,
) -> None:
    """A rule set mjledger has no arithmetic for (a plugin's), or a built-in one under variants:
    the step shows what the rule set's hooks settled on these lines, without the sums."""
    money = b.claims.take_all(lines, reason)
    if not money and reason is not None:
        return
    total = sum(p.amount for p in money)
    if isinstance(hand.rules, HongKongRules | SichuanRules):
        sentence = Sentence(N_("variants_settled"), {"amount": total})
    else:
        sentence = Sentence(N_("other_ruleset"), {"ruleset": hand.ruleset, "amount": total})
    b.add(line, event, reason, [sentence], {"ruleset": hand.ruleset, "amount": total}, money=money)


def _naming_kongs(message_id: str, params: dict[str, Param]) -> Sentence:
    """A sentence naming kongs by their ``lines``, worded for one kong where there is one."""
    lines = params["lines"]
    assert isinstance(lines, tuple)
    return Sentence(ONE_KONG_LINE[message_id] if len(lines) == 1 else message_id, params)


def _discarded(b: _Builder, hand: HandState, event: Discarded, line: int | None) -> None:
    params: dict[str, Param] = {"player": event.player}
    operands: dict[str, Any] = {"player": event.player}
    if event.tile is not None:
        params["tile"] = operands["tile"] = event.tile
    sentences = [Sentence(N_("discarded.tile") if event.tile else N_("discarded"), params)]
    run = hand.kong_runs[hand.players.index(event.player)]
    if run and isinstance(hand.rules, SichuanRules) and hand.rules.kong_money_passing:
        lines = tuple(hand.kongs[k].line or 0 for k in run)
        operands["ends_kong_run"] = list(lines)
        sentences.append(
            _naming_kongs(N_("discarded.ends_kong_run"), {"player": event.player, "lines": lines})
        )
    b.add(line, event.TYPE, None, sentences, operands)


def _hongkong_win(
    b: _Builder,
    hand: HandState,
    rules: HongKongRules,
    event: WonOnDiscard | SelfDrawn,
    line: int | None,
    fan: int | None,
    limit: bool,
) -> None:
    counted = hongkong_counted_fan(rules, fan, limit)
    units = UNITS[rules.table][counted]
    share = units * rules.points_per_unit
    operands: dict[str, Any] = {
        "winner": event.player,
        "fan": fan,
        "fan_from_tiles": win_has_tiles(event),
        "limit": limit,
        "counted_fan": counted,
        "fan_limit": rules.fan_limit,
        "table": rules.table,
        "units": units,
        "points_per_unit": rules.points_per_unit,
        "share": share,
    }
    worth_params: dict[str, Param] = {
        "counted": counted,
        "units": units,
        "table": Term(TABLE_TERMS[rules.table]),
        "points_per_unit": rules.points_per_unit,
        "share": share,
    }
    if limit:
        worth = Sentence(N_("worth.hongkong.limit"), worth_params)
    elif fan is not None and fan > counted:
        worth = Sentence(N_("worth.hongkong.over_limit"), {**worth_params, "fan": fan})
    else:
        worth = Sentence(N_("worth.hongkong"), worth_params)
    if isinstance(event, WonOnDiscard):
        shares = 3 if rules.discard_pays == "all" else 2
        amount = share * shares
        operands.update(discarder=event.from_, discard_pays=rules.discard_pays, shares=shares)
        operands["amount"] = amount
        key = (
            N_("won_on_discard.hongkong.robbing_kong")
            if event.robbing_kong
            else N_("won_on_discard.hongkong")
        )
        pays = Sentence(
            key,
            {
                "winner": event.player,
                "discarder": event.from_,
                "shares": shares,
                "share": share,
                "amount": amount,
            },
        )
        b.add(
            line,
            event.TYPE,
            "won_on_discard",
            [pays, worth],
            operands,
            [Payment(event.from_, event.player, amount)],
        )
        return
    payers = tuple(p for p in hand.still_in if p != event.player)
    operands.update(payers=list(payers), amount=share)
    pays = Sentence(
        N_("self_drawn.hongkong"),
        {"winner": event.player, "payers": payers, "amount": share, "total": share * len(payers)},
    )
    b.add(
        line,
        event.TYPE,
        "self_drawn",
        [pays, worth],
        operands,
        [Payment(p, event.player, share) for p in payers],
    )


def _sichuan_win(
    b: _Builder,
    hand: HandState,
    rules: SichuanRules,
    event: WonOnDiscard | SelfDrawn,
    line: int | None,
    fan: int,
) -> None:
    operands: dict[str, Any] = {
        "winner": event.player,
        "fan": fan,
        "fan_from_tiles": win_has_tiles(event),
        "base": rules.base,
        "fan_cap": rules.fan_cap,
    }
    params: dict[str, Param] = {
        "winner": event.player,
        "fan": fan,
        "base": rules.base,
        "cap": rules.fan_cap,
    }
    if isinstance(event, WonOnDiscard):
        exponent = min(fan, rules.fan_cap)
        amount = rules.base * 2**exponent
        operands.update(discarder=event.from_, exponent=exponent, amount=amount)
        params.update(discarder=event.from_, exponent=exponent, amount=amount)
        key = (
            N_("won_on_discard.sichuan.robbing_kong")
            if event.robbing_kong
            else N_("won_on_discard.sichuan")
        )
        b.add(
            line,
            event.TYPE,
            "won_on_discard",
            [Sentence(key, params)],
            operands,
            [Payment(event.from_, event.player, amount)],
        )
        return
    bonus = rules.self_draw_bonus
    exponent = min(fan + 1 if bonus == "fan" else fan, rules.fan_cap)
    amount = rules.base * 2**exponent + (rules.base if bonus == "base" else 0)
    payers = tuple(p for p in hand.still_in if p != event.player)
    operands.update(self_draw_bonus=bonus, exponent=exponent, payers=list(payers), amount=amount)
    params.update(exponent=exponent, amount=amount, payers=payers)
    b.add(
        line,
        event.TYPE,
        "self_drawn",
        [Sentence(SELF_DRAW_BONUS[bonus], params)],
        operands,
        [Payment(p, event.player, amount) for p in payers],
    )


def _sichuan_kong(
    b: _Builder, hand: HandState, rules: SichuanRules, event: KongDeclared, line: int | None
) -> None:
    units = KONG_PAYMENT[event.kind]
    amount = units * rules.base
    if event.from_ is not None:
        payers: tuple[str, ...] = (event.from_,)
    else:
        payers = tuple(p for p in hand.still_in if p != event.player)
    reason = KONG_REASONS[event.kind]
    params: dict[str, Param] = {
        "player": event.player,
        "payers": payers,
        "units": units,
        "base": rules.base,
        "amount": amount,
    }
    if event.from_ is not None:
        params["discarder"] = event.from_
    b.add(
        line,
        event.TYPE,
        reason,
        [Sentence(KONG_SENTENCES[event.kind], params)],
        {
            "player": event.player,
            "kind": event.kind,
            "payers": list(payers),
            "units": units,
            "base": rules.base,
            "amount": amount,
        },
        [Payment(p, event.player, amount) for p in payers],
    )


def _passing(b: _Builder, hand: HandState, run: OpenWins) -> None:
    """The close of a run of wins on one discard: the discarder's kong money passes (or not)."""
    rules = hand.rules
    kongs = hand.kong_runs[hand.players.index(run.discarder)]
    if not isinstance(rules, HongKongRules | SichuanRules) or _uses_variants(hand):
        at = {line for _, line in run.winners}
        _other_ruleset(b, hand, WonOnDiscard.TYPE, run.winners[0][1], at, "kong_money_passed")
        return
    if not isinstance(rules, SichuanRules) or not kongs:
        return
    winners = tuple(w for w, _ in run.winners)
    lines = dict(run.winners)
    kong_lines = tuple(hand.kongs[k].line or 0 for k in kongs)
    total = sum(hand.kongs[k].total for k in kongs)
    operands: dict[str, Any] = {
        "discarder": run.discarder,
        "winners": list(winners),
        "kong_lines": list(kong_lines),
        "total": total,
        "kong_money_passing": rules.kong_money_passing,
        "kong_passing_split": rules.kong_passing_split,
    }
    params: dict[str, Param] = {
        "discarder": run.discarder,
        "winners": winners,
        "lines": kong_lines,
        "total": total,
    }
    line = run.winners[0][1]
    why = None
    if run.robbing_kong:
        why = N_("kong_money_kept.robbing_kong")
    elif not rules.kong_money_passing:
        why = N_("kong_money_kept.off")
    elif len(winners) > 1 and rules.kong_passing_split == "none":
        why = N_("kong_money_kept.not_split")
    if why is not None:
        b.add(line, WonOnDiscard.TYPE, None, [_naming_kongs(why, params)], operands)
        return
    first = next_in_turn(hand.players, run.discarder, winners)
    part, remainder = divmod(total, len(winners))
    computed = [Payment(run.discarder, w, part + (remainder if w == first else 0)) for w in winners]
    computed = [p for p in computed if p.amount > 0]
    operands.update(part=part, remainder=remainder, first=first)
    if len(winners) == 1:
        sentence = _naming_kongs(N_("kong_money_passed"), params)
    else:
        params.update(count=len(winners), part=part, remainder=remainder, first=first)
        sentence = _naming_kongs(N_("kong_money_passed.split"), params)
    b.add(
        line,
        WonOnDiscard.TYPE,
        "kong_money_passed",
        [sentence],
        operands,
        computed,
        money_line=lines,
    )


def _sichuan_wall(
    b: _Builder, hand: HandState, rules: SichuanRules, event: WallExhausted, line: int | None
) -> None:
    states = wall_states(rules, hand, event)
    still_in = tuple(states)
    operands: dict[str, Any] = {
        "still_in": {
            p: {"flower_pig": s.flower_pig, "ready": s.ready, "best_fan": s.best_fan}
            for p, s in states.items()
        }
    }
    b.add(
        line,
        event.TYPE,
        None,
        [Sentence(N_("wall_exhausted.sichuan"), {"players": still_in})],
        operands,
    )
    pigs = tuple(p for p, s in states.items() if s.flower_pig)
    pig_amount = rules.base * 2**rules.fan_cap
    for pig in pigs:
        payees = tuple(p for p in hand.players if p not in pigs)
        if not payees:
            continue
        b.add(
            line,
            event.TYPE,
            "flower_pig",
            [
                Sentence(
                    N_("flower_pig"),
                    {
                        "player": pig,
                        "payees": payees,
                        "base": rules.base,
                        "cap": rules.fan_cap,
                        "amount": pig_amount,
                    },
                )
            ],
            {
                "player": pig,
                "payees": list(payees),
                "base": rules.base,
                "fan_cap": rules.fan_cap,
                "amount": pig_amount,
            },
            [Payment(pig, p, pig_amount) for p in payees],
        )
    ready = tuple(p for p, s in states.items() if s.ready)
    not_ready = tuple(p for p, s in states.items() if not s.ready)
    for payee in ready:
        if not not_ready:
            break
        best = states[payee].best_fan
        exponent = min(best, rules.fan_cap)
        amount = rules.base * 2**exponent
        b.add(
            line,
            event.TYPE,
            "not_ready",
            [
                Sentence(
                    N_("not_ready"),
                    {
                        "player": payee,
                        "payers": not_ready,
                        "best": best,
                        "base": rules.base,
                        "cap": rules.fan_cap,
                        "exponent": exponent,
                        "amount": amount,
                    },
                )
            ],
            {
                "player": payee,
                "payers": list(not_ready),
                "best_fan": best,
                "base": rules.base,
                "fan_cap": rules.fan_cap,
                "exponent": exponent,
                "amount": amount,
            },
            [Payment(p, payee, amount) for p in not_ready],
        )
    for payer in not_ready:
        for k, kong in enumerate(hand.kongs):
            if kong.player != payer or k in hand.passed:
                continue
            amount = KONG_PAYMENT[kong.kind] * rules.base
            payees = tuple(p for p, _ in kong.payments)
            b.add(
                line,
                event.TYPE,
                "kong_refund",
                [
                    Sentence(
                        N_("kong_refund"),
                        {
                            "player": payer,
                            "kong": Term(KONG_TERMS[kong.kind]),
                            "kong_line": kong.line or 0,
                            "payees": payees,
                            "amount": amount,
                        },
                    )
                ],
                {
                    "player": payer,
                    "kind": kong.kind,
                    "kong_line": kong.line,
                    "payees": list(payees),
                    "amount": amount,
                },
                [Payment(payer, p, amount) for p in payees],
            )


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


def explain_log(text: str) -> tuple[HandExplanation, ...]:
    """Every hand of a log given as text (JSON Lines); a refused log raises its ``LogError``."""
    return explain_events(parse_log(text))


def select_hand(hands: Sequence[HandExplanation], number: int) -> HandExplanation:
    """The hand numbered ``number`` of a log's explanation (``--hand N``)."""
    for hand in hands:
        if hand.number == number:
            return hand
    known = ", ".join(str(h.number) for h in hands) or "none"
    raise MjledgerError(f"the log has no hand {number} (hands: {known})")


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
