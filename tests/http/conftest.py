"""The HTTP service under test: an application per store, in process (Litestar's test client),
and tokens of each role."""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
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
