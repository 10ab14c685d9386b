"""The rule sets mjledger knows, by name: built in, from plugins, or registered in process.

Built-in rule sets are named here by import path (:mod:`mjledger.rules.builtin`), and plugin
packages add theirs through the ``mjledger.rulesets`` entry-point group
(``name = "package.module:RULESET"``), so the CLI sees a third-party rule set without a change
here. Everything is loaded on first use.
"""

from __future__ import annotations

import importlib
from collections.abc import Iterator
from contextlib import contextmanager
from importlib.metadata import entry_points
from typing import Any, Final

from mjledger.errors import UnknownRulesetError
from mjledger.rules.protocol import Ruleset

ENTRY_POINT_GROUP: Final = "mjledger.rulesets"
# The rule set ``mjledger evaluate`` assumes when not told (its documented default).
DEFAULT_RULESET: Final = "sichuan"

_BUILT_IN: Final = "mjledger.rules.builtin:BUILT_IN"

_registry: dict[str, Ruleset] = {}
_by_rules_class: dict[type, Ruleset] = {}
_loaded = False


def _load(reference: str) -> Any:
    module, _, attr = reference.partition(":")
    return getattr(importlib.import_module(module), attr)


def _ensure_loaded() -> None:
    global _loaded
    if _loaded:
        return
    _loaded = True
    for ruleset in _load(_BUILT_IN):
        _add(ruleset)
    for entry in entry_points(group=ENTRY_POINT_GROUP):
        if entry.name not in _registry:
            _add(entry.load(), entry.name)


def _add(ruleset: Ruleset, name: str | None = None) -> None:
    if not isinstance(ruleset, Ruleset):
        raise TypeError(f"{ruleset!r} does not implement the Ruleset protocol")
    if name is not None and name != ruleset.name:
        raise TypeError(f"rule set registered as {name!r} calls itself {ruleset.name!r}")
    _registry[ruleset.name] = ruleset
    _by_rules_class[ruleset.rules_class] = ruleset


def find_ruleset(name: str) -> Ruleset:
    """The rule set a log calls ``name``, or :class:`UnknownRulesetError`."""
    ruleset = _registry.get(name)
    if ruleset is not None:
        return ruleset
    _ensure_loaded()
    ruleset = _registry.get(name)
    if ruleset is None:
        known = ", ".join(f'"{n}"' for n in _registry)
        raise UnknownRulesetError(f"unknown ruleset {name!r} (known: {known})")
    return ruleset


def ruleset_names() -> tuple[str, ...]:
    """Every known rule set's name, built-in ones first."""
    _ensure_loaded()
    return tuple(_registry)


def rulesets() -> tuple[Ruleset, ...]:
    _ensure_loaded()
    return tuple(_registry.values())


def ruleset_of(rules: object) -> Ruleset:
    """The rule set whose house-rules class ``rules`` is an instance of."""
    ruleset = _by_rules_class.get(type(rules))
    if ruleset is None:
        _ensure_loaded()
        ruleset = _by_rules_class.get(type(rules))
    if ruleset is None:
        raise UnknownRulesetError(f"{type(rules).__name__} is not a registered rule set's rules")
    return ruleset


def register_ruleset(ruleset: Ruleset) -> None:
    """Register a rule set in this process (a plugin normally uses the entry-point group)."""
    _ensure_loaded()
    if ruleset.name in _registry:
        raise ValueError(f"a rule set named {ruleset.name!r} is already registered")
    _add(ruleset)


def unregister_ruleset(name: str) -> None:
    ruleset = _registry.pop(name)
    _by_rules_class.pop(ruleset.rules_class, None)


@contextmanager
def registered(ruleset: Ruleset) -> Iterator[Ruleset]:
    """Register ``ruleset`` for the duration of a ``with`` block (tests)."""
    register_ruleset(ruleset)
    try:
        yield ruleset
    finally:
        unregister_ruleset(ruleset.name)
