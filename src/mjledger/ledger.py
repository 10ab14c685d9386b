"""``from mjledger.ledger import Ledger``, as docs/library.md shows; the store itself is
:mod:`mjledger.store`."""

from mjledger.store.application import Ledger, store_path

__all__ = ["Ledger", "store_path"]
