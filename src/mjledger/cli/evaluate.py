"""``mjledger evaluate``: show what the evaluator makes of a hand, for a person settling a dispute.

A thin shell: it parses the arguments, calls the pure evaluator and prints. A hand with one
tile more than a ready hand is a win (the winning tile is ``--winning-tile``, or else the last
tile written); one tile short, it prints the waits and what each would score.
"""

from __future__ import annotations

import json
from typing import TYPE_CHECKING, Any

import click

from mjledger._text import plural
from mjledger.cli.commands import command
from mjledger.cli.exits import json_option
from mjledger.errors import MjledgerError, TileError
from mjledger.rules.names import DEFAULT_RULESET

# The rule sets, tiles and rich are imported when the command runs (not on every start-up).
if TYPE_CHECKING:
    from mjledger.rules.base import BaseRuleset
    from mjledger.rules.protocol import WinContext
    from mjledger.tiles.fan import FanResult
    from mjledger.tiles.notation import Meld, Tile

__all__ = ["evaluate", "parse_melds"]


def parse_melds(text: str) -> tuple[Meld, ...]:
    """Read ``"pung:555p,kong:1111s,concealed-kong:2222m,chow:345m"``."""
    from mjledger.tiles.notation import Meld

    melds: list[Meld] = []
    for part in (p.strip() for p in text.split(",")):
        if not part:
            continue
        kind, sep, tiles = part.partition(":")
        if not sep:
            raise TileError(f"bad meld {part!r}: expected kind:tiles, e.g. pung:555p")
        if kind == "concealed-kong":
            melds.append(Meld.parse("kong", tiles, concealed=True))
        else:
            melds.append(Meld.parse(kind, tiles))
    return tuple(melds)


def _meld_json(meld: Meld) -> dict[str, Any]:
    out: dict[str, Any] = {"kind": meld.kind, "tiles": str(meld)}
    if meld.concealed:
        out["concealed"] = True
    return out


def _result_json(result: FanResult) -> dict[str, Any]:
    return {
        "fan": result.fan,
        "limit": result.limit,
        "patterns": [
            {"code": p.code, "name": p.name, "fan": p.fan, "count": p.count, "limit": p.limit}
            for p in result.patterns
        ],
        "arrangement": str(result.arrangement),
    }


def _known_ruleset(name: str) -> str:
    from mjledger.rules.registry import ruleset_names

    if name not in ruleset_names():
        raise click.BadParameter(f"{name!r} is not one of {', '.join(map(repr, ruleset_names()))}.")
    return name


def _optional_patterns(ruleset: BaseRuleset) -> tuple[str, ...]:
    """The house rules ``--rule`` switches on: the extension options, in field order."""
    import attrs

    return tuple(
        f.name for f in attrs.fields(ruleset.rules_class) if f.name in ruleset.extension_keys
    )


@command("evaluate")
@click.argument("tiles")
@click.option("--melds", "melds_text", default="", help="e.g. pung:555p,concealed-kong:2222m")
@click.option(
    "--ruleset",
    default=DEFAULT_RULESET,
    show_default=True,
    callback=lambda _ctx, _param, name: _known_ruleset(name),
    help="A registered rule set (built in: sichuan, hongkong).",
)
@click.option("--winning-tile", help="The winning tile; TILES are then the rest of the hand.")
@click.option("--self-drawn", is_flag=True, help="Won by self-draw (Hong Kong faan).")
@click.option("--void", "void_suit", type=click.Choice(["m", "p", "s"]), help="Sichuan void suit.")
@click.option("--seat-wind", default="east", show_default=True, help="Hong Kong seat wind.")
@click.option("--round-wind", default="east", show_default=True, help="Hong Kong round wind.")
@click.option("--kong-bloom", is_flag=True, help="Won on a kong's replacement tile.")
@click.option("--kong-cannon", is_flag=True, help="Sichuan: won on the discard after a kong.")
@click.option("--robbing-kong", is_flag=True, help="Won by robbing a kong.")
@click.option("--last-tile", is_flag=True, help="Won on the wall's last tile.")
@click.option(
    "--first-turn",
    is_flag=True,
    help='Won on the first turn, as "first_turn": true in a log: heavenly or earthly.',
)
@click.option(
    "--dealer",
    is_flag=True,
    help="The winner is the dealer (Sichuan; in Hong Kong the seat wind east says it).",
)
@click.option(
    "--rule",
    "rules",
    multiple=True,
    help="Turn on an optional pattern (house rule), e.g. --rule terminals_in_all.",
)
@json_option(help="Print one JSON object.")
@click.pass_context
def evaluate(ctx: click.Context, /, tiles: str, as_json: bool, **options: Any) -> None:
    """Evaluate TILES (compact notation, e.g. 123m456p11z): arrangements, fan, or waits."""
    try:
        report = _report(tiles, **options)
    except MjledgerError as error:
        click.echo(f"mjledger: {error}", err=True)
        ctx.exit(2)
    if as_json:
        click.echo(json.dumps(report, ensure_ascii=False))
    else:
        _print(report)


def _report(
    tiles_text: str,
    *,
    melds_text: str,
    ruleset: str,
    winning_tile: str | None,
    self_drawn: bool,
    void_suit: str | None,
    seat_wind: str,
    round_wind: str,
    kong_bloom: bool,
    kong_cannon: bool,
    robbing_kong: bool,
    last_tile: bool,
    first_turn: bool,
    dealer: bool,
    rules: tuple[str, ...],
) -> dict[str, Any]:
    """What ``evaluate`` prints: a win's arrangements and fan, or a ready hand's waits (the
    arguments checked in the order the errors are reported)."""
    from mjledger.rules.protocol import WinContext, first_turn_wins
    from mjledger.rules.registry import find_ruleset
    from mjledger.tiles.notation import parse_tiles

    tiles = parse_tiles(tiles_text)
    melds = parse_melds(melds_text)
    table = _bound_table(find_ruleset(ruleset), ruleset, rules)
    # variants.md, "First turn": heavenly is the dealer's self-draw, earthly any other win.
    dealer = dealer or (table.round_winds and seat_wind in ("east", "1z"))
    if first_turn and melds:
        raise TileError("--first-turn: a first-turn win has no melds")
    if first_turn and dealer and not self_drawn:
        raise TileError("--first-turn: the dealer cannot win on a discard on the first turn")
    heavenly, earthly = first_turn_wins(first_turn, dealer and self_drawn)
    context = WinContext(
        heavenly=heavenly,
        earthly=earthly,
        self_drawn=self_drawn,
        kong_bloom=kong_bloom,
        kong_cannon=kong_cannon,
        robbing_kong=robbing_kong,
        last_tile=last_tile,
        seat_wind=seat_wind,
        round_wind=round_wind,
        void_suit=void_suit,
    )
    report: dict[str, Any] = {
        "ruleset": ruleset,
        "melds": [_meld_json(m) for m in melds],
    }
    if winning_tile is not None or len(tiles) == 14 - 3 * len(melds):
        return report | _win_json(table, tiles, melds, winning_tile, context)
    return report | _waits_json(table, tiles, melds, void_suit, context)


def _bound_table(rule_set: BaseRuleset, ruleset: str, rules: tuple[str, ...]) -> BaseRuleset:
    """The rule set at a table with the ``--rule`` house rules on (an unknown one refused)."""
    known = _optional_patterns(rule_set)
    for rule in rules:
        if rule not in known:
            raise TileError(f"unknown {ruleset} rule {rule!r}: expected one of {', '.join(known)}")
    return rule_set.bind(rule_set.rules_class(**dict.fromkeys(rules, True)), ())


def _win_json(
    table: BaseRuleset,
    tiles: tuple[Tile, ...],
    melds: tuple[Meld, ...],
    winning_tile: str | None,
    context: WinContext,
) -> dict[str, Any]:
    """A complete hand: its arrangements and fan (the winning tile given, or the last one)."""
    from mjledger.tiles.decompose import arrangements
    from mjledger.tiles.notation import Tile, format_tiles

    if winning_tile is not None:
        hand, winning = tiles, Tile.parse(winning_tile)
    else:
        hand, winning = tiles[:-1], tiles[-1]
    result = table.evaluate_win(hand, winning, melds, context)
    shapes = table.shapes()
    return {
        "mode": "win",
        "tiles": format_tiles(hand),
        "winning_tile": str(winning),
        "arrangements": [str(a) for a in arrangements((*hand, winning), melds, shapes)],
        **_result_json(result),
    }


def _waits_json(
    table: BaseRuleset,
    tiles: tuple[Tile, ...],
    melds: tuple[Meld, ...],
    void_suit: str | None,
    context: WinContext,
) -> dict[str, Any]:
    """A hand one tile short: its waits, each with what it would score (or the size refused)."""
    from mjledger.tiles.notation import format_tiles

    complete_size = 14 - 3 * len(melds)
    if len(tiles) != complete_size - 1:
        raise TileError(
            f"{plural(len(tiles), 'tile')} with {plural(len(melds), 'meld')}: "
            f"expected {complete_size} "
            f"(a win) or {complete_size - 1} (a hand one tile short)"
        )
    report: dict[str, Any] = {"mode": "waits", "tiles": format_tiles(tiles)}
    status = table.evaluate_wall(tiles, melds, void_suit)
    if table.void_suits:  # only where a hand can be a flower pig is the wall settled by it
        report |= {"flower_pig": status.flower_pig, "best_fan": status.best_fan}
    report["ready"] = status.ready
    at_rest = context if table.waits_with_add_ons else context.without_situation()
    report["waits"] = [
        {"tile": str(tile), **_result_json(table.evaluate_win(tiles, tile, melds, at_rest))}
        for tile in status.waits
    ]
    return report


def _patterns_text(patterns: list[dict[str, Any]]) -> str:
    parts = []
    for p in patterns:
        value = "limit" if p["limit"] else f"{p['fan']}"
        times = f"×{p['count']}" if p["count"] > 1 else ""
        parts.append(f"{p['code']} {p['name']}{times} {value}")
    return ", ".join(parts)


def _print(report: dict[str, Any]) -> None:
    from mjledger.cli.render import Table
    from mjledger.cli.render import TerminalConsole as Console

    console = Console(highlight=False)
    melds = " ".join(
        f"[{m['tiles']}{' concealed' if m.get('concealed') else ''}]" for m in report["melds"]
    )
    head = f"{report['ruleset']}: {report['tiles']} {melds}".rstrip()
    if report["mode"] == "win":
        console.print(f"{head} + {report['winning_tile']}", markup=False)
        arrangements_table = Table(title="Arrangements")
        arrangements_table.add_column("#", justify="right")
        arrangements_table.add_column("arrangement")
        arrangements_table.add_column("scored")
        for number, text in enumerate(report["arrangements"], 1):
            chosen = "best" if text == report["arrangement"] else ""
            arrangements_table.add_row(str(number), text, chosen)
        console.print(arrangements_table)
        fan_table = Table(title="Fan")
        for column in ("code", "name", "fan"):
            fan_table.add_column(column)
        for p in report["patterns"]:
            value = "limit" if p["limit"] else str(p["fan"])
            name = p["name"] + (f" ×{p['count']}" if p["count"] > 1 else "")
            fan_table.add_row(p["code"], name, value)
        fan_table.add_row("total", "", "limit" if report["limit"] else str(report["fan"]))
        console.print(fan_table)
        return
    console.print(head, markup=False)
    if report.get("flower_pig"):
        console.print("flower pig: holds the void suit (never ready)")
    if not report["ready"]:
        console.print("not ready")
        return
    table = Table(title="Waits")
    for column in ("wait", "fan", "patterns", "arrangement"):
        table.add_column(column)
    for wait in report["waits"]:
        fan = "limit" if wait["limit"] else str(wait["fan"])
        table.add_row(wait["tile"], fan, _patterns_text(wait["patterns"]), wait["arrangement"])
    console.print(table)
    if report.get("best_fan") is not None:
        console.print(f"best hand (pattern fan + 根): {report['best_fan']}")
