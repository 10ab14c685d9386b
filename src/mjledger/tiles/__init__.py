"""The tile layer: notation (:mod:`.notation`), decomposition and waits (:mod:`.decompose`), and
the fan-table machinery rule sets score with (:mod:`.fan`). Pure; knows no rule set by name.

``from mjledger.tiles import Tile, parse_tiles`` keeps working as docs/tiles.md shows.
"""

from mjledger.tiles.notation import (
    HONOUR_NAMES,
    SUITS,
    TILES,
    Meld,
    MeldKind,
    Tile,
    format_tiles,
    parse_tiles,
)

__all__ = [
    "HONOUR_NAMES",
    "SUITS",
    "TILES",
    "Meld",
    "MeldKind",
    "Tile",
    "format_tiles",
    "parse_tiles",
]
