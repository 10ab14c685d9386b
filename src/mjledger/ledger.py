"""``from mjledger.ledger import Ledger`` (and the stream ids), as docs/library.md and
docs/store.md show; the store itself is :mod:`mjledger.store`."""

from mjledger.store.application import (
    PERSISTENCE,
    STORE_ENV,
    Ledger,
    hand_stream,
    match_stream,
    store_path,
    table_stream,
)

__all__ = [
    "PERSISTENCE",
    "STORE_ENV",
    "Ledger",
    "hand_stream",
    "match_stream",
    "store_path",
    "table_stream",
]
