"""The paths users take (issue 25), measured from outside: whole processes, as a shell runs them.

Each figure is the CPU time (user + system, from ``wait4``) and wall time of a whole process,
the median of interleaved rounds (every command once a round, so a burst of load on the shared
machine falls on all of them alike), with the process's peak resident memory. Each process runs
as a user runs an installed mjledger: with bytecode (pip compiles it on install), so
``PYTHONDONTWRITEBYTECODE`` is cleared for the children and each tree measured is compiled, and
every command run once, before the rounds. The baseline for
"× json decoding" is a separate process that reads the same file and ``json.loads`` each line,
keeping nothing — the cheapest honest reading of the lines; msgspec decoding each line the same
way is printed beside it as the physical limit. A ratio "× json decoding" is the baseline's CPU
over ours (1.0: as fast as decoding the JSON alone; higher is faster).

Goals (issue 25):

* start-up: ``mjledger --help`` ≤ 0.10 s CPU; ``replay --json`` of a one-hand log ≤ 0.20 s;
* text output within 3× of ``--json`` (``replay LOG`` of a long log);
* ``replay --json`` of tile logs (Sichuan, blood flow, Hong Kong) ≥ 0.3× json decoding, of the
  facts log ≥ 0.6×; the library's ``replay()`` ≥ 0.4×;
* ``explain --hand N`` ≤ ``replay --json`` of the log + 3× explaining hand N alone, peak RSS
  < 100 MB;
* ``scores``, ``matches``, ``history`` flat per match; ``explain MATCH N`` of a stored match ≤
  3× the hand alone, < 100 MB; ``report`` of one match in a big store < 100 MB
  (``bench_stored.py``);
* public ``waits(tiles)`` ≥ 20× the ``mahjong`` package (Agari per candidate tile), the counts
  path ≥ 50× on hands generated here, independently of the tables' tests.

Usage::

    .venv/bin/python benchmarks/bench_users.py --quick      # small logs, a few minutes
    .venv/bin/python benchmarks/bench_users.py --start-up   # start-up alone, 3 × 3 rounds
    .venv/bin/python benchmarks/bench_users.py --tiles      # the tile logs at 3,000 hands
    .venv/bin/python benchmarks/bench_users.py --facts      # text output, replay --json, library
    .venv/bin/python benchmarks/bench_users.py              # the issue's sizes (30k facts hands)
"""

from __future__ import annotations

import argparse
import json
import os
import random
import statistics
import subprocess
import sys
import tempfile
import time
from collections.abc import Callable, Sequence
from pathlib import Path

HERE = Path(__file__).resolve().parent
sys.path.insert(0, str(HERE))

from bench_replay import sichuan_log  # noqa: E402
from bench_stored import build_store, stored_match, views  # noqa: E402
from bench_waits import mahjong_agari, ours, random_hands, ready_hands  # noqa: E402
from wait_hands import independent_hands  # noqa: E402

PYTHON = sys.executable
MJLEDGER = [PYTHON, "-m", "mjledger"]
JSON_LINES = (
    "import json,sys\nfor line in open(sys.argv[1],'rb'):\n    line.strip() and json.loads(line)\n"
)
MSGSPEC_LINES = (
    "import msgspec,sys\ndecode=msgspec.json.decode\n"
    "for line in open(sys.argv[1],'rb'):\n    line.strip() and decode(line)\n"
)
LIBRARY = (
    "import sys\nfrom mjledger import replay\nreplay(open(sys.argv[1], encoding='utf-8').read())\n"
)

Run = tuple[float, float, float]  # (CPU seconds, wall seconds, peak RSS in MB)


# ``--before SRC``: every mjledger command is also run on another source tree (a worktree of
# main), in the same rounds, so that before and after are measured side by side.
BEFORE: dict[str, str] = {}


def user_env(extra: dict[str, str] | None = None) -> dict[str, str]:
    """The environment of a measured process: this one's, with ``extra``, but writing and
    reading bytecode as an installed mjledger does (a shell that sets
    ``PYTHONDONTWRITEBYTECODE`` would make every process compile every module from source)."""
    env = {k: v for k, v in os.environ.items() if k != "PYTHONDONTWRITEBYTECODE"}
    return {**env, **(extra or {})}


def compile_trees() -> None:
    """Compile the mjledger package each measured process imports (ours and, with
    ``--before``, the other tree's), as ``pip install`` does; the start-up rounds' untimed
    first round then writes whatever bytecode is still missing."""
    where = "import os, mjledger; print(os.path.dirname(mjledger.__file__))"
    for extra in ({}, BEFORE) if BEFORE else ({},):
        env = user_env(extra)
        found = subprocess.run(
            [PYTHON, "-c", where], env=env, capture_output=True, text=True, check=True
        )
        package = found.stdout.strip()
        subprocess.run([PYTHON, "-m", "compileall", "-q", package], env=env, check=True)


def run_once(command: Sequence[str], env: dict[str, str] | None = None) -> Run:
    """One process's CPU (user + system), wall time and peak RSS; its output discarded."""
    start = time.perf_counter()
    with open(os.devnull, "wb") as devnull:
        process = subprocess.Popen(command, stdout=devnull, stderr=subprocess.PIPE, env=env)
        _, status, usage = os.wait4(process.pid, 0)
        wall = time.perf_counter() - start
        process.returncode = os.waitstatus_to_exitcode(status)
        error = process.stderr.read() if process.stderr else b""
        if process.stderr:
            process.stderr.close()
    if process.returncode != 0:
        raise RuntimeError(f"{' '.join(command)} failed: {error.decode(errors='replace')}")
    return usage.ru_utime + usage.ru_stime, wall, usage.ru_maxrss / 1024


def interleaved(
    commands: dict[str, Sequence[str]], rounds: int, *, warm: bool = False
) -> dict[str, Run]:
    """The median CPU and wall of each command over ``rounds`` rounds (each command once a
    round; ``warm``: after one untimed round, which leaves every module's bytecode written),
    with its highest peak RSS; with ``--before``, each mjledger command's twin on the other
    tree too (``NAME before``)."""
    envs = dict.fromkeys(commands, user_env())
    commands = dict(commands)
    if BEFORE:
        for name, command in list(commands.items()):
            if "mjledger" in " ".join(command):
                commands[f"{name} before"] = command
                envs[f"{name} before"] = user_env(BEFORE)
    for name, command in commands.items() if warm else ():
        run_once(command, envs[name])
    runs: dict[str, list[Run]] = {name: [] for name in commands}
    for _ in range(rounds):
        for name, command in commands.items():
            runs[name].append(run_once(command, envs[name]))
    return {
        name: (
            statistics.median(r[0] for r in found),
            statistics.median(r[1] for r in found),
            max(r[2] for r in found),
        )
        for name, found in runs.items()
    }


class Goals:
    """The printed table: each goal, our figure, its baseline, whether it is met."""

    def __init__(self) -> None:
        self.rows: list[tuple[str, str, str, str, str]] = []

    def add(
        self, goal: str, figure: str, baseline: str, met: bool | None, before: str = ""
    ) -> None:
        """``met`` None: a figure the issue sets no goal for, shown beside the goals."""
        verdict = "(no goal)" if met is None else "met" if met else "NOT MET"
        self.rows.append((goal, before, figure, baseline, verdict))
        was = f" (before: {before})" if before else ""
        print(f"  {goal}: {figure}{was} (baseline {baseline}) — {self.rows[-1][4]}", flush=True)

    def print(self) -> None:
        header = ("goal", "before", "now", "baseline", "")
        widths = [max(len(r[i]) for r in [header, *self.rows]) for i in range(5)]
        print("| " + " | ".join(h.ljust(w) for h, w in zip(header, widths, strict=True)) + " |")
        print("|" + "|".join("-" * (w + 2) for w in widths) + "|")
        for row in self.rows:
            print("| " + " | ".join(c.ljust(w) for c, w in zip(row, widths, strict=True)) + " |")


def simulated(directory: Path, name: str, hands: int, *options: str) -> Path:
    """A simulated log with tiles (``mjledger simulate``), written once into ``directory``."""
    path = directory / f"{name}.jsonl"
    subprocess.run(
        [*MJLEDGER, "simulate", "--hands", str(hands), "--seed", "1", "-o", str(path), *options],
        check=True,
        env=user_env(),
    )
    return path


def decoding(path: Path) -> dict[str, list[str]]:
    return {
        "json.loads": [PYTHON, "-c", JSON_LINES, str(path)],
        "msgspec": [PYTHON, "-c", MSGSPEC_LINES, str(path)],
    }


def times_json(ours: Run, base: Run) -> str:
    return f"{base[0] / ours[0]:.2f}×"


def startup(goals: Goals, directory: Path, rounds: int) -> None:
    one = directory / "one-hand.jsonl"
    one.write_text(sichuan_log(random.Random(1), 1), encoding="utf-8")
    tiles = simulated(directory, "one-tile-hand", 1)  # a hand's wins and empty wall with tiles
    found = interleaved(
        {
            "python": [PYTHON, "-c", "pass"],
            "click": [PYTHON, "-c", "import click"],
            "help": [*MJLEDGER, "--help"],
            "one": [*MJLEDGER, "replay", "--json", str(one)],
            "tiles": [*MJLEDGER, "replay", "--json", str(tiles)],
        },
        rounds,
        warm=True,  # the first of all measurements: what compile_trees left is compiled here
    )
    base = f"bare interpreter {found['python'][0]:.3f} s, import click {found['click'][0]:.3f} s"

    def shown(run: Run) -> str:
        return f"{run[0]:.3f} s CPU, {run[1]:.3f} s wall, {run[2]:.0f} MB"

    for name, goal, limit in (
        ("help", "mjledger --help ≤ 0.10 s CPU", 0.10),
        ("one", "replay --json of a one-hand log ≤ 0.20 s CPU", 0.20),
        ("tiles", "replay --json of a one-hand simulated log with tiles", None),
    ):
        met = None if limit is None else found[name][0] <= limit
        goals.add(goal, shown(found[name]), base, met, _before(found, name, shown))


def text_output(goals: Goals, facts: Path, rounds: int) -> None:
    found = interleaved(
        {
            "text": [*MJLEDGER, "replay", str(facts)],
            "json": [*MJLEDGER, "replay", "--json", str(facts)],
        },
        rounds,
    )
    ratio = found["text"][0] / found["json"][0]
    before = ""
    if BEFORE:
        text, json_ = found["text before"][0], found["json before"][0]
        before = f"{text / json_:.2f}× ({text:.2f} s)"
    goals.add(
        f"replay LOG (text) ≤ 3× --json ({facts.name})",
        f"{ratio:.2f}× ({found['text'][0]:.2f} s CPU)",
        f"--json {found['json'][0]:.2f} s",
        ratio <= 3,
        before,
    )


def replay_json(goals: Goals, path: Path, goal: float, rounds: int, library: bool) -> None:
    commands = {"ours": [*MJLEDGER, "replay", "--json", str(path)], **decoding(path)}
    if library:
        commands["library"] = [PYTHON, "-c", LIBRARY, str(path)]
    found = interleaved(commands, rounds)
    base = (
        f"json.loads {found['json.loads'][0]:.2f} s, msgspec {found['msgspec'][0]:.2f} s "
        f"(ours at {times_json(found['ours'], found['msgspec'])} msgspec decoding)"
    )
    decoded = found["json.loads"][0]

    def shown(run: Run) -> str:
        return f"{decoded / run[0]:.2f}× ({run[0]:.2f} s CPU, {run[2]:.0f} MB)"

    goals.add(
        f"replay --json {path.name} ≥ {goal}× json decoding",
        shown(found["ours"]),
        base,
        decoded / found["ours"][0] >= goal,
        _before(found, "ours", shown),
    )
    if library:
        goals.add(
            f"library replay() {path.name} ≥ 0.4× json decoding",
            shown(found["library"]),
            base,
            decoded / found["library"][0] >= 0.4,
            _before(found, "library", shown),
        )


def explain(goals: Goals, path: Path, directory: Path, hand: int, rounds: int) -> None:
    """``explain --hand N`` of a log against ``replay --json`` of it plus 3× the hand alone."""
    alone = directory / f"hand-{hand}-alone.jsonl"
    cut = [PYTHON, str(HERE / "bench_users.py"), "--cut", str(path), str(hand), str(alone)]
    subprocess.run(cut, check=True)
    found = interleaved(
        {
            "explain": [*MJLEDGER, "explain", str(path), "--hand", str(hand)],
            "replay": [*MJLEDGER, "replay", "--json", str(path)],
            "alone": [*MJLEDGER, "explain", str(alone)],
        },
        rounds,
    )
    budget = found["replay"][0] + 3 * found["alone"][0]
    goals.add(
        f"explain {path.name} --hand {hand} ≤ replay --json + 3× the hand alone, < 100 MB",
        f"{found['explain'][0]:.2f} s CPU, {found['explain'][2]:.0f} MB",
        f"{found['replay'][0]:.2f} s + 3 × {found['alone'][0]:.2f} s = {budget:.2f} s",
        found["explain"][0] <= budget and found["explain"][2] < 100,
        _before(found, "explain", lambda run: f"{run[0]:.2f} s, {run[2]:.0f} MB"),
    )


def _before(found: dict[str, Run], name: str, shown: Callable[[Run], str]) -> str:
    return shown(found[f"{name} before"]) if f"{name} before" in found else ""


def cut_hand(source: Path, number: int, target: Path) -> None:
    """Hand 1 of a match log as a stand-alone hand log (the match's table on its
    ``hand_started``), for ``explain`` of the hand alone."""
    if number != 1:
        raise SystemExit("only hand 1 is cut out (its context is the match's start)")
    lines = [json.loads(line) for line in source.read_text(encoding="utf-8").splitlines() if line]
    head, hand = lines[0], []
    for line in lines[1:]:
        if line["type"] == "hand_started" and hand:
            break
        hand.append(line)
    context = {k: head[k] for k in ("ruleset", "players", "rules", "match") if k in head}
    first = {**hand[0], **context, "number": 1}
    text = "".join(json.dumps(line) + "\n" for line in [first, *hand[1:]])
    target.write_text(text, encoding="utf-8")


def public_waits(goals: Goals, count: int) -> None:
    """``waits(tiles)`` on Tile tuples and the counts path against Agari per candidate."""
    from mjledger.tiles import TILES
    from mjledger.tiles.decompose import waits

    hands = {
        "random": random_hands(random.Random(1), count),
        "ready": ready_hands(random.Random(2), count),
        "independent": independent_hands(random.Random(3), count),
    }
    for name, counts in hands.items():
        tiles = [tuple(TILES[i] for i in range(34) for _ in range(c[i])) for c in counts]
        agari, fast, public = _cpu_interleaved(
            lambda counts=counts: [mahjong_agari(list(c)) for c in counts],
            lambda counts=counts: [ours(c) for c in counts],
            lambda tiles=tiles: [waits(t) for t in tiles],
        )
        base = f"mahjong Agari {count / agari:,.0f} hands/s"
        goals.add(
            f"public waits(tiles), {name} hands ≥ 20× mahjong",
            f"{agari / public:.1f}× ({count / public:,.0f} hands/s)",
            base,
            agari / public >= 20,
        )
        if name == "independent":
            goals.add(
                "counts path, independently generated hands ≥ 50× mahjong",
                f"{agari / fast:.1f}× ({count / fast:,.0f} hands/s)",
                base,
                agari / fast >= 50,
            )


def _cpu_interleaved(*funcs: Callable[[], object], rounds: int = 7) -> list[float]:
    """Each function's best CPU time over ``rounds`` rounds, the functions taking turns in
    each round: a burst of load on a shared machine then slows all of them, not one."""
    best = [float("inf")] * len(funcs)
    for _ in range(rounds):
        for i, func in enumerate(funcs):
            start = time.process_time()
            func()
            best[i] = min(best[i], time.process_time() - start)
    return best


def stored(goals: Goals, directory: Path, log: Path, hands: int, rounds: int) -> None:
    """The store's views at 1, 100 and 1,000 matches, and ``log`` (a simulated match of
    ``hands`` hands) explained and reported from the 1,000-match store (``bench_stored``)."""
    alone = directory / "hand-1-alone.jsonl"
    if not alone.exists():  # in a child: a peak RSS measured later would include this one's
        cut = [PYTHON, str(HERE / "bench_users.py"), "--cut", str(log), "1", str(alone)]
        subprocess.run(cut, check=True)
    stores = {n: build_store(MJLEDGER, directory, n) for n in (1, 100)}
    stores[1000] = build_store(MJLEDGER, directory, 1000, log)
    views(goals, interleaved, MJLEDGER, stores, rounds)
    with log.open(encoding="utf-8") as lines:
        match = json.loads(lines.readline())["match"]
    stored_match(goals, interleaved, MJLEDGER, stores[1000], match, hands, alone, rounds)


def tile_logs(goals: Goals, directory: Path, hands: int, rounds: int) -> tuple[Path, ...]:
    """The tile-log rows: ``replay --json`` of simulated Sichuan, blood-flow and Hong Kong
    logs of ``hands`` hands (Hong Kong: its match ends after the north round), and the
    library's ``replay()`` of the Sichuan one; the logs."""
    logs = (
        simulated(directory, "sichuan-tiles", hands),
        simulated(directory, "blood-flow-tiles", hands, "--rules", '{"blood_flow": true}'),
        simulated(directory, "hongkong-tiles", hands, "--ruleset", "hongkong"),
    )
    for log in logs:
        replay_json(goals, log, 0.3, rounds, library=log is logs[0])
    return logs


def facts_rows(goals: Goals, directory: Path, hands: int, rounds: int) -> None:
    """Text output (3,000 hands) and ``replay --json`` and the library of ``hands`` hands."""
    facts = directory / f"facts-{hands}.jsonl"
    write_facts_apart(facts, hands)
    print("text output", flush=True)
    text = directory / "facts-3000.jsonl"
    if not text.exists():
        write_facts_apart(text, 3_000)
    text_output(goals, text, rounds)
    print("replay --json", flush=True)
    replay_json(goals, facts, 0.6, rounds, library=True)


def write_facts_apart(path: Path, hands: int) -> None:
    """A facts log of ``hands`` hands written by a child process: this process growing by the
    log's text (some 100 MB at 30,000 hands) would show in the peak memory of every process it
    starts after (a child's peak counts the pages it shares with its parent until it execs)."""
    command = [PYTHON, str(HERE / "bench_users.py"), "--write-facts", str(hands), str(path)]
    subprocess.run(command, check=True)


def measure(args: argparse.Namespace) -> Goals:
    goals = Goals()
    quick = args.quick
    facts_hands = 3_000 if quick else 30_000
    tile_hands = 300 if quick else 3_000
    compile_trees()
    with tempfile.TemporaryDirectory(prefix="mjledger-bench-") as temporary:
        directory = Path(temporary)
        if args.stored:
            log = simulated(directory, "sichuan-tiles", tile_hands)
            stored(goals, directory, log, tile_hands, args.rounds)
            return goals
        if args.tiles:
            tile_logs(goals, directory, 3_000, args.rounds)
            return goals
        if args.facts:
            facts_rows(goals, directory, facts_hands, args.rounds)
            return goals
        print("start-up", flush=True)
        startup(goals, directory, args.rounds * 3)
        if getattr(args, "start_up", False):
            return goals
        facts_rows(goals, directory, facts_hands, args.rounds)
        logs = tile_logs(goals, directory, tile_hands, args.rounds)
        print("explain", flush=True)
        explain(goals, logs[0], directory, 1, args.rounds)
        print("stored matches", flush=True)
        stored(goals, directory, logs[0], tile_hands, args.rounds)
        print("waits", flush=True)
        public_waits(goals, 2_000 if quick else 20_000)
    return goals


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--quick", action="store_true", help="small logs (minutes, not hours)")
    parser.add_argument("--start-up", action="store_true", help="only the start-up goals")
    parser.add_argument("--rounds", type=int, default=3, help="interleaved rounds (median)")
    parser.add_argument(
        "--before", metavar="SRC", help="also run each command on this source tree (main's)"
    )
    parser.add_argument(
        "--stored", action="store_true", help="only the stored matches' rows (bench_stored)"
    )
    parser.add_argument(
        "--tiles", action="store_true", help="only the tile-log rows, at 3,000 hands (issue 25)"
    )
    parser.add_argument(
        "--facts",
        action="store_true",
        help="only the facts log's rows: text output, replay --json and the library",
    )
    parser.add_argument("--cut", nargs=3, metavar=("LOG", "N", "OUT"), help=argparse.SUPPRESS)
    parser.add_argument("--write-facts", nargs=2, metavar=("HANDS", "OUT"), help=argparse.SUPPRESS)
    args = parser.parse_args(argv)
    if args.cut:
        cut_hand(Path(args.cut[0]), int(args.cut[1]), Path(args.cut[2]))
        return 0
    if args.write_facts:
        text = sichuan_log(random.Random(1), int(args.write_facts[0]))
        Path(args.write_facts[1]).write_text(text, encoding="utf-8")
        return 0
    if args.before:
        BEFORE["PYTHONPATH"] = str(Path(args.before).resolve())
    print(f"load average {os.getloadavg()[0]:.1f}; Python {sys.version.split()[0]}")
    goals = measure(args)
    print()
    goals.print()
    print(json.dumps({"load": os.getloadavg()[0]}))
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
