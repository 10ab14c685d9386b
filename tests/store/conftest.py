"""Fixtures of the store tests: a store file, and a ledger on it or in memory."""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path

import pytest

from mjledger.ledger import Ledger


@pytest.fixture
def store(tmp_path: Path) -> Path:
    return tmp_path / "store.sqlite"


@pytest.fixture
def ledger(request: pytest.FixtureRequest) -> Iterator[Ledger]:
    """A ledger on SQLite when the test also reads the file (``store``), else in memory
    (eventsourcing's POPO recorders: the same application, no disk)."""
    if "store" in request.fixturenames:
        led = Ledger(request.getfixturevalue("store"))
    else:
        led = Ledger(persistence="memory")
    yield led
    led.close()
