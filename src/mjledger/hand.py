"""One hand as a pure fold: ``evolve_hand(state, event, line) -> state``, settling as it goes.

Each accepted event adds its transfers at once (settlement is online: a backend can read the
payouts after every line), except the two things the rules settle later — kong money passing,
settled when a run of wins on one discard closes, and the end-of-wall checks. Every check runs
before anything changes, so a rejected event leaves the state exactly as it was.

Transfers are recorded one per payer and payee, each with the log line that caused it, which
is what a support person replaying a disputed hand reads step by step.
"""

from __future__ import annotations

from collections.abc import Iterable
from typing import Final, Literal, get_args

from attrs import frozen

from mjledger import scoring, tile_facts
from mjledger._replace import replacer
from mjledger.errors import RuleError, TileError
from mjledger.events import (
    Discarded,
    Event,
    KongDeclared,
    PlayerAtWallEnd,
    SelfDrawn,
    VoidSuitChosen,
    WallExhausted,
    Wind,
    WonOnDiscard,
    win_has_tiles,
)
from mjledger.house_rules import HongKongRules, HouseRules, SichuanRules
from mjledger.tile_facts import WallFacts

Reason = Literal[
    "won_on_discard",
    "self_drawn",
    "kong_exposed",
    "kong_added",
    "kong_concealed",
    "kong_money_passed",
    "flower_pig",
    "not_ready",
    "kong_refund",
]
REASONS: Final[tuple[Reason, ...]] = get_args(Reason)
Outcome = Literal["unfinished", "won", "void"]


@frozen
class Transfer:
    """``amount`` points from ``payer`` to ``payee``, for ``reason``, caused by log ``line``."""

    payer: str
    payee: str
    amount: int
    reason: Reason
    line: int | None = None


@frozen
class KongPayment:
    """A Sichuan kong and what it collected, kept until the hand ends because that money may
    still pass to a winner or be refunded at an empty wall."""

    player: str
    kind: str
    line: int | None
    payments: tuple[tuple[str, int], ...]

    @property
    def total(self) -> int:
        return sum(amount for _, amount in self.payments)


@frozen
class OpenWins:
    """Wins on one discard (or one robbed kong) not yet closed: more winners may follow."""

    discarder: str
    robbing_kong: bool
    winners: tuple[tuple[str, int | None], ...]


@frozen
class HandState:
    """Everything a hand's settlement depends on, after some prefix of its events."""

    ruleset: str
    rules: HouseRules
    players: tuple[str, ...]
    number: int
    dealer: str
    dealer_streak: int = 0
    round_wind: Wind = "east"
    winners: tuple[str, ...] = ()
    transfers: tuple[Transfer, ...] = ()
    void_suits: tuple[tuple[str, str], ...] = ()
    kongs: tuple[KongPayment, ...] = ()
    # Per player (in seat order): indices into ``kongs`` declared since that player's last discard.
    kong_runs: tuple[tuple[int, ...], ...] = ((), (), (), ())
    passed: frozenset[int] = frozenset()
    open_wins: OpenWins | None = None
    first_winners: tuple[str, ...] = ()
    first_discarder: str | None = None
    last_kong_by: str | None = None
    # Who has discarded so far (a claimed discard counts): heavenly/earthly wins need it.
    discarders: frozenset[str] = frozenset()
    ended: bool = False
    next_dealer: str | None = None

    @property
    def outcome(self) -> Outcome:
        if not self.ended:
            return "unfinished"
        return "won" if self.winners else "void"

    @property
    def still_in(self) -> tuple[str, ...]:
        return tuple(p for p in self.players if p not in self.winners)

    def net(self) -> dict[str, int]:
        """Each player's balance for this hand; sums to zero because it is built from transfers."""
        return net_of(self.players, self.transfers)

    def void_suit(self, player: str) -> str | None:
        return dict(self.void_suits).get(player)

    def dealer_after(self) -> str:
        """Who deals next by the hand's own rule, ignoring the end of a match."""
        if self.ruleset == "hongkong":
            if not self.winners or self.winners[0] == self.dealer:
                return self.dealer
            return self.players[(self.players.index(self.dealer) + 1) % 4]
        if not self.first_winners:
            return self.dealer
        if len(self.first_winners) == 1:
            return self.first_winners[0]
        assert self.first_discarder is not None
        return self.first_discarder


def net_of(players: Iterable[str], transfers: Iterable[Transfer]) -> dict[str, int]:
    net = dict.fromkeys(players, 0)
    for t in transfers:
        net[t.payer] -= t.amount
        net[t.payee] += t.amount
    return net


_evolve = replacer(HandState)


HandEvent = VoidSuitChosen | Discarded | KongDeclared | WonOnDiscard | SelfDrawn | WallExhausted


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
    if isinstance(event, Discarded):
        return _discarded(hand, event, refuse)
    if isinstance(event, KongDeclared):
        return _kong_declared(hand, event, line, refuse)
    if isinstance(event, WonOnDiscard):
        return _won_on_discard(hand, event, line, refuse)
    if isinstance(event, SelfDrawn):
        return _self_drawn(hand, event, line, refuse)
    if isinstance(event, WallExhausted):
        return _wall_exhausted(hand, event, line, refuse)
    if isinstance(event, VoidSuitChosen):
        return _void_suit_chosen(hand, event, refuse)
    raise refuse("this event does not belong inside a hand")


def close_hand(hand: HandState) -> HandState:
    """Settle what the end of the log closes: an open run of wins (its kong money passing)."""
    return close_wins(hand) if hand.open_wins is not None else hand


# --- checks ---------------------------------------------------------------------------------


def _in_play(hand: HandState, player: str, role: str, refuse: _Refuse) -> None:
    if player not in hand.players:
        raise refuse(f"{role} {player!r} is not at the table ({', '.join(hand.players)})")
    if player in hand.winners:
        raise refuse(f"{role} {player!r} has already won and takes no further part in the hand")


def _continues_wins(run: OpenWins, event: Event, refuse: _Refuse) -> bool:
    if not isinstance(event, WonOnDiscard) or event.from_ != run.discarder:
        return False
    if event.robbing_kong != run.robbing_kong:
        raise refuse(
            "robbing-kong wins and ordinary wins cannot share one run of wins "
            f"on {run.discarder!r}'s tile"
        )
    return True


def _fan_of(
    hand: HandState, event: WonOnDiscard | SelfDrawn, refuse: _Refuse
) -> tuple[int | None, bool]:
    """The fan a win is paid on and whether it is a (Hong Kong) limit hand."""
    rules = hand.rules
    if win_has_tiles(event):
        return _fan_from_tiles(hand, event, refuse)
    if isinstance(rules, HongKongRules):
        if event.limit:
            return event.fan, True
        if event.fan is None:
            raise refuse("a Hong Kong win needs 'fan' (or 'limit': true for a limit hand)")
        if event.fan < rules.min_fan:
            raise refuse(f"fan {event.fan} is below the table minimum of {rules.min_fan}")
        return event.fan, False
    if event.limit:
        raise refuse("'limit' is a Hong Kong rule; a Sichuan win has no limit hand")
    if event.fan is None:
        raise refuse("a Sichuan win needs 'fan' (or its tiles)")
    return event.fan, False


def _fan_from_tiles(
    hand: HandState, event: WonOnDiscard | SelfDrawn, refuse: _Refuse
) -> tuple[int, bool]:
    rules = hand.rules
    if isinstance(rules, SichuanRules) and event.limit:
        raise refuse("'limit' is a Hong Kong rule; a Sichuan win has no limit hand")
    self_drawn = isinstance(event, SelfDrawn)
    untouched = not hand.kongs and not hand.winners
    situation = tile_facts.WinSituation(
        kong_bloom=self_drawn and hand.last_kong_by == event.player,
        kong_cannon=isinstance(event, WonOnDiscard)
        and not event.robbing_kong
        and bool(hand.kong_runs[hand.players.index(event.from_)]),
        heavenly=self_drawn and event.player == hand.dealer and untouched and not hand.discarders,
        earthly=self_drawn
        and event.player != hand.dealer
        and untouched
        and event.player not in hand.discarders,
    )
    try:
        result = tile_facts.derive_win(
            rules,
            event,
            situation,
            void_suit=hand.void_suit(event.player),
            players=hand.players,
            dealer=hand.dealer,
            round_wind=hand.round_wind,
        )
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
    if isinstance(rules, HongKongRules) and result.fan < rules.min_fan:
        raise refuse(
            f"the tiles make {result.fan} fan ({breakdown}), below the table minimum "
            f"of {rules.min_fan}"
        )
    return result.fan, False


# --- events ---------------------------------------------------------------------------------


def _void_suit_chosen(hand: HandState, event: VoidSuitChosen, refuse: _Refuse) -> HandState:
    if hand.ruleset != "sichuan":
        raise refuse("Hong Kong has no void suit")
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
    hand: HandState, event: KongDeclared, line: int | None, refuse: _Refuse
) -> HandState:
    _in_play(hand, event.player, "player", refuse)
    if event.from_ is not None:
        _in_play(hand, event.from_, "from", refuse)
        if event.from_ == event.player:
            raise refuse("an exposed kong is claimed from another player's discard, not one's own")
    rules = hand.rules
    discarders = hand.discarders if event.from_ is None else hand.discarders | {event.from_}
    if not isinstance(rules, SichuanRules):  # Hong Kong kongs pay nothing; still remembered
        kong = KongPayment(event.player, event.kind, line, ())
        return _evolve(
            hand, kongs=(*hand.kongs, kong), last_kong_by=event.player, discarders=discarders
        )
    amount = scoring.sichuan_kong_amount(rules, event.kind)
    if event.from_ is not None:
        payers: tuple[str, ...] = (event.from_,)
    else:
        payers = tuple(p for p in hand.still_in if p != event.player)
    payments = tuple((p, amount) for p in payers)
    reason: Reason = f"kong_{event.kind}"  # type: ignore[assignment]
    transfers = tuple(Transfer(p, event.player, a, reason, line) for p, a in payments)
    runs = list(_reset_run(hand, event.from_) if event.from_ is not None else hand.kong_runs)
    i = hand.players.index(event.player)
    runs[i] = (*runs[i], len(hand.kongs))
    return _evolve(
        hand,
        kongs=(*hand.kongs, KongPayment(event.player, event.kind, line, payments)),
        kong_runs=tuple(runs),
        transfers=hand.transfers + transfers,
        last_kong_by=event.player,
        discarders=discarders,
    )


def _record_win(
    hand: HandState, winner: str, discarder: str | None, continuing: bool
) -> dict[str, object]:
    changes: dict[str, object] = {"winners": (*hand.winners, winner), "last_kong_by": None}
    if not hand.first_winners:
        changes["first_winners"] = (winner,)
        changes["first_discarder"] = discarder
    elif continuing and len(hand.winners) == len(hand.first_winners):
        changes["first_winners"] = (*hand.first_winners, winner)
    return changes


def _won_on_discard(
    hand: HandState, event: WonOnDiscard, line: int | None, refuse: _Refuse
) -> HandState:
    _in_play(hand, event.player, "player", refuse)
    _in_play(hand, event.from_, "from", refuse)
    if event.from_ == event.player:
        raise refuse("a player cannot win on their own discard ('from' names the winner)")
    fan, limit = _fan_of(hand, event, refuse)
    rules = hand.rules
    if isinstance(rules, HongKongRules):
        share = scoring.hongkong_share(rules, fan, limit)
        amount = scoring.hongkong_discard_payment(rules, share)
        changes = _record_win(hand, event.player, event.from_, continuing=False)
        return _evolve(
            hand,
            transfers=(
                *hand.transfers,
                Transfer(event.from_, event.player, amount, "won_on_discard", line),
            ),
            ended=True,
            **changes,
        )
    assert fan is not None
    amount = scoring.sichuan_win_amount(rules, fan)
    run = hand.open_wins
    continuing = run is not None
    if run is None:
        run = OpenWins(event.from_, event.robbing_kong, ((event.player, line),))
    else:
        run = OpenWins(run.discarder, run.robbing_kong, (*run.winners, (event.player, line)))
    changes = _record_win(hand, event.player, event.from_, continuing)
    changes["discarders"] = hand.discarders | {event.from_}
    hand = _evolve(
        hand,
        transfers=(
            *hand.transfers,
            Transfer(event.from_, event.player, amount, "won_on_discard", line),
        ),
        open_wins=run,
        **changes,
    )
    return _end_if_three_won(hand)


def _self_drawn(hand: HandState, event: SelfDrawn, line: int | None, refuse: _Refuse) -> HandState:
    _in_play(hand, event.player, "player", refuse)
    fan, limit = _fan_of(hand, event, refuse)
    rules = hand.rules
    payers = tuple(p for p in hand.still_in if p != event.player)
    if isinstance(rules, HongKongRules):
        amount = scoring.hongkong_share(rules, fan, limit)
    else:
        assert fan is not None
        amount = scoring.sichuan_self_draw_amount(rules, fan)
    changes = _record_win(hand, event.player, None, continuing=False)
    hand = _evolve(
        hand,
        transfers=hand.transfers
        + tuple(Transfer(p, event.player, amount, "self_drawn", line) for p in payers),
        **changes,
    )
    if isinstance(rules, HongKongRules):
        return _evolve(hand, ended=True)
    return _end_if_three_won(hand)


def _end_if_three_won(hand: HandState) -> HandState:
    # Blood battle: play goes on until three players have won; the last one cannot win alone.
    if len(hand.winners) < 3:
        return hand
    return _evolve(close_hand(hand), ended=True)


def close_wins(hand: HandState) -> HandState:
    """Close the open run of wins: the discarder's run of kongs ends, and its money passes.

    rules.md, "Kong money passing": the money of every kong the discarder declared since their
    previous discard goes to the winner(s) of that discard; nothing passes on a robbing win.
    """
    run = hand.open_wins
    assert run is not None
    hand = _evolve(hand, open_wins=None)
    i = hand.players.index(run.discarder)
    run_kongs = hand.kong_runs[i]
    hand = _evolve(hand, kong_runs=_reset_run(hand, run.discarder))
    rules = hand.rules
    if (
        run.robbing_kong
        or not run_kongs
        or not isinstance(rules, SichuanRules)
        or not rules.kong_money_passing
        or (len(run.winners) > 1 and rules.kong_passing_split == "none")
    ):
        return hand
    amount = sum(hand.kongs[k].total for k in run_kongs)
    winners = tuple(w for w, _ in run.winners)
    lines = dict(run.winners)
    first = scoring.next_in_turn(hand.players, run.discarder, winners)
    passed = tuple(
        Transfer(run.discarder, w, a, "kong_money_passed", lines[w])
        for w, a in scoring.split_evenly(amount, winners, first)
    )
    return _evolve(
        hand, transfers=hand.transfers + passed, passed=hand.passed | frozenset(run_kongs)
    )


def _wall_exhausted(
    hand: HandState, event: WallExhausted, line: int | None, refuse: _Refuse
) -> HandState:
    rules = hand.rules
    if not isinstance(rules, SichuanRules):
        if event.remaining is not None:
            raise refuse("a Hong Kong wall_exhausted carries no 'remaining'")
        return _evolve(hand, ended=True, last_kong_by=None)
    if event.remaining is None:
        raise refuse("a Sichuan wall_exhausted needs 'remaining' for every player still in")
    still_in = hand.still_in
    listed = set(event.remaining)
    missing = [p for p in still_in if p not in listed]
    extra = sorted(listed - set(still_in))
    if extra:
        who = extra[0]
        why = "has already won" if who in hand.players else "is not at the table"
        raise refuse(f"'remaining' names {who!r}, who {why}")
    if missing:
        raise refuse(f"'remaining' leaves out {missing[0]!r}, who is still in the hand")
    try:
        derived = tile_facts.derive_wall(rules, event.remaining, dict(hand.void_suits))
    except TileError as exc:
        raise refuse(str(exc)) from None
    states = {p: derived.get(p) or _asserted_wall_state(event.remaining[p]) for p in still_in}
    transfers = wall_transfers(rules, hand, states, line)
    return _evolve(hand, transfers=hand.transfers + transfers, ended=True, last_kong_by=None)


def _asserted_wall_state(claim: PlayerAtWallEnd) -> WallFacts:
    if claim.flower_pig:
        return WallFacts(flower_pig=True, ready=False)
    if claim.ready:
        assert claim.best_fan is not None
        return WallFacts(flower_pig=False, ready=True, best_fan=claim.best_fan)
    return WallFacts(flower_pig=False, ready=False)


def wall_transfers(
    rules: SichuanRules, hand: HandState, states: dict[str, WallFacts], line: int | None
) -> tuple[Transfer, ...]:
    """rules.md, "When the wall runs out": flower pig, not ready, refund — in that order."""
    out: list[Transfer] = []
    pigs = [p for p, s in states.items() if s.flower_pig]
    pig_amount = scoring.sichuan_flower_pig_amount(rules)
    for pig in pigs:
        out.extend(
            Transfer(pig, other, pig_amount, "flower_pig", line)
            for other in hand.players
            if other not in pigs
        )
    ready = [p for p, s in states.items() if s.ready]
    not_ready = [p for p, s in states.items() if not s.ready]
    for payer in not_ready:
        out.extend(
            Transfer(
                payer,
                payee,
                scoring.sichuan_not_ready_amount(rules, states[payee].best_fan),
                "not_ready",
                line,
            )
            for payee in ready
        )
    for payer in not_ready:
        for k, kong in enumerate(hand.kongs):
            if kong.player != payer or k in hand.passed:
                continue
            out.extend(
                Transfer(payer, original, amount, "kong_refund", line)
                for original, amount in kong.payments
            )
    return tuple(out)
