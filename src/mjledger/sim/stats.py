"""What a simulation played, counted: the figures that show whether its hands look like play.

Counted from the simulator's own records (its evaluation of each win and of each hand still in
at a Sichuan empty wall), which the ledger re-derives from the log's tiles when it replays it.
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Iterable
from typing import Any

from mjledger.sim.played import SimulatedMatch

# Pattern codes worth a row of their own in the summary, in the order printed.
SHOWN_PATTERNS = (
    "full_flush",
    "mixed_one_suit",
    "all_pungs",
    "seven_pairs",
    "dragon_seven_pairs",
    "golden_hook",
    "eighteen_arhats",
    "root",
    "kong_bloom",
    "kong_cannon",
    "robbing_kong",
    "last_tile",
    "heavenly",
    "earthly",
)


def summarize(matches: Iterable[SimulatedMatch]) -> dict[str, Any]:
    """One JSON-able summary: hands, wins by fan and by how, patterns, kongs, wall ends;
    ``wins_again`` counts wins by a player who had already won that hand (blood flow), in
    ``hands_won_again`` hands; ``wins_new_discard`` the wins on a discarder's next discard
    right after a win on their previous one (logged with ``new_discard``)."""
    hands = 0
    logs = 0
    events = 0
    fan: Counter[str] = Counter()
    how: Counter[str] = Counter()
    patterns: Counter[str] = Counter()
    kongs: Counter[str] = Counter()
    walls: Counter[str] = Counter()
    void_hands = new_discard = again = hands_again = 0
    for match in matches:
        void_hands += match.void_hands
        new_discard += match.new_discard_wins
        logs += 1
        hands += match.hands
        events += len(match.events)
        won: set[tuple[int, str]] = set()
        repeated: set[int] = set()
        for win in match.wins:
            # Blood flow keeps winners in: a player may win again in the same hand.
            if (win.hand, win.player) in won:
                again += 1
                repeated.add(win.hand)
            won.add((win.hand, win.player))
            fan["limit" if win.limit else str(win.fan)] += 1
            how[win.how] += 1
            patterns.update(win.codes)
        hands_again += len(repeated)
        kongs.update(dict(match.kongs))
        walls.update(w.status for w in match.walls)
    order = sorted((k for k in fan if k != "limit"), key=int) + (
        ["limit"] if "limit" in fan else []
    )
    return {
        "logs": logs,
        "hands": hands,
        "events": events,
        "void_hands": void_hands,
        "wins": sum(how.values()),
        "wins_new_discard": new_discard,
        "wins_again": again,
        "hands_won_again": hands_again,
        "wins_by_fan": {k: fan[k] for k in order},
        "wins_by_how": {k: how[k] for k in ("discard", "self_drawn", "robbing_kong")},
        "patterns": {k: patterns[k] for k in SHOWN_PATTERNS if patterns[k]},
        "kongs": {k: kongs[k] for k in ("exposed", "added", "concealed", "robbed")},
        "wall_ends": {k: walls[k] for k in ("ready", "not_ready", "flower_pig")},
    }
