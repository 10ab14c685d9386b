"""The tile layer: notation (:mod:`.notation`), decomposition and waits (:mod:`.decompose`), and
the fan-table machinery rule sets score with (:mod:`.fan`). Pure; knows no rule set by name.

``from mjledger.tiles import Tile, parse_tiles`` keeps working as docs/tiles.md shows.
"""

from mjledger.tiles import notation
from mjledger.tiles.notation import *  # noqa: F403 - the notation is the package's face

__all__ = notation.__all__
