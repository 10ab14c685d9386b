"""Sichuan's end of the wall (rules.md, "When the wall runs out"): who is a flower pig, who is
ready and how big their best hand is — asserted by the log, or derived from the tiles it shows —
and the transfers that follow: flower pig, not ready, kong refund, in that order."""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from functools import cache

from mjledger.errors import RuleError, TileError
from mjledger.log.events import PlayerAtWallEnd
from mjledger.rules import explained
from mjledger.rules.protocol import WallFacts
from mjledger.rules.sichuan import settle, why
from mjledger.rules.sichuan.fan import evaluate_sichuan_wall
from mjledger.rules.sichuan.options import SichuanRules
from mjledger.rules.tiles import check_no_fifth_copy, melds_of, shown_tiles
from mjledger.rules.values import HandView, Transfer
from mjledger.tiles.notation import Tile, parse_tiles


def settle_wall(
    rules: SichuanRules,
    hand: HandView,
    remaining: Mapping[str, PlayerAtWallEnd] | None,
    line: int | None,
) -> tuple[Transfer, ...]:
    if remaining is None:
        raise RuleError("a Sichuan wall_exhausted needs 'remaining' for every player still in")
    still_in = settle.wall_players(rules, hand.players, hand.still_in, hand.winners)
    listed = remaining.keys()
    if listed != set(still_in):
        missing = [p for p in still_in if p not in listed]
        extra = sorted(listed - set(still_in))
        if extra:
            who = extra[0]
            won = who in hand.players
            why = "has already won" if won else "is not at the table"
            code = "already_won" if won else "not_at_table"
            raise RuleError(f"'remaining' names {who!r}, who {why}", code=code)
        raise RuleError(f"'remaining' leaves out {missing[0]!r}, who is still in the hand")
    states = wall_states(rules, hand.void_suits, remaining, still_in)
    return wall_transfers(rules, hand, states, line)


def wall_states(
    rules: SichuanRules,
    void_suits: tuple[tuple[str, str], ...],
    remaining: Mapping[str, PlayerAtWallEnd],
    still_in: Sequence[str],
) -> dict[str, WallFacts]:
    """What the wall's checks read of each player ``remaining`` names (those ``still_in``):
    derived from the tiles an entry shows, else asserted — for the general fold's hook and
    the quick fold alike (a RuleError: the tiles cannot be)."""
    try:
        derived = derive_wall(rules, remaining, dict(void_suits))
    except TileError as exc:
        raise RuleError(str(exc), code=exc.code) from None
    return {p: derived.get(p) or asserted(remaining[p]) for p in still_in}


def asserted(claim: PlayerAtWallEnd) -> WallFacts:
    """The facts a line asserts of one player (no tiles shown)."""
    if claim.flower_pig:
        return _facts(True, False, 0)
    if claim.ready:
        assert claim.best_fan is not None
        return _facts(False, True, claim.best_fan)
    return _facts(False, False, 0)


@cache
def _facts(flower_pig: bool, ready: bool, best_fan: int) -> WallFacts:
    """One player's facts at the wall, asserted or derived: values, one of each, shared by
    every wall that has them."""
    return WallFacts(flower_pig, ready, best_fan)


def derive_wall(
    rules: SichuanRules,
    remaining: Mapping[str, PlayerAtWallEnd],
    void_suits: Mapping[str, str],
) -> dict[str, WallFacts]:
    """Readiness, best fan and flower pig of each entry that shows its tiles.

    Raises a TileError naming the player whose entry cannot be (or all entries together, for a
    fifth copy of a tile across the line).
    """
    shown: list[Tile] = []
    facts: dict[str, WallFacts] = {}
    for player, entry in remaining.items():
        if not entry.has_tiles:
            continue
        try:
            melds = melds_of(entry.melds)
            concealed = parse_tiles(entry.tiles or "")  # read once
            shown.extend(shown_tiles(concealed, None, melds))
            suit = void_suits.get(player)
            if suit is None:
                raise TileError("has tiles but never logged void_suit_chosen this hand")
            status = evaluate_sichuan_wall(concealed, melds, void_suit=suit, rules=rules)
        except TileError as exc:
            raise TileError(f"remaining player {player!r}: {exc}") from None
        facts[player] = _facts(status.flower_pig, status.ready, status.best_fan or 0)
    if shown:
        check_no_fifth_copy(shown)
    return facts


def wall_transfers(
    rules: SichuanRules, hand: HandView, states: dict[str, WallFacts], line: int | None
) -> tuple[Transfer, ...]:
    """rules.md, "When the wall runs out": flower pig, not ready, refund — in that order
    (:func:`mjledger.rules.sichuan.settle.wall_checks`, which the quick fold runs too)."""
    kongs = [(k.player, k.payments) for k in hand.kongs]
    checked = settle.wall_players(rules, hand.players, hand.still_in, hand.winners)
    checks = settle.wall_checks(
        rules, hand.players, checked, hand.winners, states, kongs, hand.passed
    )
    notes = explained.notes()
    if notes is not None:
        why.wall(notes, rules, hand, states, checks, line)
    return tuple(
        [
            Transfer(payer, payee, amount, reason, line)
            for reason, _, _, dues in checks
            for payer, payee, amount in dues
        ]
    )
