"""A simulator of legal tile-level hands: realistic logs with tiles, in any quantity.

``simulate(ruleset, hands=..., seed=...)`` plays matches tile by tile with simple deterministic
policies and returns their logs; the same seed gives the same bytes on every machine.
"""

from __future__ import annotations

from mjledger.sim.engine import DEFAULT_PLAYERS, simulate_match
from mjledger.sim.played import SimulatedMatch, WallRecord, WinRecord

__all__ = ["DEFAULT_PLAYERS", "SimulatedMatch", "WallRecord", "WinRecord", "simulate_match"]
