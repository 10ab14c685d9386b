"""Hong Kong rules: house rules, the faan table and evaluator, payouts, and the rule set object
the registry hands to the folds (``HONGKONG``)."""

from mjledger.rules.hongkong.options import HongKongRules
from mjledger.rules.hongkong.ruleset import HONGKONG, HongKong

__all__ = ["HONGKONG", "HongKong", "HongKongRules"]
