"""Generated legal match logs for the store tests (large, deterministic, seeded)."""

from __future__ import annotations

import json
import random
from typing import Any

PLAYERS = ("ana", "bo", "cy", "di")
SUITS = "mps"


def _line(obj: dict[str, Any]) -> str:
    return json.dumps(obj, ensure_ascii=False) + "\n"


def sichuan_hand_lines(rng: random.Random, players: tuple[str, ...] = PLAYERS) -> list[dict]:
    """One legal Sichuan hand after its ``hand_started``; it always ends."""
    lines: list[dict[str, Any]] = []
    for p in players:
        lines.append({"type": "void_suit_chosen", "player": p, "suit": rng.choice(SUITS)})
    still_in = list(players)
    for _ in range(rng.randint(0, 6)):
        action = rng.choice(("discard", "discard", "kong", "win", "self"))
        if action == "discard":
            lines.append({"type": "discarded", "player": rng.choice(still_in)})
        elif action == "kong":
            lines.append(
                {"type": "kong_declared", "player": rng.choice(still_in), "kind": "concealed"}
            )
        else:
            winner = rng.choice(still_in)
            if action == "win":
                frm = rng.choice([p for p in still_in if p != winner])
                lines.append(
                    {
                        "type": "won_on_discard",
                        "player": winner,
                        "from": frm,
                        "fan": rng.randint(0, 4),
                    }
                )
            else:
                lines.append({"type": "self_drawn", "player": winner, "fan": rng.randint(0, 4)})
            still_in.remove(winner)
            if len(still_in) == 1:  # three winners end a blood-battle hand
                return lines
            # a fresh discard separates two runs of wins on the same discarder
            lines.append({"type": "discarded", "player": rng.choice(still_in)})
    remaining = {
        p: rng.choice(({"ready": False}, {"ready": True, "best_fan": 1}, {"flower_pig": True}))
        for p in still_in
    }
    lines.append({"type": "wall_exhausted", "remaining": remaining})
    return lines


def sichuan_match(
    hands: int, seed: int = 0, match_id: str | None = "big", players: tuple[str, ...] = PLAYERS
) -> str:
    """A legal Sichuan match log of ``hands`` finished hands."""
    rng = random.Random(seed)
    head: dict[str, Any] = {"type": "match_started", "ruleset": "sichuan", "players": list(players)}
    if match_id is not None:
        head["match"] = match_id
    out = [_line(head)]
    for _ in range(hands):
        out.append(_line({"type": "hand_started"}))
        out.extend(_line(x) for x in sichuan_hand_lines(rng, players))
    return "".join(out)


def hongkong_match(
    hands: int, seed: int = 0, match_id: str | None = "hk", players: tuple[str, ...] = PLAYERS
) -> str:
    """A legal Hong Kong match log of ``hands`` (at most 15) finished hands."""
    assert hands <= 15
    rng = random.Random(seed)
    head: dict[str, Any] = {
        "type": "match_started",
        "ruleset": "hongkong",
        "players": list(players),
    }
    if match_id is not None:
        head["match"] = match_id
    out = [_line(head)]
    for _ in range(hands):
        out.append(_line({"type": "hand_started"}))
        for _ in range(rng.randint(0, 3)):
            out.append(_line({"type": "discarded", "player": rng.choice(players)}))
        end = rng.choice(("won", "self", "wall"))
        winner = rng.choice(players)
        if end == "won":
            frm = rng.choice([p for p in players if p != winner])
            line = {"type": "won_on_discard", "player": winner, "from": frm}
            line["fan"] = rng.randint(3, 10)
            out.append(_line(line))
        elif end == "self":
            out.append(_line({"type": "self_drawn", "player": winner, "fan": rng.randint(3, 10)}))
        else:
            out.append(_line({"type": "wall_exhausted"}))
    return "".join(out)
