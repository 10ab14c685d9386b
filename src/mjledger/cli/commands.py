"""The commands of ``mjledger``: where each is defined, and the one line ``mjledger --help``
lists for it.

A command's module is imported when the command is asked for (click's lazy-group pattern:
``list_commands`` from this table, ``get_command`` importing the one module), so ``mjledger
--help`` and ``mjledger replay`` do not import every command's options, rich, the store or
the simulator. The short help is stated here once: ``mjledger --help`` reads it from the
table without importing the command, and each command is declared with it (:func:`command`,
:func:`group`), so ``mjledger CMD --help`` and the listing cannot disagree.
"""

from __future__ import annotations

import importlib
from collections.abc import Callable, Mapping
from gettext import gettext as _
from typing import Any, Final, NamedTuple

import click


class Entry(NamedTuple):
    """A command of the group: the ``module:attribute`` of its click command, and its
    short help."""

    where: str
    short_help: str


COMMANDS: Final[Mapping[str, Entry]] = {
    "audit": Entry(
        "mjledger.cli.audit:audit_command",
        "Re-derive everything in the store; report what does not agree.",
    ),
    "correct": Entry(
        "mjledger.cli.disputes:correct_command",
        "Replace a stored hand's settlement by a corrected hand.",
    ),
    "demo": Entry(
        "mjledger.cli.simulate:demo",
        "Record a short simulated match of each rule set, and show it.",
    ),
    "evaluate": Entry(
        "mjledger.cli.evaluate:evaluate", "A hand's arrangements and fan, or its waits."
    ),
    "explain": Entry(
        "mjledger.cli.disputes:explain_command",
        "Explain a hand step by step: from a log, or stored.",
    ),
    "export": Entry("mjledger.cli.main:export_command", "Print a stored match as a canonical log."),
    "hand": Entry(
        "mjledger.cli.main:hand_command",
        "One stored hand, as replaying the match's export reports it.",
    ),
    "history": Entry(
        "mjledger.cli.main:history_command",
        "A stored match, hand by hand: dealer, outcome and net.",
    ),
    "keygen": Entry(
        "mjledger.cli.audit:keygen_command",
        "Write a new Ed25519 key pair for signed checkpoints.",
    ),
    "matches": Entry(
        "mjledger.cli.standings:matches_command",
        "The matches in the store: rule set, players, hands, state.",
    ),
    "project": Entry(
        "mjledger.cli.main:project_command",
        "Bring the read models up to date, or rebuild them.",
    ),
    "record": Entry(
        "mjledger.cli.main:record_command",
        "Validate a log whole, then record it into the store.",
    ),
    "replay": Entry(
        "mjledger.cli.main:replay_command", "Replay a hand or match log and settle it."
    ),
    "report": Entry(
        "mjledger.cli.disputes:report_command",
        "Write one self-contained HTML page for a match.",
    ),
    "schema": Entry("mjledger.cli.main:schema_command", "Print the JSON Schema of the log format."),
    "scores": Entry(
        "mjledger.cli.standings:scores_command",
        "Running scores: per match, and per player across matches.",
    ),
    "serve": Entry(
        "mjledger.cli.serve:serve_command", "Serve the HTTP API under /v1 and the desk."
    ),
    "simulate": Entry(
        "mjledger.cli.simulate:simulate",
        "Simulate legal tile-level play and write match logs.",
    ),
    "streaks": Entry(
        "mjledger.cli.standings:streaks_command",
        "Dealer streaks: current dealers, each player's longest.",
    ),
    "token": Entry(
        "mjledger.cli.serve:token_group",
        "Bearer tokens for the HTTP service: create, list, revoke.",
    ),
    "void": Entry(
        "mjledger.cli.disputes:void_command",
        "Void a stored hand: its transfers stop counting.",
    ),
}


def command(name: str, **options: Any) -> Callable[[Callable[..., Any]], click.Command]:
    """``click.command(name)`` with the table's short help."""
    return click.command(name, short_help=COMMANDS[name].short_help, **options)


def group(name: str, **options: Any) -> Callable[[Callable[..., Any]], click.Group]:
    """``click.group(name)`` with the table's short help."""
    return click.group(name, short_help=COMMANDS[name].short_help, **options)


class LazyGroup(click.Group):
    """A group whose commands are those it holds and those of :data:`COMMANDS`, each imported
    when it is first asked for; its help lists them all from the table."""

    def list_commands(self, ctx: click.Context) -> list[str]:
        return sorted({*self.commands, *COMMANDS})

    def get_command(self, ctx: click.Context, cmd_name: str) -> click.Command | None:
        found = super().get_command(ctx, cmd_name)
        if found is None and cmd_name in COMMANDS:
            found = load(cmd_name)
            self.add_command(found, cmd_name)
        return found

    def resolve_command(
        self, ctx: click.Context, args: list[str]
    ) -> tuple[str | None, click.Command | None, list[str]]:
        if args and args[0] not in COMMANDS and args[0] not in self.commands:
            for name in COMMANDS:  # a mistyped name: click's "Did you mean" looks at them all
                self.get_command(ctx, name)
        return super().resolve_command(ctx, args)

    def format_commands(self, ctx: click.Context, formatter: click.HelpFormatter) -> None:
        """click's listing, with each short help read from the table (no command imported)."""
        names = self.list_commands(ctx)
        limit = formatter.width - 6 - max(map(len, names))
        rows = []
        for name in names:
            if name in COMMANDS:
                rows.append((name, COMMANDS[name].short_help))
            elif (found := self.get_command(ctx, name)) is not None and not found.hidden:
                rows.append((name, found.get_short_help_str(limit)))
        with formatter.section(_("Commands")):
            formatter.write_dl(rows)


def load(name: str) -> click.Command:
    """The command ``name`` of the table, its module imported."""
    module, _sep, attribute = COMMANDS[name].where.partition(":")
    found = getattr(importlib.import_module(module), attribute)
    assert isinstance(found, click.Command), COMMANDS[name].where
    assert found.name == name, COMMANDS[name].where
    return found
