"""The command table (mjledger/cli/commands.py): each command imported when it is asked for,
its short help stated once, ``mjledger --help`` listing the table without importing any
command's module, and an unknown command refused as click refuses it."""

from __future__ import annotations

import click
import pytest
from click.testing import CliRunner

from mjledger.cli import main
from mjledger.cli.commands import COMMANDS, load


@pytest.mark.parametrize("name", sorted(COMMANDS))
def test_each_entry_is_the_command_it_names_declared_with_the_tables_short_help(
    name: str,
) -> None:
    command = load(name)
    assert command.name == name
    assert command.short_help == COMMANDS[name].short_help
    with click.Context(main) as ctx:
        assert main.get_command(ctx, name) is command


def test_the_listing_is_the_table_each_on_one_line_at_80_columns() -> None:
    result = CliRunner().invoke(main, ["--help"], terminal_width=80)
    assert result.exit_code == 0
    listed = result.stdout.split("Commands:\n", 1)[1].splitlines()
    width = max(map(len, COMMANDS))
    assert listed == [f"  {n.ljust(width)}  {e.short_help}" for n, e in sorted(COMMANDS.items())]


def test_every_command_the_group_holds_is_in_the_table() -> None:
    with click.Context(main) as ctx:
        names = main.list_commands(ctx)
        loaded = [main.get_command(ctx, n) for n in names]
    assert names == sorted(COMMANDS)
    assert sorted(main.commands) == names
    assert all(c is not None for c in loaded)


def test_an_unknown_command_is_refused_in_clicks_words() -> None:
    result = CliRunner().invoke(main, ["nope"], prog_name="mjledger")
    assert result.exit_code == 2
    assert result.stdout == ""
    assert result.stderr.endswith("\nError: No such command 'nope'.\n")
    assert "Usage: mjledger [OPTIONS] COMMAND [ARGS]..." in result.stderr


@pytest.mark.skipif(
    not hasattr(click.exceptions, "NoSuchCommand"), reason="click < 8.4 suggests no name"
)
def test_a_mistyped_command_is_answered_with_the_names_it_is_near() -> None:
    result = CliRunner().invoke(main, ["rplay"], prog_name="mjledger")
    assert result.exit_code == 2
    assert result.stderr.endswith("\nError: No such command 'rplay'. Did you mean 'replay'?\n")


def test_a_commands_own_help_is_its_docstring() -> None:
    result = CliRunner().invoke(main, ["replay", "--help"], prog_name="mjledger")
    assert result.exit_code == 0
    assert result.stdout.startswith("Usage: mjledger replay [OPTIONS] LOG\n\n  Replay LOG (a JSON")
