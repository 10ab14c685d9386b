"""The ``mjledger`` console script: the top-level help page without click, click for the rest.

``mjledger --help`` is the page a new user reads first and the cheapest thing the command
does, yet importing click costs several times what printing the page does. So the page is
written here from the command table (:mod:`mjledger._command_table`, the one statement of the
group's words, which the click group is declared from too) with click's layout: the terminal
width as click reads it, each help wrapped by ``textwrap`` as click's own formatter wraps it.
Every other command line, and this page too wherever the layout could depend on more than
the table (a program name too long for one usage line), goes to click as it is.
``tests/cli/test_top_help.py`` holds the page byte for byte to click's own.
"""

from __future__ import annotations

import os
import sys

from mjledger._command_table import (
    COMMANDS,
    GROUP_HELP,
    GROUP_USAGE,
    HELP_OPTION_HELP,
    HELP_OPTION_NAMES,
    OPTIONS,
)
from mjledger._streams import silence_stdout

TYPE_CHECKING = False  # typing itself costs this start-up more than the page does
if TYPE_CHECKING:
    from collections.abc import Sequence

# click's help layout: the page at most this wide (less 2), never narrower than the floor;
# a definition list's first column at most this wide, then this many spaces.
_MAX_WIDTH = 80
_MIN_WIDTH = 50
_INDENT = 2
_COL_MAX = 30
_COL_SPACING = 2


def run(prog: str | None = None) -> None:
    """The console script (and ``python -m mjledger``, ``prog`` then the name click gives
    it): the top-level help page if that is all that is asked for, else click."""
    if prog is None:
        prog = os.path.basename(sys.argv[0])
    if not write_top_help(sys.argv[1:], prog):
        from mjledger._gc import command_imported, one_command_process

        one_command_process()
        from mjledger._codecache import install

        args = sys.argv[1:]
        # attrs' and mjledger's generated code compiled once, kept between runs: a file for
        # each of the table's commands (a name from the command line only if it is one)
        named = next((a for a in args if not a.startswith("-")), "")
        install(command=named if named in COMMANDS else "")
        from mjledger._replay_json import run as replay_json_run

        if replay_json_run(args):  # ``replay --json LOG`` without click
            return
        from mjledger.cli.main import main

        command_imported()
        main()


def write_top_help(args: Sequence[str], prog: str) -> bool:
    """Write ``prog --help``'s page on standard output if ``args`` asks for that alone and
    the page is the table's; whether it did."""
    if len(args) != 1 or args[0] not in HELP_OPTION_NAMES:
        return False
    page = top_help(prog, terminal_width())
    if page is None:
        return False
    if sys.stdout is None:  # no standard output at all: nothing to write, as click.echo does
        return True
    try:
        sys.stdout.write(page)
        sys.stdout.flush()
    except BrokenPipeError:  # the reader went away: status 1 and nothing said, as click does
        silence_stdout()
        sys.exit(1)
    return True


def terminal_width() -> int:
    """The width click lays its help out in (``HelpFormatter``'s default)."""
    import shutil

    return max(min(shutil.get_terminal_size().columns, _MAX_WIDTH) - 2, _MIN_WIDTH)


def top_help(prog: str, width: int) -> str | None:
    """The group's help page at ``width`` as click writes it (with the final newline of
    ``click.echo``), or None where the usage line would not fit on one line."""
    usage = f"Usage: {prog} "
    if width < len(usage) + 20:
        return None  # click then puts the arguments on a line of their own
    parts = [
        _fill(GROUP_USAGE, width, usage, " " * len(usage)),
        "\n\n",
        _fill(GROUP_HELP, width, " " * _INDENT, " " * _INDENT),
        "\n\nOptions:\n",
        _definitions(_options(), width),
        "\nCommands:\n",
        _definitions([(n, e.short_help) for n, e in sorted(COMMANDS.items())], width),
    ]
    return "".join(parts)


def _options() -> list[tuple[str, str]]:
    return [*OPTIONS.items(), (", ".join(HELP_OPTION_NAMES), HELP_OPTION_HELP)]


def _fill(text: str, width: int, first: str, rest: str) -> str:
    """``text`` wrapped as click's ``wrap_text`` wraps one paragraph."""
    import textwrap

    wrapper = textwrap.TextWrapper(
        width, initial_indent=first, subsequent_indent=rest, replace_whitespace=False
    )
    return wrapper.fill(text.expandtabs())


def _definitions(rows: list[tuple[str, str]], width: int) -> str:
    """``rows`` as click's ``HelpFormatter.write_dl`` writes them, one section deep."""
    first_col = min(max(len(term) for term, _ in rows), _COL_MAX) + _COL_SPACING
    indent = " " * _INDENT
    text_width = max(width - first_col - 2, 10)
    out = []
    for term, text in rows:
        out.append(indent + term)
        if len(term) <= first_col - _COL_SPACING:
            out.append(" " * (first_col - len(term)))
        else:
            out.append("\n" + " " * (first_col + _INDENT))
        lines = _fill(text, text_width, "", "").splitlines()
        out.append(lines[0] + "\n")
        out.extend(" " * (first_col + _INDENT) + line + "\n" for line in lines[1:])
    return "".join(out)
