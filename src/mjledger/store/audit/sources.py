"""The audit's row source for a store location: its backend's (a SQLite file's or a PostgreSQL
schema's, :meth:`mjledger.store.backends.Backend.audit_rows`)."""

from __future__ import annotations

from pathlib import Path

from mjledger.store.audit.rows import AuditRows
from mjledger.store.backends import backend_for
from mjledger.store.location import StoreLocation


def open_rows(store: str | Path | StoreLocation | None = None) -> AuditRows:
    """A read-only snapshot of the store's rows: a SQLite file or a PostgreSQL schema."""
    return backend_for(store).audit_rows()
