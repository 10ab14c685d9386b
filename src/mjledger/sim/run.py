"""Seeds, match ids and house rules for a simulation run: the entry point of the simulator.

A run of ``matches`` matches from one seed gives each match its own generator, seeded from the
run's seed and the match's number through a string (``random`` hashes a string seed with
SHA-512, never with Python's per-process ``hash``), so match 3 of seed 1 is the same match
whether one match or a hundred are asked for, on every machine.
"""

from __future__ import annotations

import random
from collections.abc import Iterator, Mapping, Sequence

from mjledger.errors import SimulationError
from mjledger.rules.house import default_rules, rules_from_json
from mjledger.rules.protocol import HouseRules
from mjledger.rules.table import check_stakes_rules
from mjledger.sim.engine import DEFAULT_PLAYERS, simulate_match, simulated_play
from mjledger.sim.played import SimulatedMatch

__all__ = ["match_id", "match_rng", "simulate"]


def match_rng(seed: int, number: int) -> random.Random:
    """The generator of match ``number`` (1, 2, …) of a run seeded with ``seed``."""
    return random.Random(f"mjledger-simulate:{seed}:{number}")


def match_id(ruleset: str, seed: int, number: int, matches: int, prefix: str = "sim") -> str:
    """``sim-sichuan-1`` for a single match, ``sim-sichuan-1-003`` for the third of several."""
    base = f"{prefix}-{ruleset}-{seed}"
    return base if matches == 1 else f"{base}-{number:03d}"


def simulate(
    ruleset: str,
    *,
    hands: int,
    seed: int,
    matches: int = 1,
    players: Sequence[str] = DEFAULT_PLAYERS,
    rules: HouseRules | Mapping[str, object] | None = None,
    prefix: str = "sim",
) -> Iterator[SimulatedMatch]:
    """Play ``matches`` matches of ``ruleset``, each of ``hands`` hands (Hong Kong: at most;
    its match ends after the north round). ``rules`` is a rules object or a log's ``rules``
    JSON object (checked as a log's would be: ``FormatError`` for an unknown or bad option).
    A rule set without a ``simulated_play`` (a plugin's, say) replays but is not simulated:
    ``SimulationError``."""
    simulated_play(ruleset)  # refused here, before anything is played
    if hands < 1 or matches < 1:
        raise SimulationError("a simulation needs at least one hand and one match")
    if rules is None:
        table_rules = default_rules(ruleset)
    elif isinstance(rules, Mapping):
        table_rules = rules_from_json(ruleset, dict(rules))
    else:
        table_rules = rules
    check_stakes_rules(table_rules, None)  # the simulator plays no table stakes
    for number in range(1, matches + 1):
        yield simulate_match(
            ruleset,
            hands=hands,
            rng=match_rng(seed, number),
            match_id=match_id(ruleset, seed, number, matches, prefix),
            players=players,
            rules=table_rules,
        )
