"""Stream ids and the store's file: every stream's id is derived from its name, so any writer
finds the same stream without a lookup table."""

from __future__ import annotations

import hashlib
import os
import uuid
from pathlib import Path
from typing import Final

DEFAULT_STORE: Final = "mjledger.sqlite"
STORE_ENV: Final = "MJLEDGER_STORE"
_NAMESPACE: Final = uuid.UUID("6f1c3c1e-4b7e-5d1a-9a57-0d3f2f6f9b11")
_NAMESPACE_BYTES: Final = _NAMESPACE.bytes


def match_stream(match_id: str) -> uuid.UUID:
    return uuid.uuid5(_NAMESPACE, f"match/{match_id}")


def hand_stream(match_id: str, number: int) -> uuid.UUID:
    return uuid.uuid5(_NAMESPACE, f"hand/{match_id}/{number}")


def hand_stream_hex(match_id: str, number: int) -> str:
    """``hand_stream(match_id, number).hex`` without the :class:`uuid.UUID` (recording a log
    spells one a hand): the name-based UUID of RFC 4122 (SHA-1, version 5), as
    :func:`uuid.uuid5` makes it."""
    digest = bytearray(
        hashlib.sha1(
            _NAMESPACE_BYTES + f"hand/{match_id}/{number}".encode(), usedforsecurity=False
        ).digest()[:16]
    )
    digest[6] = digest[6] & 0x0F | 0x50  # version 5
    digest[8] = digest[8] & 0x3F | 0x80  # the RFC 4122 variant
    return digest.hex()


def table_stream(table_id: str) -> uuid.UUID:
    return uuid.uuid5(_NAMESPACE, f"table/{table_id}")


def store_path(path: str | os.PathLike[str] | None = None) -> Path:
    """The store file: the given path, else ``$MJLEDGER_STORE``, else ``./mjledger.sqlite``."""
    return Path(path if path is not None else os.environ.get(STORE_ENV) or DEFAULT_STORE)
