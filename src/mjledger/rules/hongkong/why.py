"""How Hong Kong's hooks say what they computed: one :class:`~mjledger.rules.explained.Why`
per sum, built by the hook that ran it and only while a caller asks (``explained.notes()`` is
not None), its operands read off :mod:`mjledger.rules.hongkong.scoring`."""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Final

from mjledger.rules import explained
from mjledger.rules.explained import KONG_TERMS, N_, Notes
from mjledger.rules.hongkong import scoring
from mjledger.rules.hongkong.options import HongKongRules
from mjledger.rules.protocol import Payments, WinContext
from mjledger.rules.values import Transfer

TABLE_TERMS: Final = {"half_spicy": N_("table.half_spicy"), "spicy": N_("table.spicy")}
Sentence = tuple[str, Mapping[str, object]]


def worth(rules: HongKongRules, fan: int | None, limit: bool) -> tuple[Sentence, dict[str, object]]:
    """rules.md, "From fan to money": the fan paid on, its units, the share; and the operands."""
    counted = scoring.hongkong_counted_fan(rules, fan, limit)
    units = scoring.hongkong_units(rules, fan, limit)
    share = scoring.hongkong_share(rules, fan, limit)
    params: dict[str, object] = {
        "counted": counted,
        "units": units,
        "table": explained.Term(TABLE_TERMS[rules.table]),
        "points_per_unit": rules.points_per_unit,
        "share": share,
    }
    if limit or fan is None:
        sentence: Sentence = (N_("worth.hongkong.limit"), params)
    elif fan > counted:
        sentence = (N_("worth.hongkong.over_limit"), {**params, "fan": fan})
    else:
        sentence = (N_("worth.hongkong"), params)
    operands: dict[str, object] = {
        "fan": fan,
        "limit": limit,
        "counted_fan": counted,
        "fan_limit": rules.fan_limit,
        "table": rules.table,
        "units": units,
        "points_per_unit": rules.points_per_unit,
        "share": share,
    }
    return sentence, operands


def win(
    notes: Notes,
    rules: HongKongRules,
    context: WinContext,
    fan: int | None,
    limit: bool,
    payments: Payments,
) -> None:
    """rules.md, "Who pays" (and variants.md: half gun, liability) for ``payments``, what the
    payers owe before any liability (the hook computed them)."""
    worth_sentence, operands = worth(rules, fan, limit)
    operands["winner"] = context.winner
    if context.discarder is None:
        pays = _self_draw(context, tuple(p[0] for p in payments), operands)
    else:
        pays = _discard(rules, context, payments, operands)
    sentences = [pays, worth_sentence]
    if context.liable is not None:
        # 包 (variants.md): the liable player "pays everything the win collects".
        total = sum(p[1] for p in payments)
        sentences.append((N_("liability.hongkong"), {"liable": context.liable, "amount": total}))
        operands.update(liable=context.liable, amount=total)
    notes.why(explained.Why(tuple(sentences), operands, None))


def _self_draw(
    context: WinContext, payers: tuple[str, ...], operands: dict[str, object]
) -> Sentence:
    share = operands["share"]
    assert isinstance(share, int)
    operands.update(payers=list(payers), amount=share)
    total = share * len(payers)
    params = {"winner": context.winner, "payers": payers, "amount": share, "total": total}
    return (N_("self_drawn.hongkong"), params)


def _discard(
    rules: HongKongRules, context: WinContext, payments: Payments, operands: dict[str, object]
) -> Sentence:
    share = operands["share"]
    assert isinstance(share, int)
    operands.update(discarder=context.discarder, discard_pays=rules.discard_pays)
    robbing = context.robbing_kong
    if rules.discard_pays == "half":
        others = tuple(p[0] for p in payments if p[0] != context.discarder)
        half = share // 2
        operands.update(half_share=half, others=list(others), amount=share + half * len(others))
        key = (
            N_("won_on_discard.hongkong.half.robbing_kong")
            if robbing
            else N_("won_on_discard.hongkong.half")
        )
        params = {"winner": context.winner, "discarder": context.discarder, "share": share}
        return (key, {**params, "half": half, "others": others})
    shares = scoring.DISCARD_SHARES[rules.discard_pays]
    operands.update(shares=shares, amount=share * shares)
    key = N_("won_on_discard.hongkong.robbing_kong") if robbing else N_("won_on_discard.hongkong")
    params = {"winner": context.winner, "discarder": context.discarder, "shares": shares}
    return (key, {**params, "share": share, "amount": share * shares})


def false_win(notes: Notes, rules: HongKongRules, player: str, dues: Sequence[Transfer]) -> None:
    """variants.md, 詐糊: each other player gets what a limit self-draw collects."""
    worth_sentence, operands = worth(rules, None, True)
    payees = tuple(t.payee for t in dues)
    amount = dues[0].amount if dues else 0
    params = {"player": player, "payees": payees, "shares": scoring.FALSE_WIN_SHARES}
    pays = (N_("false_win.hongkong"), {**params, "share": operands["share"], "amount": amount})
    operands.update(player=player, payees=list(payees), shares=scoring.FALSE_WIN_SHARES)
    operands["amount"] = amount
    notes.why(explained.Why((pays, worth_sentence), operands, tuple(dues)))


def kong(notes: Notes, player: str, kind: str) -> None:
    """A Hong Kong kong is recorded and pays nothing (it scores as fan)."""
    params = {"player": player, "kong": explained.Term(KONG_TERMS[kind])}
    notes.why(
        explained.Why(
            ((N_("kong_declared.hongkong"), params),), {"player": player, "kind": kind}, None
        )
    )


def wall(notes: Notes) -> None:
    """The wall runs out with no winner: void, nobody pays."""
    notes.why(explained.Why(((N_("wall_exhausted.hongkong"), {}),)))
