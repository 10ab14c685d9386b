"""The rules layer: what a rule set is (:mod:`.base`: a base class with neutral defaults,
bound to its table), which ones there are (:mod:`.registry`, :mod:`.builtin`), the values
settlement is made of (:mod:`.values`, :mod:`.state`), and one package per rule set
(:mod:`.hongkong`, :mod:`.sichuan`). A new rule set is one more package, registered.
"""

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
