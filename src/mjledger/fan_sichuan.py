"""``mjledger.fan_sichuan`` as docs/tiles.md shows it; the evaluator is
:mod:`mjledger.rules.sichuan.fan`, its options the rule set's house rules."""

from mjledger.rules.sichuan.fan import SICHUAN_TABLE, evaluate_sichuan_wall, evaluate_sichuan_win
from mjledger.tiles.fan import (
    FanResult,
    PatternRow,
    PatternScore,
    WallStatus,
    pattern_row,
    score_patterns,
)

__all__ = [
    "SICHUAN_TABLE",
    "FanResult",
    "PatternRow",
    "PatternScore",
    "WallStatus",
    "evaluate_sichuan_wall",
    "evaluate_sichuan_win",
    "pattern_row",
    "score_patterns",
]
