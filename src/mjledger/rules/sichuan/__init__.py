"""Sichuan (blood battle) rules: house rules, the fan table and evaluator, payouts, the empty
wall, and the rule set object the registry hands to the folds (``SICHUAN``)."""

from mjledger.rules.sichuan.options import SichuanRules
from mjledger.rules.sichuan.ruleset import SICHUAN, Sichuan

__all__ = ["SICHUAN", "Sichuan", "SichuanRules"]
