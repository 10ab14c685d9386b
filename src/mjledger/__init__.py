"""mjledger: an event-sourced ledger for mahjong game sessions.

Read a hand or match log, validate it, and derive every payout under Hong Kong or Sichuan
rules::

    from mjledger import replay
    result = replay(open("match.jsonl").read())
    result.totals()          # {"ana": -8, "bo": -24, "cy": 40, "di": -8}
"""

from __future__ import annotations

TYPE_CHECKING = False  # typing is not imported for ``mjledger --help`` (mjledger/_console.py)
if TYPE_CHECKING:
    from typing import Any

# Every name below is imported when first asked for (PEP 562): ``import mjledger`` — which
# every ``mjledger`` command does first — costs nothing until the library is used, so that
# ``mjledger --help`` does not load the folds and ``replay`` does not load the store.
_ERRORS = (
    "ConcurrencyError",
    "FormatError",
    "LogError",
    "MjledgerError",
    "RuleError",
    "StoreConnectionError",
    "StoreError",
    "TileError",
    "UnknownRulesetError",
)
_EVENTS = (
    "Discarded",
    "Event",
    "FalseWin",
    "HandStarted",
    "KongDeclared",
    "MatchStarted",
    "MeldRecord",
    "PlayerAtWallEnd",
    "SelfDrawn",
    "VoidSuitChosen",
    "WallExhausted",
    "WonOnDiscard",
)
_HOME: dict[str, str] = {
    **dict.fromkeys(_ERRORS, "mjledger.errors"),
    **dict.fromkeys(_EVENTS, "mjledger.log.events"),
    **dict.fromkeys(("HandState", "Transfer", "evolve_hand"), "mjledger.fold.hand"),
    **dict.fromkeys(("MatchState", "evolve", "start"), "mjledger.fold.match"),
    **dict.fromkeys(("Replay", "replay", "replay_bytes", "replay_events"), "mjledger.fold.replay"),
    **dict.fromkeys(
        ("decode_line", "dumps_event", "event_from_json", "event_to_json", "parse_log"),
        "mjledger.log.codec",
    ),
    # the built-in rule sets' house rules (mjledger.rules.builtin's __all__; a test compares)
    **dict.fromkeys(("HongKongRules", "SichuanRules"), "mjledger.rules.builtin"),
    "Ledger": "mjledger.store.application",
}

__all__ = [
    "ConcurrencyError",
    "Discarded",
    "Event",
    "FalseWin",
    "FormatError",
    "HandStarted",
    "HandState",
    "HongKongRules",
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
    "SichuanRules",
    "StoreConnectionError",
    "StoreError",
    "TileError",
    "Transfer",
    "UnknownRulesetError",
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

if TYPE_CHECKING:
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
    from mjledger.log.codec import (
        decode_line,
        dumps_event,
        event_from_json,
        event_to_json,
        parse_log,
    )
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
    from mjledger.rules.builtin import HongKongRules, SichuanRules
    from mjledger.store.application import Ledger

    __version__: str


def _version() -> str:
    from importlib.metadata import PackageNotFoundError, version

    try:
        return version("mjledger")
    except PackageNotFoundError:  # pragma: no cover - running from a source tree
        return "0.0.0+source"


def __getattr__(name: str) -> Any:
    if name == "__version__":
        value: Any = _version()
    elif name in _HOME:
        import importlib

        value = getattr(importlib.import_module(_HOME[name]), name)
    else:
        raise AttributeError(f"module 'mjledger' has no attribute {name!r}")
    globals()[name] = value  # asked once: a plain attribute from now on
    return value


def __dir__() -> list[str]:
    return sorted({*globals(), *__all__})
