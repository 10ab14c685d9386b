"""The ``mjledger`` command: a thin shell that reads input, calls the library and prints.

Exit statuses are decided in :mod:`mjledger.cli.exits` (documented in docs/cli.md).
"""

from __future__ import annotations

import gc
import json
import shutil
import signal
import sqlite3
import sys
import tempfile
import threading
from collections.abc import Callable, Iterable, Iterator
from contextlib import contextmanager
from functools import wraps
from typing import Any, BinaryIO, TypeVar

import click
from eventsourcing.persistence import PersistenceError
from rich.progress import Progress
from rich.table import Table

from mjledger import __version__
from mjledger.cli.disputes import add_commands
from mjledger.cli.evaluate import evaluate
from mjledger.cli.exits import MjledgerGroup, refuse
from mjledger.cli.exits import TerminalConsole as Console
from mjledger.cli.simulate import add_demo, simulate
from mjledger.errors import MjledgerError, StoreError
from mjledger.fold.hand import HandState
from mjledger.fold.replay import Replay, hand_to_json, replay_events
from mjledger.fold.stream import replay_json_parts
from mjledger.log.codec import read_log_bytes
from mjledger.log.reader import iter_log_file
from mjledger.store.application import Ledger
from mjledger.store.corrections import export_with_corrections
from mjledger.store.corrections import notes as correction_notes
from mjledger.store.location import SqliteStore, redact, store_location

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
            refuse(exc)

    return wrapper  # type: ignore[return-value]


def read_input(stream: BinaryIO) -> bytes:
    with stream:
        return stream.read()


def print_json(data: object) -> None:
    click.echo(json.dumps(data, ensure_ascii=False, indent=2))


@click.group(cls=MjledgerGroup, context_settings={"help_option_names": ["-h", "--help"]})
@click.version_option(__version__, "--version", prog_name="mjledger")
@click.option(
    "--debug",
    is_flag=True,
    help="On an internal error, print the traceback ($MJLEDGER_DEBUG=1 too).",
)
def main(debug: bool) -> None:
    """mjledger: an event-sourced ledger for mahjong sessions (Hong Kong and Sichuan)."""


@main.command("replay")
@click.argument("log", type=click.File("rb"))
@click.option("--json", "as_json", is_flag=True, help="Print the contract's JSON output.")
@refusals
def replay_command(log: BinaryIO, as_json: bool) -> None:
    """Replay LOG (a JSON Lines hand or match log; '-' for standard input) and settle it."""
    with log, gc_paused():
        if as_json:
            print_spooled(replay_json_parts(iter_log_file(log)))
        else:
            render_replay(replay_events(iter_log_file(log)), Console())


@contextmanager
def gc_paused() -> Iterator[None]:
    """A one-shot command makes no reference cycles worth collecting while it folds: pausing
    the cyclic collector saves it walking every live object again and again."""
    was_enabled = gc.isenabled()
    gc.disable()
    try:
        yield
    finally:
        if was_enabled:
            gc.enable()


def print_spooled(parts: Iterable[bytes]) -> None:
    """Write ``parts`` to a temporary file and copy it to standard output only once all of
    them were made: a refused log (an error raised part way) prints nothing, yet the output is
    never held in memory whole."""
    with tempfile.TemporaryFile() as spool:
        for part in parts:
            spool.write(part)
        spool.write(b"\n")
        spool.seek(0)
        sys.stdout.flush()
        out = sys.stdout.buffer
        shutil.copyfileobj(spool, out)
        out.flush()


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
        outcome = "unfinished" + (
            " — won so far by " + ", ".join(hand.winners) if hand.winners else ""
        )
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
    table.caption = "net: " + "  ".join(f"{p} {_signed(net[p])}" for p in players)
    table.caption_justify = "left"
    console.print(table)


def _signed(amount: int) -> str:
    return f"{amount:+d}" if amount else "0"


@main.command("schema")
@refusals
def schema_command() -> None:
    """Print the JSON Schema of the log format (one line of a log)."""
    from mjledger.log.schema import log_line_schema

    print_json(log_line_schema())


# --- the store ---------------------------------------------------------------------------------

store_option = click.option(
    "--store",
    "store",
    default=None,
    metavar="PATH|URL",
    help="The store: a SQLite file or a postgresql:// URL "
    "(default: $MJLEDGER_STORE, else ./mjledger.sqlite).",
)


@contextmanager
def open_ledger(store: str | None, *, must_exist: bool = True) -> Iterator[Ledger]:
    location = store_location(store)
    if must_exist and isinstance(location, SqliteStore) and not location.path.exists():
        raise StoreError(f"no store at {location} (record a log first, or pass --store)")
    try:
        ledger = Ledger(location)
    except (PersistenceError, sqlite3.Error) as exc:  # no such directory, not a database, ...
        raise StoreError(f"cannot open the store {location}: {redact(str(exc))}") from None
    try:
        yield ledger
    finally:
        ledger.close()


@contextmanager
def record_progress() -> Iterator[Callable[[int, int], None] | None]:
    """A progress bar on standard error while a long log is written (only on a terminal)."""
    if not sys.stderr.isatty():
        yield None
        return
    with Progress(console=Console(stderr=True), transient=True) as bar:
        task = bar.add_task("recording hands", total=None)

        def advance(done: int, total: int) -> None:
            bar.update(task, completed=done, total=total)

        yield advance


@main.command("record")
@click.argument("log", type=click.File("rb"))
@store_option
@refusals
def record_command(log: BinaryIO, store: str | None) -> None:
    """Validate LOG whole, then record it into the store, one transaction per hand."""
    data = read_input(log)
    try:
        text = data.decode("utf-8")
    except UnicodeDecodeError:
        read_log_bytes(data)  # raises the error naming the line
        raise
    with (
        open_ledger(store, must_exist=False) as ledger,
        record_progress() as progress,
        gc_paused(),
    ):
        result = ledger.record_log(text, progress=progress)
        ledger.views.catch_up()
    if result.id_assigned:
        click.echo(f"match id assigned: {result.match}")
    verb = {"recorded": "recorded", "resumed": "continued", "unchanged": "already recorded"}
    click.echo(
        f"{verb[result.status]}: match {result.match} ({result.hands} hands, "
        f"{result.events} events written) in {ledger.location}"
    )


@main.command("scores")
@store_option
@click.option("--json", "as_json", is_flag=True, help="Print JSON.")
@refusals
def scores_command(store: str | None, as_json: bool) -> None:
    """Running scores: per match, and per player across matches (one rule set at a time)."""
    with open_ledger(store) as ledger:
        by_match = ledger.views.scores_by_match()
        by_player = ledger.views.scores_by_player()
    if as_json:
        print_json(
            {
                "matches": by_match,
                "players": {
                    ruleset: {p: {"total": t, "matches": m} for p, (t, m) in rows.items()}
                    for ruleset, rows in by_player.items()
                },
            }
        )
        return
    console = Console()
    for ruleset, rows in by_player.items():
        table = Table(title=f"Running scores — {ruleset}", title_justify="left")
        table.add_column("player")
        table.add_column("total", justify="right")
        table.add_column("matches", justify="right")
        for player, (total, matches) in rows.items():
            table.add_row(player, _signed(total), str(matches))
        console.print(table)
    table = Table(title="By match", title_justify="left")
    table.add_column("match")
    table.add_column("scores")
    for match, scores in by_match.items():
        table.add_row(match, "  ".join(f"{p} {_signed(a)}" for p, a in scores.items()))
    console.print(table)


@main.command("streaks")
@store_option
@click.option("--json", "as_json", is_flag=True, help="Print JSON.")
@refusals
def streaks_command(store: str | None, as_json: bool) -> None:
    """Dealer streaks: each match's current dealer and streak, and each player's longest."""
    with open_ledger(store) as ledger:
        current = ledger.views.current_dealers()
        longest = ledger.views.longest_streaks()
    if as_json:
        print_json(
            {
                "matches": [
                    {
                        "match": c.match,
                        "hand": c.hand,
                        "dealer": c.dealer,
                        "streak": c.streak,
                        "outcome": c.outcome,
                        "next_dealer": c.next_dealer,
                    }
                    for c in current
                ],
                "longest": longest,
            }
        )
        return
    console = Console()
    table = Table(title="Current dealers", title_justify="left")
    for column in ("match", "hand", "dealer", "streak", "next dealer"):
        table.add_column(column)
    for c in current:
        table.add_row(c.match, str(c.hand), c.dealer, str(c.streak), c.next_dealer or "—")
    console.print(table)
    table = Table(title="Longest streak per player (hands dealt in a row)", title_justify="left")
    table.add_column("player")
    table.add_column("longest", justify="right")
    for player, length in longest.items():
        table.add_row(player, str(length))
    console.print(table)


@main.command("history")
@click.argument("match")
@store_option
@click.option("--json", "as_json", is_flag=True, help="Print JSON.")
@refusals
def history_command(match: str, store: str | None, as_json: bool) -> None:
    """Match history: each hand's number, dealer, outcome and net."""
    with open_ledger(store) as ledger:
        ledger.match(match)  # a clear error for an unknown match
        entries = ledger.views.history(match)
        corrected = correction_notes(ledger, match)
    if as_json:
        # A corrected or voided hand also lists its corrections (the key is absent otherwise).
        print_json(
            [
                {**e.to_json(), "corrections": corrected[e.number]}
                if e.number in corrected
                else e.to_json()
                for e in entries
            ]
        )
        return
    table = Table(title=f"History of {match}", title_justify="left")
    for column in ("hand", "dealer", "wind", "outcome", "net"):
        table.add_column(column)
    for e in entries:
        outcome = e.outcome + (" (" + ", ".join(e.winners) + ")" if e.winners else "")
        for c in corrected.get(e.number, []):
            outcome += f"; {c['kind']} {c['when'][:10]} by {c['by']}: {c['reason']}"
        net = "  ".join(f"{p} {_signed(a)}" for p, a in e.net.items())
        table.add_row(str(e.number), e.dealer, e.round_wind, outcome, net)
    Console().print(table)


@main.command("hand")
@click.argument("match")
@click.argument("number", type=click.IntRange(min=1))
@store_option
@click.option("--json", "as_json", is_flag=True, help="Print the hand's replay entry as JSON.")
@refusals
def hand_command(match: str, number: int, store: str | None, as_json: bool) -> None:
    """One stored hand, exactly as replaying the match's export reports it."""
    with open_ledger(store) as ledger:
        state = ledger.settlement(match, number)
        players = ledger.match(match).started.players
    if as_json:
        print_json(hand_to_json(state))
    else:
        render_hand(state, players, Console())


@main.command("export")
@click.argument("match")
@store_option
@click.option(
    "--with-corrections",
    is_flag=True,
    help="The hands as recorded, each followed by its hand_corrected/hand_voided lines.",
)
@refusals
def export_command(match: str, store: str | None, with_corrections: bool) -> None:
    """Print the match as a canonical log (one event per line) that replays to the same result."""
    with open_ledger(store) as ledger:
        text = export_with_corrections(ledger, match) if with_corrections else ledger.export(match)
    click.echo(text, nl=False)


@main.command("project")
@store_option
@click.option(
    "--rebuild", is_flag=True, help="Drop the read models and rebuild them from the events."
)
@click.option(
    "--follow",
    is_flag=True,
    help="Keep running: apply new events as they are stored, until SIGTERM or Ctrl-C "
    "(woken by LISTEN/NOTIFY on PostgreSQL, polling on SQLite).",
)
@click.option(
    "--interval",
    type=click.FloatRange(min=0.05),
    default=1.0,
    show_default=True,
    help="With --follow: seconds between polls (on PostgreSQL, the longest wait for a missed "
    "notification).",
)
@refusals
def project_command(store: str | None, rebuild: bool, follow: bool, interval: float) -> None:
    """Bring the read models up to date with the store (or rebuild them from scratch)."""
    with open_ledger(store) as ledger:
        applied = ledger.views.rebuild() if rebuild else ledger.views.catch_up()
        position = ledger.views.position
        click.echo(
            f"{'rebuilt' if rebuild else 'caught up'}: {applied} events applied, at {position}"
        )
        if follow:
            follow_store(ledger, interval)


def follow_store(ledger: Ledger, interval: float) -> None:
    """``project --follow``: one process keeps the views current, so readers only wait
    (``views.wait_for``) instead of each catching up; stops cleanly on SIGTERM or SIGINT."""
    stop = threading.Event()
    for signum in (signal.SIGTERM, signal.SIGINT):
        signal.signal(signum, lambda *_: stop.set())
    click.echo(f"following {ledger.location}", nl=True)
    sys.stdout.flush()
    for applied in ledger.views.follow(stop, interval=interval):
        click.echo(f"applied {applied} events, at {ledger.views.position}")
        sys.stdout.flush()
    click.echo("stopped")


main.add_command(evaluate)
add_commands(main, refusals=refusals, store_option=store_option, open_ledger=open_ledger)
main.add_command(simulate)
add_demo(main, refusals=refusals, store_option=store_option, open_ledger=open_ledger)
