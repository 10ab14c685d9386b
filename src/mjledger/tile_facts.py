"""Facts derived from tiles when a log carries them (log-format.md, "Tiles (optional)").

A backend may assert a win's fan and, at an empty wall, who is ready and how big their best
hand is; with tiles, mjledger derives those facts instead of trusting them. This module is the
bridge between the log's records (compact strings, ``MeldRecord``) and the pure evaluators
(:mod:`mjledger.fan_sichuan`, :mod:`mjledger.fan_hongkong`): it builds their arguments from the
event and what the hand so far says about it (the situational add-ons follow from the log
itself), and turns a :class:`TileError` into a problem the fold reports on the event's line.
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Iterable, Mapping

from attrs import frozen

from mjledger.errors import TileError
from mjledger.events import WINDS, MeldRecord, PlayerAtWallEnd, SelfDrawn, WonOnDiscard
from mjledger.fan_hongkong import HongKongFanOptions, evaluate_hongkong_win
from mjledger.fan_sichuan import (
    FanResult,
    SichuanFanOptions,
    evaluate_sichuan_wall,
    evaluate_sichuan_win,
)
from mjledger.house_rules import HongKongRules, SichuanRules
from mjledger.tiles import Meld, Tile, format_tiles, parse_tiles


@frozen
class WinSituation:
    """What the log says about how a win happened, beyond its tiles."""

    kong_bloom: bool = False  # 杠上花: self-drawn on the replacement tile of one's own kong
    kong_cannon: bool = False  # 杠上炮: won on the discard right after the discarder's kong
    heavenly: bool = False  # the dealer's self-draw before anyone discarded or declared a kong
    earthly: bool = False  # a non-dealer's self-draw before their first discard, no kong yet


@frozen
class WallFacts:
    """What the end-of-wall checks need to know of one player still in."""

    flower_pig: bool
    ready: bool
    best_fan: int = 0


def melds_of(records: Iterable[MeldRecord] | None) -> tuple[Meld, ...]:
    out = []
    for record in records or ():
        meld = Meld.parse(record.kind, record.tiles, concealed=record.concealed)
        out.append(meld)
    return tuple(out)


def _tiles_of_line(tiles: str | None, winning: str | None, melds: tuple[Meld, ...]) -> list[Tile]:
    shown = list(parse_tiles(tiles or ""))
    if winning is not None:
        shown.append(Tile.parse(winning))
    for meld in melds:
        shown.extend(meld.tiles)
    return shown


def check_no_fifth_copy(tiles: Iterable[Tile]) -> None:
    """rules.md: a line that shows a tile more than four times is an error."""
    counts = Counter(tiles)
    over = sorted(t for t, n in counts.items() if n > 4)
    if over:
        raise TileError(
            f"the line shows {format_tiles([over[0]])} {counts[over[0]]} times; "
            "there are only four of each tile"
        )


def seat_wind(players: tuple[str, ...], dealer: str, player: str) -> str:
    """The dealer sits east; the seats after the dealer in turn order are south, west, north."""
    return WINDS[(players.index(player) - players.index(dealer)) % 4]


def sichuan_options(rules: SichuanRules) -> SichuanFanOptions:
    return SichuanFanOptions(
        all_258_pungs=rules.all_258_pungs,
        terminals_in_all=rules.terminals_in_all,
        heavenly=rules.heavenly,
        earthly=rules.earthly,
    )


def derive_win(
    rules: HongKongRules | SichuanRules,
    event: WonOnDiscard | SelfDrawn,
    situation: WinSituation,
    *,
    void_suit: str | None,
    players: tuple[str, ...],
    dealer: str,
    round_wind: str,
) -> FanResult:
    """The fan of a win that carries its tiles (TileError when the tiles cannot win)."""
    if event.tiles is None or event.winning_tile is None:
        raise TileError("a win with tiles needs both 'tiles' and 'winning_tile'")
    melds = melds_of(event.melds)
    check_no_fifth_copy(_tiles_of_line(event.tiles, event.winning_tile, melds))
    tiles = parse_tiles(event.tiles)
    winning = Tile.parse(event.winning_tile)
    robbing = isinstance(event, WonOnDiscard) and event.robbing_kong
    if isinstance(rules, SichuanRules):
        return evaluate_sichuan_win(
            tiles,
            winning,
            melds,
            void_suit=void_suit,
            kong_bloom=situation.kong_bloom,
            kong_cannon=situation.kong_cannon,
            robbing_kong=robbing,
            last_tile=event.last_tile,
            heavenly=situation.heavenly,
            earthly=situation.earthly,
            options=sichuan_options(rules),
        )
    return evaluate_hongkong_win(
        tiles,
        winning,
        melds,
        self_drawn=isinstance(event, SelfDrawn),
        seat_wind=seat_wind(players, dealer, event.player),
        round_wind=round_wind,
        last_tile=event.last_tile,
        kong_bloom=situation.kong_bloom,
        robbing_kong=robbing,
        heavenly=situation.heavenly,
        earthly=situation.earthly,
        options=HongKongFanOptions(seven_pairs=rules.seven_pairs),
    )


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
            shown.extend(_tiles_of_line(entry.tiles, None, melds))
            suit = void_suits.get(player)
            if suit is None:
                raise TileError("has tiles but never logged void_suit_chosen this hand")
            status = evaluate_sichuan_wall(
                parse_tiles(entry.tiles or ""),
                melds,
                void_suit=suit,
                options=sichuan_options(rules),
            )
        except TileError as exc:
            raise TileError(f"remaining player {player!r}: {exc}") from None
        facts[player] = WallFacts(status.flower_pig, status.ready, status.best_fan or 0)
    check_no_fifth_copy(shown)
    return facts
