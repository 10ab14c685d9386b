"""The simulator (issue 14): legal tile-level logs that replay cleanly, the same everywhere.

The simulator never checks its own output; these tests replay it with the ledger.
"""

from __future__ import annotations

import itertools
import json
import os
import subprocess
import sys
from collections import Counter
from typing import Any

import pytest

from mjledger import replay
from mjledger.errors import FormatError, SimulationError, UnknownRulesetError
from mjledger.fold.hand import win_fan
from mjledger.fold.match import MatchState, evolve, start
from mjledger.log.codec import parse_log
from mjledger.log.events import (
    Discarded,
    HandStarted,
    KongDeclared,
    SelfDrawn,
    WallExhausted,
    WonOnDiscard,
)
from mjledger.rules.registry import registered
from mjledger.sim import SimulatedMatch
from mjledger.sim.run import match_id, simulate
from mjledger.sim.stats import summarize
from tests.toy_ruleset import FLAT

BLOOD_FLOW = {"blood_flow": True}


def one(ruleset: str, hands: int, seed: int, **options: Any) -> SimulatedMatch:
    (match,) = simulate(ruleset, hands=hands, seed=seed, **options)
    return match


def lines_of(match: SimulatedMatch) -> list[dict[str, Any]]:
    return [json.loads(line) for line in match.text().splitlines()]


@pytest.mark.parametrize(
    ("ruleset", "rules"), [("sichuan", {}), ("hongkong", {}), ("sichuan", BLOOD_FLOW)]
)
def test_every_simulated_log_replays_cleanly_and_every_hand_ends(
    ruleset: str, rules: dict[str, Any]
) -> None:
    for seed in range(40 if not rules else 12):
        match = one(ruleset, 6, seed, rules=rules)
        result = replay(match.text())
        assert len(result.hands) == match.hands
        assert all(h.outcome in ("won", "void") for h in result.hands), seed
        # The ledger reads the same winners, in the same order (of first wins: blood flow
        # lists each winner once), as the simulator played.
        played: dict[int, list[str]] = {}
        for win in match.wins:
            winners = played.setdefault(win.hand, [])
            if win.player not in winners:
                winners.append(win.player)
        for hand in result.hands:
            assert list(hand.winners) == played.get(hand.number, []), (seed, hand.number)
        assert sum(result.totals().values()) == 0


def test_a_hong_kong_match_ends_after_the_north_round() -> None:
    match = one("hongkong", 10_000, 3)
    result = replay(match.text())
    assert result.state.over
    assert result.hands[-1].next_dealer is None
    assert result.hands[-1].round_wind == "north"
    assert match.hands == len(result.hands) < 10_000


def test_hands_caps_a_hong_kong_match_and_counts_a_sichuan_one() -> None:
    assert one("hongkong", 5, 1).hands == 5
    assert one("sichuan", 7, 1).hands == 7


@pytest.mark.parametrize("ruleset", ["sichuan", "hongkong"])
def test_every_win_and_wall_entry_carries_tiles_never_an_asserted_fan(ruleset: str) -> None:
    for seed in range(10):
        for _, event in parse_log(one(ruleset, 5, seed).text()):
            if isinstance(event, (WonOnDiscard, SelfDrawn)):
                assert event.tiles is not None
                assert event.winning_tile is not None
                assert event.fan is None
                assert not event.limit
            if isinstance(event, WallExhausted) and ruleset == "sichuan":
                assert event.remaining
                assert all(entry.tiles is not None for entry in event.remaining.values())
            if isinstance(event, WallExhausted) and ruleset == "hongkong":
                assert event.remaining is None


def test_the_same_seed_gives_the_same_log_and_another_seed_another() -> None:
    first = one("sichuan", 4, 11).text()
    assert one("sichuan", 4, 11).text() == first
    assert one("sichuan", 4, 12).text() != first


def test_match_n_of_a_run_does_not_depend_on_how_many_matches_are_asked() -> None:
    three = list(simulate("hongkong", hands=3, seed=5, matches=3))
    ten = list(simulate("hongkong", hands=3, seed=5, matches=10))
    assert [m.text() for m in three] == [m.text() for m in ten[:3]]
    assert [m.match for m in three] == [
        "sim-hongkong-5-001",
        "sim-hongkong-5-002",
        "sim-hongkong-5-003",
    ]
    assert match_id("sichuan", 5, 1, 1) == "sim-sichuan-5"


SCRIPT = (
    "import json, sys; from mjledger.sim.run import simulate\n"
    "for m in simulate(sys.argv[1], hands=3, seed=7, matches=2, rules=json.loads(sys.argv[2])):\n"
    "    sys.stdout.write(m.text())\n"
)


@pytest.mark.slow
@pytest.mark.parametrize(
    ("ruleset", "rules"), [("sichuan", {}), ("hongkong", {}), ("sichuan", BLOOD_FLOW)]
)
def test_the_log_does_not_depend_on_the_process_hash_seed(
    ruleset: str, rules: dict[str, Any]
) -> None:
    outputs = set()
    for hash_seed in ("0", "1", "12345"):
        env = {**os.environ, "PYTHONHASHSEED": hash_seed}
        done = subprocess.run(
            [sys.executable, "-c", SCRIPT, ruleset, json.dumps(rules)],
            env=env,
            capture_output=True,
            check=True,
        )
        outputs.add(done.stdout)
    assert len(outputs) == 1
    expected = "".join(m.text() for m in simulate(ruleset, hands=3, seed=7, matches=2, rules=rules))
    assert outputs == {expected.encode()}


def _features(matches: list[SimulatedMatch]) -> Counter[str]:
    seen: Counter[str] = Counter()
    for match in matches:
        lines = lines_of(match)
        for before, line in itertools.pairwise(lines):
            kind = line["type"]
            if kind == "kong_declared":
                seen[f"kong_{line['kind']}"] += 1
            if kind == "won_on_discard":
                seen["robbing" if line.get("robbing_kong") else "won_on_discard"] += 1
                if before["type"] == "won_on_discard" and before["from"] == line["from"]:
                    seen["several_winners"] += 1
            if kind == "self_drawn":
                seen["self_drawn"] += 1
            if line.get("last_tile"):
                seen["last_tile"] += 1
            if line.get("melds"):
                seen["win_with_melds"] += 1
        for win in match.wins:
            seen.update(win.codes)
        seen.update(w.status for w in match.walls)
        seen["void_hand"] += match.void_hands
    return seen


def test_sichuan_play_has_every_kind_of_event_the_rules_know() -> None:
    seen = _features(list(simulate("sichuan", hands=100, seed=2, matches=3)))
    for feature in (
        "kong_exposed",
        "kong_added",
        "kong_concealed",
        "robbing",
        "several_winners",
        "self_drawn",
        "last_tile",
        "kong_bloom",
        "kong_cannon",
        "full_flush",
        "seven_pairs",
        "all_pungs",
        "root",
        "flower_pig",
        "not_ready",
        "ready",
    ):
        assert seen[feature], feature
    # Most wins are small: a plain hand is the commonest, a flush far rarer.
    assert seen["plain"] > seen["full_flush"] * 5


def test_hong_kong_play_has_kongs_of_every_kind_wins_of_both_kinds_and_void_hands() -> None:
    seen = _features(list(simulate("hongkong", hands=40, seed=2, matches=8)))
    for feature in (
        "kong_exposed",
        "kong_added",
        "kong_concealed",
        "won_on_discard",
        "self_drawn",
        "win_with_melds",
        "void_hand",
        "mixed_one_suit",
        "all_pungs",
        "full_flush",
    ):
        assert seen[feature], feature
    assert not seen["several_winners"]


def test_every_kong_is_logged_in_hong_kong_and_the_wins_meet_the_minimum() -> None:
    match = one("hongkong", 40, 4)
    kongs = sum(1 for _, e in parse_log(match.text()) if isinstance(e, KongDeclared))
    counted = dict(match.kongs)
    assert kongs == counted["exposed"] + counted["added"] + counted["concealed"] > 0
    assert all(w.limit or w.fan >= 3 for w in match.wins)


@pytest.mark.parametrize(
    ("ruleset", "rules"),
    [
        ("sichuan", {"fan_cap": 3, "self_draw_bonus": "fan", "kong_passing_split": "none"}),
        ("sichuan", {"heavenly": True, "earthly": True, "all_258_pungs": True}),
        ("sichuan", {"terminals_in_all": True, "kong_money_passing": False, "base": 5}),
        ("hongkong", {"seven_pairs": True, "min_fan": 0, "table": "spicy"}),
        ("hongkong", {"discard_pays": "all", "fan_limit": 8, "min_fan": 1}),
        ("hongkong", {"discard_pays": "half", "points_per_unit": 2, "void_hand_dealer": "passes"}),
        ("sichuan", {"exposed_kong_pays": "everyone", "claimed_kong_bloom": "feeder_pays"}),
        ("sichuan", {"kong_passing_split": "each_full", "kong_passing_scope": "last"}),
        ("sichuan", {"pig_pays": "still_in", "not_ready_includes_pigs": False}),
        ("sichuan", {"refund_to_winners": False}),
        ("sichuan", {**BLOOD_FLOW, "claimed_kong_bloom": "feeder_pays", "pig_pays": "still_in"}),
        ("sichuan", {**BLOOD_FLOW, "refund_to_winners": False, "exposed_kong_pays": "everyone"}),
        ("sichuan", {**BLOOD_FLOW, "kong_passing_split": "each_full", "fan_cap": 6}),
    ],
)
def test_house_rules_are_written_into_the_log_and_played(
    ruleset: str, rules: dict[str, Any]
) -> None:
    for seed in range(6):
        match = one(ruleset, 8, seed, rules=rules)
        first = lines_of(match)[0]
        assert first["rules"].items() >= rules.items()
        replay(match.text())


def test_a_lower_minimum_lets_smaller_hong_kong_hands_win() -> None:
    low = one("hongkong", 40, 4, rules={"min_fan": 0})
    assert any(w.fan < 3 and not w.limit for w in low.wins)


def test_hong_kong_seven_pairs_only_with_its_house_rule() -> None:
    on = list(simulate("hongkong", hands=40, seed=8, matches=6, rules={"seven_pairs": True}))
    off = list(simulate("hongkong", hands=40, seed=8, matches=6))
    assert any("seven_pairs" in w.codes for m in on for w in m.wins)
    assert not any("seven_pairs" in w.codes for m in off for w in m.wins)


def test_players_are_the_given_ids() -> None:
    match = one("sichuan", 2, 1, players=("wing", "siuling", "kayan", "tak"))
    result = replay(match.text())
    assert result.players == ("wing", "siuling", "kayan", "tak")


@pytest.mark.parametrize(
    ("options", "error", "message"),
    [
        ({"rules": {"fan_cap": 7}}, FormatError, "fan_cap"),
        ({"rules": {"seven_pairs": True}}, FormatError, "unknown house rule 'seven_pairs'"),
        ({"players": ("a", "a", "b", "c")}, FormatError, "four distinct"),
        ({"hands": 0}, SimulationError, "at least one hand"),
    ],
)
def test_bad_options_are_refused_with_a_clear_error(
    options: dict[str, Any], error: type[Exception], message: str
) -> None:
    arguments: dict[str, Any] = {"hands": 2, "seed": 1, **options}
    with pytest.raises(error, match=message):
        list(simulate("sichuan", **arguments))


def test_an_unknown_ruleset_is_refused() -> None:
    with pytest.raises(UnknownRulesetError, match="unknown ruleset 'riichi'"):
        list(simulate("riichi", hands=1, seed=1))


def test_a_plugin_rule_set_replays_but_is_not_simulated() -> None:
    with registered(FLAT), pytest.raises(SimulationError, match=f"not {FLAT.name!r}"):
        list(simulate(FLAT.name, hands=1, seed=1))


@pytest.mark.parametrize("rules", [{}, BLOOD_FLOW])
def test_a_deal_in_right_after_a_deal_in_is_played_and_marked(rules: dict[str, Any]) -> None:
    """issue 23: a Sichuan player who draws again right after a win on their own discard may
    deal in again; the simulator lets that win happen and marks it ``new_discard``
    (log-format.md: "must write it whenever the line before is a won_on_discard with the same
    from"), counts it, and the log replays with the first run alone as the hand's first win."""
    matches = list(simulate("sichuan", hands=100, seed=4, matches=2, rules=rules))
    counted = sum(m.new_discard_wins for m in matches)
    marked = 0
    for match in matches:
        lines = [json.loads(line) for line in match.text().splitlines()]
        for before, line in itertools.pairwise(lines):
            adjoins = (
                line["type"] == before["type"] == "won_on_discard"
                and line["from"] == before["from"]
            )
            if line.get("new_discard"):
                marked += 1
                assert adjoins  # written only where the line before needs telling apart
        replay(match.text())
    assert counted >= marked
    assert summarize(matches)["wins_new_discard"] == counted  # what --stats prints
    assert "wins_passed" not in summarize(matches)
    if rules:
        assert marked > 0  # under blood flow it does happen (a winner may sit just before)


def test_after_a_void_hand_the_deal_passes_when_the_table_says_so() -> None:
    """variants.md, void_hand_dealer "passes": the simulator's rotation is the ledger's."""
    for seed in range(8):
        match = one("hongkong", 30, seed, rules={"void_hand_dealer": "passes"})
        result = replay(match.text())
        for hand in result.hands:
            if hand.outcome == "void" and hand.next_dealer is not None:
                assert hand.next_dealer != hand.dealer


def _blood_flow_features(match: SimulatedMatch) -> Counter[str]:
    """What only blood flow allows, read off the log itself: a player who has won goes on
    discarding, declaring kongs and winning; a hand has more than three wins."""
    seen: Counter[str] = Counter()
    won: set[str] = set()
    wins = 0
    for _, event in parse_log(match.text()):
        if isinstance(event, (WonOnDiscard, SelfDrawn)):
            if event.player in won:
                seen["repeat_win"] += 1
                seen[f"repeat_{type(event).TYPE}"] += 1
            if won:
                seen["win_after_a_win"] += 1
            if isinstance(event, WonOnDiscard) and event.from_ in won:
                seen["win_on_a_winner_s_discard"] += 1
            wins += 1
            won.add(event.player)
        elif isinstance(event, Discarded) and event.player in won:
            seen["winner_discards"] += 1
        elif isinstance(event, KongDeclared) and event.player in won:
            seen["winner_kongs"] += 1
        elif isinstance(event, WallExhausted):
            assert event.remaining is not None
            seen["wall_naming_all_four"] += len(event.remaining) == 4
            seen["walls"] += 1
        elif isinstance(event, HandStarted):
            seen["hand_with_more_than_three_wins"] += wins > 3
            won = set()
            wins = 0
    seen["hand_with_more_than_three_wins"] += wins > 3
    return seen


def test_under_blood_flow_winners_stay_in_win_again_and_play_to_the_wall() -> None:
    seen: Counter[str] = Counter()
    for seed in range(4):
        match = one("sichuan", 10, seed, rules=BLOOD_FLOW)
        result = replay(match.text())
        assert result.to_json()["rules"]["blood_flow"] is True
        # Only the wall ends a blood-flow hand: every hand has one, naming all four players.
        features = _blood_flow_features(match)
        assert features["walls"] == features["wall_naming_all_four"] == match.hands
        assert all(hand.outcome in ("won", "void") for hand in result.hands)
        seen += features
    for feature in (
        "repeat_win",
        "repeat_won_on_discard",
        "repeat_self_drawn",
        "win_after_a_win",
        "win_on_a_winner_s_discard",
        "winner_discards",
        "winner_kongs",
        "hand_with_more_than_three_wins",
    ):
        assert seen[feature] > 0, feature


def test_blood_flow_is_played_only_when_the_table_says_so() -> None:
    seen: Counter[str] = Counter()
    for seed in range(4):
        seen += _blood_flow_features(one("sichuan", 10, seed))
    assert seen["walls"] > 0
    for feature in ("repeat_win", "win_on_a_winner_s_discard", "winner_kongs", "winner_discards"):
        assert not seen[feature], feature
    assert seen["wall_naming_all_four"] < seen["walls"]


def _ledger_fans(text: str) -> list[int | None]:
    """Each win's fan as the ledger derives it from the log's tiles and lines."""
    fans = []
    state: MatchState | None = None
    for line, event in parse_log(text):
        if isinstance(event, (WonOnDiscard, SelfDrawn)):
            assert state is not None
            assert state.hand is not None
            fans.append(win_fan(state.hand, event, line)[0])
        state = start(event, line) if state is None else evolve(state, event, line)
    return fans


@pytest.mark.parametrize("rules", [{}, BLOOD_FLOW, {**BLOOD_FLOW, "heavenly": True}])
def test_the_simulator_scores_every_win_as_the_ledger_derives_it(rules: dict[str, Any]) -> None:
    # Kong bloom, kong cannon, the last tile: what the simulator played is what the log says.
    for seed in range(4):
        match = one("sichuan", 8, seed, rules=rules)
        assert _ledger_fans(match.text()) == [w.fan for w in match.wins], seed
