"""Property tests of the API from its own OpenAPI document (Schemathesis, against a real
server on 127.0.0.1): no request gets a 5xx, and every response matches the schema the
document gives it. Bounded: a few examples per operation (more under the CI profile)."""

from __future__ import annotations

import os
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import httpx
import pytest
import schemathesis
from hypothesis import HealthCheck, settings
from schemathesis.specs.openapi.checks import response_schema_conformance

from mjledger.http.access import Access
from mjledger.http.openapi import document
from mjledger.store.location import store_location
from tests.http.conftest import Server

ROOT = Path(__file__).resolve().parents[2]
EXAMPLES = 20 if os.environ.get("HYPOTHESIS_PROFILE") == "ci" else 3


@schemathesis.serializer("application/x-ndjson", "application/jsonl")
def log_text(context: Any, value: Any) -> bytes:
    """A log body as the document gives it: a string, sent as its UTF-8 bytes."""
    return value if isinstance(value, bytes) else str(value).encode("utf-8", "surrogatepass")


@pytest.fixture(scope="module")
def token_and_server(tmp_path_factory: pytest.TempPathFactory) -> Iterator[tuple[str, Server]]:
    store = str(tmp_path_factory.mktemp("schemathesis") / "store.sqlite")
    access = Access(store_location(store))
    token = access.create("staff", name="schemathesis")[1]
    access.close()
    with Server(store) as server:
        httpx.post(
            f"http://127.0.0.1:{server.port}/v1/logs",
            content=(ROOT / "examples" / "hongkong-match.jsonl").read_bytes(),
            headers={"authorization": f"Bearer {token}", "content-type": "application/x-ndjson"},
        ).raise_for_status()
        yield token, server


# The document the service serves (test_endpoints checks it is this one), read at import so
# that each operation is a test of its own.
schema = schemathesis.openapi.from_dict(document()).include(path_regex="^/v1|^/healthz|^/readyz")


@schema.parametrize()
@settings(
    max_examples=EXAMPLES,
    deadline=None,
    suppress_health_check=list(HealthCheck),
)
def test_the_api_keeps_its_own_document(case: Any, token_and_server: tuple[str, Server]) -> None:
    token, server = token_and_server
    response = case.call(
        base_url=f"http://127.0.0.1:{server.port}", headers={"authorization": f"Bearer {token}"}
    )
    assert response.status_code < 500, (case.method, case.path, response.text[:300])
    case.validate_response(response, checks=[response_schema_conformance])
