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

import marshal
import mmap
import os
from collections.abc import Sequence
from functools import cache
from typing import TYPE_CHECKING, Any, Final

if TYPE_CHECKING:
    from hashlib import _Hash

# Paths as strings: pathlib (and the urllib.parse it imports) is not needed to find the file,
# nor tempfile to read it, on the start-up of every command that reads tiles.
_HERE: Final = os.path.dirname(__file__)
PACKAGED: Final = os.path.join(_HERE, "wait_tables.bin")
_MAGIC: Final = b"mjledger wait tables\n"


@cache
def digest() -> bytes:
    """What a tables file must have been written from: the builder's source and marshal's
    format version."""
    with open(os.path.join(_HERE, "tables.py"), "rb") as file:
        source = file.read()
    return _sha256(source + b"marshal %d" % marshal.version).hexdigest().encode()


def _sha256(data: bytes) -> _Hash:
    """``hashlib.sha256(data)``, from Python's own SHA-256 where it is there: ``hashlib``
    loads OpenSSL (about a sixth of the start-up of a command that reads one tile hand)."""
    try:
        from _sha2 import sha256  # type: ignore[import-not-found,unused-ignore]  # 3.12 on
    except ImportError:
        try:
            from _sha256 import sha256  # type: ignore[import-not-found,no-redef,unused-ignore]
        except ImportError:  # a Python built without them: hashlib's, the same digest
            from hashlib import sha256
    found: _Hash = sha256(data)
    return found


def cache_file() -> str:
    """The tables' file in the user's cache directory (XDG), named after the builder that
    writes it: installs of different versions side by side each keep their own, instead of
    each rebuilding and overwriting the other's on every run."""
    root = os.environ.get("XDG_CACHE_HOME") or os.path.join(os.path.expanduser("~"), ".cache")
    return os.path.join(root, "mjledger", f"wait_tables-{digest()[:16].decode()}.bin")


def dumps(parts: Sequence[Any]) -> bytes:
    """The file of ``parts``, each read back alone (:func:`loads`): a log of wins only needs
    the splits, never the wait information, and reading a part costs what it holds."""
    blobs = [marshal.dumps(part) for part in parts]
    sizes = b" ".join(b"%d" % len(blob) for blob in blobs)
    return _MAGIC + digest() + b"\n" + sizes + b"\n" + b"".join(blobs)


def loads(data: bytes | mmap.mmap, part: int) -> Any | None:
    """Part ``part`` of the tables in ``data``, or None if they were not written from this
    builder (or are cut short)."""
    head = _MAGIC + digest() + b"\n"
    if data[: len(head)] != head:
        return None
    end = data.find(b"\n", len(head))
    try:
        sizes = [int(size) for size in data[len(head) : end].split(b" ")]
        start = end + 1 + sum(sizes[:part])
        if end < 0 or start + sizes[part] > len(data):
            return None
        return marshal.loads(memoryview(data)[start : start + sizes[part]])  # no copy
    except (EOFError, ValueError, TypeError, IndexError):
        return None


def load(part: int) -> Any | None:
    """Part ``part`` of the tables shipped with the package, else of those in the user's
    cache, else None."""
    for path in (PACKAGED, cache_file()):
        data = _mapped(path)
        tables = None if data is None else loads(data, part)
        if tables is not None:
            return tables
    return None


@cache
def _mapped(path: str) -> mmap.mmap | None:
    """The file at ``path`` mapped into memory once for the process (None if it cannot be
    read): a process reads a few of its parts, and only the pages they lie on are read."""
    try:
        with open(path, "rb") as file:
            return mmap.mmap(file.fileno(), 0, access=mmap.ACCESS_READ)
    except (OSError, ValueError):  # absent, unreadable, or empty (ValueError)
        return None


def save(parts: Sequence[Any], path: str | os.PathLike[str] | None = None) -> bool:
    """Keep ``parts`` in ``path`` (default: the user's cache), written whole or not at all
    (a temporary file renamed); False where it cannot be written (the tables then live in
    memory only)."""
    import tempfile

    target = cache_file() if path is None else os.fspath(path)
    try:
        os.makedirs(os.path.dirname(target), exist_ok=True)
        with tempfile.NamedTemporaryFile(dir=os.path.dirname(target), delete=False) as out:
            out.write(dumps(parts))
        os.replace(out.name, target)
    except OSError:
        return False
    return True
