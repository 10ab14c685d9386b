"""What every store command of the shell shares: the ``--store`` option, the refusal of a
:class:`MjledgerError` as one line and exit status 2, and JSON printed the one way.

Kept apart from :mod:`mjledger.cli.main` (which re-exports these for ``audit`` and ``serve``)
so that the commands defined in modules of their own (``standings``) use them without
importing the group they join.
"""

from __future__ import annotations

import json
from collections.abc import Callable
from functools import wraps
from typing import Any, TypeVar

import click

from mjledger.cli.exits import refuse
from mjledger.errors import MjledgerError

__all__ = ["print_json", "refusals", "store_option"]

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
    click.echo(json.dumps(data, ensure_ascii=False, indent=2))


store_option = click.option(
    "--store",
    "store",
    default=None,
    metavar="PATH|URL",
    help="The store: a SQLite file or a postgresql:// URL "
    "(default: $MJLEDGER_STORE, else ./mjledger.sqlite).",
)
