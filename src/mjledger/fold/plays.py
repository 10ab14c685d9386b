"""The hand's events other than a win, folded into the hand in play: a void suit chosen, a
discard, a kong declared (and what it pays), the empty wall (its checks, the rule set's) and
a false win. Each runs every check before it changes anything."""

from __future__ import annotations

from typing import Final, cast, get_args

from mjledger._replace import constructor
from mjledger.fold.dues import pay, transfers_of
from mjledger.fold.in_play import HandFold, end_kong_run
from mjledger.fold.refusals import check_in_play, refusal
from mjledger.log.events import (
    Discarded,
    FalseWin,
    KongDeclared,
    KongKind,
    VoidSuitChosen,
    WallExhausted,
)
from mjledger.rules.values import MAX_KONGS, KongPayment, Reason, void_suit_of

__all__ = ["discarded", "false_win", "kong_declared", "void_suit_chosen", "wall_exhausted"]

# A kong's payment record, built without running attrs' ``__init__``.
_new_kong: Final = constructor(KongPayment)


def void_suit_chosen(hand: HandFold, event: VoidSuitChosen, line: int | None) -> None:
    """A player's void suit, once a hand, where the rule set has them (Sichuan)."""
    if not hand._table.void_suits:
        raise refusal(event, line, f"{hand._table.title} has no void suit", "wrong_ruleset")
    if event.player not in hand.still_in:
        check_in_play(hand, event.player, "player", event, line)
    if void_suit_of(hand.void_suits, event.player) is not None:
        raise refusal(event, line, f"{event.player!r} has already chosen a void suit this hand")
    hand.void_suits = (*hand.void_suits, (event.player, event.suit))
    hand.last_kong_by = None


def discarded(hand: HandFold, event: Discarded, line: int | None) -> None:
    """A discard: the discarder's run of kongs ends (a kong cannon is a win on the discard
    right after a kong), and they have discarded (the first turn is over for them)."""
    player = event.player
    if player not in hand.still_in:
        check_in_play(hand, player, "player", event, line)
    if hand.kong_runs[hand._seat[player]]:
        end_kong_run(hand, player)
    hand.last_kong_by = None
    if player not in hand.discarders:
        hand.discarders = hand.discarders | {player}


def kong_declared(hand: HandFold, event: KongDeclared, line: int | None) -> None:
    """A kong: paid as one batch when declared (what it pays is the rule set's), and counted
    in its player's run of kongs, which a win on their next discard may pass on."""
    player, from_ = event.player, event.from_
    still_in = hand.still_in
    if player not in still_in:
        check_in_play(hand, player, "player", event, line)
    # Four kongs use all sixteen tiles of four kinds plus the pair: a fifth cannot be held
    # (and an unbounded run of kongs would make every later event slower). Every rule set.
    kongs = hand.kongs
    if len(kongs) >= MAX_KONGS and sum(k.player == player for k in kongs) >= MAX_KONGS:
        raise refusal(
            event,
            line,
            f"{player!r} has already declared {MAX_KONGS} kongs this hand; "
            f"a player declares at most {MAX_KONGS}",
        )
    if from_ is not None:
        if from_ not in still_in:
            check_in_play(hand, from_, "from", event, line)
        if from_ == player:
            raise refusal(
                event,
                line,
                "an exposed kong is claimed from another player's discard, not one's own",
                "self_reference",
            )
    table = hand._table
    if event.from_hand is None:
        payments = table.kong_payments(hand, player, event.kind, from_)
    else:
        payments = table.kong_from_hand_payments(hand, player, event.from_hand)
    transfers = transfers_of(payments, player, _KONG_REASONS[event.kind], line)
    # Every check has run: from here on the hand changes.
    if from_ is not None:
        end_kong_run(hand, from_)
        if from_ not in hand.discarders:
            hand.discarders = hand.discarders | {from_}
    runs = list(hand.kong_runs)
    i = hand._seat[player]
    runs[i] = (*runs[i], len(kongs))
    paid = pay(hand, transfers)
    kong = _new_kong(player, event.kind, line, tuple([(t.payer, t.amount) for t in paid]), from_)
    hand.kongs = (*kongs, kong)
    hand.kong_runs = tuple(runs)
    hand.last_kong_by = event.player


# Each kind of kong's transfer reason.
_KONG_REASONS: Final[dict[str, Reason]] = {
    kind: cast(Reason, f"kong_{kind}") for kind in get_args(KongKind)
}


def wall_exhausted(hand: HandFold, event: WallExhausted, line: int | None) -> None:
    """The empty wall ends the hand; what its checks settle is the rule set's."""
    pay(hand, hand._table.settle_wall(hand, event.remaining, line))
    hand.ended = True
    hand.last_kong_by = None


def false_win(hand: HandFold, event: FalseWin, line: int | None) -> None:
    """A false win: what it costs (the rule set's), then the hand ends void, or play goes on
    with the offender's kong window emptied and the kongs it gave back counted as passed."""
    player = event.player
    check_in_play(hand, player, "player", event, line)
    table = hand._table
    returned = table.false_win_returns(hand, player)
    pay(hand, table.settle_false_win(hand, player, line))
    hand.last_kong_by = None
    if returned:
        hand.passed = hand.passed | frozenset(returned)
    if table.false_win_ends_hand():
        hand.ended = True
        hand.false_win_by = player
    else:
        end_kong_run(hand, player)
