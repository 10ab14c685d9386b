"""Exactly once under retries and races (two applications on one store, as two processes
are), and body limits and timeouts with nothing written."""

from __future__ import annotations

import json
import threading
from collections.abc import Iterator
from pathlib import Path
from typing import Any, ClassVar

import pytest

from mjledger.http.access import Access
from mjledger.store.audit import store_head
from mjledger.store.location import store_location
from tests.http.conftest import EXAMPLE_MATCH, Api, Server, make_api

ROOT = Path(__file__).resolve().parents[2]
M = f"/v1/matches/{EXAMPLE_MATCH}"


def _race(calls: list[Any]) -> list[Any]:
    """Run the calls at once (a barrier before each), answers in order."""
    barrier = threading.Barrier(len(calls))
    answers: list[Any] = [None] * len(calls)

    def run(i: int) -> None:
        barrier.wait()
        answers[i] = calls[i]()

    threads = [threading.Thread(target=run, args=(i,)) for i in range(len(calls))]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    return answers


@pytest.fixture
def two(store: str) -> Iterator[tuple[Api, Api]]:
    """Two applications on one store, as two serve processes."""
    for first in make_api(store):
        for second in make_api(store):
            second.tokens = first.tokens
            yield first, second


@pytest.mark.parametrize("attempt", range(4))
def test_two_clients_racing_for_one_place(two: tuple[Api, Api], attempt: int) -> None:
    a, b = two
    a.example_hand()
    discard = '{"type": "discarded", "player": "di", "tile": "5m"}'
    self_draw = '{"type": "self_drawn", "player": "ana", "fan": 1}'
    first, second = _race(
        [
            lambda: a.put(f"{M}/hands/1/events/6", discard),
            lambda: b.put(f"{M}/hands/1/events/6", self_draw),
        ]
    )
    assert sorted([first.status_code, second.status_code]) == [201, 409]
    loser = first if first.status_code == 409 else second
    assert (loser.json()["code"], loser.json()["position"]) == ("conflict", 6)
    assert a.get(f"{M}/hands/1").json()["position"] == 6


def test_retries_racing_with_the_same_event_write_it_once(two: tuple[Api, Api]) -> None:
    a, b = two
    a.example_hand()
    discard = '{"type": "discarded", "player": "di", "tile": "5m"}'
    answers = _race([lambda c=c: c.put(f"{M}/hands/1/events/6", discard) for c in (a, b, a, b)])
    assert sorted(x.status_code for x in answers) == [200, 200, 200, 201]
    assert a.get(f"{M}/hands/1").json()["position"] == 6


def test_two_staff_correcting_one_hand_at_once(two: tuple[Api, Api]) -> None:
    a, b = two
    text = (ROOT / "examples" / "hongkong-match.jsonl").read_text()
    match = a.post_log("/v1/logs", text).json()["match"]
    void = json.dumps({"action": "void", "number": 3, "reason": "seen twice"})
    other = json.dumps({"action": "void", "number": 3, "reason": "another reason"})
    path = f"/v1/matches/{match}/corrections/1"
    first, second = _race([lambda: a.put(path, void), lambda: b.put(path, other, role="staff2")])
    assert sorted([first.status_code, second.status_code]) == [201, 409]
    loser = first if first.status_code == 409 else second
    assert (loser.json()["code"], loser.json()["corrections"]) == ("conflict", 1)
    assert len(a.get(f"/v1/matches/{match}/corrections").json()["items"]) == 1


def test_a_void_overtaken_between_its_reads_is_a_conflict_not_a_refusal(
    two: tuple[Api, Api], monkeypatch: pytest.MonkeyPatch
) -> None:
    """The interleaving CI once hit: b reads no corrections, a voids the hand, then b's rules
    check sees a voided hand. That is a lost race (409), not a refusal of the rules (422)."""
    from mjledger.http import writes

    a, b = two
    text = (ROOT / "examples" / "hongkong-match.jsonl").read_text()
    match = a.post_log("/v1/logs", text).json()["match"]
    path = f"/v1/matches/{match}/corrections/1"
    void = json.dumps({"action": "void", "number": 3, "reason": "seen twice"})
    real_apply = writes._apply
    overtaken: list[bool] = []

    def overtaking_apply(ledger: Any, match: str, number: int, request: Any, by: str) -> None:
        if not overtaken:
            overtaken.append(True)
            assert a.put(path, void).status_code == 201
        real_apply(ledger, match, number, request, by)

    monkeypatch.setattr(writes, "_apply", overtaking_apply)
    other = json.dumps({"action": "void", "number": 3, "reason": "another reason"})
    answer = b.put(path, other, role="staff2")
    assert (answer.status_code, answer.json()["code"], answer.json()["corrections"]) == (
        409,
        "conflict",
        1,
    )
    assert overtaken == [True]


def test_racing_logs_record_the_match_once(two: tuple[Api, Api]) -> None:
    a, b = two
    text = (ROOT / "examples" / "sichuan-match.jsonl").read_text()
    answers = _race([lambda: a.post_log("/v1/logs", text), lambda: b.post_log("/v1/logs", text)])
    assert {x.json()["status"] for x in answers} <= {"recorded", "resumed", "unchanged"}
    assert a.get("/v1/audit").json()["findings"] == []


# --- limits, on a real server ------------------------------------------------------------------


def _request(method: str, path: str, token: str, headers: dict[str, str]) -> bytes:
    lines = [f"{method} {path} HTTP/1.1", "host: 127.0.0.1", f"authorization: Bearer {token}"]
    lines += [f"{k}: {v}" for k, v in headers.items()]
    return ("\r\n".join(lines) + "\r\n\r\n").encode()


@pytest.fixture
def token(store: str) -> str:
    access = Access(store_location(store))
    secret = access.create("staff", name="wen.li")[1]
    access.close()
    return secret


def test_a_declared_body_over_the_limit_is_413_before_it_is_read(store: str, token: str) -> None:
    with Server(store) as server:
        big = 64 * 1024 + 1
        request = _request(
            "PUT",
            "/v1/matches/m1",
            token,
            {"content-type": "application/json", "content-length": str(big)},
        )
        answer = server.raw(request)
    head, _, body = answer.partition(b"\r\n\r\n")
    assert head.startswith(b"HTTP/1.1 413")
    assert json.loads(body)["code"] == "too_large"
    assert json.loads(body)["limit"] == 65536
    assert b"connection: close" in head.lower()


def test_a_chunked_log_over_the_limit_is_413_and_nothing_is_stored(store: str, token: str) -> None:
    with Server(store, max_log_bytes=1000) as server:
        before = store_head(store)
        request = _request(
            "POST",
            "/v1/logs",
            token,
            {"content-type": "application/x-ndjson", "transfer-encoding": "chunked"},
        )
        line = b'{"type": "match_started", "ruleset": "hongkong", "players": ["a","b","c","d"]}\n'
        chunk = hex(len(line) * 20)[2:].encode() + b"\r\n" + line * 20 + b"\r\n0\r\n\r\n"
        answer = server.raw(request + chunk)
    assert answer.startswith(b"HTTP/1.1 413")
    assert store_head(store) == before


def test_a_body_too_slow_is_408_and_nothing_is_written(store: str, token: str) -> None:
    with Server(store, body_timeout=0.5) as server:
        body = b'{"type": "match_started", "ruleset": "hongkong", "players": ["a","b","c","d"]}'
        request = _request(
            "PUT",
            "/v1/matches/slow",
            token,
            {"content-type": "application/json", "content-length": str(len(body))},
        )
        answer = server.raw(request + body[:10], then=body[10:], pause=1.5)
        assert answer.startswith(b"HTTP/1.1 408")
        assert b'"code":"request_timeout"' in answer
        check = _request("GET", "/v1/matches/slow", token, {})
        assert b'"code":"no_match"' in server.raw(
            check.replace(b"\r\n\r\n", b"\r\nconnection: close\r\n\r\n")
        )


def test_expect_100_continue_over_the_limit_gets_413_and_no_100(store: str, token: str) -> None:
    with Server(store, max_log_bytes=1000) as server:
        request = _request(
            "POST",
            "/v1/logs",
            token,
            {
                "content-type": "application/x-ndjson",
                "content-length": "1001",
                "expect": "100-continue",
            },
        )
        answer = server.raw(request)
    assert answer.startswith(b"HTTP/1.1 413"), answer[:80]
    assert b"100 Continue" not in answer
    assert b'"code":"too_large"' in answer


class _FullDisk:
    """A spool on a disk that is full; remembers being closed."""

    opened: ClassVar[list[_FullDisk]] = []

    def __init__(self) -> None:
        self.writes = 0
        self.closed = False
        _FullDisk.opened.append(self)

    def write(self, chunk: bytes) -> int:
        self.writes += 1
        raise OSError(28, "No space left on device")

    def seek(self, offset: int) -> int:
        return offset

    def close(self) -> None:
        self.closed = True


def test_a_disk_full_while_spooling_is_503_the_spool_freed_nothing_stored(
    api: Api, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setattr("mjledger.http.service.tempfile.TemporaryFile", _FullDisk)
    before = store_head(api.store)
    text = (ROOT / "examples" / "hongkong-match.jsonl").read_text()
    lines = text.splitlines(keepends=True)

    def chunks() -> Iterator[bytes]:
        for line in lines:
            yield line.encode()

    headers = {**api.auth("staff"), "content-type": "application/x-ndjson"}
    answer = api.client.post("/v1/logs", content=chunks(), headers=headers)
    assert answer.status_code == 503, answer.text
    assert answer.json()["code"] == "store_unavailable"
    assert "retry" in answer.json()["detail"]
    assert [spool.closed for spool in _FullDisk.opened] == [True]
    assert store_head(api.store) == before
    # the place to spool was given back: the next log is received
    monkeypatch.undo()
    assert api.post_log("/v1/logs", text).status_code == 201
