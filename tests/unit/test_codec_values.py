"""The codec round-trips every event *value*: generated from the classes themselves (tiles,
melds, wall entries with tiles, every house rule of every built-in rule set, the store's own
events), not only from logs. What goes out as JSON comes back equal, line or stored row."""

from __future__ import annotations

import types
import typing
from typing import Any, Literal, get_args, get_origin

import attrs
from hypothesis import assume, given
from hypothesis import strategies as st

from mjledger import FormatError, decode_line, dumps_event, event_from_json, event_to_json
from mjledger.log import events as ev
from mjledger.rules import rulesets
from mjledger.store.events import HandClosed, MatchOpened, RulesChanged, TableOpened
from mjledger.store.records import STORE_CONVERTER, RecordMapper, seal
from mjledger.store.streams import match_stream
from tests.strategies import player_ids

SUITED = [f"{n}{s}" for s in "mps" for n in range(1, 10)]
HONOURS = [f"{n}z" for n in range(1, 8)]
tile = st.sampled_from(SUITED + HONOURS)
tiles = st.lists(tile, min_size=1, max_size=13).map("".join)
winds = st.sampled_from(ev.WINDS)


@st.composite
def meld_records(draw: st.DrawFn) -> ev.MeldRecord:
    kind = draw(st.sampled_from(["chow", "pung", "kong"]))
    if kind == "chow":
        suit = draw(st.sampled_from("mps"))
        low = draw(st.integers(1, 7))
        text = f"{low}{low + 1}{low + 2}{suit}"
    else:
        t = draw(tile)
        text = t[0] * (3 if kind == "pung" else 4) + t[1]
    return ev.MeldRecord(kind, text, concealed=kind == "kong" and draw(st.booleans()))  # type: ignore[arg-type]


melds = st.none() | st.lists(meld_records(), max_size=4).map(tuple)


def _values_of(t: Any, name: str) -> st.SearchStrategy[Any]:
    if get_origin(t) in (typing.Union, types.UnionType):  # kong_money_passing: bool | "refund"
        return st.one_of([_values_of(a, name) for a in get_args(t)])
    if get_origin(t) is Literal:
        return st.sampled_from(get_args(t))
    if t is bool:
        return st.booleans()
    assert t is int, (name, t)
    return st.integers(0, 20) | st.integers(0, 1_000_000)


@st.composite
def house_rules(draw: st.DrawFn, ruleset: Any = None) -> Any:
    ruleset = ruleset or draw(st.sampled_from(rulesets()))
    cls = ruleset.rules_class
    hints = typing.get_type_hints(cls)
    values = {f.name: draw(_values_of(hints[f.name], f.name)) for f in attrs.fields(cls)}
    try:
        return cls(**values)
    except FormatError:
        assume(False)


def _build(cls: type, **strategies: st.SearchStrategy[Any]) -> st.SearchStrategy[Any]:
    """Instances of ``cls`` from field strategies; combinations the class refuses are dropped."""

    @st.composite
    def build(draw: st.DrawFn) -> Any:
        values = {k: draw(v) for k, v in strategies.items()}
        try:
            return cls(**values)
        except FormatError:
            assume(False)

    return build()


players = st.lists(player_ids, min_size=4, max_size=4, unique=True).map(tuple)
fan = st.none() | st.integers(0, 20)


@st.composite
def match_started(draw: st.DrawFn) -> ev.MatchStarted:
    ruleset = draw(st.sampled_from(rulesets()))
    rules = draw(st.none() | house_rules(ruleset))
    assume(getattr(rules, "problem_without_stakes", None) is None)  # refines stakes: none here
    return ev.MatchStarted(
        ruleset=ruleset.name,  # type: ignore[arg-type]
        players=draw(players),
        match=draw(st.none() | player_ids),
        rules=rules,
        format=draw(st.none() | st.just(1)),
    )


@st.composite
def stand_alone_hand(draw: st.DrawFn) -> ev.HandStarted:
    ruleset = draw(st.sampled_from(rulesets()))
    seats = draw(players)
    rules = draw(st.none() | house_rules(ruleset))
    assume(getattr(rules, "problem_without_stakes", None) is None)  # "a stand-alone hand included"
    return ev.HandStarted(
        dealer=draw(st.sampled_from(seats)),
        ruleset=ruleset.name,  # type: ignore[arg-type]
        players=seats,
        rules=rules,
        match=draw(st.none() | player_ids),
        number=draw(st.none() | st.integers(1, 99)),
        dealer_streak=draw(st.none() | st.integers(0, 9)),
        round_wind=draw(st.none() | winds),
    )


wall_entries = (
    st.just(ev.PlayerAtWallEnd(flower_pig=True))
    | st.just(ev.PlayerAtWallEnd(ready=False))
    | st.integers(0, 13).map(lambda n: ev.PlayerAtWallEnd(ready=True, best_fan=n))
    | st.builds(ev.PlayerAtWallEnd, tiles=tiles, melds=melds)
)

log_events = st.one_of(
    match_started(),
    stand_alone_hand(),
    st.builds(ev.HandStarted, dealer=st.none() | player_ids),
    st.builds(ev.VoidSuitChosen, player=player_ids, suit=st.sampled_from("mps")),
    st.builds(ev.Discarded, player=player_ids, tile=st.none() | tile),
    _build(
        ev.KongDeclared,
        player=player_ids,
        kind=st.sampled_from(["exposed", "added", "concealed"]),
        from_=st.none() | player_ids,
        tile=st.none() | tile,
        from_hand=st.none() | st.booleans(),
    ),
    _build(
        ev.WonOnDiscard,
        player=player_ids,
        from_=player_ids,
        fan=fan,
        limit=st.booleans(),
        robbing_kong=st.booleans(),
        tiles=st.none() | tiles,
        winning_tile=st.none() | tile,
        melds=melds,
        last_tile=st.booleans(),
        new_discard=st.booleans(),
    ),
    _build(
        ev.SelfDrawn,
        player=player_ids,
        fan=fan,
        limit=st.booleans(),
        tiles=st.none() | tiles,
        winning_tile=st.none() | tile,
        melds=melds,
        last_tile=st.booleans(),
    ),
    st.builds(
        ev.WallExhausted,
        remaining=st.none() | st.dictionaries(player_ids, wall_entries, max_size=4),
    ),
)


@st.composite
def table_events(draw: st.DrawFn) -> Any:
    ruleset = draw(st.sampled_from(rulesets()))
    rules = draw(house_rules(ruleset))
    kind = draw(st.sampled_from([TableOpened, RulesChanged]))
    if kind is TableOpened:
        return TableOpened(draw(player_ids), ruleset.name, draw(players), rules)  # type: ignore[arg-type]
    return RulesChanged(ruleset.name, rules)  # type: ignore[arg-type]


store_events = st.one_of(
    table_events(),
    st.builds(MatchOpened, match=player_ids),
    st.builds(
        HandClosed,
        number=st.integers(1, 99),
        events=st.integers(1, 999),
        hand_digest=st.text(alphabet="0123456789abcdef", min_size=64, max_size=64),
        dealer=player_ids,
        dealer_streak=st.integers(0, 9),
        round_wind=winds,
        outcome=st.sampled_from(["won", "void"]),
        winners=st.lists(player_ids, max_size=3).map(tuple),
        net=st.dictionaries(player_ids, st.integers(-(10**6), 10**6), max_size=4),
        next_dealer=st.none() | player_ids,
        next_streak=st.integers(0, 9),
        next_round_wind=winds,
        match_over=st.booleans(),
    ),
)


@given(log_events)
def test_every_log_event_value_round_trips_as_json_and_as_a_line(event: Any) -> None:
    assert event_from_json(event_to_json(event)) == event
    assert decode_line(dumps_event(event)) == event


@given(st.one_of(log_events, store_events))
def test_every_event_value_round_trips_as_a_stored_row(event: Any) -> None:
    data = STORE_CONVERTER.unstructure(event)
    assert data["type"] == type(event).TYPE
    fields = {k: v for k, v in data.items() if k != "type"}
    assert STORE_CONVERTER.structure(fields, type(event)) == event
    mapper = RecordMapper()
    record = seal(match_stream("m"), 1, event, "")
    back = mapper.to_domain_event(mapper.to_stored_event(record))
    assert back.event == event
    assert back.digest == record.digest


@given(house_rules())
def test_every_house_rule_sheet_round_trips(rules: Any) -> None:
    from mjledger.rules.house import rules_from_json, rules_to_json
    from mjledger.rules.registry import ruleset_of

    assert rules_from_json(ruleset_of(rules).name, rules_to_json(rules)) == rules
