"""The store's files as the command line meets them: which file may be opened, and how, and
what a database error means in words a user can act on.

SQLite reports most trouble as "unable to open database file" or "file is not a database".
Those say nothing about the cause, so the cause (a missing directory, a permission, another
program's database, the views file given as the store) is looked up here before opening, and
named in the refusal.
"""

from __future__ import annotations

import os
import sqlite3
import time
from collections.abc import Callable
from pathlib import Path
from typing import Final, TypeVar
from urllib.parse import quote

from eventsourcing.persistence import PersistenceError

from mjledger._text import one_line
from mjledger.errors import StoreError

T = TypeVar("T")

# Every error a database operation may raise: sqlite3's own and eventsourcing's wrappers.
DB_ERRORS: Final = (sqlite3.Error, PersistenceError)
SQLITE_HEADER: Final = b"SQLite format 3\x00"
STORE_TABLE: Final = "stored_events"
VIEWS_TABLE: Final = "view_matches"


def in_memory(path: str) -> bool:
    """``:memory:`` and every ``file:`` URI (``file::memory:``, ``file:x?mode=memory``): a
    store that would keep nothing, or a name SQLite would not read as a plain path."""
    return path == ":memory:" or path.startswith("file:") or path == ""


def writable_directory(path: Path) -> bool:
    return os.access(path.parent if str(path.parent) else Path("."), os.W_OK)


def read_only_uri(path: Path) -> str:
    """A read-only SQLite URI for an existing store.

    In a directory that cannot be written, SQLite cannot create the shared-memory file a WAL
    database needs even to be read; the file is then opened as immutable (nobody can be
    writing it from here either).
    """
    uri = f"file:{quote(str(path.resolve()))}?mode=ro"
    return uri if writable_directory(path) else uri + "&immutable=1"


def _cannot_open(path: Path, *, writing: bool) -> str | None:
    """Why ``path`` cannot be opened, in words, or None when nothing is visibly wrong."""
    directory = path.parent if str(path.parent) else Path(".")
    if not directory.exists():
        return f"no directory {directory} for the store {path}"
    if not directory.is_dir():
        return f"{directory} is not a directory"
    if path.exists():
        if path.is_dir():
            return f"{path} is a directory, not a store"
        if not os.access(path, os.R_OK):
            return f"cannot read the store {path}: permission denied"
        if writing and not os.access(path, os.W_OK):
            return f"cannot write the store {path}: permission denied"
    elif writing and not os.access(directory, os.W_OK | os.X_OK):
        return f"cannot create the store {path}: no permission to write in {directory}"
    if writing and path.exists() and not os.access(directory, os.W_OK | os.X_OK):
        return f"cannot write the store {path}: no permission to write in {directory}"
    return None


def _tables(path: Path) -> set[str]:
    uri = f"file:{quote(str(path.resolve()))}?mode=ro"
    if not writable_directory(path):
        uri += "&immutable=1"
    db = sqlite3.connect(uri, uri=True)
    try:
        return {name for (name,) in db.execute("SELECT name FROM sqlite_master")}
    finally:
        db.close()


def check_store(path: Path, *, writing: bool, create: bool | None = None) -> None:
    """Refuse, naming the cause, a store path that cannot be (or must not be) opened.

    A file that is there must be a mjledger store: an empty file, or an SQLite database with
    the store's table. The views file, another program's database or any other file is
    refused before anything is written into it.
    """
    text = str(path)
    if in_memory(text):
        raise StoreError(
            f"--store {text!r} is not a file: an in-memory or URI store keeps nothing; "
            "give the path of a file",
            code="bad_parameter",
        )
    cause = _cannot_open(path, writing=writing)
    if cause is not None:
        raise StoreError(cause, code="store_unavailable")
    if create is None:
        create = writing  # a writer may create the store unless told it must be there
    if not path.exists():
        if create:
            return
        raise StoreError(
            f"no store at {path} (record a log first, or pass --store)", code="store_unavailable"
        )
    with path.open("rb") as f:
        header = f.read(len(SQLITE_HEADER))
    if not header:
        if writing:
            return  # an empty file: a new store (as `touch` or mktemp leave it)
        raise StoreError(
            f"{path} is empty: not a mjledger store (record a log into it first)",
            code="store_damaged",
        )
    if header != SQLITE_HEADER:
        raise StoreError(
            f"{path} is not a mjledger store (not an SQLite database)", code="store_damaged"
        )
    try:
        tables = _tables(path)
    except sqlite3.Error as exc:
        raise StoreError(f"the store {path} is damaged: {exc}", code="store_damaged") from None
    if STORE_TABLE in tables:
        return
    if not tables:  # a database with nothing in it yet (another writer may be creating it)
        if writing:
            return
        raise StoreError(
            f"{path} is empty: not a mjledger store (record a log into it first)",
            code="store_damaged",
        )
    if VIEWS_TABLE in tables:
        raise StoreError(f"{path} is a views file (read models), not a store", code="store_damaged")
    raise StoreError(
        f"{path} is not a mjledger store (an SQLite database without its tables)",
        code="store_damaged",
    )


def database_problem(path: Path, exc: BaseException, *, writing: bool) -> StoreError:
    """A database error as one line naming the file and, where it can be found, the cause."""
    cause = _cannot_open(path, writing=writing)
    if cause is not None:
        return StoreError(cause, code="store_unavailable")
    detail = one_line(str(exc) or type(exc).__name__, 120)
    if "malformed" in detail or "not a database" in detail or "corrupt" in detail:
        return StoreError(f"the store {path} is damaged: {detail}", code="store_damaged")
    return StoreError(f"the store {path} cannot be used: {detail}", code="store_unavailable")


def retry_while_locked(action: Callable[[], T], *, seconds: float = 30.0) -> T:
    """Run ``action``, waiting while another process holds the database (SQLite's busy timeout
    does not cover a new store's first open, where the journal mode is being set)."""
    deadline = time.monotonic() + seconds
    delay = 0.01
    while True:
        try:
            return action()
        except DB_ERRORS as exc:
            if "locked" not in str(exc) or time.monotonic() > deadline:
                raise
            time.sleep(delay)
            delay = min(delay * 2, 0.25)


def views_problem(path: Path) -> str | None:
    """What is wrong with a views file that cannot be read (None when it reads well)."""
    if not path.exists():
        return None
    try:
        db = sqlite3.connect(f"file:{quote(str(path.resolve()))}?mode=ro", uri=True)
        try:
            (verdict,) = db.execute("PRAGMA quick_check").fetchone()
            tables = {name for (name,) in db.execute("SELECT name FROM sqlite_master")}
        finally:
            db.close()
    except sqlite3.Error as exc:
        return one_line(str(exc), 120)
    if verdict != "ok":
        return one_line(str(verdict), 120)
    if tables and VIEWS_TABLE not in tables and "tracking" not in tables:
        return "not a views file"
    return None


def remove_database(path: Path) -> None:
    """Delete an SQLite file with its journal files (for derived data only: the views)."""
    for suffix in ("", "-wal", "-shm", "-journal"):
        Path(f"{path}{suffix}").unlink(missing_ok=True)
