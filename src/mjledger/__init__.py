"""mjledger: an event-sourced ledger for mahjong game sessions.

Read a hand or match log, validate it, and derive every payout under Hong Kong or Sichuan
rules::

    from mjledger import replay
    result = replay(open("match.jsonl").read())
    result.totals()          # {"ana": -8, "bo": -24, "cy": 40, "di": -8}
"""

from importlib.metadata import PackageNotFoundError, version

try:
    __version__ = version("mjledger")
except PackageNotFoundError:  # pragma: no cover - running from a source tree
    __version__ = "0.0.0+source"

from mjledger.codec import decode_line, dumps_event, event_from_json, event_to_json, parse_log
from mjledger.errors import (
    ConcurrencyError,
    FormatError,
    LogError,
    MjledgerError,
    RuleError,
    StoreError,
    TileError,
)
from mjledger.events import (
    Discarded,
    Event,
    HandStarted,
    KongDeclared,
    MatchStarted,
    MeldRecord,
    PlayerAtWallEnd,
    SelfDrawn,
    VoidSuitChosen,
    WallExhausted,
    WonOnDiscard,
)
from mjledger.hand import HandState, Transfer, evolve_hand
from mjledger.house_rules import HongKongRules, SichuanRules
from mjledger.match import MatchState, evolve, start
from mjledger.replay import Replay, replay, replay_bytes, replay_events

__all__ = [
    "ConcurrencyError",
    "Discarded",
    "Event",
    "FormatError",
    "HandStarted",
    "HandState",
    "HongKongRules",
    "KongDeclared",
    "LogError",
    "MatchStarted",
    "MatchState",
    "MeldRecord",
    "MjledgerError",
    "PlayerAtWallEnd",
    "Replay",
    "RuleError",
    "SelfDrawn",
    "SichuanRules",
    "StoreError",
    "TileError",
    "Transfer",
    "VoidSuitChosen",
    "WallExhausted",
    "WonOnDiscard",
    "__version__",
    "decode_line",
    "dumps_event",
    "event_from_json",
    "event_to_json",
    "evolve",
    "evolve_hand",
    "parse_log",
    "replay",
    "replay_bytes",
    "replay_events",
    "start",
]
