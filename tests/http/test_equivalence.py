"""One match three ways: appended event by event over HTTP, recorded by ``record`` (the
library call the command makes), and replayed from its log give the same figures, the same
rows and the same audit (Hypothesis over random legal and variant logs)."""

from __future__ import annotations

import json
import os
import tempfile
from pathlib import Path
from typing import Any
from urllib.parse import quote

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from mjledger.fold.replay import replay
from mjledger.http.ids import id_problem
from mjledger.store.application import Ledger
from mjledger.store.audit import audit
from tests.backends import raw_rows
from tests.conftest import DATA
from tests.http.conftest import Api, make_api
from tests.strategies import legal_logs, log_text
from tests.variant_strategies import variant_logs


def _addressable(lines: list[dict[str, Any]]) -> bool:
    """A match log whose ids are legal ids (the strategies predate the rule on ids, which a
    path's id is held to)."""
    first = lines[0]
    ids = [*first.get("players", ()), first.get("match", "eq-1")]
    return first["type"] == "match_started" and all(id_problem(i) is None for i in ids)


matches = st.one_of(legal_logs(max_hands=3), variant_logs(max_hands=3)).filter(_addressable)


def _rows(store: str) -> list[tuple[Any, ...]]:
    """Every row in commit order, without what differs between two recordings: when, the
    digests that cover when, and a log's ``format`` (the version of the log's text, which
    ``PUT /v1/matches/{match}`` does not keep: a body is no log file)."""
    out = []
    for _n, stream, version, topic, state in raw_rows(store):
        kept = {
            k: v
            for k, v in state.items()
            if k not in ("recorded_at", "digest", "hand_digest", "format")
        }
        out.append((stream, version, topic, json.dumps(kept, sort_keys=True)))
    return out


def _over_http(api: Api, lines: list[dict[str, Any]]) -> str:
    first = dict(lines[0])
    match = first.setdefault("match", "eq-1")
    path = f"/v1/matches/{quote(match, safe='')}"
    assert api.put(path, json.dumps(first)).status_code == 201
    number = seq = 0
    for line in lines[1:]:
        if line["type"] == "hand_started":
            number, seq = number + 1, 1
            answer = api.put(f"{path}/hands/{number}", json.dumps(line))
        else:
            seq += 1
            answer = api.put(f"{path}/hands/{number}/events/{seq}", json.dumps(line))
        assert answer.status_code == 201, answer.text
    return str(match)


@given(lines=matches)
@settings(max_examples=int(os.environ.get("MJLEDGER_EQ_EXAMPLES", "6")), deadline=None)
def test_http_record_and_replay_agree(lines: list[dict[str, Any]]) -> None:
    _agree(lines)


SECOND_SET = [
    log
    for log in sorted((DATA / "variants-2").glob("*.jsonl"))
    if '"match_started"' in log.read_text(encoding="utf-8")
]


@pytest.mark.parametrize("log", SECOND_SET, ids=lambda p: p.stem)
def test_the_second_set_examples_travel_through_http(log: Path) -> None:
    """Issue 23: each new option "travels through the HTTP service"."""
    _agree([json.loads(x) for x in log.read_text(encoding="utf-8").splitlines()])


def _agree(lines: list[dict[str, Any]]) -> None:
    if "match" not in lines[0]:
        lines = [{**lines[0], "match": "eq-1"}, *lines[1:]]
    text = log_text(lines)
    with tempfile.TemporaryDirectory() as folder:
        over_http = str(Path(folder) / "http.sqlite")
        recorded = str(Path(folder) / "record.sqlite")
        for api in make_api(over_http):
            match = _over_http(api, lines)
            served = api.get(f"/v1/matches/{quote(match, safe='')}").json()
        with Ledger(recorded) as ledger:
            ledger.record_log(text)
        expected = replay(text).to_json()
        hand_keys = [set(h) for h in expected["hands"]]
        assert [
            {k: h[k] for k in keys} for h, keys in zip(served["hands"], hand_keys, strict=True)
        ] == expected["hands"]
        assert served["totals"] == expected["totals"]
        assert _rows(over_http) == _rows(recorded)
        a, b = audit(over_http), audit(recorded)
        assert a.findings == b.findings == ()
        assert (a.summary.matches, a.summary.hands, a.summary.rows) == (
            b.summary.matches,
            b.summary.hands,
            b.summary.rows,
        )
