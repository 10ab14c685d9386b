"""Modules placed in ``sys.modules`` whose bodies run when first asked for a name
(:func:`deferred`): msgspec's C core without the package's ``__init__`` (the console script's
``replay --json``), attrs' validators, which mjledger never uses (the console script's import
of attrs, ``mjledger._codecache``).

``import msgspec`` runs the package's ``__init__``, which imports every submodule it offers:
``msgspec.inspect`` (a struct type for each kind of type), ``msgspec._json_schema`` (with
``textwrap``), ``structs``, ``msgpack``, ``toml``, ``yaml``. mjledger decodes and encodes JSON
with what lives in ``msgspec._core`` alone (:mod:`mjledger._msgspec` takes its names from
there). The core imports ``datetime``, ``decimal`` and ``uuid``, which its types need, and
``msgspec._utils``, and through it ``typing_extensions``, the largest module a ``replay
--json`` loaded. All but the core and what its types need was some 20 M instructions of a
short ``replay --json`` (a Hong Kong match: 337 M).
"""

from __future__ import annotations

import sys
import types
from typing import Any

# The import system's own module (importlib._bootstrap, always loaded): importlib.util, which
# only names its functions, costs more to import than this module's work.
_bootstrap: Any = sys.modules["_frozen_importlib"]


def core_alone() -> None:
    """Import ``msgspec._core`` without the package's ``__init__``: the package placed in
    ``sys.modules`` by :func:`deferred`, so that any other importer still finds the whole
    package (``msgspec.Struct``, ``msgspec.json``, ``from msgspec import ...`` run the rest).

    ``typing_extensions`` is kept from ``msgspec._utils`` while it imports, unless it was
    imported already: on Python ≥ 3.11 what ``_utils`` takes from it (``get_type_hints``,
    which it calls with ``include_extras=True``, ``Required``, ``NotRequired``) is ``typing``'s
    or returns exactly what ``typing``'s returns, and ``_utils`` falls back to ``typing`` for
    them itself. Nothing happens if msgspec is imported already, or cannot be found.
    """
    if deferred("msgspec") is None:
        return
    hidden = "typing_extensions" not in sys.modules
    if hidden:
        sys.modules["typing_extensions"] = None  # type: ignore[assignment]  # import refused
    try:
        __import__("msgspec._core")
    finally:
        if hidden and "typing_extensions" in sys.modules and not sys.modules["typing_extensions"]:
            del sys.modules["typing_extensions"]


def deferred(name: str) -> types.ModuleType | None:
    """``name``'s module in ``sys.modules`` as the import system makes it (its spec, path,
    file), its body not yet run: the first time it is asked for a name it has not got, its
    body runs on it and it answers. (Its submodules import without it: ``import name.sub``
    asks the package only for its path.) None, and nothing done, where ``name`` is imported
    already or cannot be found."""
    if name in sys.modules:
        return None
    parent, _, _ = name.rpartition(".")
    path = None
    if parent:  # a submodule: found in its package's folders (the package not imported yet)
        package = sys.modules.get(parent)
        found = _bootstrap._find_spec(parent, None) if package is None else package.__spec__
        path = None if found is None else found.submodule_search_locations
        if path is None:
            return None
    spec = _bootstrap._find_spec(name, path)  # what importlib.util.find_spec finds
    if spec is None or spec.loader is None:
        return None
    loader = spec.loader
    module: types.ModuleType = _bootstrap.module_from_spec(spec)  # importlib.util's

    def run_body(attribute: str) -> Any:
        import _imp

        _imp.acquire_lock()  # another thread asking meanwhile waits for the whole body
        try:
            if module.__dict__.get("__getattr__") is run_body:
                del module.__dict__["__getattr__"]
                try:
                    loader.exec_module(module)
                except BaseException:
                    if sys.modules.get(name) is module:
                        del sys.modules[name]
                    raise
        finally:
            _imp.release_lock()
        return getattr(module, attribute)

    module.__dict__["__getattr__"] = run_body
    sys.modules[name] = module
    return module
