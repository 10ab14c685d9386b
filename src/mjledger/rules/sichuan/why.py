"""How Sichuan's hooks say what they computed: one :class:`~mjledger.rules.explained.Why` per
sum, built by the hook that ran it and only while a caller asks (``explained.notes()`` is not
None). The operands are the ones the amounts were computed from, read off
:mod:`mjledger.rules.sichuan.scoring`; the message ids are the catalogs' (docs/translating.md).
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import TYPE_CHECKING, Final

from mjledger.rules import explained
from mjledger.rules.explained import KONG_TERMS, N_, Notes
from mjledger.rules.payout import even_parts, next_in_turn
from mjledger.rules.protocol import WallFacts, WinContext
from mjledger.rules.sichuan import scoring
from mjledger.rules.sichuan.options import SichuanRules
from mjledger.rules.sichuan.settle import Check, kongs_passing
from mjledger.rules.values import HandView, OpenWins, Reason, Transfer

if TYPE_CHECKING:
    from mjledger.rules.explained import Why

SELF_DRAW_BONUS: Final = {
    "base": N_("self_drawn.sichuan.base"),
    "fan": N_("self_drawn.sichuan.fan"),
    "none": N_("self_drawn.sichuan.none"),
}
KONG_SENTENCES: Final = {
    "exposed": N_("kong_exposed"),
    "added": N_("kong_added"),
    "concealed": N_("kong_concealed"),
}


def _win(
    rules: SichuanRules, context: WinContext, fan: int, exponent: int, amount: int
) -> tuple[dict[str, object], dict[str, object]]:
    """A win's sentence parameters and its operands (``fan_cap`` where the sentence says
    ``cap``)."""
    params: dict[str, object] = {
        "winner": context.winner,
        "fan": fan,
        "base": rules.base,
        "cap": rules.fan_cap,
        "exponent": exponent,
        "amount": amount,
    }
    operands = {k: v for k, v in params.items() if k != "cap"}
    operands["fan_cap"] = rules.fan_cap
    return params, operands


def discard_win(notes: Notes, rules: SichuanRules, context: WinContext, fan: int) -> None:
    """rules.md, "A win": the discarder pays ``base × 2^min(fan, fan_cap)``."""
    exponent = scoring.sichuan_exponent(rules, fan)
    params, operands = _win(rules, context, fan, exponent, scoring.sichuan_win_amount(rules, fan))
    params["discarder"] = operands["discarder"] = context.discarder
    key = (
        N_("won_on_discard.sichuan.robbing_kong")
        if context.robbing_kong
        else N_("won_on_discard.sichuan")
    )
    notes.why(explained.Why(((key, params),), operands, None))


def self_draw(
    notes: Notes, rules: SichuanRules, context: WinContext, fan: int, payers: Sequence[str]
) -> None:
    """rules.md, "A win": each player still in pays, with the self-draw bonus; variants.md,
    claimed_kong_bloom "feeder_pays": only the feeder pays, what one payer would."""
    exponent = scoring.sichuan_self_draw_exponent(rules, fan)
    amount = scoring.sichuan_self_draw_amount(rules, fan)
    params, operands = _win(rules, context, fan, exponent, amount)
    params["payers"] = tuple(payers)
    operands.update(self_draw_bonus=rules.self_draw_bonus, payers=list(payers))
    sentences: list[tuple[str, Mapping[str, object]]] = [
        (SELF_DRAW_BONUS[rules.self_draw_bonus], params)
    ]
    if context.fed_by is not None and rules.claimed_kong_bloom == "feeder_pays":
        feeder = {"feeder": context.fed_by, "amount": amount}
        sentences.append((N_("self_drawn.sichuan.feeder_pays"), feeder))
        operands["feeder"] = context.fed_by
    notes.why(explained.Why(tuple(sentences), operands, None))


def kong(
    notes: Notes,
    rules: SichuanRules,
    player: str,
    kind: str,
    fed_by: str | None,
    payers: Sequence[str],
) -> None:
    """rules.md, "Kongs, paid at once" (and variants.md, exposed_kong_pays), for the dues the
    hook computed (``payers``)."""
    claimed = fed_by is not None
    units = scoring.sichuan_kong_units(rules, kind, claimed)
    everyone = claimed and rules.exposed_kong_pays == "everyone"
    key = N_("kong_exposed.everyone") if everyone else KONG_SENTENCES[kind]
    params: dict[str, object] = {
        "player": player,
        "payers": tuple(payers),
        "units": units,
        "base": rules.base,
        "amount": scoring.sichuan_kong_amount(rules, kind, claimed),
    }
    if claimed:
        params["discarder"] = fed_by
    operands = {**params, "payers": list(payers), "kind": kind}
    operands["kong_money_may_pass"] = rules.kong_money_passing
    notes.why(explained.Why(((key, params),), operands, None))


def passing(
    notes: Notes,
    rules: SichuanRules,
    hand: HandView,
    run: OpenWins,
    window: tuple[int, ...],
    kept: str | None,
    passed: Sequence[Transfer],
) -> None:
    """rules.md, "Kong money passing": what passed of the window's kongs (``passed``), or why
    nothing did (``kept``, a message id)."""
    kongs = window if kept is not None else kongs_passing(rules, window)
    winners = tuple(w for w, _ in run.winners)
    lines = tuple(hand.kongs[k].line or 0 for k in kongs)
    total = sum(hand.kongs[k].total for k in kongs)
    params: dict[str, object] = {
        "discarder": run.discarder,
        "winners": winners,
        "lines": lines,
        "total": total,
    }
    operands: dict[str, object] = {
        "discarder": run.discarder,
        "winners": list(winners),
        "kong_lines": list(lines),
        "total": total,
        "kong_money_passing": rules.kong_money_passing,
        "kong_passing_split": rules.kong_passing_split,
    }
    sentences = [(kept, params)] if kept is not None else _passed(rules, hand, run, params)
    if kept is None and len(kongs) < len(window):
        sentences.append((N_("kong_passing_scope.last"), {}))
    if kept is None:
        shares = _shares(rules, hand, run, total)
        operands.update({k: v for k, v in shares.items() if k != "count" or "paid" in shares})
    line = run.winners[0][1]
    notes.why(
        explained.Why(tuple(sentences), operands, tuple(passed), "won_on_discard", line, False)
    )


def _shares(rules: SichuanRules, hand: HandView, run: OpenWins, total: int) -> dict[str, object]:
    """How the passed money is shared: equal parts and who gets the remainder, or (each
    winner receiving all of it) what the discarder pays in all."""
    winners = tuple(w for w, _ in run.winners)
    if len(winners) > 1 and rules.kong_passing_split == "each_full":
        return {"count": len(winners), "paid": total * len(winners)}
    part, remainder = even_parts(total, len(winners))
    first = next_in_turn(hand.players, run.discarder, winners)
    return {"count": len(winners), "part": part, "remainder": remainder, "first": first}


def _passed(
    rules: SichuanRules, hand: HandView, run: OpenWins, params: dict[str, object]
) -> list[tuple[str, Mapping[str, object]]]:
    total = params["total"]
    assert isinstance(total, int)
    shares = _shares(rules, hand, run, total)
    if len(run.winners) == 1:
        return [(N_("kong_money_passed"), params)]
    if "paid" in shares:
        return [(N_("kong_money_passed.each_full"), {**params, **shares})]
    return [(N_("kong_money_passed.split"), {**params, **shares})]


def wall(
    notes: Notes,
    rules: SichuanRules,
    hand: HandView,
    states: Mapping[str, WallFacts],
    checks: Sequence[Check],
    line: int | None,
) -> None:
    """rules.md, "When the wall runs out": who is still in and their state, then a step per
    flower pig, per ready player (what each player not ready pays them), per refunded kong."""
    still_in = tuple(states)
    facts = {
        p: {"flower_pig": s.flower_pig, "ready": s.ready, "best_fan": s.best_fan}
        for p, s in states.items()
    }
    sentences: list[tuple[str, Mapping[str, object]]] = [
        (N_("wall_exhausted.sichuan"), {"players": still_in})
    ]
    exempt = tuple(p for p in hand.players if p not in states and p in hand.winners)
    if exempt and rules.blood_flow_wall == "exempt_winners":
        # variants.md, second set: winners are "left out of the wall checks".
        sentences.append((N_("wall_exhausted.winners_exempt"), {"winners": exempt}))
    pigs = tuple(p for p, s in states.items() if s.flower_pig)
    if pigs and not rules.not_ready_includes_pigs:
        sentences.append((N_("not_ready.pigs_left_out"), {"pigs": pigs}))
    notes.why(explained.Why(tuple(sentences), {"still_in": facts}))
    for reason, player, _, dues in checks:
        if reason == "flower_pig" and dues:
            notes.why(_pig(rules, player, dues, line))
    _not_ready(notes, rules, states, checks, line)
    for reason, player, k, dues in checks:
        if reason == "kong_refund":
            assert k is not None
            refund = _refund(rules, hand, player, k, dues, line)
            if refund is not None:
                notes.why(refund)


def _transfers(
    dues: Sequence[tuple[str, str, int]], reason: Reason, line: int | None
) -> tuple[Transfer, ...]:
    return tuple(Transfer(a, b, amount, reason, line) for a, b, amount in dues)


def _pig(
    rules: SichuanRules, pig: str, dues: Sequence[tuple[str, str, int]], line: int | None
) -> Why:
    payees = tuple(p for _, p, _ in dues)
    amount = scoring.sichuan_flower_pig_amount(rules)
    key = N_("flower_pig.still_in") if rules.pig_pays == "still_in" else N_("flower_pig")
    params = {"player": pig, "payees": payees, "base": rules.base, "cap": rules.fan_cap}
    operands = {"player": pig, "payees": list(payees), "base": rules.base}
    operands.update(fan_cap=rules.fan_cap, amount=amount)
    sentence = (key, {**params, "amount": amount})
    return explained.Why((sentence,), operands, _transfers(dues, "flower_pig", line))


def _not_ready(
    notes: Notes,
    rules: SichuanRules,
    states: Mapping[str, WallFacts],
    checks: Sequence[Check],
    line: int | None,
) -> None:
    """A step per ready player: the checks run payer by payer, the steps payee by payee."""
    dues = [d for reason, _, _, ds in checks if reason == "not_ready" for d in ds]
    for payee, state in states.items():
        mine = [d for d in dues if d[1] == payee]
        if not state.ready or not mine:
            continue
        payers = tuple(p for p, _, _ in mine)
        best = state.best_fan
        exponent = scoring.sichuan_exponent(rules, best)
        amount = scoring.sichuan_not_ready_amount(rules, best)
        params = {"player": payee, "payers": payers, "best": best, "base": rules.base}
        params.update(cap=rules.fan_cap, exponent=exponent, amount=amount)
        operands = {"player": payee, "payers": list(payers), "best_fan": best}
        operands.update(base=rules.base, fan_cap=rules.fan_cap, exponent=exponent, amount=amount)
        sentence = (N_("not_ready"), params)
        notes.why(explained.Why((sentence,), operands, _transfers(mine, "not_ready", line)))


def _refund(
    rules: SichuanRules,
    hand: HandView,
    player: str,
    k: int,
    dues: Sequence[tuple[str, str, int]],
    line: int | None,
) -> Why | None:
    """A kong refunded by a player not ready: what goes back to each who paid it (what each
    actually paid), and to whom nothing goes (variants.md, refund_to_winners: false)."""
    kong = hand.kongs[k]
    payees = tuple(p for _, p, _ in dues)
    params: dict[str, object] = {
        "player": player,
        "kong": explained.Term(KONG_TERMS[kong.kind]),
        "kong_line": kong.line or 0,
    }
    operands: dict[str, object] = {"player": player, "kind": kong.kind, "kong_line": kong.line}
    operands["payees"] = list(payees)
    sentences: list[tuple[str, Mapping[str, object]]] = []
    amounts = {a for _, _, a in dues}
    if len(amounts) == 1:
        (amount,) = amounts
        sentences.append((N_("kong_refund"), {**params, "payees": payees, "amount": amount}))
        operands["amount"] = amount
    elif dues:
        each = explained.Amounts(tuple((p, a) for _, p, a in dues))
        sentences.append((N_("kong_refund.amounts"), {**params, "amounts": each}))
        operands["amounts"] = {p: a for _, p, a in dues}
    skipped = tuple(p for p, _ in kong.payments if p not in payees)
    if skipped:
        sentences.append((N_("kong_refund.skips_winners"), {**params, "winners": skipped}))
        operands["skipped"] = list(skipped)
    if not sentences:
        return None
    return explained.Why(tuple(sentences), operands, _transfers(dues, "kong_refund", line))


def refund_on_deal_in(
    notes: Notes,
    hand: HandView,
    run: OpenWins,
    window: tuple[int, ...],
    refunds: Sequence[Transfer],
) -> None:
    """variants.md, ``kong_money_passing: "refund"`` (杠上炮退税): the run of wins on a
    discard after kongs closes, and the window's last kong goes back to those who paid it,
    each what they paid — or nothing, where it collected nothing."""
    kong = hand.kongs[window[-1]]
    params: dict[str, object] = {
        "discarder": run.discarder,
        "kong": explained.Term(KONG_TERMS[kong.kind]),
        "kong_line": kong.line or 0,
        "setting": "kong_money_passing = refund",  # a house rule's name and value: code
    }
    operands: dict[str, object] = {"discarder": run.discarder, "kind": kong.kind}
    operands.update(kong_line=kong.line, kong_money_passing="refund")
    operands["payees"] = [t.payee for t in refunds]
    amounts = {t.amount for t in refunds}
    if not refunds:
        sentence = (N_("kong_refund.deal_in.nothing"), params)
    elif len(amounts) == 1:
        (amount,) = amounts
        operands["amount"] = amount
        payees = tuple(t.payee for t in refunds)
        sentence = (N_("kong_refund.deal_in"), {**params, "amount": amount, "payees": payees})
    else:
        each = explained.Amounts(tuple((t.payee, t.amount) for t in refunds))
        operands["amounts"] = {t.payee: t.amount for t in refunds}
        sentence = (N_("kong_refund.deal_in.amounts"), {**params, "amounts": each})
    line = run.winners[0][1]
    notes.why(explained.Why((sentence,), operands, tuple(refunds), "won_on_discard", line, False))


def kong_unpaid(notes: Notes, player: str) -> None:
    """variants.md, ``added_kong_from_hand: "unpaid"`` (手牌加杠不收分): an added kong made
    from a tile already held collects nothing."""
    operands: dict[str, object] = {"player": player, "kind": "added", "from_hand": True}
    operands["added_kong_from_hand"] = "unpaid"
    sentence = (N_("kong_added.from_hand_unpaid"), {"player": player})
    notes.why(explained.Why((sentence,), operands, None))


def false_win(
    notes: Notes, rules: SichuanRules, hand: HandView, player: str, dues: Sequence[Transfer]
) -> None:
    """variants.md, 诈胡 (``sichuan_false_win: "flat"``): a step for the penalty, ``8 × base``
    to each other player still in, and one per kong whose money goes back."""
    penalty = tuple(t for t in dues if t.reason == "false_win")
    payees = tuple(t.payee for t in penalty)
    amount = scoring.sichuan_false_win_amount(rules)
    bases = scoring.FALSE_WIN_BASES
    params = {"player": player, "payees": payees, "bases": bases, "base": rules.base}
    operands: dict[str, object] = {**params, "payees": list(payees), "amount": amount}
    notes.why(
        explained.Why(((N_("false_win.sichuan"), {**params, "amount": amount}),), operands, penalty)
    )
    refunds = [t for t in dues if t.reason == "kong_refund"]
    for k, kong in enumerate(hand.kongs):
        if kong.player != player or k in hand.passed or not kong.payments:
            continue
        mine = tuple(refunds[: len(kong.payments)])
        del refunds[: len(kong.payments)]
        notes.why(_returned(player, kong.kind, kong.line, mine))


def _returned(player: str, kind: str, line: int | None, dues: Sequence[Transfer]) -> Why:
    """One kong's money given back at a false win: what each who paid it paid."""
    params: dict[str, object] = {"player": player, "kong": explained.Term(KONG_TERMS[kind])}
    params["kong_line"] = line or 0
    operands: dict[str, object] = {"player": player, "kind": kind, "kong_line": line}
    operands["payees"] = [t.payee for t in dues]
    amounts = {t.amount for t in dues}
    if len(amounts) == 1:
        (amount,) = amounts
        payees = tuple(t.payee for t in dues)
        sentence = (N_("false_win.kong_refund"), {**params, "payees": payees, "amount": amount})
        operands["amount"] = amount
    else:
        each = explained.Amounts(tuple((t.payee, t.amount) for t in dues))
        sentence = (N_("false_win.kong_refund.amounts"), {**params, "amounts": each})
        operands["amounts"] = {t.payee: t.amount for t in dues}
    return explained.Why((sentence,), operands, tuple(dues))
