"""The ``mjledger`` command: a thin shell that reads input, calls the library and prints.

Exit statuses are decided in :mod:`mjledger.cli.exits` (documented in docs/cli.md).
"""

from __future__ import annotations

import io
import sys
from typing import IO, TYPE_CHECKING, BinaryIO

import click

from mjledger._command_table import GROUP_HELP, HELP_OPTION_NAMES, OPTIONS
from mjledger._gc import command_paused, gc_paused
from mjledger._replay_json import events_of, phases, replay_json, spooled
from mjledger._spool import seekable
from mjledger._text import escaped, plural
from mjledger.cli.commands import command
from mjledger.cli.exits import MjledgerGroup, json_option
from mjledger.cli.shell import key_option, print_json, refusals, store_option
from mjledger.errors import MjledgerError

# What a command needs is imported when it runs, not here: ``mjledger --help`` and
# ``replay`` never load the store (eventsourcing, cattrs), rich or the folds they do not use;
# the commands defined in other modules are imported when they are asked for (cli/commands).
if TYPE_CHECKING:
    from pathlib import Path

    from mjledger.store.application import Ledger


def show_version(ctx: click.Context) -> None:
    """``mjledger --version``, as click words it; the version is looked up only when asked
    (reading the installed metadata is most of what a bare start-up would cost)."""
    import mjledger

    click.echo(f"mjledger, version {mjledger.__version__}")
    ctx.exit()


@click.group(
    cls=MjledgerGroup,
    help=GROUP_HELP,
    context_settings={"help_option_names": list(HELP_OPTION_NAMES)},
)
@click.option(
    "--version",
    is_flag=True,
    expose_value=False,
    is_eager=True,
    callback=lambda ctx, _param, value: show_version(ctx) if value else None,
    help=OPTIONS["--version"],
)
@click.option("--debug", is_flag=True, help=OPTIONS["--debug"])
@click.option("--verify", is_flag=True, help=OPTIONS["--verify"])
@click.pass_context
def main(ctx: click.Context, debug: bool, verify: bool) -> None:
    # The group's help is the table's (mjledger/_command_table.py), as --help shows it.
    ctx.obj = {"verify": verify}


@command("replay")
@click.argument("log", type=click.File("rb"))
@json_option(help="Print the contract's JSON output.")
@refusals
def replay_command(log: BinaryIO, as_json: bool) -> None:
    """Replay LOG (a JSON Lines hand or match log; '-' for standard input) and settle it."""
    if as_json:
        replay_json(log)
        return
    with log, command_paused():
        with phases() as step:
            events = events_of(log, step)
            from mjledger.cli.render import TerminalConsole

            console = TerminalConsole()
            if console.writes_plain():  # a pipe or a file: the tables as hands settle
                from mjledger.cli.replay_text import replay_text_parts

                parts = replay_text_parts(events, console)
                spool = spooled((p.encode("utf-8", "surrogatepass") for p in parts), end=b"")
            else:
                from mjledger.fold.replay import replay_events

                result = replay_events(events)
        if console.writes_plain():
            with spool:
                copy_text_out(spool)
        else:
            from mjledger.cli.render import render_replay

            render_replay(result, console)


def write_blocks(data: bytes, block: int = 1 << 16) -> None:
    """``data`` on standard output a block at a time: one large write to a pipe whose reader
    has gone (``| head -n 3``) can end without an error, the rest lost, where the next block's
    write fails as it should (status 141, docs/cli.md)."""
    sys.stdout.flush()
    out = sys.stdout.buffer
    for start in range(0, len(data), block):
        out.write(data[start : start + block])
        out.flush()


def copy_text_out(spool: IO[bytes], block: int = 1 << 16) -> None:
    """A spool of text (UTF-8, as :func:`replay_command` writes it) on standard output, a
    block at a time, written as text: the stream's encoding is the one the console drew for."""
    text = io.TextIOWrapper(spool, encoding="utf-8", errors="surrogatepass", newline="")
    try:
        while data := text.read(block):
            sys.stdout.write(data)
        sys.stdout.flush()
    finally:
        text.detach()


@command("schema")
@refusals
def schema_command() -> None:
    """Print the JSON Schema of the log format (one line of a log)."""
    from mjledger.log.schema import log_line_schema

    print_json(log_line_schema())


# --- the store ---------------------------------------------------------------------------------


@command("record")
@click.argument("log", type=click.File("rb"))
@store_option
@key_option(
    "--signing-key",
    "Sign each hand's closing digest and the store head with this private key "
    "(default: $MJLEDGER_SIGNING_KEY, if set).",
)
@json_option(help="Print what was recorded as JSON.")
@refusals
def record_command(
    log: BinaryIO, store: str | None, signing_key: Path | None, as_json: bool
) -> None:
    """Validate LOG whole, then record it into the store, one transaction per hand."""
    from mjledger.cli.store import note, open_ledger, read_views
    from mjledger.store.files import DB_ERRORS
    from mjledger.store.importer import check_log_stream

    with seekable(log) as source, phases() as step, gc_paused():
        step("validating", None, None)
        checked = check_log_stream(source)  # nothing opened before this
        step("recording", 0, max(checked.hands, 1))
        with open_ledger(store, writing=True, signing_key=signing_key) as ledger:
            result = ledger.record_checked(
                checked, progress=lambda done, total: step("recording", done, total)
            )
            updated = True
            try:
                step("updating read models", 0, None)
                read_views(
                    ledger,
                    lambda views: views.catch_up(
                        lambda done, total: step("updating read models", done, total)
                    ),
                )
            except (*DB_ERRORS, MjledgerError) as exc:
                # The match is stored: say so truthfully (status 0) and what is left to do.
                updated = False
                note(f"recorded, but the read models were not updated ({exc}); run 'project'")
            path = ledger.location
    verb = {"recorded": "recorded", "resumed": "continued", "unchanged": "already recorded"}
    if as_json:
        print_json(
            {
                "status": result.status,
                "match": result.match,
                "id_assigned": result.id_assigned,
                "hands": result.hands,
                "events": result.events,
                "store": str(path),
                "views_updated": updated,
            }
        )
        return
    if result.id_assigned:
        click.echo(
            f"match id derived from the log's content: {escaped(result.match)} "
            "(the log names none; recording it again finds it)"
        )
    done = (
        f"{verb[result.status]}: match {result.match} ({plural(result.hands, 'hand')}, "
        f"{plural(result.events, 'event')} written) in {path}"
    )
    click.echo(escaped(done))


@command("history")
@click.argument("match")
@store_option
@json_option(help="Print JSON.")
@refusals
def history_command(match: str, store: str | None, as_json: bool) -> None:
    """Match history: each hand's number, dealer, outcome and net (MATCH: an id or its start)."""
    from mjledger.cli.render import TerminalConsole, first_bust, history_table
    from mjledger.cli.store import open_ledger, read_views, resolve_match
    from mjledger.store.corrections import notes as correction_notes

    with open_ledger(store) as ledger:
        match = resolve_match(ledger, match)
        players = ledger.match(match).started.players
        entries = read_views(ledger, lambda v: v.history(match))
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
    console = TerminalConsole()
    console.print(history_table(match, players, entries, corrected))
    for player, number in first_bust(entries).items():
        console.print(f"bust: {player} (hand {number})", markup=False)


@command("hand")
@click.argument("match")
@click.argument("number", type=click.IntRange(min=1))
@store_option
@json_option(help="Print the hand's replay entry as JSON.")
@refusals
def hand_command(match: str, number: int, store: str | None, as_json: bool) -> None:
    """One stored hand, exactly as replaying the match's export reports it."""
    from mjledger.cli.render import TerminalConsole, render_corrections, render_hand
    from mjledger.cli.store import open_ledger, resolve_match
    from mjledger.fold.replay import hand_to_json
    from mjledger.store.corrections import notes as correction_notes

    with open_ledger(store) as ledger:
        match = resolve_match(ledger, match)
        state = ledger.settlement(match, number)
        players = ledger.match(match).started.players
        corrected = correction_notes(ledger, match).get(number, [])
    if as_json:  # a corrected or voided hand also lists its corrections, as in history
        print_json(
            {**hand_to_json(state), "corrections": corrected} if corrected else hand_to_json(state)
        )
    else:
        console = TerminalConsole()
        render_hand(state, players, console)
        render_corrections(corrected, players, console)


@command("export")
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
    from mjledger.cli.store import open_ledger, resolve_match
    from mjledger.store.corrections import export_with_corrections

    with open_ledger(store) as ledger:
        match = resolve_match(ledger, match)
        text = export_with_corrections(ledger, match) if with_corrections else ledger.export(match)
    write_blocks(text.encode("utf-8"))


@command("project")
@store_option
@click.option(
    "--rebuild", is_flag=True, help="Drop the read models and rebuild them from the events."
)
@json_option(help="Print the outcome as JSON.")
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
def project_command(
    store: str | None, rebuild: bool, as_json: bool, follow: bool, interval: float
) -> None:
    """Bring the read models up to date with the store (or rebuild them from scratch)."""
    from mjledger.cli.store import open_ledger, read_views

    with open_ledger(store, create=True) as ledger:  # on PostgreSQL: the tables too
        with phases() as step:
            label = "rebuilding read models" if rebuild else "updating read models"

            def advance(done: int, total: int) -> None:
                step(label, done, total)

            # A views file that cannot be read is deleted and built again (read_views).
            applied, position = read_views(
                ledger,
                lambda v: (v.rebuild(advance) if rebuild else v.catch_up(advance), v.position),
            )
        if as_json:
            print_json(
                {
                    "rebuilt": rebuild,
                    "applied": applied,
                    "position": position,
                    "store": str(ledger.location),
                }
            )
        else:
            click.echo(
                f"{'rebuilt' if rebuild else 'caught up'}: {plural(applied, 'event')} applied, "
                f"at {position}"
            )
        if follow:
            follow_store(ledger, interval)


def follow_store(ledger: Ledger, interval: float) -> None:
    """``project --follow``: one process keeps the views current, so readers only wait
    (``views.wait_for``) instead of each catching up; stops cleanly on SIGTERM or SIGINT."""
    import signal
    import threading

    stop = threading.Event()
    for signum in (signal.SIGTERM, signal.SIGINT):
        signal.signal(signum, lambda *_: stop.set())
    click.echo(f"following {ledger.location}", nl=True)
    sys.stdout.flush()
    for applied in ledger.views.follow(stop, interval=interval):
        click.echo(f"applied {plural(applied, 'event')}, at {ledger.views.position}")
        sys.stdout.flush()
    click.echo("stopped")
