"""The type hints of the event classes, evaluated as ``typing.get_type_hints`` does but each
distinct annotation once: the fast decoder reads the hints of every event class when it is
built, at the start-up of every command that reads a log."""

from __future__ import annotations

import inspect
import sys
import typing
from functools import cache
from typing import Any

__all__ = ["type_hints"]


def type_hints(cls: type) -> dict[str, Any]:
    """``typing.get_type_hints(cls)``, each distinct annotation of a module evaluated once:
    the event classes repeat a dozen annotations (``str | None``, ``ClassVar[str]``) some
    seventy times, and evaluating them was a fifth of building the decoder at start-up."""
    hints: dict[str, Any] = {}
    for base in reversed(cls.__mro__):
        for name, annotation in inspect.get_annotations(base).items():
            if not isinstance(annotation, str):
                return typing.get_type_hints(cls)  # not postponed: typing's own way
            hints[name] = _evaluated(base.__module__, annotation)
    return hints


@cache
def _evaluated(module: str, annotation: str) -> Any:
    """``annotation`` as ``typing.get_type_hints`` evaluates a class's, in ``module``."""
    return typing._eval_type(  # type: ignore[attr-defined]
        typing.ForwardRef(annotation, is_argument=False, is_class=True),
        vars(sys.modules[module]),
        None,
    )
