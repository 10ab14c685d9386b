"""``mjledger.fan_hongkong`` as docs/tiles.md shows it; the evaluator is
:mod:`mjledger.rules.hongkong.fan`, its options the rule set's house rules."""

from mjledger.rules.hongkong.fan import HONGKONG_TABLE, evaluate_hongkong_win, wind_tile
from mjledger.tiles.fan import FanResult, PatternScore

__all__ = ["HONGKONG_TABLE", "FanResult", "PatternScore", "evaluate_hongkong_win", "wind_tile"]
