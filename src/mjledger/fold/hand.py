"""One hand as a fold: ``evolve_hand(state, event, line) -> state``, settling as it goes.

Each accepted event adds its transfers at once (settlement is online: a backend can read the
payouts after every line), except the two things the rules settle later — kong money passing,
settled when a run of wins on one discard closes, and the end-of-wall checks.

The hand in play is one mutable working state, :class:`HandFold`, changed in place by each
event: copying the twenty-odd fields of a frozen :class:`HandState` on every event was most
of the time a replay took. Its fields hold frozen values only, and it becomes a
:class:`HandState` (:meth:`HandFold.freeze`) wherever a hand leaves the fold. Within an event
every check runs before anything changes, so a refused event changes nothing but the closing
of an open run of wins that it does not continue (which the fold settles before the event,
as the pure :func:`evolve_hand` does on its own copy; a refused log is not folded further).

The fold knows the order of play; what anything is worth, and who pays it, it asks the hand's
rule set bound to its table (:class:`~mjledger.rules.base.BaseRuleset`). Transfers are
recorded one per payer and payee, each with the log line that caused it, which is what a
support person replaying a disputed hand reads step by step.
"""

from __future__ import annotations

from collections.abc import Callable, Iterator
from typing import Any, Final, cast, get_args

import attrs

from mjledger._replace import constructor, copier, replacer
from mjledger.errors import RuleError, TileError
from mjledger.log.events import (
    Discarded,
    Event,
    FalseWin,
    KongDeclared,
    KongKind,
    SelfDrawn,
    VoidSuitChosen,
    WallExhausted,
    Wind,
    WonOnDiscard,
    win_has_tiles,
)
from mjledger.rules import explained
from mjledger.rules.base import BaseRuleset
from mjledger.rules.protocol import HouseRules, Payments, WinContext
from mjledger.rules.registry import table_of
from mjledger.rules.state import HandState
from mjledger.rules.table import FirstTurnFacts, Stakes, first_turn_problem
from mjledger.rules.tiles import derive_win, seat_wind
from mjledger.rules.values import (
    MAX_KONGS,
    REASONS,
    HandView,
    KongPayment,
    OpenWins,
    Outcome,
    Reason,
    Transfer,
    net_of,
    outcome_of,
    still_in_of,
    void_suit_of,
)

__all__ = [
    "HAND_EVENT_TYPES",
    "REASONS",
    "HandEvent",
    "HandFold",
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


HandEvent = (
    VoidSuitChosen | Discarded | KongDeclared | WonOnDiscard | SelfDrawn | WallExhausted | FalseWin
)


class HandFold:
    """The working state of the hand in play: :class:`HandState`'s fields, each holding a
    frozen value, replaced in place by :meth:`apply`. Rule sets read it as they read a
    :class:`HandState` (both are a :class:`~mjledger.rules.state.HandView`)."""

    __slots__ = (
        "_seat",
        "_table",
        "_winners_leave",
        "dealer",
        "dealer_streak",
        "discarders",
        "ended",
        "false_win_by",
        "first_discarder",
        "first_run_open",
        "first_winners",
        "kong_runs",
        "kongs",
        "last_kong_by",
        "next_dealer",
        "number",
        "open_wins",
        "passed",
        "players",
        "round_wind",
        "rules",
        "ruleset",
        "stakes",
        "still_in",
        "transfers",
        "void_suits",
        "winners",
    )

    _seat: dict[str, int]
    """Each player's seat: where their entry of ``kong_runs`` is."""
    _table: BaseRuleset
    """The hand's rule set, bound to its table (its house rules and players)."""
    _winners_leave: bool
    ruleset: str
    rules: HouseRules
    players: tuple[str, ...]
    number: int
    dealer: str
    dealer_streak: int
    round_wind: Wind
    winners: tuple[str, ...]
    transfers: tuple[Transfer, ...]
    void_suits: tuple[tuple[str, str], ...]
    kongs: tuple[KongPayment, ...]
    kong_runs: tuple[tuple[int, ...], ...]
    passed: frozenset[int]
    open_wins: OpenWins | None
    first_winners: tuple[str, ...]
    first_discarder: str | None
    first_run_open: bool
    last_kong_by: str | None
    discarders: frozenset[str]
    ended: bool
    next_dealer: str | None
    false_win_by: str | None
    stakes: Stakes | None
    still_in: tuple[str, ...]
    """Who takes part in the hand now (:attr:`HandState.still_in`), kept as winners are
    recorded: every event checks its player against it, and payments read it."""

    @staticmethod
    def thaw(hand: HandState) -> HandFold:
        """A working copy of ``hand`` (``hand`` itself never changes)."""
        fold = _thaw(hand)
        fold._table = table = table_of(hand.ruleset, hand.rules, hand.players)
        fold._winners_leave = leave = table.winners_leave()
        fold.still_in = still_in_of(hand.players, hand.winners, leave)
        fold._seat = {p: i for i, p in enumerate(hand.players)}
        return fold

    def opened(
        self, number: int, dealer: str, dealer_streak: int, round_wind: Wind, stakes: Stakes | None
    ) -> HandFold:
        """A new hand of this one's match, as it starts: a copy of a hand of the same table
        (``self``, which has not started) with what tells the hands of a match apart. What
        the rule set says of the table is the match's, so it is copied rather than asked
        again: a hand opens for every ``hand_started`` of a replay."""
        fold = _copy_fold(self)
        fold.number = number
        fold.dealer = dealer
        fold.dealer_streak = dealer_streak
        fold.round_wind = round_wind
        fold.stakes = stakes
        return fold

    def freeze(self) -> HandState:
        """The hand as it stands, as the frozen value it leaves the fold as."""
        return _freeze(self)

    def apply(self, event: HandEvent, line: int | None = None) -> None:
        """Fold ``event`` into the hand, or raise a :class:`RuleError` naming the line and the
        problem."""
        if self.ended:
            raise _refusal(
                event,
                line,
                f"hand {self.number} has already ended ({self.outcome})",
                "hand_not_in_play",
            )
        if self.open_wins is not None and not _continues_wins(self.open_wins, event, line):
            _close_wins(self)
        handler = _HANDLERS.get(type(event))
        if handler is None:
            raise _refusal(
                event, line, "this event does not belong inside a hand", "wrong_event_type"
            )
        try:
            handler(self, event, line)
        except RuleError as exc:
            raise _located(exc, event, line) from None

    def run(self, events: Iterator[tuple[int | None, Event]]) -> tuple[int | None, Event] | None:
        """:meth:`apply` to the events drawn from ``events`` until the hand ends or the stream
        does (None), or an event arrives that no hand holds (returned, undrawn by the hand: a
        ``hand_started``, say, is the match's). One loop over a hand's events instead of a
        call per event through the match fold: replay's hot path."""
        handlers = _HANDLERS
        for line, event in events:
            handler = handlers.get(type(event))
            if handler is None:
                return line, event
            run = self.open_wins
            if run is not None and not _continues_wins(run, event, line):
                _close_wins(self)
            try:
                handler(self, event, line)
            except RuleError as exc:
                raise _located(exc, event, line) from None
            if self.ended:
                return None
        return None

    @property
    def outcome(self) -> Outcome:
        return outcome_of(self)

    def net(self) -> dict[str, int]:
        return net_of(self.players, self.transfers)

    def void_suit(self, player: str) -> str | None:
        return void_suit_of(self.void_suits, player)


_FIELDS: Final = tuple(f.name for f in attrs.fields(HandState))
assert set(HandFold.__slots__) == {*_FIELDS, "_seat", "_table", "_winners_leave", "still_in"}, (
    "HandFold holds HandState's fields"
)
_thaw: Final[Callable[[HandState], HandFold]] = copier(HandFold, _FIELDS)
_copy_fold: Final[Callable[[HandFold], HandFold]] = copier(HandFold, HandFold.__slots__)
_replace_run: Final = replacer(OpenWins)
# The values every win and kong makes, built without running attrs' ``__init__``.
_new_context: Final = constructor(WinContext)
_new_transfer: Final = constructor(Transfer)
_new_run: Final = constructor(OpenWins)
_new_kong: Final = constructor(KongPayment)
_freeze: Final[Callable[[HandFold], HandState]] = copier(HandState, _FIELDS)


def evolve_hand(hand: HandState, event: HandEvent, line: int | None = None) -> HandState:
    """The hand after ``event``, or a :class:`RuleError` naming the line and the problem
    (``hand`` itself never changes)."""
    fold = HandFold.thaw(hand)
    fold.apply(event, line)
    return fold.freeze()


def win_fan(
    hand: HandState, event: WonOnDiscard | SelfDrawn, line: int | None = None
) -> tuple[int | None, bool]:
    """The fan ``event`` is paid on in ``hand`` (derived from its tiles where it shows them)
    and whether it is a limit hand — exactly what the fold settles it on. A hook for
    explanations (:mod:`mjledger.explain`), which rebuild the arithmetic of each step."""
    table = table_of(hand.ruleset, hand.rules, hand.players)
    return _fan_of(table, hand, event, _win_context(hand, event), line)


def close_hand(hand: HandState) -> HandState:
    """Settle what the end of the log closes: an open run of wins (its kong money passing)."""
    return close_wins(hand) if hand.open_wins is not None else hand


def close_wins(hand: HandState) -> HandState:
    """Close the open run of wins: the discarder's run of kongs ends, and its money may pass."""
    fold = HandFold.thaw(hand)
    _close_wins(fold)
    return fold.freeze()


def close_open_wins(hand: HandFold) -> None:
    """:func:`close_hand` of the hand in play, in place."""
    if hand.open_wins is not None:
        _close_wins(hand)


def _refusal(
    event: Event, line: int | None, problem: str, code: str = "rule_violation"
) -> RuleError:
    return RuleError(problem, line=line, event_type=type(event).TYPE, code=code)


def _located(exc: RuleError, event: Event, line: int | None) -> RuleError:
    """``exc`` as the refusal of ``event`` at ``line``: a rule set's hook names the problem
    only, and the fold adds where it is."""
    if exc.line is None and exc.event_type is None:
        return _refusal(event, line, exc.problem, exc.code)
    return exc


def _pay(hand: HandFold, dues: tuple[Transfer, ...]) -> tuple[Transfer, ...]:
    """Pay one batch of dues: all of it, or what table stakes let each payer pay (variants.md,
    "Each event settles as one batch"); what was paid."""
    paid = dues
    if hand.stakes is not None:
        paid, hand.stakes = hand.stakes.settle(dues, hand.rules)
    if paid:
        hand.transfers += paid
    notes = explained.notes()
    if notes is not None:  # an explanation is asked for: what was due, and what was paid
        notes.batch(dues, paid)
    return paid


# --- checks ---------------------------------------------------------------------------------


def _in_play(hand: HandFold, player: str, role: str, event: Event, line: int | None) -> None:
    """Refuse ``player`` unless still in the hand (callers on the hot path test
    ``player in hand.still_in`` first and call this only to refuse)."""
    if player in hand.still_in:
        return
    if player not in hand.players:
        raise _refusal(
            event,
            line,
            f"{role} {player!r} is not at the table ({', '.join(hand.players)})",
            "not_at_table",
        )
    raise _refusal(
        event,
        line,
        f"{role} {player!r} has already won and takes no further part in the hand",
        "already_won",
    )


def _continues_wins(run: OpenWins, event: Event, line: int | None) -> bool:
    if not isinstance(event, WonOnDiscard) or not event.joins_run(run.discarder):
        return False
    if event.robbing_kong != run.robbing_kong:
        raise _refusal(
            event,
            line,
            "robbing-kong wins and ordinary wins cannot share one run of wins "
            f"on {run.discarder!r}'s tile",
        )
    if any(event.player == w for w, _ in run.winners):
        raise _refusal(
            event,
            line,
            f"{event.player!r} has already won on this tile of {run.discarder!r}",
            "already_won",
        )
    return True


def _win_context(hand: HandView, event: WonOnDiscard | SelfDrawn) -> WinContext:
    """How the win happened, read off the hand so far (the log never says it outright)."""
    winner = event.player
    if isinstance(event, SelfDrawn):
        self_drawn, discarder, kong_cannon, robbing_kong = True, None, False, False
        kong_bloom = hand.last_kong_by == winner
        # The replacement tile of the winner's exposed kong: that kong was the hand's last line.
        fed_by = hand.kongs[-1].fed_by if kong_bloom else None
        dealer_self_draw = winner == hand.dealer
    else:
        self_drawn, discarder, kong_bloom, fed_by = False, event.from_, False, None
        robbing_kong = event.robbing_kong
        kong_cannon = not robbing_kong and bool(hand.kong_runs[hand.players.index(discarder)])
        dealer_self_draw = False
    first_turn = event.first_turn
    return _new_context(
        winner=winner,
        discarder=discarder,
        self_drawn=self_drawn,
        kong_bloom=kong_bloom,
        kong_cannon=kong_cannon,
        robbing_kong=robbing_kong,
        last_tile=event.last_tile,
        # Asserted by the log, never inferred from discards it leaves out (variants.md).
        heavenly=first_turn and dealer_self_draw,
        earthly=first_turn and not dealer_self_draw,
        liable=event.liable,
        fed_by=fed_by,
        seat_wind=seat_wind(hand.players, hand.dealer, winner),
        round_wind=hand.round_wind,
        void_suit=void_suit_of(hand.void_suits, winner),
    )


def _fan_of(
    table: BaseRuleset,
    hand: HandView,
    event: WonOnDiscard | SelfDrawn,
    context: WinContext,
    line: int | None,
) -> tuple[int | None, bool]:
    """The fan a win is paid on and whether it is a limit hand. The one place that holds
    every win to the table's minimum fan, asserted or from tiles (a limit hand always may)."""
    has_tiles = win_has_tiles(event)
    fan, limit = table.claimed_fan(event.fan, event.limit, has_tiles=has_tiles)
    if not has_tiles:
        minimum = table.minimum_fan()
        if not limit and fan is not None and fan < minimum:
            raise _refusal(
                event,
                line,
                f"fan {fan} is below the table minimum of {minimum}",
                "below_minimum_fan",
            )
        return fan, limit
    return _fan_from_tiles(table, event, context, line)


def _fan_from_tiles(
    table: BaseRuleset, event: WonOnDiscard | SelfDrawn, context: WinContext, line: int | None
) -> tuple[int | None, bool]:
    """The fan a win with tiles is paid on: the tiles', which the log may only repeat."""

    def refuse(problem: str, code: str = "bad_tiles") -> RuleError:
        return _refusal(event, line, problem, code)

    try:
        result = derive_win(table, event, context)
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
    minimum = table.minimum_fan()
    if result.fan < minimum:
        raise refuse(
            f"the tiles make {result.fan} fan ({breakdown}), below the table minimum of {minimum}",
            "below_minimum_fan",
        )
    return result.fan, False


# --- events ---------------------------------------------------------------------------------


def _void_suit_chosen(hand: HandFold, event: VoidSuitChosen, line: int | None) -> None:
    if not hand._table.void_suits:
        raise _refusal(event, line, f"{hand._table.title} has no void suit", "wrong_ruleset")
    if event.player not in hand.still_in:
        _in_play(hand, event.player, "player", event, line)
    if void_suit_of(hand.void_suits, event.player) is not None:
        raise _refusal(event, line, f"{event.player!r} has already chosen a void suit this hand")
    hand.void_suits = (*hand.void_suits, (event.player, event.suit))
    hand.last_kong_by = None


def _discarded(hand: HandFold, event: Discarded, line: int | None) -> None:
    player = event.player
    if player not in hand.still_in:
        _in_play(hand, player, "player", event, line)
    if hand.kong_runs[hand._seat[player]]:
        _reset_run(hand, player)
    hand.last_kong_by = None
    if player not in hand.discarders:
        hand.discarders = hand.discarders | {player}


def _reset_run(hand: HandFold, player: str) -> None:
    i = hand._seat[player]
    if hand.kong_runs[i]:
        runs = list(hand.kong_runs)
        runs[i] = ()
        hand.kong_runs = tuple(runs)


def _kong_declared(hand: HandFold, event: KongDeclared, line: int | None) -> None:
    player, from_ = event.player, event.from_
    still_in = hand.still_in
    if player not in still_in:
        _in_play(hand, player, "player", event, line)
    # Four kongs use all sixteen tiles of four kinds plus the pair: a fifth cannot be held
    # (and an unbounded run of kongs would make every later event slower). Every rule set.
    kongs = hand.kongs
    if len(kongs) >= MAX_KONGS and sum(k.player == player for k in kongs) >= MAX_KONGS:
        raise _refusal(
            event,
            line,
            f"{player!r} has already declared {MAX_KONGS} kongs this hand; "
            f"a player declares at most {MAX_KONGS}",
        )
    if from_ is not None:
        if from_ not in still_in:
            _in_play(hand, from_, "from", event, line)
        if from_ == player:
            raise _refusal(
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
    transfers = _transfers(payments, player, _KONG_REASONS[event.kind], line)
    # Every check has run: from here on the hand changes.
    if from_ is not None:
        _reset_run(hand, from_)
        if from_ not in hand.discarders:
            hand.discarders = hand.discarders | {from_}
    runs = list(hand.kong_runs)
    i = hand._seat[player]
    runs[i] = (*runs[i], len(kongs))
    paid = _pay(hand, transfers)
    kong = _new_kong(player, event.kind, line, tuple([(t.payer, t.amount) for t in paid]), from_)
    hand.kongs = (*kongs, kong)
    hand.kong_runs = tuple(runs)
    hand.last_kong_by = event.player


# Each kind of kong's transfer reason.
_KONG_REASONS: Final[dict[str, Reason]] = {
    kind: cast(Reason, f"kong_{kind}") for kind in get_args(KongKind)
}


def _won(hand: HandFold, event: WonOnDiscard | SelfDrawn, line: int | None) -> None:
    still_in = hand.still_in
    if event.player not in still_in:
        _in_play(hand, event.player, "player", event, line)
    discarder = event.from_ if type(event) is WonOnDiscard else None
    if discarder is not None:
        if discarder not in still_in:
            _in_play(hand, discarder, "from", event, line)
        if discarder == event.player:
            raise _refusal(
                event,
                line,
                "a player cannot win on their own discard ('from' names the winner)",
                "self_reference",
            )
    if event.liable is not None:
        if event.liable not in hand.players:
            raise _refusal(
                event,
                line,
                f"liable {event.liable!r} is not at the table ({', '.join(hand.players)})",
                "not_at_table",
            )
        if event.liable == event.player:
            raise _refusal(
                event,
                line,
                f"liable {event.liable!r} is the winner; the liable player is someone else",
                "self_reference",
            )
    if event.first_turn:
        _check_first_turn(hand, event, line)
    table = hand._table
    context = _win_context(hand, event)
    fan, limit = _fan_of(table, hand, event, context, line)
    reason: Reason = "self_drawn" if discarder is None else "won_on_discard"
    payments = table.win_payments(hand, context, fan, limit)
    transfers = _transfers(payments, event.player, reason, line)
    # Every check has run: from here on the hand changes.
    _pay(hand, transfers)
    if discarder is not None:
        run = hand.open_wins
        if run is None:
            run = _new_run(
                discarder,
                context.robbing_kong,
                ((event.player, line),),
                winners_before=hand.winners,
                discarders_before=hand.discarders,
            )
        else:
            run = _replace_run(run, winners=(*run.winners, (event.player, line)))
    _record_win(hand, event.player, discarder)
    if discarder is not None:
        hand.open_wins = run
        if discarder not in hand.discarders:
            hand.discarders = hand.discarders | {discarder}
    if table.hand_ends_after_win(hand):
        close_open_wins(hand)
        hand.ended = True


def _transfers(
    payments: Payments, payee: str, reason: Reason, line: int | None
) -> tuple[Transfer, ...]:
    """A hook's payments as transfers, each with the event's reason unless it names its own."""
    new = _new_transfer  # its parameters are untyped: a third item is a Reason by contract
    return tuple([new(p[0], payee, p[1], p[2] if len(p) == 3 else reason, line) for p in payments])


def _check_first_turn(hand: HandView, event: WonOnDiscard | SelfDrawn, line: int | None) -> None:
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
        raise _refusal(event, line, problem)


def _record_win(hand: HandFold, winner: str, discarder: str | None) -> None:
    # Blood flow keeps winners in: "`winners` lists each winner once, in order of their first win".
    if not hand.first_winners:
        hand.first_winners = (winner,)
        hand.first_discarder = discarder
        hand.first_run_open = discarder is not None
    elif hand.first_run_open and hand.open_wins is not None:
        hand.first_winners = (*hand.first_winners, winner)
    if winner not in hand.winners:
        hand.winners = (*hand.winners, winner)
        hand.still_in = still_in_of(hand.players, hand.winners, hand._winners_leave)
    hand.last_kong_by = None


def _close_wins(hand: HandFold) -> None:
    run = hand.open_wins
    assert run is not None
    run_kongs = hand.kong_runs[hand.players.index(run.discarder)]
    hand.open_wins = None
    _reset_run(hand, run.discarder)
    hand.first_run_open = False
    if not run_kongs:
        return
    dues, passed = hand._table.kong_money_passing(hand, run, run_kongs)
    if not dues:
        return
    # Passed money is one batch (variants.md, "Table stakes").
    _pay(hand, dues)
    hand.passed = hand.passed | frozenset(passed)


def _wall_exhausted(hand: HandFold, event: WallExhausted, line: int | None) -> None:
    _pay(hand, hand._table.settle_wall(hand, event.remaining, line))
    hand.ended = True
    hand.last_kong_by = None


def _false_win(hand: HandFold, event: FalseWin, line: int | None) -> None:
    """A false win: what it costs (the rule set's), then the hand ends void, or play goes on
    with the offender's kong window emptied and the kongs it gave back counted as passed."""
    player = event.player
    _in_play(hand, player, "player", event, line)
    table = hand._table
    returned = table.false_win_returns(hand, player)
    _pay(hand, table.settle_false_win(hand, player, line))
    hand.last_kong_by = None
    if returned:
        hand.passed = hand.passed | frozenset(returned)
    if table.false_win_ends_hand():
        hand.ended = True
        hand.false_win_by = player
    else:
        _reset_run(hand, player)


# Each in-hand event class and how it is folded (a dictionary: one lookup per event).
_HANDLERS: Final[dict[type[Any], Callable[[HandFold, Any, int | None], None]]] = {
    Discarded: _discarded,
    KongDeclared: _kong_declared,
    WonOnDiscard: _won,
    SelfDrawn: _won,
    WallExhausted: _wall_exhausted,
    VoidSuitChosen: _void_suit_chosen,
    FalseWin: _false_win,
}
HAND_EVENT_TYPES: Final = frozenset(_HANDLERS)
