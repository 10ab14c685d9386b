"""The HTTP service under test: an application per store, in process (Litestar's test client),
and tokens of each role."""

from __future__ import annotations

import socket
import threading
import time
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
import uvicorn
from litestar.testing import TestClient

from mjledger.http import create_app
from mjledger.http.access import Access
from mjledger.store.location import store_location

EXAMPLE_MATCH = "t7-2026-11-29-01"
EXAMPLE_START = (
    '{"type": "match_started", "ruleset": "sichuan", "players": ["ana", "bo", "cy", "di"],'
    ' "rules": {"fan_cap": 4}}'
)
EXAMPLE_EVENTS = (
    '{"type": "kong_declared", "player": "ana", "kind": "exposed", "from": "di", "tile": "7p"}',
    '{"type": "discarded", "player": "ana", "tile": "3s"}',
    '{"type": "kong_declared", "player": "bo", "kind": "added", "tile": "2s"}',
    '{"type": "won_on_discard", "player": "cy", "from": "bo", "fan": 2}',
)
JSON = {"content-type": "application/json"}


class Api:
    """A client of one application, with a bearer token per role."""

    def __init__(self, client: TestClient[Any], store: str) -> None:
        self.client = client
        self.store = store
        access = Access(store_location(store))
        self.tokens = {
            "backend": access.create("backend", name="game-server")[1],
            "staff": access.create("staff", name="wen.li")[1],
            "staff2": access.create("staff", name="ana.s")[1],
            "auditor": access.create("auditor", name="audit")[1],
            "scoped": access.create("backend", scope="lobby1-", name="lobby1")[1],
        }
        access.close()

    def auth(self, role: str = "staff") -> dict[str, str]:
        return {"authorization": f"Bearer {self.tokens[role]}"}

    def get(self, path: str, role: str = "staff", **kw: Any) -> Any:
        return self.client.get(path, headers=self.auth(role), **kw)

    def put(self, path: str, body: str, role: str = "staff", **kw: Any) -> Any:
        headers = {**self.auth(role), **JSON, **kw.pop("headers", {})}
        return self.client.put(path, content=body.encode(), headers=headers, **kw)

    def post_log(self, path: str, text: str, role: str = "staff") -> Any:
        headers = {**self.auth(role), "content-type": "application/x-ndjson"}
        return self.client.post(path, content=text.encode(), headers=headers)

    def replay_text(self, text: str) -> Any:
        answer = self.post_log("/v1/replay", text, role="auditor")
        assert answer.status_code == 200, answer.text
        return answer.json()

    def example_hand(self, match: str = EXAMPLE_MATCH, role: str = "staff") -> Any:
        """The spec's example, up to cy's win (the hand at position 5)."""
        assert self.put(f"/v1/matches/{match}", EXAMPLE_START, role).status_code == 201
        started = self.put(
            f"/v1/matches/{match}/hands/1", '{"type": "hand_started", "dealer": "di"}', role
        )
        assert started.status_code == 201, started.text
        answer = None
        for seq, event in enumerate(EXAMPLE_EVENTS, 2):
            answer = self.put(f"/v1/matches/{match}/hands/1/events/{seq}", event, role)
            assert answer.status_code == 201, answer.text
        return answer


def make_api(store: str, **options: Any) -> Iterator[Api]:
    app = create_app(store, **options)
    with TestClient(app) as client:
        yield Api(client, store)


@pytest.fixture
def store(tmp_path: Path) -> str:
    return str(tmp_path / "store.sqlite")


@pytest.fixture
def api(store: str) -> Iterator[Api]:
    yield from make_api(store)


class Server:
    """uvicorn in a thread on a free loopback port."""

    def __init__(self, store: str, **options: Any) -> None:
        self.app = create_app(store, **options)
        sock = socket.socket()
        sock.bind(("127.0.0.1", 0))
        self.port = sock.getsockname()[1]
        self.sock = sock
        config = uvicorn.Config(self.app, log_level="warning", lifespan="on")
        self.server = uvicorn.Server(config)
        self.thread = threading.Thread(target=self.server.run, kwargs={"sockets": [sock]})

    def __enter__(self) -> Server:
        self.thread.start()
        while not self.server.started:
            time.sleep(0.02)
        return self

    def __exit__(self, *exc: object) -> None:
        self.server.should_exit = True
        self.thread.join()

    def raw(self, request: bytes, then: bytes = b"", pause: float = 0.0) -> bytes:
        """Send ``request``, after ``pause`` seconds ``then``, and read the whole answer."""
        with socket.create_connection(("127.0.0.1", self.port), timeout=4) as conn:
            conn.sendall(request)
            if pause:
                time.sleep(pause)
            try:
                if then:
                    conn.sendall(then)
            except OSError:
                pass
            out = b""
            try:
                while chunk := conn.recv(65536):
                    out += chunk
            except TimeoutError:
                print("timed out after", out)
                raise
        return out
