"""A fast ``attrs.evolve`` for the fold's state classes.

The folds copy a frozen state on every event; ``attrs.evolve`` re-runs ``__init__`` through a
keyword dictionary, which was most of the replay time when measured (benchmarks/bench_replay.py).
The state classes have no validators or converters, so a copy that sets the changed slots
directly gives equal objects about twice as fast. Like ``attrs.evolve`` it refuses a name that
is not a field (a ``TypeError``): every field is a keyword-only parameter of the copy.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from typing import Any, TypeVar, cast

import attrs

T = TypeVar("T")
_KEEP: Any = object()  # the default of every parameter: keep the field's value


def replacer(cls: type[T]) -> Callable[..., T]:
    """``replace(obj, **changes)`` for the frozen, slotted, validator-free attrs class ``cls``."""
    fields = attrs.fields(cast(Any, cls))
    assert all(f.validator is None and f.converter is None for f in fields), cls
    params = ", ".join(f"{f.name}=_KEEP" for f in fields)
    body = "\n".join(
        f"    _set(new, {f.name!r}, obj.{f.name} if {f.name} is _KEEP else {f.name})"
        for f in fields
    )
    source = (
        f"def replace(obj, *, {params}, _new=object.__new__, _set=object.__setattr__):\n"
        f"    new = _new(cls)\n{body}\n    return new\n"
    )
    namespace: dict[str, Any] = {"cls": cls, "_KEEP": _KEEP}
    exec(source, namespace)
    replace: Callable[..., T] = namespace["replace"]
    return replace


def copier(cls: type[T], names: Sequence[str]) -> Callable[[Any], T]:
    """``copy(obj)``: a new ``cls`` (its ``__init__`` not run) holding ``obj``'s values of the
    attributes ``names`` — how the hand fold thaws a frozen state into its working state and
    freezes it back, at the cost of the slot writes alone."""
    body = "\n".join(f"    _set(new, {name!r}, obj.{name})" for name in names)
    source = (
        f"def copy(obj, _new=object.__new__, _set=object.__setattr__):\n"
        f"    new = _new(cls)\n{body}\n    return new\n"
    )
    namespace: dict[str, Any] = {"cls": cls}
    exec(source, namespace)
    copy: Callable[[Any], T] = namespace["copy"]
    return copy
