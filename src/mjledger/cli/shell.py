"""What every store command of the shell shares: the ``--store`` option, the refusal of a
:class:`MjledgerError` as one line and exit status 2, JSON printed the one way, key-file
options, and the store opened (imported only when a command opens it).

Kept apart from :mod:`mjledger.cli.main` so that the commands defined in modules of their own
use them without importing the group they join.
"""

from __future__ import annotations

from collections.abc import Callable
from functools import wraps
from typing import TYPE_CHECKING, Any, TypeVar

import click

from mjledger.cli.exits import refuse
from mjledger.errors import MjledgerError

if TYPE_CHECKING:
    from pathlib import Path

__all__ = [
    "key_option",
    "open_existing_for_writing",
    "open_ledger",
    "print_json",
    "refusals",
    "store_option",
]

F = TypeVar("F", bound=Callable[..., Any])


def refusals(func: F) -> F:
    """Turn every :class:`MjledgerError` into one line on stderr and exit status 2."""

    @wraps(func)
    def wrapper(*args: Any, **kwargs: Any) -> Any:
        try:
            return func(*args, **kwargs)
        except MjledgerError as exc:
            refuse(exc)

    return wrapper  # type: ignore[return-value]


def print_json(data: object) -> None:
    import json  # here, not on every start-up

    click.echo(json.dumps(data, ensure_ascii=False, indent=2))


def key_option(flag: str, help: str) -> Callable[[F], F]:
    """An option naming a key file (``keygen`` writes them), given to the command as a
    :class:`~pathlib.Path` (made by the callback: pathlib is not needed to list the commands)."""
    return click.option(flag, type=click.Path(dir_okay=False), callback=_as_path, help=help)


def _as_path(_ctx: click.Context, _param: click.Parameter, value: str | None) -> Path | None:
    from pathlib import Path

    return None if value is None else Path(value)


def open_ledger(store: str | None, **options: Any) -> Any:
    """:func:`mjledger.cli.store.open_ledger`, imported when a command opens a store."""
    from mjledger.cli.store import open_ledger as opened

    return opened(store, **options)


def open_existing_for_writing(store: str | None) -> Any:
    """:func:`mjledger.cli.store.open_existing_for_writing`, imported when it is used."""
    from mjledger.cli.store import open_existing_for_writing as opened

    return opened(store)


store_option = click.option(
    "--store",
    "store",
    default=None,
    metavar="PATH|URL",
    help="The store: a SQLite file or a postgresql:// URL "
    "(default: $MJLEDGER_STORE, else ./mjledger.sqlite).",
)
