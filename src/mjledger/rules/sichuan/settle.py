"""Sichuan's decisions, each stated once over plain values: who deals next, what a kong
collects, whether and how kong money passes, and the order of the end-of-wall checks.

The rule set's hooks (:mod:`mjledger.rules.sichuan.ruleset`) read them off a hand; the quick
fold of ``replay --json`` (:mod:`mjledger.rules.sichuan.quick`) calls them from its loop over
plain values. Amounts come from :mod:`mjledger.rules.sichuan.scoring`.
"""

from __future__ import annotations

from collections.abc import Collection, Mapping, Sequence
from typing import TypeAlias

from mjledger.rules.explained import N_
from mjledger.rules.payout import even_parts, next_in_turn
from mjledger.rules.protocol import WallFacts
from mjledger.rules.sichuan import scoring
from mjledger.rules.sichuan.options import SichuanRules
from mjledger.rules.values import Reason

Dues: TypeAlias = tuple[tuple[str, int], ...]
"""``(payer, amount)`` pairs, the payee being implied (the konger, the winner)."""
Kongs: TypeAlias = Sequence[tuple[str, Sequence[tuple[str, int]]]]
"""The hand's kongs so far: each one's owner and what each of its payers actually paid."""
Check: TypeAlias = tuple[Reason, str, int | None, tuple[tuple[str, str, int], ...]]
"""One end-of-wall check: its reason, its player (the pig, the payer not ready, the konger
refunding), the kong refunded (an index into the kongs) and its ``(payer, payee, amount)``."""


def next_dealer(dealer: str, first_winners: Sequence[str], first_discarder: str | None) -> str:
    """rules.md, "Dealer": the first winner deals; several winners on the first winning
    discard: its discarder; nobody won: the dealer again."""
    if not first_winners:
        return dealer
    if len(first_winners) == 1:
        return first_winners[0]
    assert first_discarder is not None
    return first_discarder


def winners_leave(rules: SichuanRules) -> bool:
    """Whether a winner leaves the hand: blood battle's do; under blood flow (variants.md)
    "every player stays in until wall_exhausted"."""
    return not rules.blood_flow


def ends_after_win(rules: SichuanRules, winners: Collection[str]) -> bool:
    """Blood battle: the hand ends when three players have won (the last cannot win alone);
    blood flow (variants.md): only the wall ends it."""
    return not rules.blood_flow and len(winners) >= 3


def kong_payers(
    rules: SichuanRules, player: str, fed_by: str | None, still_in: Sequence[str]
) -> Sequence[str]:
    """rules.md, "Kongs, paid at once": an exposed kong is paid by its discarder; added and
    concealed kongs by every other player still in. variants.md, exposed_kong_pays
    "everyone": "every player still in" but the konger, "the discarder too"."""
    if fed_by is not None and rules.exposed_kong_pays != "everyone":
        return (fed_by,)
    return [p for p in still_in if p != player]


def kong_dues(
    rules: SichuanRules, player: str, kind: str, fed_by: str | None, still_in: Sequence[str]
) -> Dues:
    """What each payer of a kong pays (:func:`kong_payers`, each
    :func:`~mjledger.rules.sichuan.scoring.sichuan_kong_amount`)."""
    amount = scoring.sichuan_kong_amount(rules, kind, fed_by is not None)
    return tuple([(p, amount) for p in kong_payers(rules, player, fed_by, still_in)])


def money_kept(rules: SichuanRules, robbing_kong: bool, several: bool) -> str | None:
    """Why a closing run of wins passes no kong money (a message id), or None if it passes:
    none on a robbing win, none with passing off, none to several winners under
    ``kong_passing_split: "none"``."""
    if robbing_kong:
        return N_("kong_money_kept.robbing_kong")
    if not rules.kong_money_passing:
        return N_("kong_money_kept.off")
    if several and rules.kong_passing_split == "none":
        return N_("kong_money_kept.not_split")
    return None


def kong_from_hand_unpaid(rules: SichuanRules, from_hand: bool) -> bool:
    """variants.md, ``added_kong_from_hand: "unpaid"`` (手牌加杠不收分): an added kong made
    from a tile already held "makes no transfer"; under ``"paid"`` the flag is recorded only."""
    return from_hand and rules.added_kong_from_hand == "unpaid"


def refunds_instead(rules: SichuanRules) -> bool:
    """variants.md, ``kong_money_passing: "refund"`` (杠上炮退税): where money would pass, the
    window's last kong's money goes back to those who paid it instead."""
    return rules.kong_money_passing == "refund"


def refund_on_deal_in(
    konger: str, window: tuple[int, ...], kongs: Kongs
) -> tuple[tuple[int, ...], tuple[tuple[str, str, int], ...]]:
    """The kong refunded on a deal-in (the window's last, "the one declared most recently")
    and its ``(konger, payer, amount)`` dues: "each payer's own amount as actually paid",
    winners included. A kong that collected nothing refunds nothing (and counts as nothing)."""
    last = window[-1]
    _, payments = kongs[last]
    dues = tuple([(konger, payer, amount) for payer, amount in payments if amount])
    return ((last,) if dues else ()), dues


def kongs_passing(rules: SichuanRules, kongs: tuple[int, ...]) -> tuple[int, ...]:
    """The kongs of the window whose money passes: all, or the last one only
    (variants.md, ``kong_passing_scope: "last"``)."""
    return kongs[-1:] if rules.kong_passing_scope == "last" else kongs


def passing_shares(
    rules: SichuanRules,
    players: tuple[str, ...],
    discarder: str,
    winners: tuple[str, ...],
    amount: int,
) -> tuple[tuple[str, int], ...]:
    """What each winner of the run receives of ``amount``: equal parts, the remainder to the
    first winner after the discarder in turn order (rules.md, kong_passing_split "split"),
    or the whole of it each (variants.md, "each_full"). Parts of zero are left out."""
    if len(winners) > 1 and rules.kong_passing_split == "each_full":
        return tuple([(w, amount) for w in winners]) if amount else ()
    part, remainder = even_parts(amount, len(winners))
    first = next_in_turn(players, discarder, winners) if remainder else None
    shares = ((w, part + remainder if w == first else part) for w in winners)
    return tuple([(w, a) for w, a in shares if a > 0])


def wall_players(
    rules: SichuanRules, players: Sequence[str], still_in: Sequence[str], winners: Collection[str]
) -> tuple[str, ...]:
    """Who the empty wall checks (and ``remaining`` names): every player still in; under
    variants.md's ``blood_flow_wall: "exempt_winners"`` the players who have not won ("as
    winners are without blood flow")."""
    if rules.blood_flow_wall == "exempt_winners":
        return tuple([p for p in players if p not in winners])
    return tuple(still_in)


def false_win_returns(player: str, kongs: Kongs, passed: Collection[int]) -> tuple[int, ...]:
    """variants.md, Sichuan false win: the kongs whose money the offender gives back — every
    kong of theirs "that has not already been passed or refunded"."""
    return tuple([k for k, (owner, _) in enumerate(kongs) if owner == player and k not in passed])


def false_win_dues(
    rules: SichuanRules,
    player: str,
    still_in: Sequence[str],
    kongs: Kongs,
    passed: Collection[int],
) -> tuple[tuple[str, str, int, Reason], ...]:
    """variants.md, ``sichuan_false_win: "flat"``, in one batch: ``8 × base`` to each other
    player still in (reason ``false_win``), then each returned kong's payments back to
    whoever made them, winners included (``kong_refund``; refund_to_winners does not apply)."""
    amount = scoring.sichuan_false_win_amount(rules)
    dues: list[tuple[str, str, int, Reason]] = [
        (player, other, amount, "false_win") for other in still_in if other != player
    ]
    for k in false_win_returns(player, kongs, passed):
        dues.extend((player, payer, paid, "kong_refund") for payer, paid in kongs[k][1])
    return tuple(dues)


def wall_checks(
    rules: SichuanRules,
    players: Sequence[str],
    still_in: Sequence[str],
    winners: Collection[str],
    states: Mapping[str, WallFacts],
    kongs: Kongs,
    passed: Collection[int],
) -> list[Check]:
    """rules.md, "When the wall runs out": flower pig, not ready, kong refund — in that order,
    each payer's dues in the order the settlement records them."""
    pigs = [p for p, s in states.items() if s.flower_pig]
    checks: list[Check] = []
    if pigs:
        amount = scoring.sichuan_flower_pig_amount(rules)
        # variants.md, pig_pays: every non-pig at the table, or only the non-pigs still in.
        payees = still_in if rules.pig_pays == "still_in" else players
        for pig in pigs:
            dues = tuple([(pig, o, amount) for o in payees if o not in pigs])
            checks.append(("flower_pig", pig, None, dues))
    # What each ready player collects from each player not ready.
    ready = [
        (p, scoring.sichuan_not_ready_amount(rules, s.best_fan))
        for p, s in states.items()
        if s.ready
    ]
    not_ready = [p for p, s in states.items() if not s.ready]
    # variants.md, not_ready_includes_pigs: false "takes pigs out of the not-ready payments
    # only; pigs still refund".
    for payer in not_ready:
        if rules.not_ready_includes_pigs or payer not in pigs:
            checks.append(("not_ready", payer, None, tuple([(payer, r, a) for r, a in ready])))
    for payer in not_ready if kongs else ():
        for k, (owner, payments) in enumerate(kongs):
            if owner == payer and k not in passed:
                # variants.md, refund_to_winners: false "skips a payer who has won at any point
                # of the hand".
                refunds = [(payer, o, a) for o, a in payments]
                if not rules.refund_to_winners:
                    refunds = [r for r in refunds if r[1] not in winners]
                checks.append(("kong_refund", payer, k, tuple(refunds)))
    return checks
