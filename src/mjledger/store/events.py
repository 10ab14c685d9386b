"""Events the ledger itself records beside a log's events: hands closing, tables and rules.

A match stream holds ``match_started`` then one ``hand_closed`` per finished hand; that entry
carries the hand's last digest (so a truncated or missing hand shows in an audit) and what the
read models need (outcome, net, next dealer), so projections never need to keep lookups in
memory. Keep these classes in this module: stored rows name their class by module path.
"""

from __future__ import annotations

from typing import ClassVar, Final, Literal

from attrs import frozen

from mjledger.log.events import MatchStarted, RulesetName, Wind
from mjledger.rules.protocol import HouseRules


@frozen
class HandClosed:
    """A hand of the match ended: its fingerprint, its result and the rotation after it."""

    TYPE: ClassVar[str] = "hand_closed"
    class_version: ClassVar[int] = 1
    number: int
    events: int
    hand_digest: str
    dealer: str
    dealer_streak: int
    round_wind: Wind
    outcome: Literal["won", "void"]
    winners: tuple[str, ...]
    net: dict[str, int]
    next_dealer: str | None
    next_streak: int
    next_round_wind: Wind
    match_over: bool = False


@frozen
class TableOpened:
    """A table of a lobby: four players who play match after match under house rules."""

    TYPE: ClassVar[str] = "table_opened"
    class_version: ClassVar[int] = 1
    table: str
    ruleset: RulesetName
    players: tuple[str, ...]
    rules: HouseRules


@frozen
class RulesChanged:
    """New house rules for a table, in force from its next match (rules.md, "House rules")."""

    TYPE: ClassVar[str] = "rules_changed"
    class_version: ClassVar[int] = 1
    ruleset: RulesetName
    rules: HouseRules


@frozen
class MatchOpened:
    """The table started a match under the rules it had at that moment."""

    TYPE: ClassVar[str] = "match_opened"
    class_version: ClassVar[int] = 1
    match: str


STORE_EVENT_CLASSES: Final = (HandClosed, TableOpened, RulesChanged, MatchOpened)

__all__ = [
    "STORE_EVENT_CLASSES",
    "HandClosed",
    "MatchOpened",
    "MatchStarted",
    "RulesChanged",
    "TableOpened",
]
