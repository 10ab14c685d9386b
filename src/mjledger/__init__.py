"""mjledger: an event-sourced ledger for mahjong game sessions.

Read a hand or match log, validate it, and derive every payout under Hong Kong or Sichuan
rules::

    from mjledger import replay
    result = replay(open("match.jsonl").read())
    result.totals()          # {"ana": -8, "bo": -24, "cy": 40, "di": -8}
"""

from importlib.metadata import PackageNotFoundError, version
from typing import TYPE_CHECKING, Any

try:
    __version__ = version("mjledger")
except PackageNotFoundError:  # pragma: no cover - running from a source tree
    __version__ = "0.0.0+source"

from mjledger.errors import (
    ConcurrencyError,
    FormatError,
    LogError,
    MjledgerError,
    RuleError,
    StoreConnectionError,
    StoreError,
    TileError,
    UnknownRulesetError,
)
from mjledger.fold.hand import HandState, Transfer, evolve_hand
from mjledger.fold.match import MatchState, evolve, start
from mjledger.fold.replay import Replay, replay, replay_bytes, replay_events
from mjledger.log.codec import decode_line, dumps_event, event_from_json, event_to_json, parse_log
from mjledger.log.events import (
    Discarded,
    Event,
    FalseWin,
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
from mjledger.rules.builtin import *  # noqa: F403 - the built-in rule sets' house rules
from mjledger.rules.builtin import __all__ as _rules_all

__all__ = [
    "ConcurrencyError",
    "Discarded",
    "Event",
    "FalseWin",
    "FormatError",
    "HandStarted",
    "HandState",
    "KongDeclared",
    "Ledger",
    "LogError",
    "MatchStarted",
    "MatchState",
    "MeldRecord",
    "MjledgerError",
    "PlayerAtWallEnd",
    "Replay",
    "RuleError",
    "SelfDrawn",
    "StoreConnectionError",
    "StoreError",
    "TileError",
    "UnknownRulesetError",
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
    *_rules_all,
]

if TYPE_CHECKING:
    from mjledger.store.application import Ledger


def __getattr__(name: str) -> Any:
    # The store (eventsourcing, SQLite) loads when first asked for, so that replaying a log
    # with the pure core does not pay for it.
    if name == "Ledger":
        from mjledger.store.application import Ledger

        return Ledger
    raise AttributeError(f"module 'mjledger' has no attribute {name!r}")
