"""An independent model of rules.md and variants.md, over a log's JSON dicts.

A second, deliberately naive reading of the spec, written from the spec's sentences and not
from mjledger's code: the replay's transfers, balances and dealer rotation must be exactly the
model's. It trusts the log to be legal (the strategies only generate legal logs); it checks
nothing. Quoted phrases are the spec's words.

Every payment goes through :func:`Model.settle`, one *batch* at a time (variants.md, "Table
stakes": "Each event settles as one batch"), so the stakes cap lives in one place.
"""

from __future__ import annotations

from collections import Counter
from dataclasses import dataclass, field
from typing import Any

from . import helpers

Line = dict[str, Any]
# A transfer as the contract writes it: (from, to, amount, reason, line).
T = tuple[str, str, int, str, int]

# The defaults of log-format.md (tests/helpers.py), and those of the variants (variants.md).
# Variants, second set (variants.md): the false win, winners at the wall, the stakes leftover.
SECOND_SET_DEFAULTS_B: Line = {"stakes_leftover": "after_payer"}
HK_VARIANT_DEFAULTS: Line = {"void_hand_dealer": "stays", **SECOND_SET_DEFAULTS_B}
SC_VARIANT_DEFAULTS: Line = {
    "blood_flow": False,
    "exposed_kong_pays": "discarder",
    "kong_passing_scope": "all",
    "claimed_kong_bloom": "self_draw",
    "pig_pays": "non_pigs",
    "not_ready_includes_pigs": True,
    "refund_to_winners": True,
    "added_kong_from_hand": "paid",
    "sichuan_false_win": "refused",
    "blood_flow_wall": "all",
    **SECOND_SET_DEFAULTS_B,
}
HK_DEFAULTS: Line = {**helpers.HK_DEFAULTS, **HK_VARIANT_DEFAULTS}
SC_DEFAULTS: Line = {**helpers.SC_DEFAULTS, **SC_VARIANT_DEFAULTS}
HALF_SPICY = [1, 2, 4, 8, 16, 24, 32, 48, 64, 96, 128, 192, 256, 384]
SPICY = [2**f for f in range(14)]
KONG_UNITS = {"exposed": 2, "added": 1, "concealed": 2}
WINDS = ["east", "south", "west", "north"]


@dataclass
class Kong:
    player: str
    paid: list[tuple[str, int]]  # what each payer actually paid (stakes may cut it)


@dataclass
class Hand:
    dealer: str
    streak: int
    wind: int
    transfers: Counter[T] = field(default_factory=Counter)
    winners: list[str] = field(default_factory=list)
    ended: bool = False
    kongs: list[Kong] = field(default_factory=list)
    runs: dict[str, list[int]] = field(default_factory=dict)  # kongs since each one's discard
    passed: set[int] = field(default_factory=set)
    run: tuple[str, bool, list[tuple[str, int]]] | None = None  # discarder, robbing, winners
    first_winners: list[str] = field(default_factory=list)
    first_discarder: str | None = None
    first_run_open: bool = False
    previous: Line | None = None  # the hand's previous line (claimed_kong_bloom)

    @property
    def run_from(self) -> str | None:
        return self.run[0] if self.run is not None else None

    next_dealer: str | None = None
    balances: dict[str, int] | None = None
    rotated: bool = False


class Model:
    def __init__(self, lines: list[Line]) -> None:
        head = lines[0]
        self.ruleset: str = head["ruleset"]
        self.players: list[str] = head["players"]
        defaults = HK_DEFAULTS if self.ruleset == "hongkong" else SC_DEFAULTS
        self.rules: Line = {**defaults, **head.get("rules", {})}
        self.stand_alone = head["type"] == "hand_started"
        stakes = head.get("stakes")
        self.balances: dict[str, int] | None = dict(stakes) if stakes else None
        self.bust: set[str] = set()
        self.bust_hand: int | None = None  # the index of the hand in which someone went bust
        self.over = False
        self.hands: list[Hand] = []
        self.first_dealer = head.get("dealer") if self.stand_alone else None
        self.next: tuple[str, int, int] | None = None  # dealer, streak, wind of the next hand
        if self.stand_alone:
            wind = WINDS.index(head.get("round_wind", "east"))
            self.hands.append(Hand(head["dealer"], head.get("dealer_streak", 0), wind))
        for n, line in enumerate(lines[1:], 2):
            self.line(line, n)
        if self.hands and self.hands[-1].run is not None:
            self.close_run()  # "or at the end of the log"
            self.end_if_done()
        if self.hands and not self.hands[-1].ended and self.balances is not None:
            self.hands[-1].balances = dict(self.balances)

    # --- money ------------------------------------------------------------------------------

    def settle(self, dues: list[T]) -> list[T]:
        """One batch: without stakes, what is due; with stakes, capped as variants.md says."""
        hand = self.hands[-1]
        if self.balances is None:
            paid = [d for d in dues if d[2] > 0]
        else:
            paid = []
            before = dict(self.balances)
            for payer in dict.fromkeys(d[0] for d in dues):
                mine = [d for d in dues if d[0] == payer]
                if payer in self.bust:
                    continue  # "Once bust, a player pays nothing more, even after receiving."
                total = sum(d[2] for d in mine)
                if total <= before[payer]:
                    paid.extend(mine)
                    continue
                # "pays their whole balance instead, split among that batch's payees in
                # proportion to what each was due, rounded down; the points left over go one
                # each to those payees in turn order starting after the payer"
                due: dict[str, int] = {}
                for d in mine:
                    due[d[1]] = due.get(d[1], 0) + d[2]
                share = {p: before[payer] * a // total for p, a in due.items()}
                left = before[payer] - sum(share.values())
                if self.rules["stakes_leftover"] == "lowest_seat":
                    # second set: "all of them to the payee that comes first in the order of
                    # `players`"
                    share[next(p for p in self.players if p in due)] += left
                    left = 0
                i = self.players.index(payer)
                for step in range(1, 4):
                    p = self.players[(i + step) % 4]
                    if left and p in due:
                        share[p] += 1
                        left -= 1
                # "the transfers to a payee keep their reasons, filled in the order the checks run"
                mine_paid = []
                for d in mine:
                    take = min(d[2], share[d[1]])
                    share[d[1]] -= take
                    mine_paid.append((d[0], d[1], take, d[3], d[4]))
                # second set, "lowest_seat": the payer still "pays their whole balance": what
                # the first payee gets beyond its dues rides on its last transfer.
                for p, extra in share.items():
                    if extra:
                        i = max(j for j, d in enumerate(mine_paid) if d[1] == p)
                        d = mine_paid[i]
                        mine_paid[i] = (d[0], d[1], d[2] + extra, d[3], d[4])
                paid.extend(mine_paid)
            paid = [d for d in paid if d[2] > 0]  # "Zero transfers are left out."
            for d in paid:
                self.balances[d[0]] -= d[2]
                self.balances[d[1]] += d[2]
            for p in self.players:
                if self.balances[p] == 0:
                    self.bust.add(p)
            if self.bust and self.bust_hand is None:
                self.bust_hand = len(self.hands) - 1
        for d in paid:
            hand.transfers[d] += 1
        return paid

    # --- one line ---------------------------------------------------------------------------

    def line(self, ev: Line, n: int) -> None:
        t = ev["type"]
        hand = self.hands[-1] if self.hands else None
        # "new_discard": true "closes the run before it ... and opens a new one"
        continuing = (
            t == "won_on_discard"
            and hand is not None
            and ev["from"] == hand.run_from
            and not ev.get("new_discard")
        )
        if hand is not None and hand.run is not None and not continuing:
            self.close_run()
            self.end_if_done()
        if t == "hand_started":
            self.start_hand(ev)
            return
        assert hand is not None
        if t == "discarded":
            hand.runs[ev["player"]] = []
        elif t == "kong_declared":
            self.kong(hand, ev, n)
        elif t in ("won_on_discard", "self_drawn", "false_win") and self.ruleset == "hongkong":
            self.hongkong_win(hand, ev, n)
        elif t == "won_on_discard":
            self.sichuan_discard_win(hand, ev, n)
        elif t == "self_drawn":
            self.sichuan_self_draw(hand, ev, n)
        elif t == "false_win":
            self.sichuan_false_win(hand, ev, n)
        elif t == "wall_exhausted":
            if self.ruleset == "sichuan":
                self.wall(hand, ev, n)
            hand.ended = True
        hand.previous = ev
        self.end_if_done()

    def start_hand(self, ev: Line) -> None:
        if not self.hands:
            dealer, streak, wind = ev.get("dealer", self.players[0]), 0, 0
        else:
            assert self.next is not None
            dealer, streak, wind = self.next
        self.hands.append(Hand(dealer, streak, wind))

    def still_in(self, hand: Hand) -> list[str]:
        # blood_flow: "every player stays in until wall_exhausted"
        if self.rules.get("blood_flow"):
            return list(self.players)
        return [p for p in self.players if p not in hand.winners]

    def win(self, hand: Hand, player: str, discarder: str | None, continuing: bool) -> None:
        # "the first winner deals; several winners on the first discard: the discarder"
        if not hand.first_winners:
            hand.first_winners, hand.first_discarder = [player], discarder
            hand.first_run_open = discarder is not None
        elif continuing and hand.first_run_open:
            hand.first_winners.append(player)
        if player not in hand.winners:  # "winners lists each winner once"
            hand.winners.append(player)

    # --- Hong Kong --------------------------------------------------------------------------

    def share(self, fan: int | None, limit: bool) -> int:
        r = self.rules
        counted = r["fan_limit"] if limit or fan is None else min(fan, r["fan_limit"])
        units = (HALF_SPICY if r["table"] == "half_spicy" else SPICY)[counted]
        return int(units * r["points_per_unit"])

    def hongkong_win(self, hand: Hand, ev: Line, n: int) -> None:
        t, p = ev["type"], ev["player"]
        others = [q for q in self.players if q != p]
        dues: list[T] = []
        if t == "false_win":
            # "the player pays each of the other three what a limit-hand self-draw would
            # collect (3 shares at fan_limit)"
            dues = [(p, q, 3 * self.share(None, True), "false_win", n) for q in others]
            self.settle(dues)
            hand.ended = True
            return
        share = self.share(ev.get("fan"), bool(ev.get("limit")))
        pays = self.rules["discard_pays"]
        if t == "self_drawn":
            dues = [(q, p, share, t, n) for q in others]
        elif pays == "half":
            half = share // 2
            dues = [(ev["from"], p, share, t, n)]
            dues += [(q, p, half, t, n) for q in others if q != ev["from"]]
        else:
            dues = [(ev["from"], p, (3 if pays == "all" else 2) * share, t, n)]
        if "liable" in ev:
            # "pays everything the win collects", reason liability
            dues = [(ev["liable"], p, sum(d[2] for d in dues), "liability", n)]
        self.settle(dues)
        self.win(hand, p, ev.get("from"), continuing=False)
        hand.ended = True

    # --- Sichuan ----------------------------------------------------------------------------

    def sc(self, fan: int) -> int:
        return int(self.rules["base"] * 2 ** min(fan, self.rules["fan_cap"]))

    def kong(self, hand: Hand, ev: Line, n: int) -> None:
        if ev["kind"] == "exposed":
            hand.runs[ev["from"]] = []  # a claimed discard "counts as a discard"
        if self.ruleset != "sichuan":
            return
        p, kind, base = ev["player"], ev["kind"], self.rules["base"]
        if kind == "exposed" and self.rules["exposed_kong_pays"] == "discarder":
            dues = [(ev["from"], p, 2 * base, "kong_exposed", n)]
        elif kind == "exposed":
            # "1 × base from every player still in but the konger, the discarder too"
            dues = [(q, p, base, "kong_exposed", n) for q in self.still_in(hand) if q != p]
        elif ev.get("from_hand") and self.rules["added_kong_from_hand"] == "unpaid":
            dues = []  # 手牌加杠不收分: "a from_hand added kong makes no transfer"
        else:
            amount = KONG_UNITS[kind] * base
            dues = [(q, p, amount, "kong_" + kind, n) for q in self.still_in(hand) if q != p]
        paid = self.settle(dues) if dues else []
        hand.kongs.append(Kong(p, [(d[0], d[2]) for d in paid]))
        hand.runs.setdefault(p, []).append(len(hand.kongs) - 1)

    def sichuan_discard_win(self, hand: Hand, ev: Line, n: int) -> None:
        p, frm = ev["player"], ev["from"]
        self.settle([(frm, p, self.sc(ev["fan"]), "won_on_discard", n)])
        continuing = hand.run is not None
        if hand.run is not None:
            hand.run[2].append((p, n))
        else:
            hand.run = (frm, bool(ev.get("robbing_kong")), [(p, n)])
        self.win(hand, p, frm, continuing)

    def self_draw_amount(self, fan: int) -> int:
        bonus = self.rules["self_draw_bonus"]
        return self.sc(fan + (bonus == "fan")) + (self.rules["base"] if bonus == "base" else 0)

    def sichuan_self_draw(self, hand: Hand, ev: Line, n: int) -> None:
        p = ev["player"]
        amount = self.self_draw_amount(ev["fan"])
        prev = hand.previous
        if (
            self.rules["claimed_kong_bloom"] == "feeder_pays"
            and prev is not None
            and prev["type"] == "kong_declared"
            and prev["kind"] == "exposed"
            and prev["player"] == p
        ):
            # 点杠花放炮: "only the player who fed that kong pays, what one payer of that
            # self-draw would pay"
            self.settle([(prev["from"], p, amount, "self_drawn", n)])
        else:
            self.settle([(q, p, amount, "self_drawn", n) for q in self.still_in(hand) if q != p])
        self.win(hand, p, None, continuing=False)

    def sichuan_false_win(self, hand: Hand, ev: Line, n: int) -> None:
        """Second set, 诈胡 ``"flat"``: "In one batch (line: the `false_win`): the offender pays
        `8 × base` to each other player still in the hand ...; and returns every kong payment
        they received in this hand that has not already been passed or refunded ... to the
        player who made it, winners included". "Their kong window is emptied with it"; "The
        hand goes on"."""
        p = ev["player"]
        dues = [(p, q, 8 * self.rules["base"], "false_win", n) for q in self.still_in(hand)]
        dues = [d for d in dues if d[1] != p]
        mine = [k for k, kong in enumerate(hand.kongs) if kong.player == p and k not in hand.passed]
        for k in mine:
            dues += [(p, q, amount, "kong_refund", n) for q, amount in hand.kongs[k].paid]
        self.settle(dues)
        hand.passed.update(mine)
        hand.runs[p] = []

    def close_run(self) -> None:
        hand = self.hands[-1]
        assert hand.run is not None
        discarder, robbing, winners = hand.run
        hand.run = None
        hand.first_run_open = False
        kongs = hand.runs.get(discarder, [])
        hand.runs[discarder] = []
        r = self.rules
        if robbing or not kongs or self.ruleset != "sichuan" or not r["kong_money_passing"]:
            return
        if r["kong_money_passing"] == "refund":
            # 杠上炮退税: "the money the window's last kong ... collected, each payer's own
            # amount as actually paid, goes back from the konger to that payer", once per
            # discard, "the line of the run's first win"
            last = kongs[-1]
            line = winners[0][1]
            refunds = [(discarder, q, a, "kong_refund", line) for q, a in hand.kongs[last].paid]
            refunds = [d for d in refunds if d[2] > 0]
            if refunds:
                self.settle(refunds)
                hand.passed.add(last)  # "no longer the konger's"
            return
        if len(winners) > 1 and r["kong_passing_split"] == "none":
            return
        if r["kong_passing_scope"] == "last":
            kongs = kongs[-1:]  # "the kong the discarder declared most recently in the window"
        total = sum(a for k in kongs for _, a in hand.kongs[k].paid)
        if len(winners) > 1 and r["kong_passing_split"] == "each_full":
            dues = [(discarder, w, total, "kong_money_passed", line) for w, line in winners]
        else:
            i = self.players.index(discarder)
            first = next(
                self.players[(i + s) % 4]
                for s in range(1, 4)
                if self.players[(i + s) % 4] in dict(winners)
            )
            part, rest = divmod(total, len(winners))
            dues = [
                (discarder, w, part + (rest if w == first else 0), "kong_money_passed", line)
                for w, line in winners
            ]
        self.settle(dues)
        hand.passed.update(kongs)

    def wall(self, hand: Hand, ev: Line, n: int) -> None:
        r = self.rules
        remaining: dict[str, Line] = ev["remaining"]
        pigs = [p for p, s in remaining.items() if s.get("flower_pig")]
        ready = {p: s["best_fan"] for p, s in remaining.items() if s.get("ready")}
        dues: list[T] = []
        still_in = self.still_in(hand)
        if r["blood_flow_wall"] == "exempt_winners":
            # second set: "under "still_in" only players who have not won receive it"
            still_in = [p for p in self.players if p not in hand.winners]
        for pig in pigs:
            payees = still_in if r["pig_pays"] == "still_in" else self.players
            dues += [
                (pig, q, self.sc(r["fan_cap"]), "flower_pig", n) for q in payees if q not in pigs
            ]
        for p in remaining:
            if p in ready or (p in pigs and not r["not_ready_includes_pigs"]):
                continue
            dues += [(p, q, self.sc(best), "not_ready", n) for q, best in ready.items()]
        for p in remaining:
            if p in ready:
                continue
            for k, kong in enumerate(hand.kongs):
                if kong.player != p or k in hand.passed:
                    continue
                for q, amount in kong.paid:
                    if q in hand.winners and not r["refund_to_winners"]:
                        continue
                    dues.append((p, q, amount, "kong_refund", n))
        self.settle(dues)

    # --- end of a hand and the dealer -------------------------------------------------------

    def end_if_done(self) -> None:
        hand = self.hands[-1]
        if (
            self.ruleset == "sichuan"
            and not self.rules["blood_flow"]
            and len(hand.winners) >= 3
            and not hand.ended
        ):
            if hand.run is not None:
                self.close_run()
            hand.ended = True
        if not hand.ended or hand.rotated:
            return
        if hand.run is not None:
            return  # a run still open settles at the next line
        self.rotate(hand)

    def rotate(self, hand: Hand) -> None:
        hand.rotated = True
        p = self.players
        if self.ruleset == "hongkong":
            passes = bool(hand.winners) and hand.winners[0] != hand.dealer
            if not hand.winners and self.rules["void_hand_dealer"] == "passes":
                passes = True
            dealer = p[(p.index(hand.dealer) + 1) % 4] if passes else hand.dealer
        elif not hand.first_winners:
            dealer = hand.dealer
        elif len(hand.first_winners) == 1:
            dealer = hand.first_winners[0]
        else:
            assert hand.first_discarder is not None
            dealer = hand.first_discarder
        wind = hand.wind
        if self.first_dealer is None:
            self.first_dealer = self.hands[0].dealer
        if (
            self.ruleset == "hongkong"
            and not self.stand_alone
            and dealer != hand.dealer
            and dealer == self.first_dealer
        ):
            if wind == 3:
                self.over = True
            else:
                wind += 1
        if self.balances is not None:
            hand.balances = dict(self.balances)
            if self.bust:
                self.over = True  # "the match ends with the hand in which anyone went bust"
        streak = hand.streak + 1 if dealer == hand.dealer else 0
        hand.next_dealer = None if self.over else dealer
        self.next = (dealer, streak, wind)


def model(lines: list[Line]) -> Model:
    return Model(lines)
