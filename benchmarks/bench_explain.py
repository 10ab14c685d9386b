"""Explanations and corrections against their baselines, in one process.

Three ratios (issue 13), each as CPU time and wall time, best of ``--repeat``, with peak
memory (tracemalloc) for the first two:

1. ``explain_log`` of a Sichuan match log against ``replay`` of the same log (the explanation
   re-folds each hand and rebuilds every step's arithmetic);
2. rendering that explanation as Italian text against building it;
3. the store's read models rebuilt (``views.rebuild``: one ``settlement`` per hand) with the
   corrections lookup that ``settlement`` now makes, against the same rebuild with that lookup
   short-circuited (the store before corrections).

Usage::

    .venv/bin/python benchmarks/bench_explain.py --hands 400 --seed 1
"""

from __future__ import annotations

import argparse
import random
import sys
import tempfile
import time
import tracemalloc
from collections.abc import Callable
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))

from bench_replay import sichuan_log
from mjledger import replay
from mjledger.explain import explain_log
from mjledger.explain.i18n import render_text
from mjledger.ledger import Ledger
from mjledger.store import application


def timed(repeat: int, func: Callable[[], object]) -> tuple[float, float]:
    """Best CPU and best wall seconds of ``repeat`` runs."""
    cpu, wall = [], []
    for _ in range(repeat):
        c, w = time.process_time(), time.perf_counter()
        func()
        cpu.append(time.process_time() - c)
        wall.append(time.perf_counter() - w)
    return min(cpu), min(wall)


def peak(func: Callable[[], object]) -> int:
    tracemalloc.start()
    func()
    _, top = tracemalloc.get_traced_memory()
    tracemalloc.stop()
    return top


def line(name: str, mine: tuple[float, float], base: tuple[float, float]) -> None:
    print(
        f"{name:44s} cpu {mine[0] * 1000:8.1f} ms vs {base[0] * 1000:8.1f} ms "
        f"(x{mine[0] / base[0]:.2f})   wall {mine[1] * 1000:8.1f} ms vs "
        f"{base[1] * 1000:8.1f} ms (x{mine[1] / base[1]:.2f})"
    )


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--hands", type=int, default=400)
    parser.add_argument("--seed", type=int, default=1)
    parser.add_argument("--repeat", type=int, default=3)
    args = parser.parse_args(argv)
    text = sichuan_log(random.Random(args.seed), args.hands)
    print(f"{args.hands} Sichuan hands, {text.count(chr(10))} lines")

    line(
        "explain_log vs replay",
        timed(args.repeat, lambda: explain_log(text)),
        timed(args.repeat, lambda: replay(text)),
    )
    print(
        f"{'':44s} peak memory {peak(lambda: explain_log(text)) / 1e6:.1f} MB vs "
        f"{peak(lambda: replay(text)) / 1e6:.1f} MB"
    )
    hands = explain_log(text)
    line(
        "render_text(it) vs explain_log",
        timed(args.repeat, lambda: render_text(hands, "it")),
        timed(args.repeat, lambda: explain_log(text)),
    )

    with tempfile.TemporaryDirectory() as folder:
        ledger = Ledger(Path(folder) / "b.sqlite")
        ledger.record_log(text)
        ledger.views.catch_up()
        with_lookup = timed(args.repeat, ledger.views.rebuild)
        original = application.settle_corrected
        application.settle_corrected = lambda ledger, match, number, state, **_: state  # type: ignore[assignment]
        try:
            without = timed(args.repeat, ledger.views.rebuild)
        finally:
            application.settle_corrected = original
        line("views.rebuild: with vs without corrections", with_lookup, without)
        ledger.close()
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
