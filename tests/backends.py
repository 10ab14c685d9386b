"""The stored rows of either backend, read behind the ledger's back (as an auditor would).

The contract suite runs once per backend object that keeps its rows (:data:`PERSISTING`,
from :mod:`mjledger.store.backends`: SQLite and PostgreSQL); what it checks in the raw rows
(the JSON of each event, the digest chains, notification order) must not depend on which one
it is.
"""

from __future__ import annotations

import json
import os
import sqlite3
from pathlib import Path
from typing import Any

import pytest

from mjledger.ledger import hand_stream, match_stream
from mjledger.store.backends import Backend, PostgresBackend, SqliteBackend, backend_for
from mjledger.store.location import PostgresStore, SqliteStore, store_location
from mjledger.store.records import GENESIS, chain
from mjledger.store.views import views_path

Row = tuple[int, str, int, str, dict[str, Any]]
# The backends whose rows outlive the ledger (the in-memory one keeps none to read back).
PERSISTING: tuple[type[Backend], ...] = (SqliteBackend, PostgresBackend)


def new_store(backend: type[Backend], request: pytest.FixtureRequest, name: str = "store") -> str:
    """A new, empty store of ``backend``: a file, or a fresh PostgreSQL database (checked to
    open as that backend)."""
    if backend is SqliteBackend:
        store = str(request.getfixturevalue("tmp_path") / f"{name}.sqlite")
    else:
        cluster = request.getfixturevalue("pg_cluster")
        store = str(cluster.url(cluster.create_database()))
    assert type(backend_for(store)) is backend
    return store


def _postgres(store: PostgresStore) -> Any:
    import psycopg

    return psycopg.connect(**store.conninfo(), autocommit=True)


def events_table(store: PostgresStore) -> str:
    return f'"{store.schema}".mjledger_events'


def raw_rows(where: str | os.PathLike[str]) -> list[Row]:
    """Every stored row in commit order: (notification id, stream hex, version, topic, state)."""
    store = store_location(where)
    if isinstance(store, SqliteStore):
        with sqlite3.connect(store.path) as db:
            raw = db.execute(
                "SELECT rowid, originator_id, originator_version, topic, state "
                "FROM stored_events ORDER BY rowid"
            ).fetchall()
        return [(r, s, v, t, json.loads(state)) for r, s, v, t, state in raw]
    with _postgres(store) as conn:
        raw = conn.execute(
            "SELECT notification_id, originator_id, originator_version, topic, state "
            f"FROM {events_table(store)} ORDER BY notification_id"
        ).fetchall()
    return [(n, s.hex, v, t, json.loads(bytes(state))) for n, s, v, t, state in raw]


def stream_rows(where: str | os.PathLike[str], stream: Any) -> list[dict[str, Any]]:
    return [
        state
        for _, s, _, _, state in sorted(raw_rows(where), key=lambda r: (r[1], r[2]))
        if s == stream.hex
    ]


def set_state(where: str | os.PathLike[str], notification_id: int, state: dict[str, Any]) -> None:
    """Overwrite one stored row's JSON, as someone editing the database by hand would."""
    store = store_location(where)
    data = json.dumps(state).encode()
    if isinstance(store, SqliteStore):
        with sqlite3.connect(store.path) as db:
            db.execute(
                "UPDATE stored_events SET state = ? WHERE rowid = ?", (data, notification_id)
            )
        return
    with _postgres(store) as conn:
        conn.execute(
            f"UPDATE {events_table(store)} SET state = %s WHERE notification_id = %s",
            (data, notification_id),
        )


def insert_row(
    where: str | os.PathLike[str], stream: Any, version: int, topic: str, state: Any
) -> None:
    """Insert one row by hand (an old row written by an earlier version of mjledger)."""
    store = store_location(where)
    data = json.dumps(state).encode()
    if isinstance(store, SqliteStore):
        with sqlite3.connect(store.path) as db:
            db.execute(
                "INSERT INTO stored_events VALUES (?, ?, ?, ?)", (stream.hex, version, topic, data)
            )
        return
    with _postgres(store) as conn:
        conn.execute(
            f"INSERT INTO {events_table(store)} (originator_id, originator_version, topic, state) "
            "VALUES (%s, %s, %s, %s)",
            (stream, version, topic, data),
        )


def check_chain(where: str | os.PathLike[str], match: str) -> int:
    """Recompute every digest of ``match`` from the raw rows; returns how many hands it has."""
    rows = raw_rows(where)
    by_stream: dict[str, list[tuple[int, int, dict[str, Any]]]] = {}
    for notification, stream, version, _, state in rows:
        by_stream.setdefault(stream, []).append((notification, version, state))

    def stream(s: Any) -> list[dict[str, Any]]:
        found = sorted(by_stream.get(s.hex, []), key=lambda r: r[1])
        assert [v for _, v, _ in found] == list(range(1, len(found) + 1)), "a version gap"
        # a stream's rows were committed in their order
        assert [n for n, _, _ in found] == sorted(n for n, _, _ in found)
        return [state for _, _, state in found]

    match_rows = stream(match_stream(match))
    previous = GENESIS
    match_digests = []
    for row in match_rows:
        bare = {k: v for k, v in row.items() if k not in ("recorded_at", "digest")}
        assert chain(previous, bare) == row["digest"]
        previous = row["digest"]
        match_digests.append(previous)
    closed = [r for r in match_rows if r["type"] == "hand_closed"]
    assert [c["number"] for c in closed] == list(range(1, len(closed) + 1))
    number = 1
    while hand_rows := stream(hand_stream(match, number)):
        # a hand's first digest chains from its match's digest when the hand started: after
        # match_started and the closing of every earlier hand
        previous = match_digests[number - 1]
        for row in hand_rows:
            bare = {k: v for k, v in row.items() if k not in ("recorded_at", "digest")}
            assert chain(previous, bare) == row["digest"]
            previous = row["digest"]
        if number <= len(closed):
            assert closed[number - 1]["hand_digest"] == hand_rows[-1]["digest"]
            assert closed[number - 1]["events"] == len(hand_rows)
        number += 1
    assert number - 1 >= len(closed)
    return number - 1


def is_postgres(where: str | os.PathLike[str] | Path) -> bool:
    return isinstance(store_location(where), PostgresStore)


def progress(where: str | os.PathLike[str]) -> tuple[int, int]:
    """(stored rows, the views' tracking position), read while another process writes; 0 for
    what does not exist yet (a crash test polls this until the writer is part way)."""
    store = store_location(where)
    if isinstance(store, SqliteStore):
        return (
            _sqlite_count(store.path, "SELECT COUNT(*) FROM stored_events"),
            _sqlite_count(views_path(store.path), "SELECT MAX(notification_id) FROM tracking"),
        )
    counts = []
    for sql in (
        f"SELECT count(*) FROM {events_table(store)}",
        f'SELECT max(notification_id) FROM "{store.schema}".mjledger_views_tracking '
        "WHERE application_name = 'mjledger'",
    ):
        try:
            with _postgres(store) as conn:
                (n,) = conn.execute(sql).fetchone()
        except Exception:  # not created yet
            n = 0
        counts.append(int(n or 0))
    return counts[0], counts[1]


def _sqlite_count(path: Path, sql: str) -> int:
    if not path.exists():
        return 0
    try:
        with sqlite3.connect(f"file:{path}?mode=ro", uri=True, timeout=5) as db:
            (n,) = db.execute(sql).fetchone()
    except sqlite3.OperationalError:  # tables not created yet, or busy
        return 0
    return int(n or 0)
