"""A store written by mjledger 0.1 (before the package moved into layers) still reads, replays
and exports exactly as it did: its rows name event classes by their old module paths."""

from __future__ import annotations

import json
import shutil
from pathlib import Path

import pytest

from mjledger.ledger import Ledger

DATA = Path(__file__).resolve().parents[1] / "data" / "store-v0.1"


@pytest.fixture
def old_store(tmp_path: Path) -> Ledger:
    shutil.copy(DATA / "store.sqlite", tmp_path / "store.sqlite")
    ledger = Ledger(tmp_path / "store.sqlite")
    yield ledger
    ledger.close()


def test_exports_are_unchanged(old_store: Ledger) -> None:
    matches = old_store.matches()
    assert sorted(matches) == sorted(
        p.name.removesuffix(".export.jsonl") for p in DATA.glob("*.export.jsonl")
    )
    for match_id in matches:
        expected = (DATA / f"{match_id}.export.jsonl").read_text(encoding="utf-8")
        assert old_store.export(match_id) == expected


def test_replays_are_unchanged(old_store: Ledger) -> None:
    replays = {k: v.to_json() for k, v in old_store.replay_all().items()}
    expected = json.loads((DATA / "replay_all.json").read_text(encoding="utf-8"))
    assert json.loads(json.dumps(replays)) == expected


def test_read_models_rebuild_identically(old_store: Ledger) -> None:
    views = old_store.views
    views.catch_up()
    got = {
        "scores_by_match": views.scores_by_match(),
        "scores_by_player": {
            p: {k: list(v) for k, v in d.items()} for p, d in views.scores_by_player().items()
        },
        "longest_streaks": views.longest_streaks(),
        "history": {m: [h.to_json() for h in views.history(m)] for m in old_store.matches()},
    }
    expected = json.loads((DATA / "views.json").read_text(encoding="utf-8"))
    assert json.loads(json.dumps(got)) == expected


def test_old_store_takes_new_events(old_store: Ledger) -> None:
    from mjledger import SelfDrawn

    before = old_store.settlement("t7-first", 1).net()
    old_store.record("t7-first", 1, SelfDrawn(player="ana", fan=0))
    after = old_store.settlement("t7-first", 1)
    assert after.winners == ("di", "ana")
    assert sum(after.net().values()) == 0
    assert after.net() != before
