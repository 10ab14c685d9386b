"""Payout helpers every rule set may share: even splits and turn order."""

from __future__ import annotations


def split_evenly(amount: int, winners: tuple[str, ...], first: str) -> tuple[tuple[str, int], ...]:
    """Equal parts of ``amount``; the remainder goes to ``first`` (rules.md, kong_passing_split).

    Parts of zero are left out, because a transfer is always positive.
    """
    part, remainder = even_parts(amount, len(winners))
    shares = ((w, part + (remainder if w == first else 0)) for w in winners)
    return tuple((w, a) for w, a in shares if a > 0)


def even_parts(amount: int, count: int) -> tuple[int, int]:
    """``amount`` in ``count`` equal parts: the part and what is left over."""
    return divmod(amount, count)


def next_in_turn(players: tuple[str, ...], player: str, among: tuple[str, ...]) -> str:
    """The first of ``among`` after ``player`` in turn order, cyclically."""
    i = players.index(player)
    for step in range(1, len(players) + 1):
        candidate = players[(i + step) % len(players)]
        if candidate in among:
            return candidate
    raise ValueError(f"none of {among!r} sits at the table")
