"""One hand as a pure fold: ``evolve_hand(state, event, line) -> state``, settling as it goes.

Each accepted event adds its transfers at once (settlement is online: a backend can read the
payouts after every line), except the two things the rules settle later — kong money passing,
settled when a run of wins on one discard closes, and the end-of-wall checks. Every check runs
before anything changes, so a rejected event leaves the state exactly as it was.

The fold knows the order of play; what anything is worth, and who pays it, it asks the hand's
rule set (:class:`~mjledger.rules.protocol.Ruleset`). Transfers are recorded one per payer and
payee, each with the log line that caused it, which is what a support person replaying a
disputed hand reads step by step.
"""

from __future__ import annotations

from typing import Final, cast

import attrs

from mjledger._replace import replacer
from mjledger.errors import RuleError, TileError
from mjledger.log.events import (
    Discarded,
    Event,
    FalseWin,
    KongDeclared,
    SelfDrawn,
    VoidSuitChosen,
    WallExhausted,
    WonOnDiscard,
    win_has_tiles,
)
from mjledger.rules.protocol import Payments, Ruleset, WinContext
from mjledger.rules.registry import find_ruleset
from mjledger.rules.state import (
    REASONS,
    HandState,
    KongPayment,
    OpenWins,
    Outcome,
    Reason,
    Transfer,
    net_of,
)
from mjledger.rules.table import FirstTurnFacts, first_turn_problem
from mjledger.rules.tiles import derive_win, seat_wind

__all__ = [
    "REASONS",
    "HandEvent",
    "HandState",
    "KongPayment",
    "OpenWins",
    "Outcome",
    "Reason",
    "Transfer",
    "close_hand",
    "close_wins",
    "evolve_hand",
    "net_of",
    "win_fan",
]

_evolve = replacer(HandState)

MAX_KONGS: Final = 4  # per player per hand, under every rule set


HandEvent = (
    VoidSuitChosen | Discarded | KongDeclared | WonOnDiscard | SelfDrawn | WallExhausted | FalseWin
)
_WINS = (WonOnDiscard, SelfDrawn)


class _Refuse:
    """Builds the error for the event at hand, so each check reads as one line."""

    __slots__ = ("event_type", "line")

    def __init__(self, event: Event, line: int | None):
        self.event_type = type(event).TYPE
        self.line = line

    def __call__(self, problem: str) -> RuleError:
        return RuleError(problem, line=self.line, event_type=self.event_type)


def evolve_hand(hand: HandState, event: HandEvent, line: int | None = None) -> HandState:
    """The hand after ``event``, or a :class:`RuleError` naming the line and the problem."""
    refuse = _Refuse(event, line)
    if hand.ended:
        raise refuse(f"hand {hand.number} has already ended ({hand.outcome})")
    if hand.open_wins is not None and not _continues_wins(hand.open_wins, event, refuse):
        hand = close_wins(hand)
    ruleset = find_ruleset(hand.ruleset)
    try:
        if isinstance(event, Discarded):
            return _discarded(hand, event, refuse)
        if isinstance(event, KongDeclared):
            return _kong_declared(ruleset, hand, event, line, refuse)
        if isinstance(event, _WINS):
            return _won(ruleset, hand, event, line, refuse)
        if isinstance(event, WallExhausted):
            dues = ruleset.settle_wall(hand.rules, hand, event, line)
            return _evolve(_pay(hand, dues), ended=True, last_kong_by=None)
        if isinstance(event, VoidSuitChosen):
            return _void_suit_chosen(ruleset, hand, event, refuse)
        if isinstance(event, FalseWin):
            _in_play(hand, event.player, "player", refuse)
            dues = ruleset.settle_false_win(hand.rules, hand, event.player, line)
            return _evolve(
                _pay(hand, dues), ended=True, last_kong_by=None, false_win_by=event.player
            )
    except RuleError as exc:
        if exc.line is None and exc.event_type is None:
            raise refuse(exc.problem) from None
        raise
    raise refuse("this event does not belong inside a hand")


def win_fan(
    hand: HandState, event: WonOnDiscard | SelfDrawn, line: int | None = None
) -> tuple[int | None, bool]:
    """The fan ``event`` is paid on in ``hand`` (derived from its tiles where it shows them)
    and whether it is a limit hand — exactly what the fold settles it on. A hook for
    explanations (:mod:`mjledger.explain`), which rebuild the arithmetic of each step."""
    ruleset = find_ruleset(hand.ruleset)
    return _fan_of(ruleset, hand, event, _win_context(hand, event), _Refuse(event, line))


def close_hand(hand: HandState) -> HandState:
    """Settle what the end of the log closes: an open run of wins (its kong money passing)."""
    return close_wins(hand) if hand.open_wins is not None else hand


def _paid(hand: HandState, dues: tuple[Transfer, ...]) -> tuple[tuple[Transfer, ...], HandState]:
    """One batch of dues as actually paid: all of it, or what table stakes let each payer pay
    (variants.md, "Each event settles as one batch"); the hand with the stakes after it."""
    if hand.stakes is None:
        return dues, hand
    paid, stakes = hand.stakes.settle(dues)
    return paid, _evolve(hand, stakes=stakes)


def _pay(hand: HandState, dues: tuple[Transfer, ...]) -> HandState:
    paid, hand = _paid(hand, dues)
    return _evolve(hand, transfers=hand.transfers + paid) if paid else hand


# --- checks ---------------------------------------------------------------------------------


def _in_play(hand: HandState, player: str, role: str, refuse: _Refuse) -> None:
    if player not in hand.players:
        raise refuse(f"{role} {player!r} is not at the table ({', '.join(hand.players)})")
    if player in hand.winners and find_ruleset(hand.ruleset).winners_leave(hand.rules):
        raise refuse(f"{role} {player!r} has already won and takes no further part in the hand")


def _continues_wins(run: OpenWins, event: Event, refuse: _Refuse) -> bool:
    if not isinstance(event, WonOnDiscard) or event.from_ != run.discarder:
        return False
    if event.robbing_kong != run.robbing_kong:
        raise refuse(
            "robbing-kong wins and ordinary wins cannot share one run of wins "
            f"on {run.discarder!r}'s tile"
        )
    if any(event.player == w for w, _ in run.winners):
        raise refuse(f"{event.player!r} has already won on this tile of {run.discarder!r}")
    return True


def _win_context(hand: HandState, event: WonOnDiscard | SelfDrawn) -> WinContext:
    """How the win happened, read off the hand so far (the log never says it outright)."""
    self_drawn = isinstance(event, SelfDrawn)
    discarder = None if isinstance(event, SelfDrawn) else event.from_
    kong_bloom = self_drawn and hand.last_kong_by == event.player
    # The replacement tile of the winner's exposed kong: that kong was the hand's last line.
    fed_by = hand.kongs[-1].fed_by if kong_bloom else None
    return WinContext(
        winner=event.player,
        discarder=discarder,
        self_drawn=self_drawn,
        kong_bloom=kong_bloom,
        kong_cannon=isinstance(event, WonOnDiscard)
        and not event.robbing_kong
        and bool(hand.kong_runs[hand.players.index(event.from_)]),
        robbing_kong=isinstance(event, WonOnDiscard) and event.robbing_kong,
        last_tile=event.last_tile,
        # Asserted by the log, never inferred from discards it leaves out (variants.md).
        heavenly=event.first_turn and self_drawn and event.player == hand.dealer,
        earthly=event.first_turn and not (self_drawn and event.player == hand.dealer),
        liable=event.liable,
        fed_by=fed_by,
        seat_wind=seat_wind(hand.players, hand.dealer, event.player),
        round_wind=hand.round_wind,
        void_suit=hand.void_suit(event.player),
    )


def _fan_of(
    ruleset: Ruleset,
    hand: HandState,
    event: WonOnDiscard | SelfDrawn,
    context: WinContext,
    refuse: _Refuse,
) -> tuple[int | None, bool]:
    """The fan a win is paid on and whether it is a limit hand."""
    has_tiles = win_has_tiles(event)
    fan, limit = ruleset.claimed_fan(hand.rules, event.fan, event.limit, has_tiles=has_tiles)
    if not has_tiles:
        return fan, limit
    try:
        result = derive_win(ruleset, hand.rules, event, context)
    except TileError as exc:
        raise refuse(str(exc)) from None
    breakdown = ", ".join(f"{p.code} {p.fan}" for p in result.patterns)
    if result.limit:
        # A limit hand is worth the limit "whatever its fan" (rules.md), so a fan given with
        # "limit": true is not compared; a fan given as a plain win contradicts the tiles.
        if event.fan is not None and not event.limit:
            raise refuse(
                f"the log gives fan {event.fan}, but the tiles make a limit hand ({breakdown})"
            )
        return result.fan, True
    if event.limit:
        raise refuse(
            f"the log claims a limit hand, but the tiles make {result.fan} fan ({breakdown})"
        )
    if event.fan is not None and event.fan != result.fan:
        raise refuse(
            f"the log gives fan {event.fan}, but the tiles make {result.fan} ({breakdown})"
        )
    minimum = ruleset.minimum_fan(hand.rules)
    if result.fan < minimum:
        raise refuse(
            f"the tiles make {result.fan} fan ({breakdown}), below the table minimum of {minimum}"
        )
    return result.fan, False


# --- events ---------------------------------------------------------------------------------


def _void_suit_chosen(
    ruleset: Ruleset, hand: HandState, event: VoidSuitChosen, refuse: _Refuse
) -> HandState:
    if not ruleset.void_suits:
        raise refuse(f"{ruleset.title} has no void suit")
    _in_play(hand, event.player, "player", refuse)
    if hand.void_suit(event.player) is not None:
        raise refuse(f"{event.player!r} has already chosen a void suit this hand")
    return _evolve(
        hand, void_suits=(*hand.void_suits, (event.player, event.suit)), last_kong_by=None
    )


def _discarded(hand: HandState, event: Discarded, refuse: _Refuse) -> HandState:
    _in_play(hand, event.player, "player", refuse)
    runs = _reset_run(hand, event.player)
    if runs is hand.kong_runs and hand.last_kong_by is None and event.player in hand.discarders:
        return hand  # the common discard changes nothing that money depends on
    return _evolve(
        hand, kong_runs=runs, last_kong_by=None, discarders=hand.discarders | {event.player}
    )


def _reset_run(hand: HandState, player: str) -> tuple[tuple[int, ...], ...]:
    i = hand.players.index(player)
    if not hand.kong_runs[i]:
        return hand.kong_runs
    runs = list(hand.kong_runs)
    runs[i] = ()
    return tuple(runs)


def _kong_declared(
    ruleset: Ruleset, hand: HandState, event: KongDeclared, line: int | None, refuse: _Refuse
) -> HandState:
    _in_play(hand, event.player, "player", refuse)
    # Four kongs use all sixteen tiles of four kinds plus the pair: a fifth cannot be held
    # (and an unbounded run of kongs would make every later event slower). Every rule set.
    if sum(1 for k in hand.kongs if k.player == event.player) >= MAX_KONGS:
        raise refuse(
            f"{event.player!r} has already declared {MAX_KONGS} kongs this hand; "
            f"a player declares at most {MAX_KONGS}"
        )
    if event.from_ is not None:
        _in_play(hand, event.from_, "from", refuse)
        if event.from_ == event.player:
            raise refuse("an exposed kong is claimed from another player's discard, not one's own")
    discarders = hand.discarders if event.from_ is None else hand.discarders | {event.from_}
    payments = ruleset.kong_payments(hand.rules, hand, event)
    reason: Reason = f"kong_{event.kind}"  # type: ignore[assignment]
    transfers = _transfers(payments, event.player, reason, line)
    runs = list(_reset_run(hand, event.from_) if event.from_ is not None else hand.kong_runs)
    i = hand.players.index(event.player)
    runs[i] = (*runs[i], len(hand.kongs))
    paid, hand = _paid(hand, transfers)
    kong = KongPayment(
        event.player, event.kind, line, tuple((t.payer, t.amount) for t in paid), event.from_
    )
    return _evolve(
        hand,
        kongs=(*hand.kongs, kong),
        kong_runs=tuple(runs),
        transfers=hand.transfers + paid,
        last_kong_by=event.player,
        discarders=discarders,
    )


def _won(
    ruleset: Ruleset,
    hand: HandState,
    event: WonOnDiscard | SelfDrawn,
    line: int | None,
    refuse: _Refuse,
) -> HandState:
    _in_play(hand, event.player, "player", refuse)
    discarder = event.from_ if isinstance(event, WonOnDiscard) else None
    if discarder is not None:
        _in_play(hand, discarder, "from", refuse)
        if discarder == event.player:
            raise refuse("a player cannot win on their own discard ('from' names the winner)")
    if event.liable is not None:
        if event.liable not in hand.players:
            raise refuse(f"liable {event.liable!r} is not at the table ({', '.join(hand.players)})")
        if event.liable == event.player:
            raise refuse(
                f"liable {event.liable!r} is the winner; the liable player is someone else"
            )
    if event.first_turn:
        _check_first_turn(hand, event, refuse)
    context = _win_context(hand, event)
    fan, limit = _fan_of(ruleset, hand, event, context, refuse)
    reason: Reason = "self_drawn" if discarder is None else "won_on_discard"
    payments = ruleset.win_payments(hand.rules, hand, context, fan, limit)
    transfers = _transfers(payments, event.player, reason, line)
    paid, hand = _paid(hand, transfers)
    changes = _record_win(hand, event.player, discarder)
    if discarder is not None:
        run = hand.open_wins
        if run is None:
            run = OpenWins(
                discarder,
                context.robbing_kong,
                ((event.player, line),),
                winners_before=hand.winners,
                discarders_before=hand.discarders,
            )
        else:
            run = attrs.evolve(run, winners=(*run.winners, (event.player, line)))
        changes["open_wins"] = run
        changes["discarders"] = hand.discarders | {discarder}
    hand = _evolve(hand, transfers=hand.transfers + paid, **changes)
    if ruleset.hand_ends_after_win(hand):
        return _evolve(close_hand(hand), ended=True)
    return hand


def _transfers(
    payments: Payments, payee: str, reason: Reason, line: int | None
) -> tuple[Transfer, ...]:
    """A hook's payments as transfers, each with the event's reason unless it names its own."""
    return tuple(
        Transfer(p[0], payee, p[1], cast(Reason, p[2]) if len(p) == 3 else reason, line)
        for p in payments
    )


def _check_first_turn(hand: HandState, event: WonOnDiscard | SelfDrawn, refuse: _Refuse) -> None:
    """variants.md, "First turn": refuse the flag where the log contradicts it. A later winner
    on the same discard is checked against the hand as it was before that discard's first win
    ("Several winners on the dealer's first discard may each carry it")."""
    discarder = event.from_ if isinstance(event, WonOnDiscard) else None
    run = hand.open_wins if discarder is not None else None
    facts = FirstTurnFacts(
        dealer=hand.dealer,
        winner=event.player,
        discarder=discarder,
        kongs=bool(hand.kongs),
        earlier_winners=hand.winners if run is None else run.winners_before,
        discarders=hand.discarders if run is None else run.discarders_before,
        has_melds=bool(event.melds),
    )
    problem = first_turn_problem(facts)
    if problem is not None:
        raise refuse(problem)


def _record_win(hand: HandState, winner: str, discarder: str | None) -> dict[str, object]:
    # Blood flow keeps winners in: "`winners` lists each winner once, in order of their first win".
    winners = hand.winners if winner in hand.winners else (*hand.winners, winner)
    changes: dict[str, object] = {"winners": winners, "last_kong_by": None}
    if not hand.first_winners:
        changes["first_winners"] = (winner,)
        changes["first_discarder"] = discarder
        changes["first_run_open"] = discarder is not None
    elif hand.first_run_open and hand.open_wins is not None:
        changes["first_winners"] = (*hand.first_winners, winner)
    return changes


def close_wins(hand: HandState) -> HandState:
    """Close the open run of wins: the discarder's run of kongs ends, and its money may pass."""
    run = hand.open_wins
    assert run is not None
    i = hand.players.index(run.discarder)
    run_kongs = hand.kong_runs[i]
    hand = _evolve(
        hand, open_wins=None, kong_runs=_reset_run(hand, run.discarder), first_run_open=False
    )
    if not run_kongs:
        return hand
    ruleset = find_ruleset(hand.ruleset)
    dues, passed = ruleset.kong_money_passing(hand.rules, hand, run, run_kongs)
    if not dues:
        return hand
    # Passed money is one batch (variants.md, "Table stakes").
    return _evolve(_pay(hand, dues), passed=hand.passed | frozenset(passed))
