"""The rule sets that come with mjledger, and their house-rules classes (re-exported by the
top-level package). Plugins register theirs through the ``mjledger.rulesets`` entry points.

Each is named with the module that holds it, and imported only when asked for: a Sichuan log
never loads Hong Kong's options, faan table and settlement, nor a Hong Kong log Sichuan's
(:func:`mjledger.rules.registry.find_ruleset` loads the one it is asked for by name).
"""

from __future__ import annotations

import importlib
from typing import TYPE_CHECKING, Any, Final

from mjledger.rules.names import BUILT_IN_RULESETS

# Which built-in rule set's module holds each house-rules class (BUILT_IN_RULESETS says where).
_RULES_CLASSES: Final = {"HongKongRules": "hongkong", "SichuanRules": "sichuan"}

__all__ = ["HongKongRules", "SichuanRules"]


def __getattr__(name: str) -> Any:
    # ``BUILT_IN``: every built-in rule set, in their names' order; the house-rules classes.
    if name == "BUILT_IN":
        from mjledger.rules.registry import load_built_in

        return tuple(load_built_in(n) for n in BUILT_IN_RULESETS)
    if name in _RULES_CLASSES:
        module = BUILT_IN_RULESETS[_RULES_CLASSES[name]].partition(":")[0]
        return getattr(importlib.import_module(module), name)
    raise AttributeError(f"module 'mjledger.rules.builtin' has no attribute {name!r}")


if TYPE_CHECKING:  # what __getattr__ gives, for the type checker
    from mjledger.rules.hongkong import HongKongRules as HongKongRules
    from mjledger.rules.sichuan import SichuanRules as SichuanRules
