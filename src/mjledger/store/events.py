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
    # Table stakes (variants.md): the balances after the hand, and who is bust.
    balances: dict[str, int] | None = None
    bust: tuple[str, ...] = ()


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


@frozen
class HandCorrected:
    """An upheld dispute: hand ``number``'s settlement is replaced by a corrected hand.

    The corrected hand's own events are in the stream ``hand/{match}/{number}/correction/
    {correction}`` (``events`` of them, the last with digest ``hand_digest``); this row is the
    ``correction``-th of the match's corrections stream. Nothing of the original is changed.
    """

    TYPE: ClassVar[str] = "hand_corrected"
    class_version: ClassVar[int] = 1
    match: str
    number: int
    correction: int
    events: int
    hand_digest: str
    reason: str
    by: str
    original_net: dict[str, int]
    net: dict[str, int]
    outcome: Literal["won", "void"]
    winners: tuple[str, ...]
    keep_later_hands: bool = False


@frozen
class HandVoided:
    """An upheld dispute: hand ``number``'s transfers stop counting; its rotation stays."""

    TYPE: ClassVar[str] = "hand_voided"
    class_version: ClassVar[int] = 1
    match: str
    number: int
    reason: str
    by: str
    original_net: dict[str, int]


STORE_EVENT_CLASSES: Final = (
    HandClosed,
    TableOpened,
    RulesChanged,
    MatchOpened,
    HandCorrected,
    HandVoided,
)

__all__ = [
    "STORE_EVENT_CLASSES",
    "HandClosed",
    "HandCorrected",
    "HandVoided",
    "MatchOpened",
    "MatchStarted",
    "RulesChanged",
    "TableOpened",
]
