"""Fast copies and constructors for the fold's attrs values and its working state.

The folds copy and build frozen values on every hand and many events; ``attrs.evolve`` re-runs
``__init__`` through a keyword dictionary, and a frozen class's ``__init__`` sets each field
through ``object.__setattr__``, a lookup of the field by name. These classes have no
validators or converters, so code that writes each slot through its descriptor (or, for a
class that is not frozen, a plain attribute store) gives equal objects in less time. Like
``attrs.evolve``, :func:`replacer`'s copy refuses a name that is not a field (a
``TypeError``): every field is a keyword-only parameter of the copy.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping, Sequence
from types import MemberDescriptorType
from typing import Any, TypeVar, cast

import attrs

from mjledger._codegen import compile_function

T = TypeVar("T")
_KEEP: Any = object()  # the default of every parameter: keep the field's value


def _compile(
    cls: type[Any],
    name: str,
    params: str,
    names: Sequence[str],
    value: str,
    defaults: Mapping[str, Any] | None = None,
) -> Any:
    """``def name(params)``: a new ``cls`` (its ``__init__`` not run) whose attribute ``n`` is
    ``value.format(n=n)`` for each of ``names``. A class that forbids ``setattr`` (frozen) is
    written through its slots' descriptors, bound once as default arguments."""
    if cast(Any, cls).__setattr__ is object.__setattr__:
        setters = ""
        body = [f"    new.{n} = {value.format(n=n)}" for n in names]
    else:
        assert all(isinstance(getattr(cls, n), MemberDescriptorType) for n in names), cls
        setters = "".join(f", _set_{n}=cls.{n}.__set__" for n in names)
        body = [f"    _set_{n}(new, {value.format(n=n)})" for n in names]
    source = (
        f"def {name}({params}_new=object.__new__{setters}):\n"
        f"    new = _new(cls)\n" + "\n".join(body) + "\n    return new\n"
    )
    namespace: dict[str, Any] = {"cls": cls, "_KEEP": _KEEP}
    namespace.update((f"_default_{n}", v) for n, v in (defaults or {}).items())
    return compile_function(name, source, namespace, what=f"{name} of {cls.__qualname__}")


def _plain_fields(cls: type[Any]) -> list[str]:
    fields = attrs.fields(cast(Any, cls))
    assert all(f.validator is None and f.converter is None for f in fields), cls
    return [f.name for f in fields]


def replacer(cls: type[T]) -> Callable[..., T]:
    """``replace(obj, **changes)`` for the frozen, slotted, validator-free attrs class ``cls``."""
    names = _plain_fields(cls)
    params = "".join(f"{n}=_KEEP, " for n in names)
    replace: Callable[..., T] = _compile(
        cls, "replace", f"obj, *, {params}", names, "obj.{n} if {n} is _KEEP else {n}"
    )
    return replace


def constructor(cls: type[T], *, trusted: bool = False) -> Callable[..., T]:
    """``make(...)``: ``cls(...)`` (the same parameters, defaults included) without the attrs
    ``__init__``, for the values the fold builds on every win and kong. ``trusted``: a class
    with validators (and a post-init check), built without running them, for values its
    caller has checked already (the store's copy of a hand's start, of values the match fold
    has checked)."""
    fields = attrs.fields(cast(Any, cls))
    names = [f.name for f in fields] if trusted else _plain_fields(cls)
    assert trusted or not hasattr(cls, "__attrs_post_init__"), cls
    assert not any(isinstance(f.default, attrs.Factory) for f in fields), cls  # type: ignore[arg-type]
    defaults = {f.name: f.default for f in fields if f.default is not attrs.NOTHING}
    params = "".join(f"{n}=_default_{n}, " if n in defaults else f"{n}, " for n in names)
    make: Callable[..., T] = _compile(cls, "make", params, names, "{n}", defaults)
    return make


def copier(cls: type[T], names: Sequence[str]) -> Callable[[Any], T]:
    """``copy(obj)``: a new ``cls`` (its ``__init__`` not run) holding ``obj``'s values of the
    attributes ``names`` — how the hand fold thaws a frozen state into its working state and
    freezes it back, at the cost of the slot writes alone."""
    copy: Callable[[Any], T] = _compile(cls, "copy", "obj, ", names, "obj.{n}")
    return copy
