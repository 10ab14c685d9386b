"""Hypothesis over random LEGAL logs of both rule sets (tests/strategies.py).

What must hold for every legal log (issue 2, "Tests that must exist"; log-format.md "Replay
output"): nets and totals sum to zero and add up, every transfer is positive and between two
players, settlement is online (a prefix of the log gives a prefix of the transfers), every
event round-trips through JSON, a Hong Kong hand has at most one win and a Sichuan winner
never pays after winning.
"""

from __future__ import annotations

import json
from collections import Counter
from typing import Any

from hypothesis import given
from hypothesis import strategies as st

from mjledger import (
    Transfer,
    decode_line,
    dumps_event,
    event_from_json,
    event_to_json,
    parse_log,
    replay,
    replay_bytes,
)
from mjledger.fold.hand import REASONS
from tests.helpers import HK_DEFAULTS, SC_DEFAULTS
from tests.strategies import legal_logs, log_text

WINS = ("won_on_discard", "self_drawn")


def flat(result: Any) -> list[Transfer]:
    return [t for hand in result.hands for t in hand.transfers]


def hand_spans(lines: list[dict]) -> list[tuple[int, int]]:
    """(first line, last line) of each hand's events, 1-based, in log order."""
    starts = [i + 1 for i, ln in enumerate(lines) if ln["type"] == "hand_started"]
    ends = [*(s - 1 for s in starts[1:]), len(lines)] if starts else []
    return list(zip(starts, ends, strict=True))


@given(legal_logs())
def test_legal_logs_replay_and_every_hand_nets_to_zero(lines: list[dict]) -> None:
    """log-format.md: "`net` and `totals` sum to zero; every player appears in both"."""
    out = replay(log_text(lines)).to_json()
    players = out["players"]
    for hand in out["hands"]:
        assert sorted(hand["net"]) == sorted(players)
        assert sum(hand["net"].values()) == 0
        recomputed = dict.fromkeys(players, 0)
        for t in hand["transfers"]:
            recomputed[t["from"]] -= t["amount"]
            recomputed[t["to"]] += t["amount"]
        assert recomputed == hand["net"]
    assert sorted(out["totals"]) == sorted(players)
    assert sum(out["totals"].values()) == 0


@given(legal_logs())
def test_totals_are_the_sum_of_the_nets(lines: list[dict]) -> None:
    """log-format.md "Replay output": totals over the hands."""
    out = replay(log_text(lines)).to_json()
    summed: Counter[str] = Counter(dict.fromkeys(out["players"], 0))
    for hand in out["hands"]:
        summed.update(hand["net"])
    assert dict(summed) == out["totals"]


@given(legal_logs())
def test_every_transfer_is_positive_between_two_players_with_a_real_line(lines: list[dict]) -> None:
    """log-format.md: "A transfer is always positive and between two different players"; its
    `reason` is one of the nine codes and its `line` a line of the log inside its hand."""
    out = replay(log_text(lines)).to_json()
    players = set(out["players"])
    spans = hand_spans(lines)
    assert len(spans) == len(out["hands"])
    for hand, (first, last) in zip(out["hands"], spans, strict=True):
        for t in hand["transfers"]:
            assert type(t["amount"]) is int
            assert t["amount"] > 0
            assert t["from"] != t["to"]
            assert {t["from"], t["to"]} <= players
            assert t["reason"] in REASONS
            assert first < t["line"] <= last or (first == 1 and t["line"] >= 1)
            assert lines[t["line"] - 1]["type"] in (*WINS, "kong_declared", "wall_exhausted")


@given(legal_logs(), st.data())
def test_settlement_is_online_a_prefix_gives_a_prefix_of_the_transfers(
    lines: list[dict], data: st.DataObject
) -> None:
    """Issue 2: "replaying a prefix of a log that does not end inside a run of wins on one
    discard gives a prefix of the transfers" (rules.md: passing settles when the run closes)."""
    full = flat(replay(log_text(lines)))
    for k in range(1, len(lines) + 1):
        here, after = lines[k - 1], lines[k] if k < len(lines) else None
        inside_run = (
            after is not None
            and here["type"] == after["type"] == "won_on_discard"
            and here["from"] == after["from"]
        )
        if inside_run:
            continue
        prefix = flat(replay(log_text(lines[:k])))
        assert prefix == full[: len(prefix)], f"prefix of {k} lines"


@given(legal_logs())
def test_every_event_round_trips_through_json(lines: list[dict]) -> None:
    """Issue 2: "every event round-trips through JSON" — as a dict and as a log line."""
    for number, event in parse_log(log_text(lines)):
        as_json = event_to_json(event)
        assert json.loads(json.dumps(as_json)) == as_json
        assert event_from_json(as_json) == event
        assert decode_line(dumps_event(event), number) == event


@given(legal_logs())
def test_rewritten_log_replays_the_same(lines: list[dict]) -> None:
    """The codec writes lines a replay reads back to the same figures."""
    text = log_text(lines)
    rewritten = "".join(dumps_event(e) + "\n" for _, e in parse_log(text))
    assert replay(rewritten).to_json() == replay(text).to_json()


@given(legal_logs())
def test_hong_kong_hand_never_has_two_wins(lines: list[dict]) -> None:
    """rules.md: "The hand ends at the first win (one winner per hand)"."""
    out = replay(log_text(lines)).to_json()
    if out["ruleset"] != "hongkong":
        return
    for hand, (first, last) in zip(out["hands"], hand_spans(lines), strict=True):
        assert len(hand["winners"]) <= 1
        wins = [ln for ln in lines[first - 1 : last] if ln["type"] in WINS]
        assert len(wins) <= 1
        assert {t["line"] for t in hand["transfers"]} <= {
            first + i for i in range(last - first + 1)
        }
        assert not [t for t in hand["transfers"] if t["reason"].startswith("kong")]


@given(legal_logs("sichuan"))
def test_sichuan_winner_never_pays_after_winning(lines: list[dict]) -> None:
    """rules.md: "A player who has won leaves the hand and pays nothing more"; at the wall
    "Winners are not checked: they never pay here" (they may still be paid)."""
    out = replay(log_text(lines)).to_json()
    for hand, (first, last) in zip(out["hands"], hand_spans(lines), strict=True):
        won_at = {}
        for number in range(first, last + 1):
            ln = lines[number - 1]
            if ln["type"] in WINS:
                won_at[ln["player"]] = number
        assert list(won_at) == hand["winners"]
        assert len(hand["winners"]) <= 3
        for t in hand["transfers"]:
            if t["from"] in won_at:
                assert t["line"] < won_at[t["from"]], t


@given(legal_logs())
def test_outcome_and_next_dealer(lines: list[dict]) -> None:
    """log-format.md: only the log's last hand can be "unfinished", and then `next_dealer` is
    null; a finished hand names a next dealer at the table (the strategy never reaches the end
    of a Hong Kong match)."""
    out = replay(log_text(lines)).to_json()
    for i, hand in enumerate(out["hands"]):
        if hand["outcome"] == "unfinished":
            assert i == len(out["hands"]) - 1
            assert hand["next_dealer"] is None
        else:
            assert hand["next_dealer"] in out["players"]
            assert (hand["outcome"] == "won") == bool(hand["winners"])
        if out["ruleset"] == "sichuan":
            assert hand["round_wind"] == "east"


@given(legal_logs(), st.integers(1, 3), st.booleans())
def test_blank_lines_and_crlf_count_as_lines(lines: list[dict], blanks: int, crlf: bool) -> None:
    """log-format.md: "Lines are split on `\\n` only (a trailing `\\r` is dropped); blank or
    all-space lines are ignored but still counted" — every line number shifts by the blanks."""
    plain = replay(log_text(lines)).to_json()
    text = "\n" * (blanks - 1) + " \t\n" + log_text(lines, "\r\n" if crlf else "\n")
    shifted = replay_bytes(text.encode("utf-8")).to_json()
    for hand in plain["hands"]:
        for t in hand["transfers"]:
            t["line"] += blanks
    assert shifted == plain


# --- an independent model of rules.md -----------------------------------------------------------
#
# A second, deliberately naive reading of rules.md over the log's dicts, written from the spec
# and not from mjledger's code: the replay's transfers must be exactly the model's, per hand.

HALF_SPICY = [1, 2, 4, 8, 16, 24, 32, 48, 64, 96, 128, 192, 256, 384]
SPICY = [2**f for f in range(14)]
KONG_UNITS = {"exposed": 2, "added": 1, "concealed": 2}


def model_transfers(lines: list[dict]) -> list[Counter[tuple[Any, ...]]]:
    head = lines[0]
    ruleset, players = head["ruleset"], head["players"]
    rules = {**(HK_DEFAULTS if ruleset == "hongkong" else SC_DEFAULTS), **head.get("rules", {})}
    hands: list[Counter[tuple[Any, ...]]] = []
    h: dict[str, Any] = {}

    def pay(payer: str, payee: str, amount: int, reason: str, line: int) -> None:
        hands[-1][(payer, payee, amount, reason, line)] += 1

    def still_in() -> list[str]:
        return [p for p in players if p not in h["winners"]]

    def sc_win(fan: int) -> int:
        return int(rules["base"] * 2 ** min(fan, rules["fan_cap"]))

    def close_run() -> None:
        run = h.pop("run", None)
        if run is None:
            return
        discarder, robbing, winners = run
        kongs = h["runs"].get(discarder, [])
        h["runs"][discarder] = []
        if robbing or not kongs or not rules["kong_money_passing"]:
            return
        if len(winners) > 1 and rules["kong_passing_split"] == "none":
            return
        total = sum(sum(a for _, a in h["kongs"][k][1]) for k in kongs)
        i = players.index(discarder)
        in_turn = [players[(i + s) % 4] for s in range(1, 4)]
        first = next(p for p in in_turn if p in dict(winners))
        part, rest = divmod(total, len(winners))
        for w, line in winners:
            amount = part + (rest if w == first else 0)
            if amount:
                pay(discarder, w, amount, "kong_money_passed", line)
        h["passed"].update(kongs)

    def new_hand() -> None:
        hands.append(Counter())
        h.clear()
        h.update(winners=[], kongs=[], runs={}, passed=set())

    if head["type"] == "hand_started":
        new_hand()
    for n, ev in enumerate(lines[1:], 2):
        t = ev["type"]
        run = h.get("run")
        if run and not (t == "won_on_discard" and ev["from"] == run[0]):
            close_run()
        if t == "hand_started":
            new_hand()
        elif t == "discarded":
            h["runs"][ev["player"]] = []
        elif t == "kong_declared" and ruleset == "sichuan":
            p = ev["player"]
            payers = [ev["from"]] if ev["kind"] == "exposed" else [q for q in still_in() if q != p]
            amount = KONG_UNITS[ev["kind"]] * rules["base"]
            for q in payers:
                pay(q, p, amount, "kong_" + ev["kind"], n)
            h["kongs"].append((p, [(q, amount) for q in payers]))
            if ev["kind"] == "exposed":
                h["runs"][ev["from"]] = []
            h["runs"].setdefault(p, []).append(len(h["kongs"]) - 1)
        elif t in WINS and ruleset == "hongkong":
            fan = rules["fan_limit"] if ev.get("limit") else min(ev["fan"], rules["fan_limit"])
            share = (HALF_SPICY if rules["table"] == "half_spicy" else SPICY)[fan]
            share *= rules["points_per_unit"]
            if t == "self_drawn":
                for q in players:
                    if q != ev["player"]:
                        pay(q, ev["player"], share, t, n)
            else:
                times = 3 if rules["discard_pays"] == "all" else 2
                pay(ev["from"], ev["player"], times * share, t, n)
        elif t == "won_on_discard":
            pay(ev["from"], ev["player"], sc_win(ev["fan"]), t, n)
            if run and ev["from"] == run[0]:
                run[2].append((ev["player"], n))
            else:
                h["run"] = (ev["from"], bool(ev.get("robbing_kong")), [(ev["player"], n)])
            h["winners"].append(ev["player"])
        elif t == "self_drawn":
            p, bonus = ev["player"], rules["self_draw_bonus"]
            amount = sc_win(ev["fan"] + (bonus == "fan")) + (
                rules["base"] if bonus == "base" else 0
            )
            for q in still_in():
                if q != p:
                    pay(q, p, amount, t, n)
            h["winners"].append(p)
        elif t == "wall_exhausted" and ruleset == "sichuan":
            remaining = ev["remaining"]
            pigs = [p for p, s in remaining.items() if s.get("flower_pig")]
            ready = {p: s["best_fan"] for p, s in remaining.items() if s.get("ready")}
            for pig in pigs:
                for q in players:
                    if q not in pigs:
                        pay(pig, q, rules["base"] * 2 ** rules["fan_cap"], "flower_pig", n)
            for p in remaining:
                if p in ready:
                    continue
                for q, best in ready.items():
                    pay(p, q, sc_win(best), "not_ready", n)
                for k, (konger, payments) in enumerate(h["kongs"]):
                    if konger == p and k not in h["passed"]:
                        for q, amount in payments:
                            pay(p, q, amount, "kong_refund", n)
        if ruleset == "sichuan" and len(h.get("winners", ())) >= 3:
            close_run()
    if h:
        close_run()
    return hands


@given(legal_logs())
def test_replay_agrees_with_an_independent_model_of_the_rules(lines: list[dict]) -> None:
    """Every transfer of every hand, against a naive model written from rules.md alone."""
    out = replay(log_text(lines)).to_json()
    got = [
        Counter(
            (t["from"], t["to"], t["amount"], t["reason"], t["line"]) for t in hand["transfers"]
        )
        for hand in out["hands"]
    ]
    assert got == model_transfers(lines)
