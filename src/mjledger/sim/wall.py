"""The wall: a seeded shuffle of the physical tiles, drawn from the front, kongs from the back.

Tiles are slot indices (0-33, as in :mod:`mjledger.tiles.decompose`), so hands are count vectors.
Only ``random.Random`` methods whose output is fixed across platforms and Python versions are
used (``shuffle`` on a list built in index order), so one seed is one wall everywhere.
"""

from __future__ import annotations

import random

from mjledger.rules.base import SimulatedPlay


class Wall:
    """A shuffled wall; ``playable`` is what is left to draw (kong replacements included)."""

    __slots__ = ("_end", "_pos", "_reserve", "_tiles")

    def __init__(self, rng: random.Random, play: SimulatedPlay) -> None:
        """Four of each of the rule set's ``tile_kinds``, its ``dead_wall`` never drawn."""
        tiles = [slot for slot in range(play.tile_kinds) for _ in range(4)]
        rng.shuffle(tiles)
        self._tiles = tiles
        self._pos = 0
        self._end = len(tiles)
        self._reserve = play.dead_wall

    @property
    def playable(self) -> int:
        return self._end - self._pos - self._reserve

    def draw(self) -> int:
        """The next tile from the front (a turn's draw, or the deal)."""
        assert self.playable > 0, "drawing from an empty wall"
        tile = self._tiles[self._pos]
        self._pos += 1
        return tile

    def draw_replacement(self) -> int:
        """A kong's replacement tile, from the back; it shortens the playable wall by one."""
        assert self.playable > 0, "a kong needs a tile left to replace it"
        self._end -= 1
        return self._tiles[self._end]
