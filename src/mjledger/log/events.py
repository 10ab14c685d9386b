"""The domain events of a mahjong hand and match: one frozen class per line type of the log.

These classes are the public contract in Python form (log-format.md, "Events in a hand"); the
codec turns them into the log's JSON and back. They only check what a single event can know
on its own (a non-empty player id, a well-formed tile, a value in range); whether the event is
legal *here* (a player at the table, a hand in progress) is the fold's job, since that needs
the state. Stored rows name these classes by stable topics (mjledger.store.records),
not by module path.
"""

from __future__ import annotations

from typing import Any, ClassVar, Final, Literal, NewType, TypeAlias

import attrs
from attrs import field, frozen

from mjledger import _checks as check
from mjledger._text import shown
from mjledger.errors import FormatError
from mjledger.tiles.notation import WINDS as WINDS  # winds are tiles; kept at this path
from mjledger.tiles.notation import Wind as Wind

# A rule set's name as a log writes it: any registered rule set. Which names are registered is
# the rules layer's (mjledger.rules.registry), above this one: the codec checks a line's name.
RulesetName = NewType("RulesetName", str)
# A rule set's house-rules object (the codec builds it from the line's ``rules``): a frozen
# attrs class of the rule set's own (mjledger.rules.house).
HouseRules: TypeAlias = Any
Suit = Literal["m", "p", "s"]
KongKind = Literal["exposed", "added", "concealed"]
MeldKind = Literal["chow", "pung", "kong"]


def _four_distinct_players(_inst: object, _attribute: object, value: tuple[str, ...]) -> None:
    if len(value) != 4:
        raise FormatError(f"players must list exactly four players, not {len(value)}")
    for player in value:
        if type(player) is not str or not player:
            raise FormatError(f"players must be non-empty strings, not {player!r}")
        if check.ID.fullmatch(player) is None and not check.reading_stored_ids():
            raise FormatError(f"players: {shown(player)} {check.id_problem(player)}")
    if len(set(value)) != 4:
        raise FormatError("players must be four distinct ids")


def _optional_players(inst: object, attribute: object, value: tuple[str, ...] | None) -> None:
    if value is not None:
        _four_distinct_players(inst, attribute, value)


def _format_one(_inst: object, _attribute: object, value: int | None) -> None:
    if value is not None and (type(value) is not int or value != 1):
        raise FormatError(f"format {value!r} is not supported (this is format 1)")


# variants.md, "Table stakes": "integers from 1 to 10^12".
MAX_TABLE_STAKE: Final = 10**12


def _stakes_in_range(_inst: object, _attribute: object, value: dict[str, int] | None) -> None:
    for player, stake in (value or {}).items():
        if type(stake) is not int:
            raise FormatError(
                f"stakes: {player!r}: expected an integer, not {stake!r}", code="bad_house_rule"
            )
        if not 1 <= stake <= MAX_TABLE_STAKE:
            raise FormatError(
                f"stakes: {player!r}: stake {stake} is out of range (1 to {MAX_TABLE_STAKE})",
                code="bad_house_rule",
            )


def _balances(_inst: object, _attribute: object, value: dict[str, int] | None) -> None:
    """Balances between hands: whole points, but no longer bounded by the opening range."""
    for player, balance in (value or {}).items():
        if type(balance) is not int or balance < 0:
            raise FormatError(
                f"stakes: {player!r}: a balance is a whole number, not {balance!r}",
                code="bad_house_rule",
            )


def _rules_fit_stakes(rules: object, stakes: dict[str, int] | None) -> None:
    """A house rule that refines table stakes stands only on a line that sets them: the rules
    object says what it cannot do without (its ``problem_without_stakes``, variants.md's
    second set); a line whose ``rules`` are not read yet is checked once they are."""
    if stakes is None:
        problem = getattr(rules, "problem_without_stakes", None)
        if problem:
            raise FormatError(problem, code="bad_house_rule")


def _stakes_of_players(players: tuple[str, ...], stakes: dict[str, int] | None) -> None:
    if stakes is None:
        return
    for player in players:
        if player not in stakes:
            raise FormatError(f"stakes leave out {player!r}", code="bad_house_rule")
    for player in stakes:
        if player not in players:
            raise FormatError(
                f"stakes name {player!r}, who is not at the table ({', '.join(players)})",
                code="bad_house_rule",
            )


# A field's metadata key for its name in a log line (and a stored row), where that is not the
# field's own name (``from`` is a keyword): declared once, on the field; every codec, the
# schema and the generated code read it through :func:`json_name`.
JSON: Final = "json"


def json_name(a: attrs.Attribute[Any]) -> str:
    """The key of field ``a`` in a log line and a stored row."""
    name: str = a.metadata.get(JSON, a.name)
    return name


@frozen
class MeldRecord:
    """A meld as a log writes it: ``{"kind": "pung", "tiles": "555p"}``."""

    kind: MeldKind = field(validator=check.one_of("chow", "pung", "kong"))
    tiles: str = field(validator=check.tiles)
    concealed: bool = field(default=False, validator=check.one_of(False, True))


@frozen
class MatchStarted:
    """Opens a match: the table's rule set, its four players in turn order, its house rules."""

    TYPE: ClassVar[str] = "match_started"
    # v1 stored rules as the log gave them (partial or absent); v2 always stores every key, so
    # a later change of a default can never change the money of a recorded match.
    class_version: ClassVar[int] = 2
    ruleset: RulesetName = field(validator=check.non_empty)
    players: tuple[str, ...] = field(validator=_four_distinct_players)
    match: str | None = field(default=None, validator=check.optional(check.ident))
    rules: HouseRules | None = None
    format: int | None = field(default=None, validator=_format_one)
    # Table stakes (variants.md): each player's balance when the match starts.
    stakes: dict[str, int] | None = field(default=None, validator=_stakes_in_range)

    def __attrs_post_init__(self) -> None:
        _stakes_of_players(self.players, self.stakes)
        _rules_fit_stakes(self.rules, self.stakes)


@frozen
class HandStarted:
    """Opens a hand. In a match it carries at most ``dealer``; a stand-alone hand (a disputed
    hand cut out of a match) also carries the table and the context it was cut from."""

    TYPE: ClassVar[str] = "hand_started"
    class_version: ClassVar[int] = 1
    dealer: str | None = field(default=None, validator=check.optional(check.ident))
    ruleset: RulesetName | None = field(default=None, validator=check.optional(check.non_empty))
    players: tuple[str, ...] | None = field(default=None, validator=_optional_players)
    rules: HouseRules | None = None
    match: str | None = field(default=None, validator=check.optional(check.ident))
    number: int | None = field(default=None, validator=check.optional(check.int_between(1)))
    dealer_streak: int | None = field(default=None, validator=check.optional(check.int_between(0)))
    round_wind: Wind | None = field(default=None, validator=check.optional(check.one_of(*WINDS)))
    format: int | None = field(default=None, validator=_format_one)
    # Not part of a log ("a stand-alone hand cannot carry" stakes; the codec refuses it): the
    # store's copy of a hand's context keeps each player's balance when the hand started, so
    # a hand's stream settles on its own as the match did.
    stakes: dict[str, int] | None = field(
        default=None, validator=_balances, metadata={"store_only": True}
    )

    def __attrs_post_init__(self) -> None:
        if self.players is not None:
            _stakes_of_players(self.players, self.stakes)
        _rules_fit_stakes(self.rules, self.stakes)

    @property
    def stand_alone(self) -> bool:
        """True when the line carries its own table (a hand cut out of a match)."""
        return (
            self.stakes is not None
            or self.ruleset is not None
            or self.players is not None
            or self.rules is not None
            or self.match is not None
            or self.number is not None
            or self.dealer_streak is not None
            or self.round_wind is not None
        )


@frozen
class VoidSuitChosen:
    """Sichuan: the suit a player promises to discard entirely before winning."""

    TYPE: ClassVar[str] = "void_suit_chosen"
    class_version: ClassVar[int] = 1
    player: str = field(validator=check.ident)
    suit: Suit = field(validator=check.one_of("m", "p", "s"))


@frozen
class Discarded:
    """A discard nobody claimed for a win or an exposed kong (those events imply their discard).

    It matters for money because it ends the discarder's run of kongs: only the discard that
    directly follows a kong lets its money pass to a winner.
    """

    TYPE: ClassVar[str] = "discarded"
    class_version: ClassVar[int] = 1
    player: str = field(validator=check.ident)
    tile: str | None = field(default=None, validator=check.optional(check.tile))


@frozen
class KongDeclared:
    """A completed kong. ``from_`` (``"from"`` in the log) is the discarder of an exposed kong."""

    TYPE: ClassVar[str] = "kong_declared"
    class_version: ClassVar[int] = 1
    player: str = field(validator=check.ident)
    kind: KongKind = field(validator=check.one_of("exposed", "added", "concealed"))
    from_: str | None = field(
        default=None, validator=check.optional(check.ident), metadata={JSON: "from"}
    )
    tile: str | None = field(default=None, validator=check.optional(check.tile))
    # variants.md, "Added kong from hand": the added kong was made with a tile already held,
    # not the one just drawn (what it collects is the rule set's). None: not said.
    from_hand: bool | None = field(
        default=None, validator=check.optional(check.one_of(True, False))
    )

    def __attrs_post_init__(self) -> None:
        if self.kind == "exposed" and self.from_ is None:
            raise FormatError("an exposed kong needs 'from', the player whose discard it claimed")
        if self.kind != "exposed" and self.from_ is not None:
            raise FormatError(f"only an exposed kong has 'from'; this one is {self.kind}")
        if self.from_hand is not None and self.kind != "added":
            raise FormatError(f"only an added kong has 'from_hand'; this one is {self.kind}")


@frozen
class WonOnDiscard:
    """A win on another player's discard; ``from_`` is the discarder (or the robbed player)."""

    TYPE: ClassVar[str] = "won_on_discard"
    class_version: ClassVar[int] = 1
    player: str = field(validator=check.ident)
    from_: str = field(validator=check.ident, metadata={JSON: "from"})
    fan: int | None = field(default=None, validator=check.optional(check.int_between(0)))
    limit: bool = field(default=False, validator=check.one_of(False, True))
    robbing_kong: bool = field(default=False, validator=check.one_of(False, True))
    tiles: str | None = field(default=None, validator=check.optional(check.tiles))
    winning_tile: str | None = field(default=None, validator=check.optional(check.tile))
    melds: tuple[MeldRecord, ...] | None = None
    last_tile: bool = field(default=False, validator=check.one_of(False, True))
    # variants.md: a heavenly or earthly win, asserted (never inferred from missing lines).
    first_turn: bool = field(default=False, validator=check.one_of(False, True))
    # variants.md, Hong Kong liability (包): the player who pays everything the win collects.
    liable: str | None = field(default=None, validator=check.optional(check.ident))
    # variants.md, "Several discards in a row by one player": a later discard (or robbed kong)
    # than the won_on_discard line just before, even with the same ``from``.
    new_discard: bool = field(default=False, validator=check.one_of(False, True))

    def joins_run(self, discarder: str) -> bool:
        """Whether this win is one more winner of the open run of wins on ``discarder``'s
        tile (log-format.md, "Several winners on one discard"): the same ``from``, and no
        ``new_discard`` marking a later discard."""
        return self.from_ == discarder and not self.new_discard


@frozen
class SelfDrawn:
    """A win on a tile the winner drew: every other player still in pays."""

    TYPE: ClassVar[str] = "self_drawn"
    class_version: ClassVar[int] = 1
    player: str = field(validator=check.ident)
    fan: int | None = field(default=None, validator=check.optional(check.int_between(0)))
    limit: bool = field(default=False, validator=check.one_of(False, True))
    tiles: str | None = field(default=None, validator=check.optional(check.tiles))
    winning_tile: str | None = field(default=None, validator=check.optional(check.tile))
    melds: tuple[MeldRecord, ...] | None = None
    last_tile: bool = field(default=False, validator=check.one_of(False, True))
    first_turn: bool = field(default=False, validator=check.one_of(False, True))
    liable: str | None = field(default=None, validator=check.optional(check.ident))


@frozen
class FalseWin:
    """Hong Kong 詐糊 (variants.md): a player declared a win they did not have. They pay each of
    the others a limit self-draw's share, and the hand ends void."""

    TYPE: ClassVar[str] = "false_win"
    class_version: ClassVar[int] = 1
    player: str = field(validator=check.ident)


@frozen
class PlayerAtWallEnd:
    """What a Sichuan backend asserts (or shows, with tiles) about one player still in at an
    empty wall. Exactly one shape is allowed, so a contradictory claim such as a ready flower
    pig cannot be written at all."""

    flower_pig: bool | None = None
    ready: bool | None = None
    best_fan: int | None = field(default=None, validator=check.optional(check.int_between(0)))
    tiles: str | None = field(default=None, validator=check.optional(check.tiles))
    melds: tuple[MeldRecord, ...] | None = None

    def __attrs_post_init__(self) -> None:
        shape = (
            self.flower_pig,
            self.ready,
            self.best_fan is not None,
            self.tiles is not None or self.melds is not None,
        )
        allowed = {
            (True, None, False, False),  # {"flower_pig": true}
            (None, True, True, False),  # {"ready": true, "best_fan": 2}
            (None, False, False, False),  # {"ready": false}
            (None, None, False, True),  # {"tiles": ..., "melds": [...]}
        }
        if shape not in allowed:
            raise FormatError(
                'each remaining player must be {"flower_pig": true}, '
                '{"ready": true, "best_fan": N}, {"ready": false} or {"tiles": ..., "melds": [...]}'
            )
        if self.melds is not None and self.tiles is None:
            raise FormatError("a remaining player's melds need their concealed 'tiles' too")

    @property
    def has_tiles(self) -> bool:
        return self.tiles is not None


@frozen
class WallExhausted:
    """The wall ran out. Sichuan: ``remaining`` maps every player still in to their state."""

    TYPE: ClassVar[str] = "wall_exhausted"
    class_version: ClassVar[int] = 1
    remaining: dict[str, PlayerAtWallEnd] | None = None


Event = (
    MatchStarted
    | HandStarted
    | VoidSuitChosen
    | Discarded
    | KongDeclared
    | WonOnDiscard
    | SelfDrawn
    | FalseWin
    | WallExhausted
)
Win = WonOnDiscard | SelfDrawn


def win_has_tiles(win: Win) -> bool:
    """Whether a win shows its tiles (and so has its fan derived rather than asserted)."""
    return win.tiles is not None or win.winning_tile is not None or win.melds is not None


EVENT_CLASSES: Final[tuple[type[Event], ...]] = (
    MatchStarted,
    HandStarted,
    VoidSuitChosen,
    Discarded,
    KongDeclared,
    WonOnDiscard,
    SelfDrawn,
    WallExhausted,
    FalseWin,
)
EVENT_TYPES: Final[dict[str, type[Event]]] = {cls.TYPE: cls for cls in EVENT_CLASSES}
