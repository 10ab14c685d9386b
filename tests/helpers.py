"""Small builders for hand-written test logs, so each rule test reads like the log it replays.

Line numbers in the tests follow from the builders: the header is line 1 and each event after
it one more line, exactly as an editor would number the JSON Lines text.
"""

from __future__ import annotations

import json
from collections import Counter
from typing import Any

from mjledger import Replay, replay
from mjledger.cli.evaluate import parse_melds
from mjledger.tiles import Meld

PLAYERS = ["ana", "bo", "cy", "di"]
ANA, BO, CY, DI = PLAYERS

Line = dict[str, Any]

# The house-rule defaults as log-format.md lists them (written out, not read from the code).
HK_DEFAULTS: Line = {
    "table": "half_spicy",
    "points_per_unit": 1,
    "min_fan": 3,
    "fan_limit": 10,
    "discard_pays": "double",
}
SC_DEFAULTS: Line = {
    "base": 1,
    "fan_cap": 4,
    "self_draw_bonus": "base",
    "kong_money_passing": True,
    "kong_passing_split": "split",
}
# A transfer as the contract writes it: (from, to, amount, reason, line).
T = tuple[str, str, int, str, int]


def jsonl(*lines: Line | str) -> str:
    return "".join((ln if isinstance(ln, str) else json.dumps(ln)) + "\n" for ln in lines)


def hand_start(ruleset: str, dealer: str = ANA, rules: Line | None = None, **context: Any) -> Line:
    """A stand-alone hand's first line."""
    line: Line = {"type": "hand_started", "ruleset": ruleset, "players": PLAYERS, "dealer": dealer}
    if rules is not None:
        line["rules"] = rules
    line.update(context)
    return line


def match_start(ruleset: str, rules: Line | None = None, players: list[str] = PLAYERS) -> Line:
    line: Line = {"type": "match_started", "ruleset": ruleset, "players": players}
    if rules is not None:
        line["rules"] = rules
    return line


def new_hand(dealer: str | None = None) -> Line:
    return (
        {"type": "hand_started"} if dealer is None else {"type": "hand_started", "dealer": dealer}
    )


def discard(player: str, tile: str | None = None) -> Line:
    line: Line = {"type": "discarded", "player": player}
    if tile is not None:
        line["tile"] = tile
    return line


def kong(player: str, kind: str, frm: str | None = None) -> Line:
    line: Line = {"type": "kong_declared", "player": player, "kind": kind}
    if frm is not None:
        line["from"] = frm
    return line


def won(player: str, frm: str, fan: int | None = None, **extra: Any) -> Line:
    line: Line = {"type": "won_on_discard", "player": player, "from": frm}
    if fan is not None:
        line["fan"] = fan
    line.update(extra)
    return line


def self_drawn(player: str, fan: int | None = None, **extra: Any) -> Line:
    line: Line = {"type": "self_drawn", "player": player}
    if fan is not None:
        line["fan"] = fan
    line.update(extra)
    return line


def void(player: str, suit: str) -> Line:
    return {"type": "void_suit_chosen", "player": player, "suit": suit}


def wall(**remaining: Line) -> Line:
    return {"type": "wall_exhausted", "remaining": remaining}


def wall_hk() -> Line:
    return {"type": "wall_exhausted"}


NOT_READY = {"ready": False}
PIG = {"flower_pig": True}


def ready(best_fan: int) -> Line:
    return {"ready": True, "best_fan": best_fan}


def run(*lines: Line | str) -> Replay:
    return replay(jsonl(*lines))


def transfers(result: Replay, hand: int = 0) -> Counter[T]:
    """The transfers of one hand as a multiset (their order is not part of the contract)."""
    out = result.to_json()["hands"][hand]["transfers"]
    return Counter((t["from"], t["to"], t["amount"], t["reason"], t["line"]) for t in out)


def all_transfers(result: Replay) -> Counter[T]:
    out: Counter[T] = Counter()
    for i in range(len(result.hands)):
        out += transfers(result, i)
    return out


def of(*ts: T) -> Counter[T]:
    return Counter(ts)


def net(result: Replay, hand: int = 0) -> dict[str, int]:
    return dict(result.to_json()["hands"][hand]["net"])


def hand_json(result: Replay, hand: int = 0) -> dict[str, Any]:
    return dict(result.to_json()["hands"][hand])


def meld(spec: str) -> Meld:
    """``"pung:555p"``, ``"concealed-kong:2222m"``: the notation of ``mjledger evaluate``."""
    (one,) = parse_melds(spec)
    return one


def comparable_output(out: dict[str, Any]) -> dict[str, Any]:
    """Transfers compare as a multiset within each hand (their order is not contractual)."""
    hands = []
    for hand in out["hands"]:
        hand = dict(hand)
        hand["transfers"] = Counter(json.dumps(t, sort_keys=True) for t in hand["transfers"])
        hands.append(hand)
    return {**out, "hands": hands}
