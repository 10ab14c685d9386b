"""Exit statuses of the ``mjledger`` command, and the one place that decides them.

A script reads the status before it reads anything else, so each status has one meaning
(docs/cli.md, "Exit status"):

* 0 — done;
* 1 — findings: reserved for commands that report what they found (``audit``), as ``diff``
  reports differences; never a crash;
* 2 — the input was refused (one line on standard error, nothing on standard output);
* 70 — an internal error, a bug (``EX_SOFTWARE``): one line asking for a report, the
  traceback with ``mjledger --debug``;
* 130 — interrupted (Ctrl-C);
* 141 — the reader of standard output went away (``mjledger replay … | head -1``): quietly,
  as a program killed by ``SIGPIPE`` would.
"""

from __future__ import annotations

import os
import sys
from collections.abc import Callable, Sequence
from typing import Any, Final, NoReturn

import click

from mjledger._command_table import DEBUG_ENV as DEBUG_ENV
from mjledger._streams import silence_stdout
from mjledger._text import one_line
from mjledger.cli.commands import LazyGroup
from mjledger.errors import MjledgerError

EXIT_FINDINGS: Final = 1
EXIT_REFUSED: Final = 2
EXIT_SOFTWARE: Final = 70
EXIT_INTERRUPTED: Final = 130
EXIT_BROKEN_PIPE: Final = 141
REPORT_URL: Final = "https://github.com/mjledger/mjledger/issues"


# Where a command's ``--json`` flag is remembered: in the context's ``meta``, which every
# context of one invocation shares, so the refusal printed after the command's own context has
# closed still knows it.
_JSON_META: Final = "mjledger.json"


def _remember_json(ctx: click.Context, _param: click.Parameter, value: bool) -> bool:
    if value:
        ctx.meta[_JSON_META] = True
    return value


def json_option(help: str) -> Callable[[Any], Any]:
    """The ``--json`` flag (parameter ``as_json``): JSON output, and a refusal as JSON too."""
    return click.option("--json", "as_json", is_flag=True, help=help, callback=_remember_json)


def refusal_json(exc: MjledgerError, message: str) -> str:
    """What a command run with ``--json`` prints on standard output when it refuses
    (http-api.md, "The same codes in the library and the command line")."""
    import json  # here, not on every start-up

    document = {"code": exc.code, "message": message, "line": exc.line}
    document["event_type"] = exc.event_type
    return json.dumps(document, ensure_ascii=False)


def refuse(exc: MjledgerError, as_json: bool | None = None) -> NoReturn:
    """One line on standard error and status 2: what every refusal looks like (a store URL's
    password never shown); with ``--json`` (``as_json``, else the command's flag as click
    read it), the refusal's code and place on standard output."""
    from mjledger.store.location import redact  # the store's module: not on every start-up

    message = one_line(redact(str(exc)), 290)
    if as_json is None:
        ctx = click.get_current_context(silent=True)
        as_json = ctx is not None and bool(ctx.meta.get(_JSON_META))
    if as_json:
        click.echo(refusal_json(exc, message))
    click.echo(f"mjledger: {message}", err=True)
    sys.exit(EXIT_REFUSED)


def ended(exc: BaseException, debug: bool) -> NoReturn:
    """How a command that raised ``exc`` ends: the status that means it, and what is said
    (``debug``: ``--debug`` given; the environment's :data:`DEBUG_ENV` counts too); anything
    that is not an error of the command's (``SystemExit``) raised on."""
    if isinstance(exc, KeyboardInterrupt):
        click.echo("\nmjledger: interrupted", err=True)
        sys.exit(EXIT_INTERRUPTED)
    if isinstance(exc, BrokenPipeError):
        silence_stdout()
        sys.exit(EXIT_BROKEN_PIPE)
    if isinstance(exc, MjledgerError):
        refuse(exc)
    if not isinstance(exc, Exception):
        raise exc
    if debug or os.environ.get(DEBUG_ENV, "") not in ("", "0"):
        import traceback

        traceback.print_exception(exc)
    else:
        from mjledger.store.location import redact

        problem = one_line(redact(f"{type(exc).__name__}: {exc}"), 120)
        click.echo(
            f"mjledger: internal error ({problem}); this is a bug, please report it "
            f"at {REPORT_URL} (run with --debug for the traceback)",
            err=True,
        )
    sys.exit(EXIT_SOFTWARE)


class MjledgerGroup(LazyGroup):
    """The command group (its commands imported as they are asked for), with exit statuses
    that mean one thing each."""

    def invoke(self, ctx: click.Context) -> Any:
        try:
            result = super().invoke(ctx)
            sys.stdout.flush()  # a broken pipe shows here, not in the interpreter's last flush
            return result
        except (click.exceptions.Exit, click.ClickException, click.Abort):
            raise
        except (KeyboardInterrupt, Exception) as exc:
            ended(exc, bool(ctx.params.get("debug")))

    def main(
        self,
        args: Sequence[str] | None = None,
        prog_name: str | None = None,
        complete_var: str | None = None,
        standalone_mode: bool = True,
        **extra: Any,
    ) -> Any:
        if not standalone_mode:
            return super().main(args, prog_name, complete_var, standalone_mode, **extra)
        try:
            status = super().main(args, prog_name, complete_var, False, **extra)
        except click.ClickException as exc:
            exc.show()
            sys.exit(exc.exit_code)
        except (click.Abort, KeyboardInterrupt):  # Ctrl-C while click itself was reading
            click.echo("\nmjledger: interrupted", err=True)
            sys.exit(EXIT_INTERRUPTED)
        sys.exit(status if isinstance(status, int) else 0)
