"""The audit's row source for a store location: a SQLite file's or a PostgreSQL schema's."""

from __future__ import annotations

from pathlib import Path

from mjledger.store.audit.rows import AuditRows, SqliteRows
from mjledger.store.location import PostgresStore, StoreLocation, store_location


def open_rows(store: str | Path | StoreLocation | None = None) -> AuditRows:
    """A read-only snapshot of the store's rows: a SQLite file or a PostgreSQL schema."""
    location = store_location(store)
    if isinstance(location, PostgresStore):
        from mjledger.store.audit.postgres import PostgresRows

        return PostgresRows(location)
    return SqliteRows(location.path)
