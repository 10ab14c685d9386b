"""Replay speed of a large generated log, next to merely json-decoding the same lines.

Generates, deterministically from ``--seed``, a legal Sichuan blood-battle match of ``--hands``
hands (one log) and the same number of Hong Kong hands (as many complete matches as it takes,
since a Hong Kong match ends after the north round), then times in this one process, best of
``--repeat`` runs each:

(a) ``json.loads`` of every line — the floor any JSON Lines reader pays;
(b) ``mjledger.log.codec.parse_log`` — the strict path: json, cattrs, every line;
(c) ``mjledger.log.reader.parse_events`` — the fast path (msgspec batches, strict fall back);
(d) ``mjledger.replay()`` — (c) plus the folds that check every event and settle the money,
    the collector left on (the library's call leaves it alone), and with the caller pausing
    it (what the command line and the store's bulk paths do, and ``replay()`` did in 0.1);
(e) the fold alone over events decoded beforehand (the collector paused): the general fold of
    (d), and the folds of (f) — a rule set's quick fold where it has one (Sichuan), the
    general fold elsewhere — with each hand's output value built but not encoded;
(f) ``replay --json`` as the command runs it (streamed, orjson, collector paused), and as it
    ran before (strict parse of the whole log, fold, ``json.dumps(indent=2)``); the two
    outputs are compared byte for byte before anything is timed.

Times are CPU time (``time.process_time``) and wall time, best of ``--repeat``, all in one
process; the ratio column is the CPU-time rate relative to (a). ``--rss`` instead runs
``mjledger replay --json`` as a child process on a log of the given size (written to a
temporary file a hand at a time) and reports its peak RSS; ``--quick`` divides those sizes
by 100.

Usage::

    .venv/bin/python benchmarks/bench_replay.py --hands 10000 --seed 1
    .venv/bin/python benchmarks/bench_replay.py --hands 2000 --profile   # + cProfile of (c)
    .venv/bin/python benchmarks/bench_replay.py --hands 50 --write /tmp/bench  # keep the logs
    .venv/bin/python benchmarks/bench_replay.py --rss 300000 1000000         # heavy, minutes
    .venv/bin/python benchmarks/bench_replay.py --rss 300000 --quick         # 3,000 hands

The generator is small and self-contained (it does not use mjledger); every log it writes is
replayed before anything is timed, so an illegal log stops the run instead of being measured.
"""

from __future__ import annotations

import argparse
import cProfile
import gc
import io
import json
import os
import pstats
import random
import subprocess
import sys
import tempfile
import time
from collections.abc import Callable, Iterable, Iterator
from pathlib import Path
from typing import BinaryIO, TypeVar

from mjledger import replay
from mjledger.fold.replay import replay_events
from mjledger.fold.stream import HandJsonStream, HandStream, replay_json_parts
from mjledger.log.codec import parse_log
from mjledger.log.events import Event
from mjledger.log.reader import iter_log_file, parse_events, read_events

T = TypeVar("T")
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


def cap_kongs(lines: list[str]) -> list[str]:
    """One hand's lines with any fifth kong of a player made a discard (a player declares at
    most four kongs in a hand)."""
    kongs: dict[str, int] = {}
    out = []
    for line in lines:
        event = json.loads(line)
        if event["type"] == "kong_declared":
            player = event["player"]
            kongs[player] = kongs.get(player, 0) + 1
            if kongs[player] > 4:
                line = _line(type="discarded", player=player)
        out.append(line)
    return out


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
        lines.extend(cap_kongs(sichuan_hand(rng, first=n == 0)))
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
            hand = cap_kongs(hand)
            lines.extend(hand)
            made += 1
            if winner is not None and winner != dealer:
                dealer = PLAYERS[(PLAYERS.index(dealer) + 1) % 4]
                passes += 1
        logs.append("\n".join(lines) + "\n")
    return logs


# --- timing -----------------------------------------------------------------------------------


def best_of(repeat: int, func: Callable[[], object]) -> tuple[float, float]:
    """Best CPU time (``time.process_time``: the figure other processes on the machine disturb
    least) and best wall time of ``repeat`` runs."""
    best_cpu = best_wall = float("inf")
    for _ in range(repeat):
        wall, cpu = time.perf_counter(), time.process_time()
        func()
        best_cpu = min(best_cpu, time.process_time() - cpu)
        best_wall = min(best_wall, time.perf_counter() - wall)
    return best_cpu, best_wall


def nonblank(texts: list[str]) -> Iterator[str]:
    for text in texts:
        for line in text.split("\n"):
            if line.strip():
                yield line


def each(func: Callable[[T], object], items: Iterable[T]) -> None:
    for item in items:
        func(item)


def replay_json_before(text: str) -> bytes:
    """``replay --json`` as it was: parse the whole log strictly, fold it, ``json.dumps``."""
    result = replay_events(parse_log(text)).to_json()
    return json.dumps(result, ensure_ascii=False, indent=2).encode("utf-8")


def replay_json_now(data: bytes) -> bytes:
    """``replay --json`` as the command runs it (in memory here, not spooled): streamed
    decoding and folding, orjson output, the collector paused."""
    gc.disable()
    try:
        return b"".join(replay_json_parts(iter_log_file(io.BytesIO(data))))
    finally:
        gc.enable()


def paused(run: Callable[[], None]) -> None:
    """``run`` with the collector paused, as a caller may (the command line, the store's bulk
    paths): the library's ``replay()`` itself leaves the process-wide collector alone."""
    gc.disable()
    try:
        run()
    finally:
        gc.enable()


def fold_only(events: list[tuple[int, Event]]) -> int:
    """The general folds over decoded events, as ``replay()`` runs them (the collector
    paused): the hands settled, nothing written."""
    gc.disable()
    try:
        return sum(1 for _ in HandStream(events))
    finally:
        gc.enable()


def output_fold_only(events: list[tuple[int, Event]]) -> int:
    """The folds over decoded events as ``replay --json`` runs them (a rule set's quick fold
    where it has one, the general fold elsewhere): each hand's output value, not encoded."""
    gc.disable()
    try:
        return sum(1 for _ in HandJsonStream(events))
    finally:
        gc.enable()


def measure(name: str, texts: list[str], repeat: int, before: bool = True) -> None:
    lines = list(nonblank(texts))
    blobs = [text.encode("utf-8") for text in texts]
    decoded = [read_events(blob) for blob in blobs]
    events = len(lines)
    hands = sum(line.startswith('{"type": "hand_started"') for line in lines)

    for text, blob in zip(texts, blobs, strict=True):
        if before and replay_json_now(blob) != replay_json_before(text):
            raise SystemExit(f"{name}: the streamed output differs from json.dumps's")
    runs: list[tuple[str, Callable[[], None]]] = [
        ("json.loads per line", lambda: each(json.loads, lines)),
        ("codec.parse_log (strict)", lambda: each(parse_log, texts)),
        ("reader.parse_events (fast)", lambda: each(parse_events, texts)),
        ("replay() (library)", lambda: each(replay, texts)),
        ("  the caller pausing gc", lambda: paused(lambda: each(replay, texts))),
        ("fold only (decoded events)", lambda: each(fold_only, decoded)),
        ("  as replay --json folds", lambda: each(output_fold_only, decoded)),
        ("replay --json now", lambda: each(replay_json_now, blobs)),
    ]
    if before:
        runs.append(("replay --json before", lambda: each(replay_json_before, texts)))
    timings = {label: best_of(repeat, func) for label, func in runs}
    logs = f"{len(texts)} log{'s' if len(texts) > 1 else ''}"
    print(f"{name}: {hands:,} hands, {events:,} events ({events / hands:.1f} a hand), {logs}")
    print(f"  {'':<28}{'CPU ms':>10}{'wall ms':>10}{'events/s (CPU)':>16}{'× json (CPU)':>14}")
    json_cpu = timings["json.loads per line"][0]
    for label, (cpu, wall) in timings.items():
        print(
            f"  {label:<28}{cpu * 1000:10.1f}{wall * 1000:10.1f}{events / cpu:16,.0f}"
            f"{json_cpu / cpu:14.3f}"
        )


def check_legal(name: str, texts: list[str]) -> None:
    for text in texts:
        result = replay(text)  # raises MjledgerError, naming the line, if the generator erred
        for hand in result.hands:
            if hand.outcome == "unfinished":
                raise SystemExit(f"{name}: generated hand {hand.number} is unfinished")


def write_sichuan_log(path: Path, rng: random.Random, hands: int) -> None:
    """A Sichuan log of ``hands`` hands written line by line (the generator holds one hand)."""
    with path.open("w", encoding="utf-8") as out:
        out.write(sichuan_log(rng, 1))
        for _ in range(hands - 1):
            out.write("\n".join(cap_kongs(sichuan_hand(rng, first=False))) + "\n")


def peak_rss(hands: int, seed: int) -> None:
    """Peak resident memory of ``mjledger replay --json`` on a ``hands``-hand Sichuan log, as
    its own process (VmHWM, read by the child), next to a bare interpreter's."""
    with tempfile.TemporaryDirectory() as tmp:
        log = Path(tmp) / "sichuan.jsonl"
        write_sichuan_log(log, random.Random(seed), hands)
        size = log.stat().st_size
        bare = child_peak("import mjledger.cli.main", [])
        replay_cli = "import sys; from mjledger.cli import main; main(['replay', '--json', '-'])"
        with log.open("rb") as stdin:  # standard input: the command reads it a block at a time
            rss = child_peak(replay_cli, [], stdin)
    print(
        f"peak RSS, replay --json of {hands:,} Sichuan hands ({size / 1e6:,.0f} MB of log): "
        f"{rss / 1024:,.0f} MB (the interpreter with mjledger imported: {bare / 1024:,.0f} MB)"
    )


# Peak RSS is read by the child itself, from /proc/self/status at exit (VmHWM: the high-water
# mark of its own address space). ``ru_maxrss`` would not do: Linux carries it over ``fork``
# and ``exec``, so a child of a big parent reports the parent's size.
_REPORT_PEAK = """
import atexit, sys
def _report_peak():
    with open("/proc/self/status") as status:
        for line in status:
            if line.startswith("VmHWM:"):
                sys.stderr.write("peak-rss-kib " + line.split()[1] + "\\n")
atexit.register(_report_peak)
"""


def child_peak(code: str, args: list[str], stdin: BinaryIO | None = None) -> int:
    """Peak RSS in KiB of ``python -c code args...`` (Linux), its standard output discarded."""
    proc = subprocess.run(
        [sys.executable, "-c", _REPORT_PEAK + code, *args],
        stdin=stdin,
        stdout=subprocess.DEVNULL,
        stderr=subprocess.PIPE,
        check=False,
    )
    if proc.returncode != 0:
        raise SystemExit(f"{code!r} exited with {proc.returncode}: {proc.stderr[-500:]!r}")
    for line in proc.stderr.decode().splitlines():
        if line.startswith("peak-rss-kib "):
            return int(line.split()[1])
    raise SystemExit(f"{code!r} did not report its peak RSS")


def add_heavy_options(parser: argparse.ArgumentParser, what: str) -> None:
    """``--rss HANDS...`` (peak RSS of ``what`` at heavy sizes) and ``--quick``."""
    parser.add_argument(
        "--rss", type=int, nargs="*", metavar="HANDS", help=f"peak RSS of {what} at these sizes"
    )
    parser.add_argument("--quick", action="store_true", help="heavy sizes divided by 100")


def heavy_sizes(args: argparse.Namespace, default: int) -> list[int]:
    return [max(1, n // 100) if args.quick else n for n in args.rss or [default]]


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--hands", type=int, default=10_000, help="hands per rule set (10000)")
    parser.add_argument("--seed", type=int, default=1, help="random seed (1)")
    parser.add_argument("--repeat", type=int, default=3, help="runs per measurement, best kept")
    parser.add_argument("--profile", action="store_true", help="cProfile one full Sichuan replay")
    parser.add_argument("--write", type=Path, help="also write the generated logs to this folder")
    add_heavy_options(parser, "replay --json (heavy: 300000 1000000)")
    args = parser.parse_args(argv)
    if args.hands < 1:
        parser.error("--hands must be at least 1")

    print(
        f"Python {sys.version.split()[0]}, seed {args.seed}, best of {args.repeat}; "
        f"load average {os.getloadavg()[0]:.2f}"
    )
    if args.rss is not None:
        for hands in heavy_sizes(args, 300_000):
            peak_rss(hands, args.seed)
        return 0

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

    measure("sichuan", sichuan, args.repeat)
    measure("hongkong", hongkong, args.repeat)

    if args.profile:
        profiler = cProfile.Profile()
        profiler.runcall(replay_json_now, sichuan[0].encode())
        print("\ncProfile of replay --json of the Sichuan log, top 20 by internal time:")
        pstats.Stats(profiler, stream=sys.stdout).sort_stats("tottime").print_stats(20)
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
