"""The benchmarks' log generators write legal logs: a benchmark of a refused log measures
nothing (``bench_replay.py --rss`` once wrote a fifth kong of one player in a hand, which the
fold refuses, so the child exited 2 on line 199 instead of replaying)."""

from __future__ import annotations

import importlib.util
import random
from pathlib import Path
from types import ModuleType

from mjledger import replay_bytes
from tests.conftest import ROOT


def bench_replay() -> ModuleType:
    path = ROOT / "benchmarks" / "bench_replay.py"
    spec = importlib.util.spec_from_file_location("bench_replay", path)
    assert spec is not None
    assert spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


def test_the_rss_log_replays_to_the_end(tmp_path: Path) -> None:
    log = tmp_path / "sichuan.jsonl"
    bench_replay().write_sichuan_log(log, random.Random(1), 300)
    result = replay_bytes(log.read_bytes())
    assert len(result.hands) == 300
    assert all(hand.outcome != "unfinished" for hand in result.hands)
