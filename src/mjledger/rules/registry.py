"""The rule sets mjledger knows, by name: built in, from plugins, or registered in process.

Built-in rule sets are named by import path (:mod:`mjledger.rules.builtin`; each loaded only
when it is asked for by name, or when every rule set is), and plugin
packages add theirs through the ``mjledger.rulesets`` entry-point group
(``name = "package.module:RULESET"``), so the CLI sees a third-party rule set without a change
here. Everything is loaded on first use.
"""

from __future__ import annotations

import importlib
import warnings
from collections.abc import Iterator
from contextlib import contextmanager
from typing import Any, Final, TypeVar

from mjledger.errors import UnknownRulesetError
from mjledger.rules.base import BaseRuleset
from mjledger.rules.names import BUILT_IN_RULESETS
from mjledger.rules.names import DEFAULT_RULESET as DEFAULT_RULESET
from mjledger.rules.names import ENTRY_POINT_GROUP as ENTRY_POINT_GROUP
from mjledger.rules.protocol import HouseRules, Ruleset

R = TypeVar("R", BaseRuleset, Ruleset)

_registry: dict[str, BaseRuleset] = {}
_by_rules_class: dict[type, BaseRuleset] = {}
_loaded = False  # built-in rule sets and plugins' entry points
_built_in_loaded: set[str] = set()  # the built-in ones loaded (by name: no entry point read)
# Bound rule sets, by their house-rules object (kept alive here, so its id is not reused).
_tables: dict[int, BaseRuleset] = {}
_TABLES_KEPT: Final = 64


def entry_points(group: str) -> Any:
    """The installed packages' entry points of ``group`` (importlib.metadata is imported
    only when a plugin is looked for: reading it costs a start-up more than the rest)."""
    from importlib.metadata import entry_points as installed

    return installed(group=group)


def load_built_in(name: str) -> Any:
    """The built-in rule set ``name`` (a key of ``BUILT_IN_RULESETS``), imported."""
    module, _, attribute = BUILT_IN_RULESETS[name].partition(":")
    return getattr(importlib.import_module(module), attribute)


def _ensure_built_in(name: str | None = None) -> None:
    """The built-in rule set ``name`` registered (every built-in one for None), once."""
    for wanted in BUILT_IN_RULESETS if name is None else (name,):
        if wanted in BUILT_IN_RULESETS and wanted not in _built_in_loaded:
            _built_in_loaded.add(wanted)
            _add(load_built_in(wanted), wanted)


def _ensure_loaded() -> None:
    """Every rule set: the built-in ones, then the plugins' (reading the installed packages'
    entry points, which only a name that is not built in, or a listing, needs)."""
    global _loaded
    if _loaded:
        return
    _loaded = True
    for name in BUILT_IN_RULESETS:
        ruleset = load_built_in(name)
        _built_in_loaded.add(name)
        if _registry.get(name) is not ruleset:
            _add(ruleset, name)
    # Listed built-in ones first, in their order, whichever was asked for first.
    ordered = {n: _registry.pop(n) for n in BUILT_IN_RULESETS if n in _registry}
    ordered.update(_registry)
    _registry.clear()
    _registry.update(ordered)
    for entry in entry_points(group=ENTRY_POINT_GROUP):
        if entry.name not in _registry:
            _add(entry.load(), entry.name)


def _as_base(ruleset: BaseRuleset | Ruleset) -> BaseRuleset:
    """``ruleset`` as a base rule set: itself, or a 0.1 protocol rule set wrapped (warned)."""
    if isinstance(ruleset, BaseRuleset):
        return ruleset
    if not isinstance(ruleset, Ruleset):
        raise TypeError(f"{ruleset!r} is not a BaseRuleset (nor of the 0.1 Ruleset protocol)")
    # Only a 0.1 plugin needs the wrapper: a built-in rule set's start-up leaves it out.
    from mjledger.rules.legacy import DEPRECATION, LegacyRuleset

    warnings.warn(DEPRECATION.format(name=ruleset.name), DeprecationWarning, stacklevel=4)
    return LegacyRuleset(ruleset)


def _add(ruleset: BaseRuleset | Ruleset, name: str | None = None) -> None:
    base = _as_base(ruleset)
    if name is not None and name != base.name:
        raise TypeError(f"rule set registered as {name!r} calls itself {base.name!r}")
    _registry[base.name] = base
    _by_rules_class[base.rules_class] = base
    _tables.clear()


def find_ruleset(name: str) -> BaseRuleset:
    """The rule set a log calls ``name``, or :class:`UnknownRulesetError`."""
    ruleset = _registry.get(name)
    if ruleset is not None:
        return ruleset
    _ensure_built_in(name)
    ruleset = _registry.get(name)
    if ruleset is not None:
        return ruleset
    _ensure_loaded()
    ruleset = _registry.get(name)
    if ruleset is None:
        known = ", ".join(f'"{n}"' for n in sorted(_registry))
        raise UnknownRulesetError(f"unknown ruleset {name!r} (known: {known})")
    return ruleset


def ruleset_names() -> tuple[str, ...]:
    """Every known rule set's name, built-in ones first."""
    _ensure_loaded()
    return tuple(_registry)


def table_of(name: str, rules: HouseRules, players: tuple[str, ...]) -> BaseRuleset:
    """The rule set ``name`` bound to a table (:meth:`BaseRuleset.bind`), bound once for
    each house-rules object and players: a hand's hooks are asked for every event."""
    bound = _tables.get(id(rules))
    if (
        bound is None
        or bound.rules is not rules
        or bound.players != players
        or (bound.name != name)
    ):
        if len(_tables) >= _TABLES_KEPT:
            _tables.clear()
        bound = _tables[id(rules)] = find_ruleset(name).bind(rules, players)
    return bound


def rulesets() -> tuple[BaseRuleset, ...]:
    _ensure_loaded()
    return tuple(_registry.values())


def is_rules_class(cls: type) -> bool:
    """Whether ``cls`` is a known rule set's house-rules class (a built-in one is found
    without reading the plugins' entry points)."""
    _ensure_built_in()
    if cls in _by_rules_class:
        return True
    _ensure_loaded()
    return cls in _by_rules_class


def ruleset_of(rules: object) -> BaseRuleset:
    """The rule set whose house-rules class ``rules`` is an instance of."""
    ruleset = _by_rules_class.get(type(rules))
    if ruleset is None:
        _ensure_built_in()
        ruleset = _by_rules_class.get(type(rules))
    if ruleset is None:
        _ensure_loaded()
        ruleset = _by_rules_class.get(type(rules))
    if ruleset is None:
        raise UnknownRulesetError(f"{type(rules).__name__} is not a registered rule set's rules")
    return ruleset


def register_ruleset(ruleset: BaseRuleset | Ruleset) -> None:
    """Register a rule set in this process (a plugin normally uses the entry-point group)."""
    _ensure_loaded()
    if ruleset.name in _registry:
        raise ValueError(f"a rule set named {ruleset.name!r} is already registered")
    _add(ruleset)


def unregister_ruleset(name: str) -> None:
    ruleset = _registry.pop(name)
    _by_rules_class.pop(ruleset.rules_class, None)
    _tables.clear()


@contextmanager
def registered(ruleset: R) -> Iterator[R]:
    """Register ``ruleset`` for the duration of a ``with`` block (tests)."""
    register_ruleset(ruleset)
    try:
        yield ruleset
    finally:
        unregister_ruleset(ruleset.name)
