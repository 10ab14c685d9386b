"""Replay speed of a large generated log, next to merely json-decoding the same lines.

Generates, deterministically from ``--seed``, a legal Sichuan blood-battle match of ``--hands``
hands (one log) and the same number of Hong Kong hands (as many complete matches as it takes,
since a Hong Kong match ends after the north round), then times in this one process, best of
``--repeat`` runs each:

(a) ``json.loads`` of every line — the floor any JSON Lines reader pays;
(b) ``mjledger.log.codec.parse_log`` — strict decoding plus structuring into event classes;
(c) ``mjledger.replay()`` — (b) plus the folds that check every event and settle the money.

Usage::

    .venv/bin/python benchmarks/bench_replay.py --hands 10000 --seed 1
    .venv/bin/python benchmarks/bench_replay.py --hands 2000 --profile   # + cProfile of (c)
    .venv/bin/python benchmarks/bench_replay.py --hands 50 --write /tmp/bench  # keep the logs

The generator is small and self-contained (it does not use mjledger); every log it writes is
replayed before anything is timed, so an illegal log stops the run instead of being measured.
"""

from __future__ import annotations

import argparse
import cProfile
import json
import pstats
import random
import sys
import time
from collections.abc import Callable, Iterator
from pathlib import Path

from mjledger import replay
from mjledger.log.codec import parse_log

PLAYERS = ("ana", "bo", "cy", "di")
SUITS = "mps"


def _tile(rng: random.Random, suits: str = SUITS, honours: bool = False) -> str:
    if honours and rng.random() < 0.3:
        return f"{rng.randint(1, 7)}z"
    return f"{rng.randint(1, 9)}{rng.choice(suits)}"


def _line(**fields: object) -> str:
    if "from_" in fields:
        fields["from"] = fields.pop("from_")
    return json.dumps(fields, separators=(", ", ": "))


def _kong(rng: random.Random, player: str, kind: str, from_: str | None = None) -> str:
    extra = {"from_": from_} if from_ is not None else {}
    return _line(type="kong_declared", player=player, kind=kind, **extra, tile=_tile(rng))


# --- Sichuan ----------------------------------------------------------------------------------


def sichuan_hand(rng: random.Random, first: bool) -> list[str]:
    """One blood-battle hand: voids, discards, kongs of every kind (kongs on replacement
    tiles too), robbed kongs, several winners on one discard, self-draws, an empty wall."""
    out = [_line(type="hand_started", dealer=PLAYERS[0]) if first else _line(type="hand_started")]
    for p in PLAYERS:
        out.append(_line(type="void_suit_chosen", player=p, suit=rng.choice(SUITS)))
    won: list[str] = []
    cur = rng.randrange(4)
    budget = rng.randint(10, 19)

    def still_in() -> list[str]:
        return [p for p in PLAYERS if p not in won]

    def after(player: str) -> int:
        i = PLAYERS.index(player)
        for step in range(1, 5):
            if PLAYERS[(i + step) % 4] not in won:
                return (i + step) % 4
        raise AssertionError("nobody left")

    def winners_on(discarder: str, robbing: bool) -> bool:
        """One run of wins on ``discarder``'s tile; True when the hand ended."""
        others = [p for p in still_in() if p != discarder]
        room = min(3 - len(won), len(others))
        k = 1 if rng.random() < 0.75 else rng.randint(1, room)
        for w in rng.sample(others, min(k, room)):
            extra = {"robbing_kong": True} if robbing else {}
            fan = rng.choice((0, 1, 1, 2, 2, 3, 4, 5))
            out.append(_line(type="won_on_discard", player=w, from_=discarder, fan=fan, **extra))
            won.append(w)
        return len(won) >= 3

    while budget > 0:
        budget -= 1
        player = PLAYERS[cur]
        roll = rng.random()
        if roll < 0.07:  # rain, maybe again on the replacement tile
            out.append(_kong(rng, player, "concealed"))
            if rng.random() < 0.2:
                out.append(_kong(rng, player, "added"))
            continue  # the konger draws a replacement and acts again
        if roll < 0.12:  # wind, or a robbed kong
            if rng.random() < 0.25:
                if winners_on(player, robbing=True):
                    return out
                cur = after(player)
            else:
                out.append(_kong(rng, player, "added"))
            continue
        if roll < 0.18:
            fan = rng.choice((0, 1, 2, 2, 3, 4, 6))
            out.append(_line(type="self_drawn", player=player, fan=fan))
            won.append(player)
            if len(won) >= 3:
                return out
            cur = after(player)
            continue
        # a discard: a win, an exposed kong, or nobody claims it
        claim = rng.random()
        if claim < 0.12:
            if winners_on(player, robbing=False):
                return out
            cur = after(player)
        elif claim < 0.19:
            konger = rng.choice([p for p in still_in() if p != player])
            out.append(_kong(rng, konger, "exposed", from_=player))
            cur = PLAYERS.index(konger)
        else:
            out.append(_line(type="discarded", player=player, tile=_tile(rng)))
            cur = after(player)
    remaining = {}
    for p in still_in():
        r = rng.random()
        if r < 0.15:
            remaining[p] = {"flower_pig": True}
        elif r < 0.6:
            remaining[p] = {"ready": True, "best_fan": rng.randint(0, 6)}
        else:
            remaining[p] = {"ready": False}
    out.append(_line(type="wall_exhausted", remaining=remaining))
    return out


def sichuan_log(rng: random.Random, hands: int) -> str:
    lines = [
        _line(
            type="match_started",
            match="bench-sichuan",
            ruleset="sichuan",
            players=list(PLAYERS),
            rules={"base": 1, "fan_cap": 4},
        )
    ]
    for n in range(hands):
        lines.extend(sichuan_hand(rng, first=n == 0))
    return "\n".join(lines) + "\n"


# --- Hong Kong --------------------------------------------------------------------------------


def hongkong_hand(rng: random.Random, dealer: str, first: bool) -> tuple[list[str], str | None]:
    """One Hong Kong hand and its winner (None: void). Kongs are recorded but pay nothing."""
    out = [_line(type="hand_started", dealer=dealer) if first else _line(type="hand_started")]
    cur = PLAYERS.index(dealer)
    for _ in range(rng.randint(13, 22)):
        player = PLAYERS[cur]
        roll = rng.random()
        if roll < 0.04:
            out.append(_kong(rng, player, "concealed"))
        elif roll < 0.07:
            out.append(_kong(rng, player, "added"))
        elif roll < 0.11:
            konger = PLAYERS[(cur + rng.randint(1, 3)) % 4]
            out.append(_kong(rng, konger, "exposed", from_=player))
            cur = PLAYERS.index(konger)
        else:
            out.append(_line(type="discarded", player=player, tile=_tile(rng, honours=True)))
            cur = (cur + 1) % 4
    if rng.random() < 0.2:
        out.append(_line(type="wall_exhausted"))
        return out, None
    player = PLAYERS[cur]
    score: dict[str, object] = (
        {"limit": True}
        if rng.random() < 0.04
        else {"fan": rng.choice((3, 3, 4, 4, 5, 6, 7, 8, 10, 13))}
    )
    how = rng.random()
    if how < 0.35:
        out.append(_line(type="self_drawn", player=player, **score))
        return out, player
    winner = PLAYERS[(cur + rng.randint(1, 3)) % 4]
    robbing = {"robbing_kong": True} if how > 0.92 else {}
    out.append(_line(type="won_on_discard", player=winner, from_=player, **score, **robbing))
    return out, winner


def hongkong_logs(rng: random.Random, hands: int) -> list[str]:
    """``hands`` Hong Kong hands, as complete matches (east to north) plus one partial match."""
    logs: list[str] = []
    made = 0
    while made < hands:
        lines = [
            _line(
                type="match_started",
                match=f"bench-hongkong-{len(logs) + 1}",
                ruleset="hongkong",
                players=list(PLAYERS),
            )
        ]
        dealer = PLAYERS[0]
        passes = 0
        while made < hands and passes < 16:  # the 16th pass ends the north round
            hand, winner = hongkong_hand(rng, dealer, first=len(lines) == 1)
            lines.extend(hand)
            made += 1
            if winner is not None and winner != dealer:
                dealer = PLAYERS[(PLAYERS.index(dealer) + 1) % 4]
                passes += 1
        logs.append("\n".join(lines) + "\n")
    return logs


# --- timing -----------------------------------------------------------------------------------


def best_of(repeat: int, func: Callable[[], object]) -> float:
    best = float("inf")
    for _ in range(repeat):
        start = time.perf_counter()
        func()
        best = min(best, time.perf_counter() - start)
    return best


def nonblank(texts: list[str]) -> Iterator[str]:
    for text in texts:
        for line in text.split("\n"):
            if line.strip():
                yield line


def measure(name: str, texts: list[str], repeat: int) -> None:
    lines = list(nonblank(texts))
    events = len(lines)
    hands = sum(line.startswith('{"type": "hand_started"') for line in lines)

    def decode() -> None:
        for line in lines:
            json.loads(line)

    def parse() -> None:
        for text in texts:
            parse_log(text)

    def settle() -> None:
        for text in texts:
            replay(text)

    t_json = best_of(repeat, decode)
    t_parse = best_of(repeat, parse)
    t_replay = best_of(repeat, settle)
    logs = f"{len(texts)} log{'s' if len(texts) > 1 else ''}"
    print(f"{name}: {hands:,} hands, {events:,} events ({events / hands:.1f} a hand), {logs}")
    for label, t in (
        ("json.loads per line", t_json),
        ("codec.parse_log", t_parse),
        ("replay (full)", t_replay),
    ):
        print(f"  {label:<22}{t * 1000:10.1f} ms {events / t:14,.0f} events/s")
    for label, t in (("replay/json", t_replay), ("parse/json", t_parse)):
        print(f"  {label + ':':<13}{t / t_json:5.1f}x the time ({t_json / t:.1%} of json's speed)")


def check_legal(name: str, texts: list[str]) -> None:
    for text in texts:
        result = replay(text)  # raises MjledgerError, naming the line, if the generator erred
        for hand in result.hands:
            if hand.outcome == "unfinished":
                raise SystemExit(f"{name}: generated hand {hand.number} is unfinished")


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--hands", type=int, default=10_000, help="hands per rule set (10000)")
    parser.add_argument("--seed", type=int, default=1, help="random seed (1)")
    parser.add_argument("--repeat", type=int, default=3, help="runs per measurement, best kept")
    parser.add_argument("--profile", action="store_true", help="cProfile one full Sichuan replay")
    parser.add_argument("--write", type=Path, help="also write the generated logs to this folder")
    args = parser.parse_args(argv)
    if args.hands < 1:
        parser.error("--hands must be at least 1")

    rng = random.Random(args.seed)
    sichuan = [sichuan_log(rng, args.hands)]
    hongkong = hongkong_logs(rng, args.hands)
    check_legal("sichuan", sichuan)
    check_legal("hongkong", hongkong)
    if args.write:
        args.write.mkdir(parents=True, exist_ok=True)
        (args.write / "sichuan.jsonl").write_text(sichuan[0])
        for i, text in enumerate(hongkong, 1):
            (args.write / f"hongkong-{i:04d}.jsonl").write_text(text)

    print(f"Python {sys.version.split()[0]}, seed {args.seed}, best of {args.repeat}")
    measure("sichuan", sichuan, args.repeat)
    measure("hongkong", hongkong, args.repeat)

    if args.profile:
        profiler = cProfile.Profile()
        profiler.runcall(replay, sichuan[0])
        print("\ncProfile of one full replay of the Sichuan log, top 15 by cumulative time:")
        pstats.Stats(profiler, stream=sys.stdout).sort_stats("cumulative").print_stats(15)
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
