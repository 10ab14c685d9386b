"""Sichuan's quick fold: a hand settled straight from its events (``replay --json``, recording).

The general fold (:mod:`mjledger.fold.hand`) builds the frozen values a hand is made of — a
:class:`~mjledger.rules.values.Transfer` per payment, a kong's record, a win's context, the
:class:`~mjledger.rules.state.HandState` — and the output then takes each apart again into
JSON. Most Sichuan hands a backend logs are the same few events with asserted facts: void
suits, discards, kongs, wins with their fan given, an empty wall with what each player still in
holds. This fold settles such a hand in one loop over plain values, into the values its output
and its stored closing are read off (:class:`~mjledger.rules.protocol.QuickHand`; rules.md,
"Sichuan"). Every decision — what a kong collects, whether and how kong money
passes, the order of the wall's checks, who deals next — is the one the rule set's hooks make,
called from :mod:`mjledger.rules.sichuan.settle`: this module keeps only its loop over the
events and the places where it hands a hand back.

A win or an empty wall that shows its tiles is settled here too, through the very
statements the general fold settles it with: the win's context and fan
(:func:`mjledger.rules.wins.win_context` and :func:`~mjledger.rules.wins.fan_of`, which read
this fold's working hand as they read the general fold's: both are a
:class:`~mjledger.rules.wins.WinView`) and the wall's facts
(:func:`mjledger.rules.sichuan.wall.wall_states`). Whatever they refuse, this fold does not
word: it hands the hand back.

It decides nothing the general fold would decide differently, because it decides only the
common case. A first-turn claim, anything refused, a table variant other than blood flow,
table stakes: there it raises :class:`~mjledger.rules.protocol.Undecided`, and the
caller folds the hand again, from its ``hand_started``, with the general fold (the events it
drew are in ``drawn``). Property tests compare the two outputs on legal, variant, simulated
tile and mutated logs.
"""

from __future__ import annotations

from collections.abc import Iterator
from functools import lru_cache
from typing import Any, Final

import attrs

from mjledger._replace import constructor
from mjledger.errors import RuleError
from mjledger.log.events import (
    Discarded,
    Event,
    KongDeclared,
    SelfDrawn,
    VoidSuitChosen,
    WallExhausted,
    WonOnDiscard,
    win_has_tiles,
)
from mjledger.rules.base import BaseRuleset
from mjledger.rules.protocol import QuickHand, Undecided
from mjledger.rules.sichuan import scoring, settle
from mjledger.rules.sichuan.options import SichuanRules
from mjledger.rules.sichuan.wall import wall_states
from mjledger.rules.values import MAX_KONGS, KongPayment, still_in_of
from mjledger.rules.wins import fan_of, win_context
from mjledger.tiles.notation import Wind

# The table variants this fold plays only at their defaults (a table that sets one is folded
# by the general fold throughout). Blood flow it plays: its winners stay in and only the wall
# ends the hand (settle.winners_leave, settle.ends_after_win).
_DEFAULT_VARIANTS: Final = {
    a.name: a.default
    for a in attrs.fields(SichuanRules)
    if a.metadata.get("variant") and a.name != "blood_flow"
}
_KONG_REASONS: Final = {kind: f"kong_{kind}" for kind in scoring.KONG_PAYMENT}
# A kong's record, built without running attrs' ``__init__``.
_new_kong: Final = constructor(KongPayment)


class _Hand:
    """One hand's working values while the quick fold plays it: plain lists and tuples, and
    what a win's context is read off (a :class:`~mjledger.rules.wins.WinView`)."""

    __slots__ = (
        "dealer",
        "first_discarder",
        "first_run_open",
        "first_winners",
        "kong_runs",
        "kongs",
        "last_kong_by",
        "net",
        "passed",
        "players",
        "round_wind",
        "run",
        "still",
        "transfers",
        "void_suits",
        "winners",
    )

    def __init__(self, players: tuple[str, ...], dealer: str) -> None:
        self.players = players
        self.dealer = dealer
        self.round_wind: Wind = "east"  # a quick fold's table never changes it
        self.void_suits: tuple[tuple[str, str], ...] = ()
        self.last_kong_by: str | None = None  # the last line's konger (a kong bloom's)
        self.still = players
        self.winners: list[str] = []
        self.transfers: list[dict[str, Any]] = []
        self.net = dict.fromkeys(players, 0)
        self.kong_runs: list[list[int]] = [[] for _ in players]  # per seat: kongs since discard
        self.kongs: list[KongPayment] = []  # each with what each of its payers paid
        self.passed: set[int] = set()
        # The open run of wins on one discard: discarder, robbing a kong, (winner, line) each.
        self.run: tuple[str, bool, list[tuple[str, int | None]]] | None = None
        self.first_winners: list[str] = []
        self.first_discarder: str | None = None
        self.first_run_open = False

    def pay(self, payer: str, payee: str, amount: int, reason: str, line: int | None) -> None:
        self.transfers.append(
            {"from": payer, "to": payee, "amount": amount, "reason": reason, "line": line}
        )
        net = self.net
        net[payer] -= amount
        net[payee] += amount


@lru_cache(maxsize=64)
def _amounts(
    rules: SichuanRules,
) -> tuple[tuple[int, ...], tuple[int, ...], dict[tuple[str, bool], int]]:
    """The amounts of a table with these house rules, worked out once for equal rules (a
    store records many short matches, each decoding its own equal rules): what one payer
    pays for a win on a discard and a self-draw, by fan up to the cap (every fan above pays
    as the cap does), and what each payer of a kong pays, by kind and whether it was
    claimed from a discard. Read only, never changed."""
    fans = range(rules.fan_cap + 1)
    return (
        tuple(scoring.sichuan_win_amount(rules, f) for f in fans),
        tuple(scoring.sichuan_self_draw_amount(rules, f) for f in fans),
        {
            (kind, claimed): scoring.sichuan_kong_amount(rules, kind, claimed)
            for kind in _KONG_REASONS
            for claimed in (False, True)
        },
    )


class QuickSichuan:
    """The quick fold of one table: its players and house rules, the amounts worked out once."""

    __slots__ = (
        "_cap",
        "_kong_amount",
        "_leave",
        "_players",
        "_rules",
        "_seat",
        "_self_draw",
        "_table",
        "_win",
    )

    def __init__(self, table: BaseRuleset, rules: SichuanRules) -> None:
        players = table.players
        self._table = table  # what a win with tiles is evaluated by, as the general fold has it
        self._rules = rules
        self._leave = settle.winners_leave(rules)
        self._players = players
        self._seat = {p: i for i, p in enumerate(players)}
        self._cap = rules.fan_cap
        self._win, self._self_draw, self._kong_amount = _amounts(rules)

    @staticmethod
    def at(table: BaseRuleset) -> QuickSichuan | None:
        """The quick fold of a bound Sichuan table, or None where a variant asks for the
        general fold."""
        rules = table.rules
        assert isinstance(rules, SichuanRules)
        if any(getattr(rules, name) != value for name, value in _DEFAULT_VARIANTS.items()):
            return None
        if settle.refunds_instead(rules):  # kong money refunded on a deal-in: the general fold
            return None
        return QuickSichuan(table, rules)

    def fold(
        self,
        number: int,
        dealer: str,
        streak: int,
        events: Iterator[tuple[int | None, Event]],
        drawn: list[tuple[int | None, Event]],
    ) -> QuickHand:
        """:meth:`mjledger.rules.protocol.QuickHands.fold`, for a Sichuan table."""
        seat = self._seat
        hand = _Hand(self._players, dealer)
        chose: set[str] = set()
        append, kong_runs = drawn.append, hand.kong_runs
        # Each event's class compared by identity (the log's classes have no subclasses).
        event: Any
        for item in events:
            append(item)
            line, event = item
            kind = type(event)
            if hand.run is not None and not (kind is WonOnDiscard and event.joins_run(hand.run[0])):
                self._close_run(hand)
            if kind is Discarded:
                player = event.player
                if player not in hand.still:
                    raise Undecided
                runs = kong_runs[seat[player]]
                if runs:
                    runs.clear()
                hand.last_kong_by = None
            elif kind is VoidSuitChosen:
                player = event.player
                if player not in hand.still or player in chose:
                    raise Undecided
                chose.add(player)
                hand.void_suits = (*hand.void_suits, (player, event.suit))
                hand.last_kong_by = None
            elif kind is KongDeclared:
                self._kong(hand, event, line)
            elif kind is WonOnDiscard or kind is SelfDrawn:
                if self._won(hand, event, line):
                    break
            elif kind is WallExhausted:
                self._wall(hand, event, line)
                break
            else:  # a hand_started, a false win, anything the general fold refuses
                raise Undecided
        else:  # the log ends in the hand: the general fold settles what the end closes
            raise Undecided
        return QuickHand(
            number,
            dealer,
            streak,
            "east",
            "won" if hand.winners else "void",
            hand.winners,
            hand.transfers,
            hand.net,
            settle.next_dealer(dealer, hand.first_winners, hand.first_discarder),
        )

    def _close_run(self, hand: _Hand) -> None:
        """rules.md, "Kong money passing": the run of wins on one discard closes."""
        assert hand.run is not None
        discarder, robbing, run_winners = hand.run
        hand.run = None
        hand.first_run_open = False
        i = self._seat[discarder]
        window = hand.kong_runs[i]
        if not window:
            return
        hand.kong_runs[i] = []
        rules = self._rules
        if settle.money_kept(rules, robbing, len(run_winners) > 1) is not None:
            return
        passing = settle.kongs_passing(rules, tuple(window))
        amount = sum(hand.kongs[k].total for k in passing)
        lines = dict(run_winners)
        shares = settle.passing_shares(rules, self._players, discarder, tuple(lines), amount)
        for w, share in shares:
            hand.pay(discarder, w, share, "kong_money_passed", lines[w])
        if shares:
            hand.passed.update(passing)

    def _kong(self, hand: _Hand, event: KongDeclared, line: int | None) -> None:
        player, fed, kind = event.player, event.from_, event.kind
        still, kongs = hand.still, hand.kongs
        if player not in still or sum(k.player == player for k in kongs) >= MAX_KONGS:
            raise Undecided
        if fed is not None:
            if fed not in still or fed == player:
                raise Undecided
            hand.kong_runs[self._seat[fed]] = []
        amount = self._kong_amount[kind, fed is not None]
        reason = _KONG_REASONS[kind]
        transfers, net = hand.transfers, hand.net
        payments: list[tuple[str, int]] = []
        for payer in settle.kong_payers(self._rules, player, fed, still):
            transfers.append(
                {"from": payer, "to": player, "amount": amount, "reason": reason, "line": line}
            )
            net[payer] -= amount
            net[player] += amount
            payments.append((payer, amount))
        hand.kong_runs[self._seat[player]].append(len(kongs))
        kongs.append(_new_kong(player, kind, line, tuple(payments), fed))
        hand.last_kong_by = player

    def _won(self, hand: _Hand, event: WonOnDiscard | SelfDrawn, line: int | None) -> bool:
        """Settle a win (its fan asserted, or derived from its tiles by the general fold's
        own statements); whether it ends the hand."""
        player, still = event.player, hand.still
        if player not in still or event.limit or event.first_turn or event.liable is not None:
            raise Undecided
        discarder = None
        if type(event) is WonOnDiscard:
            discarder = _check_discard_win(hand, event)
        fan = self._fan(hand, event, line)
        capped = fan if fan < self._cap else self._cap
        transfers, net = hand.transfers, hand.net
        if discarder is not None:
            assert type(event) is WonOnDiscard
            amount = self._win[capped]
            transfers.append(
                {
                    "from": discarder,
                    "to": player,
                    "amount": amount,
                    "reason": "won_on_discard",
                    "line": line,
                }
            )
            net[discarder] -= amount
            net[player] += amount
            run = hand.run
            if run is None:
                hand.run = (discarder, event.robbing_kong, [(player, line)])
            else:
                run[2].append((player, line))
        else:
            amount = self._self_draw[capped]
            for payer in still:
                if payer != player:
                    due = {"from": payer, "to": player, "amount": amount, "reason": "self_drawn"}
                    due["line"] = line
                    transfers.append(due)
                    net[payer] -= amount
                    net[player] += amount
        return self._record_win(hand, player, discarder)

    def _fan(self, hand: _Hand, event: WonOnDiscard | SelfDrawn, line: int | None) -> int:
        """The fan the win is paid on: asserted, or what the general fold derives from its
        tiles (:func:`~mjledger.rules.wins.fan_of`, reading this hand); anything it refuses
        is the general fold's to word."""
        if not win_has_tiles(event):
            if event.fan is None:
                raise Undecided
            return event.fan
        try:
            fan, limit = fan_of(self._table, event, win_context(hand, event), line)
        except RuleError:
            raise Undecided from None
        if fan is None or limit:
            raise Undecided
        return fan

    def _record_win(self, hand: _Hand, player: str, discarder: str | None) -> bool:
        """The win recorded (the first winners, who is still in); whether the hand ends
        (:func:`~mjledger.rules.sichuan.settle.ends_after_win`)."""
        hand.last_kong_by = None
        if not hand.first_winners:
            hand.first_winners.append(player)
            hand.first_discarder = discarder
            hand.first_run_open = discarder is not None
        elif hand.first_run_open and discarder is not None:
            hand.first_winners.append(player)  # another winner on the first win's discard
        winners = hand.winners
        if player not in winners:
            winners.append(player)
            hand.still = still_in_of(self._players, tuple(winners), self._leave)
        if not settle.ends_after_win(self._rules, winners):
            return False
        if hand.run is not None:
            self._close_run(hand)
        return True

    def _wall(self, hand: _Hand, event: WallExhausted, line: int | None) -> None:
        """rules.md, "When the wall runs out": what the line asserts of each player still in,
        or what their tiles make (:func:`~mjledger.rules.sichuan.wall.wall_states`, the
        general fold's hook's own reading)."""
        remaining, rules = event.remaining, self._rules
        checked = settle.wall_players(rules, self._players, hand.still, hand.winners)
        if remaining is None or remaining.keys() != set(checked):
            raise Undecided
        try:
            states = wall_states(rules, hand.void_suits, remaining, checked)
        except RuleError:
            raise Undecided from None
        kongs = [(k.player, k.payments) for k in hand.kongs]
        checks = settle.wall_checks(
            rules, self._players, checked, hand.winners, states, kongs, hand.passed
        )
        pay = hand.pay
        for reason, _, _, dues in checks:
            for payer, payee, amount in dues:
                pay(payer, payee, amount, reason, line)


def _check_discard_win(hand: _Hand, event: WonOnDiscard) -> str:
    """The discarder of a win the general fold would take as it is: still in and not the
    winner, the win joining the open run of wins on that discard as a new winner."""
    run, discarder = hand.run, event.from_
    if discarder not in hand.still or discarder == event.player:
        raise Undecided
    if run is not None and (
        event.robbing_kong != run[1] or any(w == event.player for w, _ in run[2])
    ):
        raise Undecided
    return discarder
