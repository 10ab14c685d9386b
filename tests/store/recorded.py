"""A random log recorded into a store of its own, for a property's one example."""

from __future__ import annotations

import tempfile
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path

from mjledger.ledger import Ledger
from tests.strategies import log_text


@contextmanager
def recorded_match(lines: list) -> Iterator[tuple[Ledger, str]]:
    """The ledger of a fresh SQLite store holding the match ``lines`` log, and its id."""
    with tempfile.TemporaryDirectory() as folder:
        ledger = Ledger(Path(folder) / "s.sqlite")
        try:
            yield ledger, ledger.record_log(log_text(lines)).match
        finally:
            ledger.close()
