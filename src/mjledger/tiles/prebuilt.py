"""The wait tables, built once and read back: shipped with the package, or in the user's cache.

Building the tables (:mod:`.tables`: every split of a suit, every wait, the plan of every
combination of four suits) costs about a second of CPU, which every process that reads tiles
paid before its first hand. A wheel ships them built (``setup.py`` writes ``wait_tables.bin``
next to this module at build time); an install without them (an editable one) builds them
once and keeps them in ``$XDG_CACHE_HOME/mjledger`` (else ``~/.cache/mjledger``); where
neither can be read or written (a read-only install and home), they are built in memory, as
before. A file is used only if it was written from this very ``tables.py`` (its digest
heads the file) by this marshal format; anything else is ignored, never trusted. A test
checks that what is read back equals what the builder makes.
"""

from __future__ import annotations

import hashlib
import marshal
import os
import tempfile
from pathlib import Path
from typing import Any, Final

PACKAGED: Final = Path(__file__).with_name("wait_tables.bin")
_MAGIC: Final = b"mjledger wait tables\n"


def digest() -> bytes:
    """What a tables file must have been written from: the builder's source and marshal's
    format version."""
    source = Path(__file__).with_name("tables.py").read_bytes()
    return hashlib.sha256(source + b"marshal %d" % marshal.version).hexdigest().encode()


def cache_file() -> Path:
    """The tables' file in the user's cache directory (XDG), named after the builder that
    writes it: installs of different versions side by side each keep their own, instead of
    each rebuilding and overwriting the other's on every run."""
    root = os.environ.get("XDG_CACHE_HOME") or Path.home() / ".cache"
    return Path(root, "mjledger", f"wait_tables-{digest()[:16].decode()}.bin")


def dumps(tables: Any) -> bytes:
    return _MAGIC + digest() + b"\n" + marshal.dumps(tables)


def loads(data: bytes) -> Any | None:
    """The tables in ``data``, or None if they were not written from this builder."""
    head = _MAGIC + digest() + b"\n"
    if not data.startswith(head):
        return None
    try:
        return marshal.loads(memoryview(data)[len(head) :])  # no copy of 8 MB
    except (EOFError, ValueError, TypeError):
        return None


def load() -> Any | None:
    """The tables shipped with the package, else those in the user's cache, else None."""
    for path in (PACKAGED, cache_file()):
        try:
            data = path.read_bytes()
        except OSError:
            continue
        tables = loads(data)
        if tables is not None:
            return tables
    return None


def save(tables: Any, path: Path | None = None) -> bool:
    """Keep ``tables`` in ``path`` (default: the user's cache), written whole or not at all
    (a temporary file renamed); False where it cannot be written (the tables then live in
    memory only)."""
    target = cache_file() if path is None else path
    try:
        target.parent.mkdir(parents=True, exist_ok=True)
        with tempfile.NamedTemporaryFile(dir=target.parent, delete=False) as out:
            out.write(dumps(tables))
        os.replace(out.name, target)
    except OSError:
        return False
    return True
