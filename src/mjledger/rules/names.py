"""Names the rule sets are found by, apart from the registry that loads them (the command
line's options read them on every start-up, before any rule set is needed)."""

from typing import Final

ENTRY_POINT_GROUP: Final = "mjledger.rulesets"
# The rule set ``mjledger evaluate`` assumes when not told (its documented default).
DEFAULT_RULESET: Final = "sichuan"
# The built-in rule sets by name, each where it is (``module:attribute``): the registry imports
# the one a log names, and only that one (mjledger.rules.builtin lists them all).
BUILT_IN_RULESETS: Final = {
    "hongkong": "mjledger.rules.hongkong:HONGKONG",
    "sichuan": "mjledger.rules.sichuan:SICHUAN",
}
