"""The rules layer: what a rule set is (:mod:`.base`: a base class with neutral defaults,
bound to its table), which ones there are (:mod:`.registry`, :mod:`.builtin`), the values
settlement is made of (:mod:`.values`, :mod:`.state`), and one package per rule set
(:mod:`.hongkong`, :mod:`.sichuan`). A new rule set is one more package, registered.
"""

from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    from mjledger.rules.base import BaseRuleset, SimulatedPlay
    from mjledger.rules.protocol import Ruleset, WinContext
    from mjledger.rules.registry import (
        ENTRY_POINT_GROUP,
        find_ruleset,
        register_ruleset,
        registered,
        ruleset_names,
        rulesets,
        table_of,
        unregister_ruleset,
    )

__all__ = [
    "ENTRY_POINT_GROUP",
    "BaseRuleset",
    "Ruleset",
    "SimulatedPlay",
    "WinContext",
    "find_ruleset",
    "register_ruleset",
    "registered",
    "ruleset_names",
    "rulesets",
    "table_of",
    "unregister_ruleset",
]

_HOME = {
    "BaseRuleset": "base",
    "SimulatedPlay": "base",
    "Ruleset": "protocol",
    "WinContext": "protocol",
}


def __getattr__(name: str) -> Any:
    # Loaded when first asked for: the command line reads ``names`` on every start-up.
    if name not in __all__:
        raise AttributeError(f"module 'mjledger.rules' has no attribute {name!r}")
    import importlib

    return getattr(importlib.import_module(f"mjledger.rules.{_HOME.get(name, 'registry')}"), name)
