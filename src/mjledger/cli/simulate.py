"""``mjledger simulate`` and ``mjledger demo``: realistic logs on demand, and a first look.

Thin shells over :mod:`mjledger.sim`. ``demo`` records into the store with the ledger and
then shows the store through the ``scores``, ``streaks`` and ``explain`` commands themselves
(``hand`` where there is no ``explain``), found on the root command group, so the display is
the one those commands print.
"""

from __future__ import annotations

import json
import sys
from pathlib import Path
from typing import TYPE_CHECKING, Any

import click

from mjledger._text import plural
from mjledger.cli.commands import command
from mjledger.cli.outputs import check_output, force_option, write_output
from mjledger.cli.shell import open_ledger, refusals, store_option
from mjledger.errors import MjledgerError
from mjledger.rules.names import DEFAULT_RULESET

# The simulator, rich and the store are imported when a command runs (not on every start-up).
if TYPE_CHECKING:
    from rich.console import Console

    from mjledger.cli.render import TerminalConsole
    from mjledger.sim.played import SimulatedMatch
    from mjledger.store.application import Ledger
    from mjledger.store.location import StoreLocation

__all__ = ["demo", "simulate"]

EXIT_REFUSED = 2


def _refuse(ctx: click.Context, error: MjledgerError) -> None:
    click.echo(f"mjledger: {error}", err=True)
    ctx.exit(EXIT_REFUSED)


def _players(value: str | None) -> tuple[str, ...]:
    if value is None:
        from mjledger.sim.engine import DEFAULT_PLAYERS

        return DEFAULT_PLAYERS
    players = tuple(p.strip() for p in value.split(","))
    if len(players) != 4 or len(set(players)) != 4 or not all(players):
        raise click.BadParameter(f"four distinct non-empty ids, comma-separated, not {value!r}")
    return players


def _rules(value: str | None) -> dict[str, Any] | None:
    if value is None:
        return None
    try:
        rules = json.loads(value)
    except json.JSONDecodeError as error:
        raise click.BadParameter(f"not valid JSON: {error}") from None
    if not isinstance(rules, dict):
        raise click.BadParameter("the house rules are a JSON object, e.g. '{\"fan_cap\": 3}'")
    return rules


@command("simulate")
@click.option(
    "--ruleset",
    default=DEFAULT_RULESET,
    show_default=True,
    help="A rule set the simulator plays (built in, or a plugin's with a simulated play).",
)
@click.option(
    "--hands",
    type=click.IntRange(min=1),
    default=100,
    show_default=True,
    help="Hands per match (Hong Kong: at most; its match ends after the north round).",
)
@click.option("--seed", type=int, default=1, show_default=True, help="Same seed, same log.")
@click.option(
    "--matches",
    type=click.IntRange(min=1),
    default=1,
    show_default=True,
    help="Write this many matches, one log each, into the directory -o.",
)
@click.option("--players", help="Four player ids in turn order, comma-separated.")
@click.option("--rules", "rules_json", help="House rules as a JSON object, e.g. '{\"base\": 2}'.")
@click.option(
    "-o",
    "--output",
    type=click.Path(path_type=Path),
    help="The log file (a directory with --matches); standard output if left out.",
)
@force_option
@click.option("--stats", is_flag=True, help="Print what was played (fan, patterns, …) on stderr.")
@click.pass_context
def simulate(
    ctx: click.Context,
    /,
    ruleset: str,
    hands: int,
    seed: int,
    matches: int,
    players: str | None,
    rules_json: str | None,
    output: Path | None,
    force: bool,
    stats: bool,
) -> None:
    """Simulate legal tile-level play and write match logs (every win with its tiles)."""
    from mjledger.sim.run import simulate as simulate_matches

    if matches > 1 and output is None:
        raise click.UsageError("--matches writes one log per match: give a directory with -o")
    table = _players(players)
    rules = _rules(rules_json)
    played: list[SimulatedMatch] = []
    try:
        targets = _targets(output, ruleset, seed, matches)
        for target in targets:
            if target is not None:
                check_output(target, force=force)  # every file first: a refusal writes none
        if matches > 1:
            assert output is not None
            output.mkdir(parents=True, exist_ok=True)
        for match, target in zip(
            simulate_matches(
                ruleset, hands=hands, seed=seed, matches=matches, players=table, rules=rules
            ),
            targets,
            strict=True,
        ):
            if target is None:
                click.echo(match.text(), nl=False)
            else:
                write_output(target, match.text(), force=force)
            played.append(match)
    except MjledgerError as error:
        _refuse(ctx, error)
    except OSError as error:
        _refuse(
            ctx,
            MjledgerError(
                f"cannot write {error.filename or output}: {error.strerror}", code="bad_parameter"
            ),
        )
    if stats:
        from mjledger.cli.render import TerminalConsole
        from mjledger.sim.stats import summarize

        print_summary(summarize(played), TerminalConsole(stderr=True))


def _targets(output: Path | None, ruleset: str, seed: int, matches: int) -> list[Path | None]:
    """The files ``simulate`` writes: ``-o`` itself, or one log per match inside it (None:
    standard output)."""
    from mjledger.sim.run import match_id

    if output is None or matches == 1:
        return [output]
    return [
        output / f"{match_id(ruleset, seed, number, matches)}.jsonl"
        for number in range(1, matches + 1)
    ]


def print_summary(summary: dict[str, Any], console: Console) -> None:
    """The summary as small tables: what a person checks to see that the play looks real."""
    from mjledger.cli.render import Table

    console.print(
        f"{plural(summary['logs'], 'log')}, {plural(summary['hands'], 'hand')}, "
        f"{plural(summary['events'], 'event')}; {plural(summary['wins'], 'win')}, "
        f"{plural(summary['void_hands'], 'hand')} nobody won, "
        f"{plural(summary['wins_new_discard'], 'win')} on a new discard "
        "(a deal-in right after a deal-in by the same player)"
    )
    if summary["wins_again"]:
        console.print(
            f"{plural(summary['wins_again'], 'win')} by a player who had already won that "
            f"hand, in {plural(summary['hands_won_again'], 'hand')}"
        )
    for title, key in (
        ("Wins by fan", "wins_by_fan"),
        ("Wins by how", "wins_by_how"),
        ("Patterns", "patterns"),
        ("Kongs", "kongs"),
        ("Players still in at an empty wall", "wall_ends"),
    ):
        rows = summary[key]
        if not any(rows.values()):
            continue
        table = Table(title=title, title_justify="left")
        table.add_column("")
        table.add_column("count", justify="right")
        for name, count in rows.items():
            table.add_row(name, str(count))
        console.print(table)


# --- demo ------------------------------------------------------------------------------------


@command("demo")
@store_option
@click.option("--hands", type=click.IntRange(min=1), default=8, show_default=True)
@click.option("--seed", type=int, default=2026, show_default=True)
@click.pass_context
@refusals
def demo(ctx: click.Context, /, store: str | None, hands: int, seed: int) -> None:
    """Simulate a short match of each rule set into the store and show what mjledger keeps.

    Match ids come from the seed, so running the demo again records nothing twice.
    """
    from mjledger.cli.render import TerminalConsole
    from mjledger.store.location import store_location

    console = TerminalConsole()
    path = store_location(store)  # passed on as is: str() of a URL hides its password
    with open_ledger(store, writing=True, create=True) as ledger:
        shown = _record_demo(console, ledger, hands, seed)
        ledger.views.catch_up()
    _show_demo(ctx, console, path, shown)
    sys.stdout.flush()


def _record_demo(
    console: TerminalConsole, ledger: Ledger, hands: int, seed: int
) -> tuple[str, int] | None:
    """Record one simulated match of each playable rule set, a line each; the first match's
    id and its busiest hand (the one the tour explains), or None if none was played."""
    from rich.text import Text

    from mjledger.cli.render import inert
    from mjledger.sim.engine import playable_rulesets
    from mjledger.sim.run import simulate as simulate_matches

    shown: tuple[str, int] | None = None
    for ruleset in playable_rulesets():
        (match,) = simulate_matches(ruleset, hands=hands, seed=seed, prefix="demo")
        result = ledger.record_log(match.text())
        if result.status == "unchanged":
            done = "already recorded, nothing written"
        else:
            done = (
                f"{result.status}: {plural(result.hands, 'hand')}, {plural(result.events, 'event')}"
            )
        console.print(
            Text(f"{ruleset} match ").append_text(inert(result.match, style="bold")),
            f"— {done}",
        )
        if shown is None:  # the default rule set's match, step by step
            shown = (match.match, _busiest_hand(match))
    return shown


def _show_demo(
    ctx: click.Context, console: TerminalConsole, path: StoreLocation, shown: tuple[str, int] | None
) -> None:
    """The tour of what was recorded: the scores and streaks, one hand step by step (through
    the shell's own commands, so it shows what they show), and commands to try next."""
    root = ctx.find_root().command
    assert isinstance(root, click.Group)
    for name in ("scores", "streaks"):
        _run(ctx, root, name, store=path, as_json=False)
    assert shown is not None
    match_id, number = shown
    console.print()
    console.print(
        f"Step by step: hand {number} of {match_id}, every payment and its line",
        soft_wrap=True,
    )
    if root.get_command(ctx, "explain") is not None:
        _run(ctx, root, "explain", args=(match_id, str(number)), store=path)
    else:
        _run(ctx, root, "hand", match=match_id, number=number, store=path, as_json=False)
    console.print()
    console.print("Try:")
    # one command a line, never wrapped (a pipe is 80 columns): each can be copied whole
    for line in (
        f"mjledger history {match_id} --store {path}",
        f"mjledger export {match_id} --store {path} | mjledger replay -",
    ):
        console.print(f"  {line}", soft_wrap=True)


def _run(ctx: click.Context, root: click.Group, name: str, **params: Any) -> None:
    command = root.get_command(ctx, name)
    assert command is not None, name
    accepted = {p.name for p in command.params}
    ctx.invoke(command, **{k: v for k, v in params.items() if k in accepted})


def _busiest_hand(match: SimulatedMatch) -> int:
    """The hand with the most payments: the one worth reading step by step."""
    from mjledger.fold.replay import replay

    hands = replay(match.text()).hands
    best = max(hands, key=lambda h: (len({t.reason for t in h.transfers}), len(h.transfers)))
    return best.number
