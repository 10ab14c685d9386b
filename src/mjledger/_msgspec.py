"""The names of msgspec that mjledger uses, taken from its C core, ``msgspec._core``: the
same objects ``msgspec`` and ``msgspec.json`` export under their public names (``Decoder`` is
the core's ``JSONDecoder``, ``format`` its ``json_format``; ``field`` is the package's one
function, restated here as the package defines it).

Taken from the core so that the console script's ``replay --json`` can import the core
alone (:func:`mjledger._lazy.core_alone`), without the package's ``__init__`` and the modules
it imports that mjledger never uses; asking ``msgspec`` itself for a name would run it all.
The library, the service and the tests import msgspec as it is.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    from msgspec import (
        UNSET,
        DecodeError,
        EncodeError,
        Meta,
        UnsetType,
        ValidationError,
        defstruct,
    )
    from msgspec import field as field
    from msgspec.json import Decoder as JSONDecoder
    from msgspec.json import Encoder as JSONEncoder
    from msgspec.json import format as json_format
else:
    from msgspec._core import (
        NODEFAULT,
        UNSET,
        DecodeError,
        EncodeError,
        Field,
        JSONDecoder,
        JSONEncoder,
        Meta,
        UnsetType,
        ValidationError,
        defstruct,
        json_format,
    )

    def field(*, default: Any = NODEFAULT, name: str | None = None) -> Any:
        """``msgspec.field``: the one the package defines, which makes the core's ``Field``."""
        return Field(default=default, default_factory=NODEFAULT, name=name)


__all__ = [
    "UNSET",
    "DecodeError",
    "EncodeError",
    "JSONDecoder",
    "JSONEncoder",
    "Meta",
    "UnsetType",
    "ValidationError",
    "defstruct",
    "field",
    "json_format",
]
