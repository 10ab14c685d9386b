"""The ``mjledger`` command: a thin shell that reads input, calls the library and prints.

Exit status (documented in docs/cli.md):

* 0 — done;
* 2 — the input was refused: a rejected log (one line on standard error naming the line, the
  event type and the problem; nothing on standard output), an unreadable file, bad usage;
* 1 — an unexpected internal error (a bug: please report it with the log).
"""

from __future__ import annotations

import json
import sys
from collections.abc import Callable
from functools import wraps
from typing import Any, BinaryIO, TypeVar

import click
from rich.console import Console
from rich.table import Table

from mjledger import __version__
from mjledger.errors import MjledgerError
from mjledger.hand import HandState
from mjledger.replay import Replay, replay_bytes

EXIT_REFUSED = 2

F = TypeVar("F", bound=Callable[..., Any])

REASON_TEXT = {
    "won_on_discard": "win on discard",
    "self_drawn": "self-drawn win",
    "kong_exposed": "exposed kong",
    "kong_added": "added kong (wind)",
    "kong_concealed": "concealed kong (rain)",
    "kong_money_passed": "kong money passed",
    "flower_pig": "flower pig",
    "not_ready": "not ready",
    "kong_refund": "kong refund",
}


def refusals(func: F) -> F:
    """Turn every :class:`MjledgerError` into one line on stderr and exit status 2."""

    @wraps(func)
    def wrapper(*args: Any, **kwargs: Any) -> Any:
        try:
            return func(*args, **kwargs)
        except MjledgerError as exc:
            click.echo(f"mjledger: {exc}", err=True)
            sys.exit(EXIT_REFUSED)

    return wrapper  # type: ignore[return-value]


def read_input(stream: BinaryIO) -> bytes:
    with stream:
        return stream.read()


def print_json(data: object) -> None:
    click.echo(json.dumps(data, ensure_ascii=False, indent=2))


@click.group(context_settings={"help_option_names": ["-h", "--help"]})
@click.version_option(__version__, "--version", prog_name="mjledger")
def main() -> None:
    """mjledger: an event-sourced ledger for mahjong sessions (Hong Kong and Sichuan)."""


@main.command("replay")
@click.argument("log", type=click.File("rb"))
@click.option("--json", "as_json", is_flag=True, help="Print the contract's JSON output.")
@refusals
def replay_command(log: BinaryIO, as_json: bool) -> None:
    """Replay LOG (a JSON Lines hand or match log; '-' for standard input) and settle it."""
    result = replay_bytes(read_input(log))
    if as_json:
        print_json(result.to_json())
    else:
        render_replay(result, Console())


def render_replay(result: Replay, console: Console) -> None:
    title = f"{result.ruleset} match {result.match}" if result.match else f"{result.ruleset} log"
    console.print(f"[bold]{title}[/bold] — players {', '.join(result.players)}")
    rules = ", ".join(f"{k}={v}" for k, v in result.to_json()["rules"].items())
    console.print(f"house rules: {rules}")
    for hand in result.hands:
        render_hand(hand, result.players, console)
    totals = Table(title="Totals", show_header=True)
    for player in result.players:
        totals.add_column(player, justify="right")
    t = result.totals()
    totals.add_row(*(_signed(t[p]) for p in result.players))
    console.print(totals)


def render_hand(hand: HandState, players: tuple[str, ...], console: Console) -> None:
    streak = f", streak {hand.dealer_streak}" if hand.dealer_streak else ""
    if hand.outcome == "won":
        outcome = "won by " + ", ".join(hand.winners)
    elif hand.outcome == "void":
        outcome = "void (wall exhausted, no winner)"
    else:
        outcome = "unfinished" + (" — won so far by " + ", ".join(hand.winners) if hand.winners else "")
    nxt = f"; next dealer {hand.next_dealer}" if hand.next_dealer else ""
    table = Table(
        title=(
            f"Hand {hand.number} — dealer {hand.dealer}{streak}, {hand.round_wind} round — "
            f"{outcome}{nxt}"
        ),
        title_justify="left",
    )
    table.add_column("line", justify="right")
    table.add_column("from")
    table.add_column("to")
    table.add_column("amount", justify="right")
    table.add_column("reason")
    for t in hand.transfers:
        table.add_row(str(t.line), t.payer, t.payee, str(t.amount), REASON_TEXT[t.reason])
    net = hand.net()
    table.add_section()
    table.add_row("", "net", "  ".join(f"{p} {_signed(net[p])}" for p in players), "", "")
    console.print(table)


def _signed(amount: int) -> str:
    return f"{amount:+d}" if amount else "0"


@main.command("schema")
@refusals
def schema_command() -> None:
    """Print the JSON Schema of the log format (one line of a log)."""
    from mjledger.schema import log_line_schema

    print_json(log_line_schema())


def _register_optional_commands() -> None:
    """Commands that live in their own modules, registered if those modules are present."""
    try:
        from mjledger.evaluate_cli import evaluate
    except ImportError:  # pragma: no cover - the evaluator ships with the package
        return
    main.add_command(evaluate)


_register_optional_commands()
