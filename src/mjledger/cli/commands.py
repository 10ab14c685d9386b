"""The commands of ``mjledger`` as click commands: each declared with the one line ``mjledger
--help`` lists for it, and imported from where the table (:mod:`mjledger._command_table`)
says it is defined.

A command's module is imported when the command is asked for (click's lazy-group pattern:
``list_commands`` from this table, ``get_command`` importing the one module), so ``mjledger
--help`` and ``mjledger replay`` do not import every command's options, rich, the store or
the simulator. The short help is stated in the table once: ``mjledger --help`` reads it from
there without importing the command, and each command is declared with it (:func:`command`,
:func:`group`), so ``mjledger CMD --help`` and the listing cannot disagree.
"""

from __future__ import annotations

import importlib
from collections.abc import Callable
from gettext import gettext as _
from typing import Any

import click

from mjledger._command_table import COMMANDS as COMMANDS
from mjledger._command_table import Entry as Entry


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
