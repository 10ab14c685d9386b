"""Sichuan's quick fold: a hand's replay output straight from its events, for ``replay --json``.

The general fold (:mod:`mjledger.fold.hand`) builds the frozen values a hand is made of — a
:class:`~mjledger.rules.state.Transfer` per payment, a kong's record, a win's context, the
:class:`~mjledger.rules.state.HandState` — and the output then takes each apart again into
JSON. Most Sichuan hands a backend logs are the same few events with asserted facts: void
suits, discards, kongs, wins with their fan given, an empty wall with what each player still in
holds. This fold settles such a hand in one loop over plain values and writes its output at
once (rules.md, "Sichuan"; the amounts come from :mod:`mjledger.rules.sichuan.scoring`).

It decides nothing the general fold would decide differently, because it decides only the
common case. A line with tiles, a first-turn claim, anything refused, a table variant other
than blood battle's own rules, table stakes: there it raises
:class:`~mjledger.rules.protocol.Undecided`, and the caller folds the hand again, from its
``hand_started``, with the general fold (the events it drew are in ``drawn``). Property tests
compare the two outputs on legal, variant and mutated logs.
"""

from __future__ import annotations

from collections.abc import Callable, Iterator
from typing import Any, Final

import attrs

from mjledger.log.events import (
    Discarded,
    Event,
    KongDeclared,
    SelfDrawn,
    VoidSuitChosen,
    WallExhausted,
    WonOnDiscard,
)
from mjledger.rules.payout import next_in_turn
from mjledger.rules.protocol import HandJson, Undecided
from mjledger.rules.sichuan import scoring
from mjledger.rules.sichuan.options import SichuanRules
from mjledger.rules.state import MAX_KONGS

# The table variants this fold plays only at their defaults (a table that sets one is folded
# by the general fold throughout).
_DEFAULT_VARIANTS: Final = {
    a.name: a.default for a in attrs.fields(SichuanRules) if a.metadata.get("variant")
}
_KONG_REASONS: Final = {kind: f"kong_{kind}" for kind in scoring.KONG_PAYMENT}


class QuickSichuan:
    """The quick fold of one table: its players and house rules, the amounts worked out once."""

    __slots__ = (
        "_cap",
        "_each_full",
        "_kong",
        "_passing",
        "_pig",
        "_players",
        "_seat",
        "_self_draw",
        "_split_none",
        "_win",
    )

    def __init__(self, rules: SichuanRules, players: tuple[str, ...]) -> None:
        self._players = players
        self._seat = {p: i for i, p in enumerate(players)}
        self._cap = rules.fan_cap
        # What one payer pays, by fan up to the cap (every fan above pays as the cap does).
        self._win = tuple(scoring.sichuan_win_amount(rules, f) for f in range(self._cap + 1))
        self._self_draw = tuple(
            scoring.sichuan_self_draw_amount(rules, f) for f in range(self._cap + 1)
        )
        self._kong = {kind: scoring.sichuan_kong_amount(rules, kind) for kind in _KONG_REASONS}
        self._pig = scoring.sichuan_flower_pig_amount(rules)
        self._passing = rules.kong_money_passing
        self._split_none = rules.kong_passing_split == "none"
        self._each_full = rules.kong_passing_split == "each_full"

    @staticmethod
    def at(rules: SichuanRules, players: tuple[str, ...]) -> QuickSichuan | None:
        """The quick fold of a table, or None where a variant asks for the general fold."""
        if any(getattr(rules, name) != value for name, value in _DEFAULT_VARIANTS.items()):
            return None
        return QuickSichuan(rules, players)

    def fold(
        self,
        number: int,
        dealer: str,
        streak: int,
        events: Iterator[tuple[int | None, Event]],
        drawn: list[tuple[int | None, Event]],
    ) -> tuple[HandJson, str]:
        """:meth:`mjledger.rules.protocol.QuickHands.fold`, for a Sichuan table."""
        players, seat, cap = self._players, self._seat, self._cap
        win, self_draw, kong_amount = self._win, self._self_draw, self._kong
        still = players
        winners: list[str] = []
        transfers: list[dict[str, Any]] = []
        net = dict.fromkeys(players, 0)
        chose: set[str] = set()
        runs: list[list[int]] = [[] for _ in players]  # per seat: kongs since its last discard
        kongs: list[tuple[str, list[tuple[str, int]]]] = []  # owner, what each payer paid
        passed: set[int] = set()
        # The open run of wins on one discard: discarder, robbing a kong, (winner, line) each.
        run: tuple[str, bool, list[tuple[str, int | None]]] | None = None
        first_winners: list[str] = []
        first_discarder: str | None = None
        first_run_open = False

        def pay(payer: str, payee: str, amount: int, reason: str, line: int | None) -> None:
            transfers.append(
                {"from": payer, "to": payee, "amount": amount, "reason": reason, "line": line}
            )
            net[payer] -= amount
            net[payee] += amount

        def close_run() -> None:
            """rules.md, "Kong money passing": the run of wins on one discard closes."""
            nonlocal run, first_run_open
            assert run is not None
            discarder, robbing, run_winners = run
            run = None
            first_run_open = False
            i = seat[discarder]
            run_kongs, runs[i] = runs[i], []
            several = len(run_winners) > 1
            if not run_kongs or robbing or not self._passing or (several and self._split_none):
                return
            amount = sum(a for k in run_kongs for _, a in kongs[k][1])
            if several and self._each_full:
                shares = [(w, line, amount) for w, line in run_winners]
            else:
                part, rest = divmod(amount, len(run_winners))
                names = tuple(w for w, _ in run_winners)
                first = next_in_turn(players, discarder, names) if rest else None
                shares = [(w, line, part + rest if w == first else part) for w, line in run_winners]
            paid = False
            for w, line, share in shares:
                if share > 0:
                    pay(discarder, w, share, "kong_money_passed", line)
                    paid = True
            if paid:
                passed.update(run_kongs)

        for item in events:
            drawn.append(item)
            line, event = item
            if run is not None and not (isinstance(event, WonOnDiscard) and event.from_ == run[0]):
                close_run()
            if isinstance(event, Discarded):
                player = event.player
                if player not in still:
                    raise Undecided
                i = seat[player]
                if runs[i]:
                    runs[i] = []
            elif isinstance(event, VoidSuitChosen):
                player = event.player
                if player not in still or player in chose:
                    raise Undecided
                chose.add(player)
            elif isinstance(event, KongDeclared):
                player, fed = event.player, event.from_
                if player not in still or sum(owner == player for owner, _ in kongs) >= MAX_KONGS:
                    raise Undecided
                amount = kong_amount[event.kind]
                if fed is not None:
                    if fed not in still or fed == player:
                        raise Undecided
                    payments = [(fed, amount)]
                    runs[seat[fed]] = []
                else:
                    payments = [(p, amount) for p in still if p != player]
                reason = _KONG_REASONS[event.kind]
                for payer, due in payments:
                    pay(payer, player, due, reason, line)
                runs[seat[player]].append(len(kongs))
                kongs.append((player, payments))
            elif isinstance(event, WonOnDiscard | SelfDrawn):
                player, fan = event.player, event.fan
                if (
                    player not in still
                    or fan is None
                    or event.limit
                    or event.first_turn
                    or event.liable is not None
                    or event.tiles is not None
                    or event.winning_tile is not None
                    or event.melds is not None
                ):
                    raise Undecided
                capped = fan if fan < cap else cap
                if isinstance(event, WonOnDiscard):
                    discarder: str | None = event.from_
                    if discarder not in still or discarder == player:
                        raise Undecided
                    if run is not None and (
                        event.robbing_kong != run[1] or any(w == player for w, _ in run[2])
                    ):
                        raise Undecided
                    pay(discarder, player, win[capped], "won_on_discard", line)
                    if run is None:
                        run = (discarder, event.robbing_kong, [(player, line)])
                    else:
                        run[2].append((player, line))
                else:
                    discarder = None
                    for payer in still:
                        if payer != player:
                            pay(payer, player, self_draw[capped], "self_drawn", line)
                if not first_winners:
                    first_winners.append(player)
                    first_discarder = discarder
                    first_run_open = discarder is not None
                elif first_run_open and discarder is not None:
                    first_winners.append(player)  # another winner on the first win's discard
                if player not in winners:
                    winners.append(player)
                    still = tuple([p for p in players if p not in winners])
                if len(winners) >= 3:  # blood battle: the hand ends when three have won
                    if run is not None:
                        close_run()
                    break
            elif isinstance(event, WallExhausted):
                self._wall(event, still, kongs, passed, pay, line)
                break
            else:  # a hand_started, a false win, anything the general fold refuses
                raise Undecided
        else:  # the log ends in the hand: the general fold settles what the end closes
            raise Undecided
        if not first_winners:
            next_dealer = dealer
        elif len(first_winners) == 1:
            next_dealer = first_winners[0]
        else:
            assert first_discarder is not None
            next_dealer = first_discarder
        return {
            "number": number,
            "dealer": dealer,
            "dealer_streak": streak,
            "round_wind": "east",
            "outcome": "won" if winners else "void",
            "winners": winners,
            "transfers": transfers,
            "net": net,
            "next_dealer": next_dealer,
        }, next_dealer

    def _wall(
        self,
        event: WallExhausted,
        still: tuple[str, ...],
        kongs: list[tuple[str, list[tuple[str, int]]]],
        passed: set[int],
        pay: Callable[[str, str, int, str, int | None], None],
        line: int | None,
    ) -> None:
        """rules.md, "When the wall runs out": flower pig, not ready, kong refund, in order,
        from what the line asserts of each player still in."""
        remaining = event.remaining
        if remaining is None or remaining.keys() != set(still):
            raise Undecided
        pigs: list[str] = []
        not_ready: list[str] = []
        ready: dict[str, int] = {}
        for player in still:
            entry = remaining[player]
            if entry.has_tiles:
                raise Undecided
            if entry.flower_pig:
                pigs.append(player)
                not_ready.append(player)
            elif entry.ready:
                assert entry.best_fan is not None
                ready[player] = self._win[min(entry.best_fan, self._cap)]
            else:
                not_ready.append(player)
        for pig in pigs:
            for other in self._players:
                if other not in pigs:
                    pay(pig, other, self._pig, "flower_pig", line)
        for payer in not_ready:
            for payee, amount in ready.items():
                pay(payer, payee, amount, "not_ready", line)
        for payer in not_ready if kongs else ():
            for k, (owner, payments) in enumerate(kongs):
                if owner == payer and k not in passed:
                    for original, amount in payments:
                        pay(payer, original, amount, "kong_refund", line)
