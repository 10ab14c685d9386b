"""Names the rule sets are found by, apart from the registry that loads them (the command
line's options read them on every start-up, before any rule set is needed)."""

from typing import Final

ENTRY_POINT_GROUP: Final = "mjledger.rulesets"
# The rule set ``mjledger evaluate`` assumes when not told (its documented default).
DEFAULT_RULESET: Final = "sichuan"
