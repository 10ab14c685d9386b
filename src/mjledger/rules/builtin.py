"""The rule sets that come with mjledger, and their house-rules classes (re-exported by the
top-level package). Plugins register theirs through the ``mjledger.rulesets`` entry points."""

from mjledger.rules.hongkong import HONGKONG, HongKongRules
from mjledger.rules.sichuan import SICHUAN, SichuanRules

BUILT_IN = (HONGKONG, SICHUAN)

__all__ = ["HongKongRules", "SichuanRules"]
