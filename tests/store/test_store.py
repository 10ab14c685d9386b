"""The ledger store (issue 3): recording logs, the library flow, stored rows, digests, upcasting,
tables and house rules, the store's location, and the read models."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest

from mjledger import (
    Discarded,
    FormatError,
    HongKongRules,
    KongDeclared,
    LogError,
    MatchStarted,
    MjledgerError,
    RuleError,
    SelfDrawn,
    SichuanRules,
    StoreError,
    VoidSuitChosen,
    WallExhausted,
    WonOnDiscard,
    dumps_event,
    replay,
)
from mjledger._checks import ids_as_stored
from mjledger.fold.replay import hand_to_json
from mjledger.log.events import HandStarted, PlayerAtWallEnd
from mjledger.rules import find_ruleset
from mjledger.rules.house import default_rules, rules_from_json, rules_to_json
from mjledger.store.application import STORE_ENV, Ledger, hand_stream, match_stream, table_stream
from mjledger.store.records import GENESIS, chain
from mjledger.store.views import views_path
from tests.backends import check_chain, insert_row, raw_rows, set_state, stream_rows
from tests.conftest import CONTRACT, EXAMPLES
from tests.helpers import (
    ANA,
    BO,
    CY,
    DI,
    PLAYERS,
    discard,
    jsonl,
    kong,
    match_start,
    new_hand,
    self_drawn,
    void,
    wall,
    won,
)
from tests.store_logs import hongkong_match, sichuan_match

MATCH_EXAMPLES = [
    EXAMPLES / "hongkong-match.jsonl",
    EXAMPLES / "sichuan-match.jsonl",
    CONTRACT / "hongkong-three-hands.jsonl",
]
STAND_ALONE_EXAMPLES = [
    EXAMPLES / "disputed-hand.jsonl",
    CONTRACT / "sichuan-wall-checks.jsonl",
]


@pytest.fixture
def store(any_store: str) -> str:
    """A new store on each backend (SQLite, PostgreSQL): the contract runs on both."""
    return any_store


@pytest.fixture
def ledger(store: str) -> Any:
    led = Ledger(store)
    yield led
    led.close()


rows = raw_rows


def without_match(output: dict[str, Any]) -> dict[str, Any]:
    return {k: v for k, v in output.items() if k != "match"}


def replay_hands(text: str) -> list[dict[str, Any]]:
    return replay(text).to_json()["hands"]


# --- whole logs: record, export, replay --------------------------------------------------------


@pytest.mark.parametrize("path", MATCH_EXAMPLES, ids=lambda p: p.name)
def test_record_export_replay_round_trip(ledger: Ledger, path: Path) -> None:
    text = path.read_text(encoding="utf-8")
    expected = replay(text).to_json()
    result = ledger.record_log(text)
    assert result.status == "recorded"
    assert result.match == expected["match"]
    assert result.hands == len(expected["hands"])
    assert result.events == len(text.strip().split("\n"))
    assert not result.id_assigned
    exported = ledger.export(result.match)
    assert exported.endswith("\n")
    assert "\n\n" not in exported
    assert all(json.loads(line) for line in exported.splitlines())
    assert replay(exported).to_json() == expected
    # every hand's settlement equals that hand's entry in the replay of the export
    for n, hand in enumerate(replay(exported).to_json()["hands"], 1):
        assert hand_to_json(ledger.settlement(result.match, n)) == hand
    # the export is canonical: recording it again changes nothing, and exporting is stable
    assert ledger.record_log(exported).status == "unchanged"
    assert ledger.export(result.match) == exported


@pytest.mark.parametrize("path", MATCH_EXAMPLES, ids=lambda p: p.name)
def test_re_recording_an_identical_log_is_a_no_op(ledger: Ledger, store: str, path: Path) -> None:
    text = path.read_text(encoding="utf-8")
    ledger.record_log(text)
    before = rows(store)
    again = ledger.record_log(text)
    assert (again.status, again.hands, again.events) == ("unchanged", 0, 0)
    assert rows(store) == before
    # a fresh Ledger on the same file agrees
    other = Ledger(store)
    try:
        assert other.record_log(text).status == "unchanged"
    finally:
        other.close()
    assert rows(store) == before


@pytest.mark.parametrize("path", STAND_ALONE_EXAMPLES, ids=lambda p: p.name)
def test_a_stand_alone_hand_is_refused_and_nothing_written(
    ledger: Ledger, store: str, path: Path
) -> None:
    with pytest.raises(StoreError, match="match log"):
        ledger.record_log(path.read_text(encoding="utf-8"))
    assert ledger.matches() == []
    assert rows(store) == []


def _prefix(text: str, lines: int) -> str:
    return "".join(text.splitlines(keepends=True)[:lines])


@pytest.mark.parametrize("cut", [1, 2, 5, 14, 40, 100])
def test_a_log_continuing_the_stored_events_is_resumed(ledger: Ledger, cut: int) -> None:
    text = (EXAMPLES / "hongkong-match.jsonl").read_text(encoding="utf-8")
    head = _prefix(text, cut)
    first = ledger.record_log(head)
    assert first.status == "recorded"
    assert replay(ledger.export(first.match)).to_json() == replay(head).to_json()
    resumed = ledger.record_log(text)
    assert resumed.status == "resumed"
    assert resumed.events > 0
    assert replay(ledger.export(first.match)).to_json() == replay(text).to_json()
    assert ledger.record_log(text).status == "unchanged"
    for n, hand in enumerate(replay_hands(text), 1):
        assert hand_to_json(ledger.settlement(first.match, n)) == hand


def test_resuming_in_the_middle_of_a_sichuan_hand(ledger: Ledger) -> None:
    text = (EXAMPLES / "sichuan-match.jsonl").read_text(encoding="utf-8")
    n_lines = len(text.strip().split("\n"))
    for cut in (3, n_lines // 2, n_lines - 1):
        ledger.record_log(_prefix(text, cut))
        assert (
            replay(ledger.export("chengdu-teahouse-t12-2026-12-06")).to_json()
            == replay(_prefix(text, cut)).to_json()
        )
    assert ledger.record_log(text).status == "resumed"
    assert (
        replay(ledger.export("chengdu-teahouse-t12-2026-12-06")).to_json() == replay(text).to_json()
    )


def test_a_conflicting_log_with_the_same_id_is_refused_and_nothing_written(
    ledger: Ledger, store: str
) -> None:
    text = (EXAMPLES / "hongkong-match.jsonl").read_text(encoding="utf-8")
    ledger.record_log(_prefix(text, 30))
    before = rows(store)
    lines = text.splitlines(keepends=True)
    # a different event in a stored hand
    changed = lines[:]
    changed[2] = json.dumps({"type": "discarded", "player": "tak", "tile": "9s"}) + "\n"
    replay("".join(changed))  # still a legal log
    with pytest.raises(StoreError, match="different events"):
        ledger.record_log("".join(changed))
    assert rows(store) == before
    # different house rules
    head = json.loads(lines[0])
    head["rules"]["points_per_unit"] = 3
    with pytest.raises(StoreError):
        ledger.record_log(json.dumps(head) + "\n" + "".join(lines[1:]))
    assert rows(store) == before
    # fewer events than are stored
    with pytest.raises(StoreError, match="more events"):
        ledger.record_log(_prefix(text, 20))
    assert rows(store) == before
    # a conflict is an MjledgerError like every refusal
    with pytest.raises(MjledgerError):
        ledger.record_log("".join(changed))


def test_a_log_with_a_rejected_line_records_nothing(ledger: Ledger, store: str) -> None:
    text = (EXAMPLES / "sichuan-match.jsonl").read_text(encoding="utf-8")
    lines = text.splitlines(keepends=True)
    # the very last line breaks a rule: every hand before it is valid, yet nothing is recorded
    bad = "".join(lines) + json.dumps({"type": "discarded", "player": "nobody"}) + "\n"
    with pytest.raises(LogError) as info:
        ledger.record_log(bad)
    assert info.value.line == len(lines) + 1
    assert ledger.matches() == []
    assert not ledger.has_match("chengdu-teahouse-t12-2026-12-06")
    assert rows(store) == []
    # a malformed line in the middle
    broken = "".join(lines[:10]) + "{not json\n" + "".join(lines[10:])
    with pytest.raises(LogError) as info:
        ledger.record_log(broken)
    assert info.value.line == 11
    assert rows(store) == []
    # and a rejected continuation of a stored match writes nothing either
    ledger.record_log("".join(lines[:20]))
    before = rows(store)
    with pytest.raises(LogError):
        ledger.record_log(bad)
    assert rows(store) == before


def test_a_match_without_an_id_gets_one(ledger: Ledger) -> None:
    text = hongkong_match(4, seed=3, match_id=None)
    first = ledger.record_log(text)
    assert first.id_assigned
    assert first.status == "recorded"
    assert first.match
    assert first.match in ledger.matches()
    assert without_match(replay(ledger.export(first.match)).to_json()) == without_match(
        replay(text).to_json()
    )
    assert replay(ledger.export(first.match)).to_json()["match"] == first.match
    # the id comes from the log's content: recording it again changes nothing
    second = ledger.record_log(text)
    assert second.id_assigned
    assert second.match == first.match
    assert second.status == "unchanged"
    assert ledger.matches() == [first.match]
    other = ledger.record_log(hongkong_match(4, seed=4, match_id=None))
    assert other.match != first.match


def test_an_empty_match_and_a_match_with_an_unfinished_hand(ledger: Ledger) -> None:
    empty = jsonl(match_start("sichuan") | {"match": "empty"})
    assert ledger.record_log(empty).hands == 0
    assert replay(ledger.export("empty")).to_json() == replay(empty).to_json()
    open_hand = jsonl(
        match_start("sichuan") | {"match": "open"},
        new_hand(),
        kong(BO, "concealed"),
        won(CY, DI, fan=2),
    )
    ledger.record_log(open_hand)
    assert replay(ledger.export("open")).to_json() == replay(open_hand).to_json()
    assert hand_to_json(ledger.settlement("open", 1)) == replay_hands(open_hand)[0]
    # the unfinished hand can be continued through the library
    ledger.record("open", 1, WonOnDiscard(player=ANA, from_=DI, fan=1))
    ledger.record("open", 1, SelfDrawn(player=BO, fan=0))
    whole = open_hand + jsonl(won(ANA, DI, fan=1), self_drawn(BO, fan=0))
    assert replay(ledger.export("open")).to_json() == replay(whole).to_json()
    assert ledger.match("open").closed[0].outcome == "won"


# --- the library flow --------------------------------------------------------------------------


def test_library_flow_start_match_hand_record_settlement(ledger: Ledger) -> None:
    match = ledger.start_match("sichuan", PLAYERS, {"base": 2})
    assert ledger.matches() == [match]
    assert ledger.start_hand(match) == 1
    assert ledger.record(match, 1, VoidSuitChosen(player=ANA, suit="m")) == 2
    assert ledger.record(match, 1, KongDeclared(player=BO, kind="concealed")) == 3
    assert ledger.record(match, 1, Discarded(player=BO)) == 4
    assert ledger.record(match, 1, WonOnDiscard(player=CY, from_=BO, fan=1)) == 5
    log = [
        match_start("sichuan", {"base": 2}) | {"match": match},
        new_hand(),
        void(ANA, "m"),
        kong(BO, "concealed"),
        discard(BO),
        won(CY, BO, fan=1),
    ]
    assert hand_to_json(ledger.settlement(match, 1)) == replay_hands(jsonl(*log))[0]
    assert ledger.settlement(match, 1).outcome == "unfinished"
    ledger.record(match, 1, SelfDrawn(player=DI, fan=2))
    remaining = {ANA: PlayerAtWallEnd(ready=False), BO: PlayerAtWallEnd(flower_pig=True)}
    ledger.record(match, 1, WallExhausted(remaining=remaining))
    log += [self_drawn(DI, fan=2), wall(ana={"ready": False}, bo={"flower_pig": True})]
    expected = replay(jsonl(*log)).to_json()
    settled = ledger.settlement(match, 1)
    assert settled.outcome == "won"
    assert settled.next_dealer == CY
    assert hand_to_json(settled) == expected["hands"][0]
    assert replay(ledger.export(match)).to_json() == expected
    # the next hand: the rotation gives the dealer; a wrong dealer is refused
    with pytest.raises(MjledgerError):
        ledger.start_hand(match, dealer=ANA)
    assert ledger.start_hand(match, dealer=CY) == 2
    with pytest.raises(StoreError, match="in progress"):
        ledger.start_hand(match)
    assert ledger.settlement(match, 2).dealer == CY
    assert ledger.hands_in(match) == 2


def test_record_of_an_illegal_event_raises_and_stores_nothing(ledger: Ledger, store: str) -> None:
    match = ledger.start_match("hongkong", PLAYERS, match_id="hk-1")
    ledger.start_hand(match)
    ledger.record(match, 1, Discarded(player=ANA))
    before = rows(store)
    version = ledger.hand(match, 1).version
    illegal = [
        Discarded(player="nobody"),
        WonOnDiscard(player=ANA, from_=ANA, fan=5),
        SelfDrawn(player=BO, fan=1),  # below the table minimum of 3
        VoidSuitChosen(player=ANA, suit="m"),  # no void suits in Hong Kong
        WallExhausted(remaining={ANA: PlayerAtWallEnd(ready=False)}),
    ]
    for event in illegal:
        with pytest.raises(RuleError):
            ledger.record(match, 1, event)
        assert ledger.hand(match, 1).version == version
    with pytest.raises(RuleError):
        ledger.record(match, 1, MatchStarted(ruleset="hongkong", players=PLAYERS))  # type: ignore[arg-type]
    with pytest.raises(RuleError):
        ledger.record(match, 1, HandStarted())  # type: ignore[arg-type]
    assert rows(store) == before
    # after the hand ends, any further event is refused too
    ledger.record(match, 1, SelfDrawn(player=BO, fan=3))
    before = rows(store)
    with pytest.raises(RuleError):
        ledger.record(match, 1, Discarded(player=ANA))
    assert rows(store) == before
    # a hand or a match that does not exist
    with pytest.raises(StoreError):
        ledger.record(match, 2, Discarded(player=ANA))
    with pytest.raises(StoreError):
        ledger.record("no-such-match", 1, Discarded(player=ANA))
    assert rows(store) == before


def test_start_match_refusals(ledger: Ledger, store: str) -> None:
    ledger.start_match("sichuan", PLAYERS, match_id="m")
    before = rows(store)
    with pytest.raises(StoreError, match="already exists"):
        ledger.start_match("sichuan", PLAYERS, match_id="m")
    # A table that cannot be is refused as a log's match_started would be: a FormatError.
    with pytest.raises(FormatError):
        ledger.start_match("sichuan", [ANA, BO, CY])
    with pytest.raises(FormatError):
        ledger.start_match("sichuan", PLAYERS, {"fan_cap": 7})
    with pytest.raises(FormatError):
        ledger.start_match("sichuan", PLAYERS, HongKongRules())
    with pytest.raises(StoreError):
        ledger.start_match()
    assert rows(store) == before
    with pytest.raises(StoreError):
        ledger.match("unknown")
    with pytest.raises(StoreError):
        ledger.hand("m", 1)


@pytest.mark.parametrize(
    ("ruleset", "rules"),
    [("chess", None), ("hongkong", {"table": "mild"}), ("sichuan", {"fan_cap": 9}), (7, None)],
)
def test_bad_rulesets_and_tables_are_one_error_type_from_every_entry_point(
    ledger: Ledger, ruleset: Any, rules: Any
) -> None:
    line = {"type": "match_started", "ruleset": ruleset, "players": list(PLAYERS)}
    if rules is not None:
        line["rules"] = rules
    entry_points = [
        lambda: replay(json.dumps(line)),
        lambda: ledger.record_log(json.dumps(line)),
        lambda: ledger.start_match(ruleset, PLAYERS, rules),
        lambda: ledger.open_table("t", ruleset, PLAYERS, rules),
        lambda: rules_from_json(ruleset, rules or {}),
    ]
    if rules is None:
        entry_points.append(lambda: default_rules(ruleset))
    for call in entry_points:
        with pytest.raises(FormatError):
            call()


def test_hand_at_gives_the_state_after_that_prefix(ledger: Ledger) -> None:
    text = (EXAMPLES / "sichuan-match.jsonl").read_text(encoding="utf-8")
    match = ledger.record_log(text).match
    events = list(ledger.export_events(match))
    header = events[0]
    starts = [i for i, e in enumerate(events) if isinstance(e, HandStarted)]
    for number, begin in enumerate(starts, 1):
        end = starts[number] if number < len(starts) else len(events)
        hand_events = events[begin:end]
        # the log up to this hand, closed as the end of a log closes it
        previous = [header, *events[1:begin]]
        for version in range(1, len(hand_events) + 1):
            state = ledger.hand_at(match, number, version)
            prefix = "".join(dumps_event(e) + "\n" for e in [*previous, *hand_events[:version]])
            expected = replay(prefix).to_json()["hands"][number - 1]
            got = hand_to_json(state)
            # lines are the export's, as in settlement(); the next dealer is the match's business
            expected["next_dealer"] = None
            got["next_dealer"] = None
            assert got == expected, (number, version)
    with pytest.raises(StoreError):
        ledger.hand_at(match, 99, 1)
    for version in (0, len(hand_events) + 1):
        with pytest.raises(StoreError):
            ledger.hand_at(match, len(starts), version)


def test_hand_at_a_dispute_point_in_a_library_hand(ledger: Ledger) -> None:
    match = ledger.start_match("sichuan", PLAYERS)
    ledger.start_hand(match)
    ledger.record(match, 1, KongDeclared(player=BO, kind="concealed"))  # v2: 2 from each
    ledger.record(match, 1, WonOnDiscard(player=CY, from_=BO, fan=0))  # v3: 1, + kong passes
    ledger.record(match, 1, Discarded(player=DI))  # v4: the run closes
    assert ledger.hand_at(match, 1, 1).net() == dict.fromkeys(PLAYERS, 0)
    assert ledger.hand_at(match, 1, 2).net() == {ANA: -2, BO: 6, CY: -2, DI: -2}
    at3 = ledger.hand_at(match, 1, 3)
    at4 = ledger.hand_at(match, 1, 4)
    # at version 3 the run of wins is still open; hand_at closes it as the end of a log would
    assert at3.net() == at4.net()
    assert sum(at3.net().values()) == 0
    assert at3.net()[CY] > 0
    assert ledger.hand_at(match, 1, 4).net() == ledger.settlement(match, 1).net()


# --- stored rows and digests -------------------------------------------------------------------


def test_a_stored_row_reads_like_a_log_line(ledger: Ledger, store: str) -> None:
    text = (EXAMPLES / "sichuan-match.jsonl").read_text(encoding="utf-8")
    ledger.record_log(text)
    log_lines = [json.loads(line) for line in text.splitlines() if line.strip()]
    states = [state for *_, state in rows(store)]
    assert states
    for state in states:
        assert {"type", "recorded_at", "digest"} <= set(state)
        assert isinstance(state["digest"], str)
        assert len(state["digest"]) == 64
    # the hand events are stored exactly as the log wrote them (plus the metadata)
    stored_types = {s["type"] for s in states}
    assert {"match_started", "hand_started", "hand_closed", "won_on_discard"} <= stored_types
    bare = [
        {k: v for k, v in s.items() if k not in ("recorded_at", "digest")}
        for s in states
        if s["type"] not in ("match_started", "hand_started", "hand_closed")
    ]
    expected = [x for x in log_lines if x["type"] not in ("match_started", "hand_started")]
    assert sorted(json.dumps(x, sort_keys=True) for x in bare) == sorted(
        json.dumps(x, sort_keys=True) for x in expected
    )
    match_row = next(s for s in states if s["type"] == "match_started")
    assert match_row["class_version"] == 2
    assert match_row["rules"] == log_lines[0]["rules"]


def test_the_digest_chain_can_be_recomputed_from_raw_rows(ledger: Ledger, store: str) -> None:
    for path in MATCH_EXAMPLES:
        result = ledger.record_log(path.read_text(encoding="utf-8"))
        check_chain(store, result.match)
    # the library flow chains the same way
    match = ledger.start_match("hongkong", PLAYERS, {"points_per_unit": 5})
    for _ in range(3):
        n = ledger.start_hand(match)
        ledger.record(match, n, Discarded(player=ANA))
        ledger.record(match, n, SelfDrawn(player=BO, fan=4))
    n = ledger.start_hand(match)
    ledger.record(match, n, Discarded(player=CY))  # an open hand
    check_chain(store, match)
    # and a recorded log and the same match made through the library digest alike
    other = ledger.record_log(
        ledger.export(match)
        .replace(f'"match":"{match}"', '"match":"copy"')
        .replace(f'"match": "{match}"', '"match": "copy"')
    )
    assert other.match == "copy"
    check_chain(store, "copy")
    original = [r["type"] for r in stream_rows(store, hand_stream(match, 2))]
    copied = [r["type"] for r in stream_rows(store, hand_stream("copy", 2))]
    assert original == copied


def test_an_edited_row_breaks_the_chain(ledger: Ledger, store: str) -> None:
    result = ledger.record_log((EXAMPLES / "hongkong-match.jsonl").read_text(encoding="utf-8"))
    rowid, data = next((r[0], r[4]) for r in rows(store) if r[4]["type"] == "won_on_discard")
    data["fan"] = data.get("fan", 0) + 1
    set_state(store, rowid, data)
    with pytest.raises(AssertionError):
        check_chain(store, result.match)


# --- upcasting ----------------------------------------------------------------------------------


@pytest.mark.parametrize(
    ("ruleset", "partial"),
    [("sichuan", {"fan_cap": 6}), ("hongkong", {"points_per_unit": 4}), ("sichuan", None)],
)
def test_a_v1_match_started_row_written_by_hand_is_read_as_v2(
    store: str, ruleset: str, partial: dict[str, Any] | None
) -> None:
    Ledger(store).close()  # creates the tables
    v1: dict[str, Any] = {"type": "match_started", "ruleset": ruleset, "players": PLAYERS}
    v1["match"] = "old"
    if partial is not None:
        v1["rules"] = partial
    digest = chain(GENESIS, v1)
    state = {**v1, "recorded_at": "2025-01-02T03:04:05.000006+00:00", "digest": digest}
    assert "class_version" not in state
    insert_row(store, match_stream("old"), 1, "mjledger.events:MatchStarted", v1 | state)
    ledger = Ledger(store)
    try:
        record = ledger.match("old")
        expected = {**find_ruleset(ruleset).v1_defaults, **(partial or {})}
        assert record.started.rules is not None
        assert rules_to_json(record.started.rules) == expected
        assert type(record.started).class_version == 2
        assert record.digest == digest
        header = json.loads(ledger.export("old").splitlines()[0])
        assert header["rules"] == expected
        assert set(header["rules"]) == set(find_ruleset(ruleset).v1_defaults)
        # the match plays on under those rules, and the views read the old row too
        n = ledger.start_hand("old")
        ledger.record("old", n, SelfDrawn(player=BO, fan=3 if ruleset == "hongkong" else 2))
        log = jsonl(
            match_start(ruleset, expected) | {"match": "old"},
            new_hand(),
            self_drawn(BO, fan=3 if ruleset == "hongkong" else 2),
        )
        assert hand_to_json(ledger.settlement("old", 1)) == replay_hands(log)[0]
        assert replay(ledger.export("old")).to_json() == replay(log).to_json()
        assert ledger.views.scores_by_match()["old"] == replay(log).totals()
        check_chain(store, "old")
    finally:
        ledger.close()


# --- tables and house rules --------------------------------------------------------------------


def test_house_rules_changed_at_a_table_apply_from_the_next_match_only(ledger: Ledger) -> None:
    table = ledger.open_table("t7", "hongkong", PLAYERS, {"points_per_unit": 1})
    assert table.rules == HongKongRules(points_per_unit=1)
    first = ledger.start_match(table="t7")
    ledger.start_hand(first)
    ledger.record(first, 1, Discarded(player=ANA))
    # mid-match: the table's rules change
    changed = ledger.change_rules("t7", {"points_per_unit": 4, "discard_pays": "all"})
    assert changed.rules == HongKongRules(points_per_unit=4, discard_pays="all")
    ledger.record(first, 1, WonOnDiscard(player=BO, from_=CY, fan=3))
    ledger.start_hand(first)
    ledger.record(first, 2, SelfDrawn(player=BO, fan=5))
    second = ledger.start_match(table="t7")
    ledger.start_hand(second)
    ledger.record(second, 1, Discarded(player=ANA))
    ledger.record(second, 1, WonOnDiscard(player=BO, from_=CY, fan=3))
    ledger.start_hand(second)
    ledger.record(second, 2, SelfDrawn(player=BO, fan=5))

    assert ledger.match(first).started.rules == HongKongRules(points_per_unit=1)
    assert ledger.match(second).started.rules == HongKongRules(
        points_per_unit=4, discard_pays="all"
    )
    assert ledger.table("t7").matches == (first, second)

    def expected(rules: dict[str, Any], match: str) -> dict[str, Any]:
        return replay(
            jsonl(
                match_start("hongkong", rules) | {"match": match},
                new_hand(),
                discard(ANA),
                won(BO, CY, fan=3),
                new_hand(),
                self_drawn(BO, fan=5),
            )
        ).to_json()

    old = expected({"points_per_unit": 1}, first)
    new = expected({"points_per_unit": 4, "discard_pays": "all"}, second)
    for match, want in ((first, old), (second, new)):
        for n in (1, 2):
            assert hand_to_json(ledger.settlement(match, n)) == want["hands"][n - 1]
        assert replay(ledger.export(match)).to_json() == want
    # the amounts prove it: the first match is not settled under the new rules, the second
    # not under the old ones; a self-draw pays 4 times as much at 4 points per unit
    assert (
        replay(ledger.export(first)).to_json()["hands"]
        != expected({"points_per_unit": 4, "discard_pays": "all"}, first)["hands"]
    )
    assert (
        replay(ledger.export(second)).to_json()["hands"]
        != expected({"points_per_unit": 1}, second)["hands"]
    )
    first_win = ledger.settlement(first, 1).net()
    second_win = ledger.settlement(second, 1).net()
    assert 0 < first_win[BO] < second_win[BO]
    assert first_win[ANA] == 0
    assert second_win[ANA] == 0
    assert ledger.settlement(second, 2).net()[BO] == 4 * ledger.settlement(first, 2).net()[BO]
    scores = ledger.views.scores_by_match()
    assert scores[first] == replay(ledger.export(first)).totals()
    assert scores[second] == replay(ledger.export(second)).totals()


def test_table_refusals_and_rule_sheets(ledger: Ledger, store: str) -> None:
    ledger.open_table("t1", "sichuan", PLAYERS)
    assert ledger.table("t1").rules == SichuanRules()
    with pytest.raises(StoreError, match="already exists"):
        ledger.open_table("t1", "sichuan", PLAYERS)
    with pytest.raises(StoreError):
        ledger.table("t2")
    with pytest.raises(StoreError):
        ledger.start_match(table="t2")
    with pytest.raises(StoreError):
        ledger.start_match("hongkong", table="t1")
    with pytest.raises(StoreError):
        ledger.start_match("sichuan", [DI, CY, BO, ANA], table="t1")
    with pytest.raises(MjledgerError):
        ledger.change_rules("t1", {"fan_cap": 9})
    with pytest.raises(MjledgerError):
        ledger.change_rules("t1", HongKongRules())
    assert ledger.table("t1").rules == SichuanRules()
    ledger.change_rules("t1", SichuanRules(base=3))
    m = ledger.start_match("sichuan", PLAYERS, table="t1", match_id="at-t1")
    assert ledger.match(m).started.rules == SichuanRules(base=3)
    # the table's stream chains its digests too
    previous = GENESIS
    for row in stream_rows(store, table_stream("t1")):
        bare = {k: v for k, v in row.items() if k not in ("recorded_at", "digest")}
        assert chain(previous, bare) == row["digest"]
        previous = row["digest"]
    assert [r["type"] for r in stream_rows(store, table_stream("t1"))] == [
        "table_opened",
        "rules_changed",
        "match_opened",
    ]


# --- where the store lives -----------------------------------------------------------------------


def test_the_store_env_var_selects_the_store(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    chosen = tmp_path / "chosen" / "env.sqlite"
    chosen.parent.mkdir()
    monkeypatch.setenv(STORE_ENV, str(chosen))
    monkeypatch.chdir(tmp_path)
    ledger = Ledger()
    try:
        assert ledger.path == chosen
        ledger.record_log((CONTRACT / "hongkong-three-hands.jsonl").read_text())
        ledger.views.catch_up()
    finally:
        ledger.close()
    assert chosen.exists()
    assert views_path(chosen).exists()
    assert not (tmp_path / "mjledger.sqlite").exists()
    assert next(r[4]["type"] for r in rows(chosen)) == "match_started"
    # an explicit path wins over the variable
    explicit = tmp_path / "explicit.sqlite"
    other = Ledger(explicit)
    try:
        assert other.path == explicit
        assert other.matches() == []
    finally:
        other.close()
    # without the variable, the default is ./mjledger.sqlite
    monkeypatch.delenv(STORE_ENV)
    default = Ledger()
    try:
        assert default.path == Path("mjledger.sqlite")
        assert default.matches() == []
    finally:
        default.close()
    assert (tmp_path / "mjledger.sqlite").exists()


# --- views ------------------------------------------------------------------------------------


def _view_state(views: Any, matches: list[str]) -> Any:
    return (
        views.scores_by_match(),
        views.scores_by_player(),
        views.current_dealers(),
        views.longest_streaks(),
        {m: views.history(m) for m in matches},
    )


def test_views_show_a_new_hand_right_after_recording(ledger: Ledger) -> None:
    match = ledger.start_match("sichuan", PLAYERS, match_id="live")
    assert ledger.views.scores_by_match() == {}
    ledger.start_hand(match)
    ledger.record(match, 1, KongDeclared(player=BO, kind="concealed"))
    views = ledger.views
    # no explicit catch-up: reading catches up
    assert views.scores_by_match() == {"live": {ANA: -2, BO: 6, CY: -2, DI: -2}}
    [entry] = views.history("live")
    assert (entry.number, entry.dealer, entry.outcome) == (1, ANA, "unfinished")
    [current] = views.current_dealers()
    assert (current.match, current.hand, current.dealer, current.streak) == ("live", 1, ANA, 1)
    assert current.next_dealer is None
    ledger.record(match, 1, SelfDrawn(player=ANA, fan=0))
    ledger.record(match, 1, SelfDrawn(player=BO, fan=0))
    ledger.record(match, 1, SelfDrawn(player=CY, fan=0))
    assert views.catch_up() == 4  # three wins and the hand's closing
    assert views.catch_up() == 0
    [entry] = views.history("live")
    assert entry.outcome == "won"
    assert entry.winners == (ANA, BO, CY)
    assert entry.next_dealer == ANA
    assert entry.net == hand_to_json(ledger.settlement(match, 1))["net"]
    ledger.start_hand(match)
    assert views.catch_up() == 1
    assert [e.number for e in views.history("live")] == [1, 2]
    [current] = views.current_dealers()
    assert (current.hand, current.dealer, current.streak) == (2, ANA, 2)
    assert views.longest_streaks() == {ANA: 2}


def test_catch_up_after_recording_and_rebuild_gives_identical_views(ledger: Ledger) -> None:
    matches = [ledger.record_log(p.read_text(encoding="utf-8")).match for p in MATCH_EXAMPLES]
    matches.append(ledger.record_log(sichuan_match(12, seed=5, match_id="gen")).match)
    views = ledger.views
    applied = views.catch_up()
    assert applied == views.position > 0
    assert views.catch_up() == 0
    state = _view_state(views, matches)
    _assert_views_equal_replay(ledger, matches)
    assert views.rebuild() == applied
    assert _view_state(views, matches) == state
    assert views.catch_up() == 0


def _assert_views_equal_replay(ledger: Ledger, matches: list[str]) -> None:
    views = ledger.views
    by_match = views.scores_by_match()
    by_player: dict[str, dict[str, list[int]]] = {}
    longest: dict[str, int] = {}
    dealers = {c.match: c for c in views.current_dealers()}
    for m in matches:
        result = replay(ledger.export(m))
        out = result.to_json()
        if out["hands"]:
            assert by_match[m] == result.totals()
            for p, amount in result.totals().items():
                total = by_player.setdefault(out["ruleset"], {}).setdefault(p, [0, 0])
                total[0] += amount
                total[1] += 1
            last = out["hands"][-1]
            c = dealers[m]
            assert (c.hand, c.dealer, c.streak, c.outcome, c.next_dealer) == (
                last["number"],
                last["dealer"],
                last["dealer_streak"] + 1,
                last["outcome"],
                last["next_dealer"],
            )
        else:
            assert m not in by_match
            assert m not in dealers
        for h in out["hands"]:
            longest[h["dealer"]] = max(longest.get(h["dealer"], 0), h["dealer_streak"] + 1)
        history = views.history(m)
        assert [e.to_json() for e in history] == [
            {k: v for k, v in h.items() if k != "transfers"} for h in out["hands"]
        ]
    assert views.scores_by_player() == {
        rs: {p: tuple(v) for p, v in rows_.items()} for rs, rows_ in by_player.items()
    }
    assert views.longest_streaks() == longest


def test_a_restart_resumes_catch_up_exactly_once(store: str) -> None:
    first = Ledger(store)
    try:
        a = first.record_log((EXAMPLES / "hongkong-match.jsonl").read_text()).match
        applied_a = first.views.catch_up()
        position_a = first.views.position
        assert applied_a == position_a
        b = first.record_log(sichuan_match(5, seed=1, match_id="later")).match
    finally:
        first.close()
    second = Ledger(store)
    try:
        views = second.views
        assert views.position == position_a  # the tracking position survived the restart
        applied_b = views.catch_up()
        total = len(rows(store))
        assert applied_a + applied_b == total == views.position
        assert views.catch_up() == 0
        _assert_views_equal_replay(second, [a, b])
        c = second.record_log(hongkong_match(3, seed=2, match_id="third")).match
    finally:
        second.close()
    grown = len(rows(store))
    third = Ledger(store)
    try:
        assert third.views.catch_up() == grown - total
        assert third.views.catch_up() == 0
        _assert_views_equal_replay(third, [a, b, c])
        # no double counting: totals are exactly the replayed totals, not a multiple of them
        assert third.views.scores_by_match()[a] == replay(third.export(a)).totals()
    finally:
        third.close()


def test_two_ledgers_on_one_store_share_the_views(store: str) -> None:
    one, two = Ledger(store), Ledger(store)
    try:
        one.record_log((CONTRACT / "hongkong-three-hands.jsonl").read_text())
        two.record_log(sichuan_match(4, seed=9, match_id="s"))
        n1 = one.views.catch_up()
        n2 = two.views.catch_up()
        assert n2 == 0
        assert n1 == one.views.position
        assert one.views.scores_by_match() == two.views.scores_by_match()
        _assert_views_equal_replay(two, ["hk-club-night-7", "s"])
    finally:
        one.close()
        two.close()


# --- reading a growing stream -----------------------------------------------------------------


def test_a_stream_read_early_is_not_re_folded_from_its_first_read(
    ledger: Ledger, monkeypatch: pytest.MonkeyPatch
) -> None:
    """A long-lived Ledger reads a match, then the match grows: later reads fold only the new
    events (a cached stream that was fast-forwarded but never re-cached made every read fold
    all hands since the first read, and the views' catch-up quadratic in the hands)."""
    text = sichuan_match(60, seed=4, match_id="long")
    ledger.record_log(_prefix(text, 1))
    ledger.match("long")  # read (and cached) while the match is empty
    ledger.record_log(text)
    decoded = []
    original = ledger.mapper.to_domain_event

    def counting(stored: Any) -> Any:
        decoded.append(stored.originator_version)
        return original(stored)

    monkeypatch.setattr(ledger.mapper, "to_domain_event", counting)
    assert len(ledger.match("long").closed) == 60
    assert len(decoded) == 60  # the 60 closings appended since the first read
    decoded.clear()
    for _ in range(3):
        assert len(ledger.match("long").closed) == 60
    assert decoded == []  # nothing new: nothing folded again
    ledger.hand("long", 5)
    decoded.clear()
    ledger.hand("long", 5)
    assert decoded == []


def test_a_refused_event_names_its_export_line_and_hand(ledger: Ledger) -> None:
    match = ledger.start_match("sichuan", ["ana", "bo", "cy", "di"])
    number = ledger.start_hand(match)  # export: line 1 match_started, line 2 hand_started
    ledger.record(match, number, WonOnDiscard(player="cy", from_="bo", fan=1))  # line 3
    with pytest.raises(RuleError) as caught:
        ledger.record(match, number, Discarded(player="cy"))  # would be line 4
    # handed over outside a log: its line in the match's export, as data and in the message
    # (docs/library.md), the problem itself without it
    error = caught.value
    assert (error.line, error.hand, error.event_type) == (4, 1, "discarded")
    assert error.code == "already_won"
    assert error.problem == "player 'cy' has already won and takes no further part in the hand"
    assert str(error) == (
        "discarded: player 'cy' has already won and takes no further part in the hand "
        "(hand 1, line 4 of the match's export)"
    )
    assert ledger.hand(match, number).version == 2


def test_a_hand_started_while_one_is_in_play_is_hand_in_play(ledger: Ledger) -> None:
    match = ledger.start_match("sichuan", ["ana", "bo", "cy", "di"])
    ledger.start_hand(match)
    with pytest.raises(StoreError) as caught:
        ledger.start_hand(match)
    assert caught.value.code == "hand_in_play"
    assert "still in progress" in str(caught.value)
    with pytest.raises(StoreError) as missing:
        ledger.hand(match, 7)
    assert missing.value.code == "no_hand"
    with pytest.raises(StoreError) as unknown:
        ledger.match("nobody")
    assert unknown.value.code == "no_match"
    with pytest.raises(StoreError) as twice:
        ledger.start_match("sichuan", ["ana", "bo", "cy", "di"], match_id=match)
    assert twice.value.code == "match_exists"


@pytest.mark.parametrize(
    "match_id",
    ["x" * 201, "a\nb", "a\u202eb", "a\u2028b", "a\x85b", "a\u2066b"],
)
def test_start_match_refuses_an_id_the_log_format_refuses(ledger: Ledger, match_id: str) -> None:
    with pytest.raises(FormatError) as caught:
        ledger.start_match("sichuan", ["ana", "bo", "cy", "di"], match_id=match_id)
    assert caught.value.code == "bad_format"
    assert not ledger.has_match(match_id)
    with pytest.raises(FormatError):
        ledger.start_match("sichuan", ["ana", "bo", "cy", match_id])
    ledger.start_match("sichuan", ["ana", "bo", "cy", "di"], match_id="x" * 200)


def test_record_log_reports_progress_per_transaction(ledger: Ledger) -> None:
    text = (EXAMPLES / "hongkong-match.jsonl").read_text(encoding="utf-8")
    seen: list[tuple[int, int]] = []
    result = ledger.record_log(text, progress=lambda done, total: seen.append((done, total)))
    # one transaction per hand, the match's start in the first
    assert seen == [(n, result.hands) for n in range(1, result.hands + 1)]


def test_a_store_written_before_ids_were_bounded_keeps_them(ledger: Ledger) -> None:
    """log-format.md: a store written before the rule keeps its ids, shows and exports them as
    stored; a log holding such an id is refused like any other."""
    legacy = "t\u202e1\n" + "x" * 300
    with ids_as_stored():  # as a store written before the bound holds it
        ledger.start_match("sichuan", ["ana", "bo", "cy", "di\u2028"], match_id=legacy)
    number = ledger.start_hand(legacy)
    ledger.record(legacy, number, SelfDrawn(player="ana", fan=1))
    assert ledger.match(legacy).started.players[3] == "di\u2028"
    exported = "".join(dumps_event(e) + "\n" for e in ledger.export_events(legacy))
    assert json.loads(exported.split("\n")[0])["match"] == legacy
    with pytest.raises(FormatError) as caught:
        replay(exported)
    assert (caught.value.line, caught.value.code) == (1, "bad_format")
