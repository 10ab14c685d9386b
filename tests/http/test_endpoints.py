"""Every endpoint of http-api.md through the service, with the library as the oracle."""

from __future__ import annotations

import json
from pathlib import Path
from urllib.parse import quote

import pytest

from mjledger.errors import CODES, MjledgerError
from mjledger.fold.replay import replay
from mjledger.log.reader import BLOCK
from mjledger.store.application import Ledger
from tests.http.conftest import EXAMPLE_MATCH, Api
from tests.store_logs import sichuan_match

ROOT = Path(__file__).resolve().parents[2]
HK = (ROOT / "examples" / "hongkong-match.jsonl").read_text()
HK_ID = "hk-tsimshatsui-t3-2026-12-05"
SC = (ROOT / "examples" / "sichuan-match.jsonl").read_text()
M = f"/v1/matches/{EXAMPLE_MATCH}"


def recorded(api: Api, text: str = HK) -> str:
    answer = api.post_log("/v1/logs", text)
    assert answer.status_code == 201, answer.text
    return str(answer.json()["match"])


def test_health_needs_no_token_and_names_nothing(api: Api) -> None:
    assert api.client.get("/healthz").json() == {"status": "ok"}
    ready = api.client.get("/readyz")
    assert ready.status_code == 200
    assert set(ready.json()) == {"status", "read_position"}
    assert api.store not in ready.text


def test_a_recorded_log_reads_back_as_replay_gives_it(api: Api) -> None:
    answer = api.post_log("/v1/logs", HK)
    assert answer.json() == {
        "status": "recorded",
        "match": HK_ID,
        "id_assigned": False,
        "hands": 16,
        "events": HK.count("\n"),
    }
    assert api.post_log("/v1/logs", HK).json()["status"] == "unchanged"
    assert api.post_log("/v1/logs", HK).status_code == 200
    match = api.get(f"/v1/matches/{HK_ID}").json()
    expected = replay(HK).to_json()
    assert [{k: h[k] for k in expected["hands"][0]} for h in match["hands"]] == expected["hands"]
    assert match["totals"] == expected["totals"]
    assert all(h["correction"] is None and h["open_run"] is False for h in match["hands"])
    export = api.get(f"/v1/matches/{HK_ID}/export")
    assert export.headers["content-type"].startswith("application/x-ndjson")
    assert replay(export.text).to_json() == expected
    assert api.replay_text(HK) == expected


def test_a_log_resumed_and_a_log_in_conflict(api: Api) -> None:
    lines = HK.splitlines(keepends=True)
    assert api.post_log("/v1/logs", "".join(lines[:20])).status_code == 201
    resumed = api.post_log("/v1/logs", HK)
    assert (resumed.status_code, resumed.json()["status"]) == (201, "resumed")
    changed = HK.replace('"fan": 4}', '"fan": 5}', 1)
    conflict = api.post_log("/v1/logs", changed)
    assert conflict.status_code == 409
    assert conflict.json()["code"] == "log_conflict"
    assert conflict.json()["line"] == 11


def test_a_stand_alone_hand_is_no_match_log(api: Api) -> None:
    hand = (ROOT / "examples" / "disputed-hand.jsonl").read_text()
    answer = api.post_log("/v1/logs", hand)
    assert (answer.status_code, answer.json()["code"]) == (422, "wrong_event_type")


def test_a_bad_log_line_gets_its_own_code_and_line(api: Api) -> None:
    bad = HK.replace('"tile": "9s"}', '"tile": "9s", "tile": "9s"}', 1)
    answer = api.post_log("/v1/logs", bad)
    assert answer.status_code == 400
    assert (answer.json()["code"], answer.json()["line"]) == ("bad_json", 3)
    assert api.get("/v1/matches").json()["items"] == []


def test_hands_events_settlement_and_matches_list(api: Api) -> None:
    recorded(api)
    hand = api.get(f"/v1/matches/{HK_ID}/hands/2").json()
    assert hand["position"] == len(hand["events"]) == 17
    expected = replay(HK).to_json()["hands"]
    assert hand["events"][0] == {"type": "hand_started", "dealer": expected[1]["dealer"]}
    assert "corrections" not in hand
    event = api.get(f"/v1/matches/{HK_ID}/hands/2/events/8").json()
    assert event == hand["events"][7]
    settlement = api.get(f"/v1/matches/{HK_ID}/hands/2/settlement").json()
    assert settlement == hand["settlement"]
    for number in (1, 3, 16):  # lines of the match as recorded: the log's own
        got = api.get(f"/v1/matches/{HK_ID}/hands/{number}/settlement").json()
        assert got["transfers"] == expected[number - 1]["transfers"]
    listed = api.get("/v1/matches").json()
    assert [m["match"] for m in listed["items"]] == [HK_ID]
    assert listed["items"][0]["totals"] == replay(HK).to_json()["totals"]
    assert listed["next"] is None
    assert api.get(f"/v1/matches/{HK_ID}/hands/99").json()["code"] == "no_hand"
    assert api.get(f"/v1/matches/{HK_ID}/hands/2/events/18").json()["code"] == "no_hand"
    assert api.get("/v1/matches/nope/hands/1").json()["code"] == "no_match"


def test_pagination_resumes_after_the_last_item(api: Api) -> None:
    start = '{"type": "match_started", "ruleset": "hongkong", "players": ["a", "b", "c", "d"]}'
    ids = [f"lobby1-t{i}" for i in range(5)] + ["other"]
    for match in ids:
        assert api.put(f"/v1/matches/{match}", start).status_code == 201
    first = api.get("/v1/matches?limit=2&prefix=lobby1-").json()
    assert [m["match"] for m in first["items"]] == ids[:2]
    second = api.get(first["next"]).json()
    third = api.get(second["next"]).json()
    assert [m["match"] for m in second["items"] + third["items"]] == ids[2:5]
    assert third["next"] is None
    for bad in ("limit=0", "limit=201", "limit=x", "cursor=nope", "limit=01"):
        answer = api.get(f"/v1/matches?{bad}")
        assert (answer.status_code, answer.json()["code"]) == (400, "bad_parameter"), bad


def test_history_and_scores_are_the_commands(api: Api) -> None:
    recorded(api)
    history = api.get(f"/v1/matches/{HK_ID}/history?limit=10").json()
    assert len(history["items"]) == 10
    rest = api.get(history["next"]).json()
    assert len(rest["items"]) == 6
    assert rest["next"] is None
    with Ledger(api.store) as ledger:
        ledger.views.catch_up()
        entries = [e.to_json() for e in ledger.views.history(HK_ID)]
        players = ledger.views.scores_by_player()
    assert history["items"] + rest["items"] == entries
    assert api.get("/v1/scores").json() == {
        "players": {
            r: {p: {"total": t, "matches": m} for p, (t, m) in rows.items()}
            for r, rows in players.items()
        }
    }


@pytest.mark.parametrize("lang", ["en", "zh", "it", "pt", "es", "fr"])
def test_explanation_in_six_languages(api: Api, lang: str) -> None:
    recorded(api)
    answer = api.get(f"/v1/matches/{HK_ID}/hands/2/explanation?lang={lang}").json()
    assert answer["lang"] == lang
    settlement = api.get(f"/v1/matches/{HK_ID}/hands/2/settlement").json()
    lines = {t["line"] for t in settlement["transfers"]}
    assert lines <= {s["line"] for s in answer["steps"]}


def test_explanation_refuses_another_language(api: Api) -> None:
    recorded(api)
    answer = api.get(f"/v1/matches/{HK_ID}/hands/2/explanation?lang=de")
    assert (answer.status_code, answer.json()["parameter"]) == (400, "lang")


def test_audit_and_head(api: Api) -> None:
    recorded(api)
    audit = api.get("/v1/audit")
    assert audit.status_code == 200
    assert audit.json()["findings"] == []
    assert api.get(f"/v1/audit?match={HK_ID}").status_code == 200
    assert api.get("/v1/audit?match=nope").json()["code"] == "no_match"
    head = api.get("/v1/audit/head").json()
    assert head["agrees"] is True
    assert api.get("/v1/audit/head", role="auditor").status_code == 200
    assert api.get("/v1/audit", role="backend").json()["code"] == "forbidden"


def test_the_openapi_document_needs_no_token(api: Api) -> None:
    document = api.client.get("/v1/openapi.json").json()
    assert document["openapi"].startswith("3.1.")
    assert "/v1/matches/{match}/hands/{number}/events/{seq}" in document["paths"]
    assert document["components"]["securitySchemes"]["bearer"]["scheme"] == "bearer"


def test_any_match_id_is_addressable(api: Api) -> None:
    match = "as of 3/4 中+"
    start = '{"type": "match_started", "ruleset": "hongkong", "players": ["a", "b", "c", "d"]}'
    created = api.put(f"/v1/matches/{quote(match, safe='')}", start)
    assert created.status_code == 201
    assert created.headers["location"] == "/v1/matches/as%20of%203%2F4%20%E4%B8%AD%2B"
    assert api.get(created.headers["location"]).json()["match"] == match
    for bad in ("a%00b", "%ZZ", "%FF", "a%E2%80%AEb", "x" * 201):
        answer = api.get(f"/v1/matches/{bad}")
        assert (answer.status_code, answer.json()["code"]) == (400, "bad_parameter"), bad


def test_match_creation_same_other_and_mismatched(api: Api) -> None:
    start = '{"type": "match_started", "ruleset": "hongkong", "players": ["a", "b", "c", "d"]}'
    assert api.put("/v1/matches/m1", start).status_code == 201
    same = start.replace("}", ', "match": "m1", "rules": {}}')
    assert api.put("/v1/matches/m1", same).status_code == 200
    other = start.replace('"d"]', '"e"]')
    assert api.put("/v1/matches/m1", other).json()["code"] == "match_exists"
    assert api.put("/v1/matches/m2", same).json()["code"] == "match_id_mismatch"
    assert api.put("/v1/matches/m3", '{"type": "hand_started"}').json()["code"] == (
        "wrong_event_type"
    )


@pytest.mark.parametrize(
    ("body", "code", "status"),
    [
        ('{"type": "match_started", "ruleset": "hongkong"', "bad_json", 400),
        ('{"type": "match_started", "type": "x"}', "bad_json", 400),
        ('{"type": "match_started", "ruleset": NaN}', "bad_json", 400),
        ("[" * 9 + "]" * 9, "bad_json", 400),
        ('{"type": "nope"}', "bad_format", 400),
        (
            '{"type": "match_started", "ruleset": "hongkong", "players": ["a","b","c","d"], '
            '"x": 1}',
            "bad_format",
            400,
        ),
        (
            '{"type": "match_started", "ruleset": "go", "players": ["a","b","c","d"]}',
            "unknown_ruleset",
            400,
        ),
        (
            '{"type": "match_started", "ruleset": "hongkong", "players": ["a","b","c","d"], '
            '"rules": {"min_fan": -1}}',
            "bad_house_rule",
            400,
        ),
    ],
)
def test_bodies_are_decoded_as_log_lines(api: Api, body: str, code: str, status: int) -> None:
    answer = api.put("/v1/matches/m1", body)
    assert (answer.status_code, answer.json()["code"]) == (status, code), answer.text
    assert api.get("/v1/matches/m1").json()["code"] == "no_match"


def test_a_leading_bom_is_ignored_and_other_media_types_refused(api: Api) -> None:
    start = '\ufeff{"type": "match_started", "ruleset": "hongkong", "players": ["a","b","c","d"]}'
    assert api.put("/v1/matches/m1", start).status_code == 201
    for media in ("text/plain", "application/json; charset=latin-1"):
        answer = api.put("/v1/matches/m2", start, headers={"content-type": media})
        assert (answer.status_code, answer.json()["code"]) == (415, "unsupported_media_type")


def test_hand_starts_exactly_once(api: Api) -> None:
    api.example_hand()
    again = api.put(f"{M}/hands/1", '{"type": "hand_started"}')
    assert again.status_code == 200
    assert api.put(f"{M}/hands/2", '{"type": "hand_started"}').json()["code"] == "hand_in_play"
    conflict = api.put(f"{M}/hands/3", '{"type": "hand_started"}').json()
    assert (conflict["code"], conflict["hands"]) == ("conflict", 1)
    assert api.put(f"{M}/hands/1/events/6", '{"type": "hand_started"}').json()["code"] == (
        "wrong_event_type"
    )


def test_a_hand_whose_dealer_the_rotation_does_not_give(api: Api) -> None:
    start = '{"type": "match_started", "ruleset": "hongkong", "players": ["a", "b", "c", "d"]}'
    api.put("/v1/matches/m1", start)
    answer = api.put("/v1/matches/m1/hands/1", '{"type": "hand_started", "dealer": "z"}')
    assert answer.json()["code"] == "not_at_table"
    api.put("/v1/matches/m1/hands/1", '{"type": "hand_started", "dealer": "a"}')
    api.put("/v1/matches/m1/hands/1/events/2", '{"type": "wall_exhausted"}')
    answer = api.put("/v1/matches/m1/hands/2", '{"type": "hand_started", "dealer": "c"}')
    assert (answer.status_code, answer.json()["code"]) == (422, "wrong_dealer"), answer.text
    ended = api.put("/v1/matches/m1/hands/1/events/3", '{"type": "wall_exhausted"}').json()
    assert ended["code"] == "hand_not_in_play"


HK_START = (
    '{"type": "match_started", "ruleset": "hongkong", "players": ["a", "b", "c", "d"],'
    ' "rules": {"min_fan": 3}}'
)


@pytest.mark.parametrize(
    ("event", "code"),
    [
        ('{"type": "discarded", "player": "z"}', "not_at_table"),
        ('{"type": "won_on_discard", "player": "a", "from": "a", "fan": 3}', "self_reference"),
        ('{"type": "won_on_discard", "player": "a", "from": "b", "fan": 1}', "below_minimum_fan"),
        ('{"type": "void_suit_chosen", "player": "a", "suit": "m"}', "wrong_ruleset"),
        (
            '{"type": "self_drawn", "player": "a", "tiles": "11111m23m456p789s5p", '
            '"winning_tile": "5p"}',
            "bad_tiles",
        ),
        ('{"type": "discarded", "player": "a", "tile": "0m"}', "bad_format"),
    ],
)
def test_each_refusal_of_the_rules_has_its_code(api: Api, event: str, code: str) -> None:
    api.put("/v1/matches/m1", HK_START)
    api.put("/v1/matches/m1/hands/1", '{"type": "hand_started"}')
    answer = api.put("/v1/matches/m1/hands/1/events/2", event)
    assert answer.json()["code"] == code, answer.text
    assert answer.json()["line"] == 3
    assert answer.json()["position"] == 1
    assert api.get("/v1/matches/m1/hands/1").json()["position"] == 1


def test_unknown_paths_and_methods(api: Api) -> None:
    assert api.get("/v1/nothing").json()["code"] == "not_found"
    answer = api.client.delete(M, headers=api.auth())
    assert answer.status_code == 405
    assert answer.json()["code"] == "method_not_allowed"
    assert set(answer.headers["allow"].split(", ")) == {"GET", "PUT"}


def _hand_log(api: Api, match: str, number: int) -> str:
    with Ledger(api.store) as ledger:
        from mjledger.log.codec import dumps_event

        return "".join(dumps_event(e) + "\n" for e in ledger.hand_events(match, number))


def test_a_correction_exactly_once_and_its_figures(api: Api) -> None:
    recorded(api)
    log = _hand_log(api, HK_ID, 1).replace('"fan":4', '"fan":5').replace('"fan": 4', '"fan": 5')
    body = json.dumps({"action": "correct", "number": 1, "log": log, "reason": "fan was 5"})
    made = api.put(f"/v1/matches/{HK_ID}/corrections/1", body)
    assert made.status_code == 201, made.text
    answer = made.json()
    assert (answer["kind"], answer["by"], answer["correction"]) == ("corrected", "wen.li", 1)
    retried = api.put(f"/v1/matches/{HK_ID}/corrections/1", body, role="staff2")
    assert (retried.status_code, retried.json()) == (200, answer)
    taken = api.put(f"/v1/matches/{HK_ID}/corrections/1", body.replace("was 5", "is 5"))
    assert (taken.status_code, taken.json()["corrections"]) == (409, 1)
    hand = api.get(f"/v1/matches/{HK_ID}/hands/1").json()
    assert hand["settlement"]["correction"] == 1
    # lines of the correction's own log: its hand_started line 1, the win line 10
    assert [t["line"] for t in hand["settlement"]["transfers"]] == [10] * 3
    (entry,) = hand["corrections"]
    assert entry["original_net"] != entry["net"] == hand["settlement"]["net"]
    assert entry["events"][0]["type"] == "hand_started"
    assert hand["events"][-1]["fan"] == 4  # as recorded
    later = api.get(f"/v1/matches/{HK_ID}/hands/3/settlement").json()
    assert later["transfers"] == replay(HK).to_json()["hands"][2]["transfers"]  # never moved
    listed = api.get(f"/v1/matches/{HK_ID}/corrections").json()
    assert listed == {"items": [answer]}
    explained = api.get(f"/v1/matches/{HK_ID}/hands/1/explanation").json()
    assert {10} <= {s["line"] for s in explained["steps"]}


def test_a_void_and_refusals_of_corrections(api: Api) -> None:
    recorded(api)
    void = json.dumps({"action": "void", "number": 2, "reason": "table broke"})
    assert api.put(f"/v1/matches/{HK_ID}/corrections/1", void, role="backend").json()["code"] == (
        "forbidden"
    )
    made = api.put(f"/v1/matches/{HK_ID}/corrections/1", void)
    assert (made.status_code, made.json()["kind"]) == (201, "voided")
    again = api.put(f"/v1/matches/{HK_ID}/corrections/2", void)
    assert (again.status_code, again.json()["code"]) == (422, "correction_refused")
    settlement = api.get(f"/v1/matches/{HK_ID}/hands/2/settlement").json()
    assert settlement["transfers"] == []
    assert set(settlement["net"].values()) == {0}
    assert settlement["correction"] == 1
    for bad in (
        '{"action": "x"}',
        '{"action": "void", "number": 2}',
        '{"action": "void", "number": 2, "reason": ""}',
        '{"action": "void", "number": 2, "reason": "r", "log": ""}',
    ):
        answer = api.put(f"/v1/matches/{HK_ID}/corrections/2", bad)
        assert answer.json()["code"] == "bad_format", bad


def test_an_abandoned_hand_is_voided_and_the_match_goes_on(api: Api) -> None:
    api.example_hand()
    void = json.dumps({"action": "void", "number": 1, "reason": "the table broke up"})
    made = api.put(f"{M}/corrections/1", void)
    assert made.status_code == 201, made.text
    hand = api.get(f"{M}/hands/1").json()
    assert hand["ended"] is True
    assert hand["events"][-1]["type"] == "wall_exhausted"
    assert set(hand["settlement"]["net"].values()) == {0}
    late = api.put(f"{M}/hands/1/events/7", '{"type": "discarded", "player": "di"}')
    assert late.json()["code"] == "hand_not_in_play"
    assert api.put(f"{M}/hands/2", '{"type": "hand_started"}').status_code == 201
    assert api.get("/v1/audit").json()["findings"] == []


def test_a_log_of_many_blocks_replays_over_http_as_in_the_library(api: Api) -> None:
    """POST /v1/replay decodes its spool block by block (1 MiB each): a log several blocks
    long, and one whose bad line lies past the first block, answer as the library does."""
    hands = 1
    while len(text := sichuan_match(hands).encode()) < 3 * BLOCK:
        hands *= 2
    assert api.replay_text(text.decode()) == replay(text.decode()).to_json()
    bad = text.decode() + '{"type": "discarded", "player": "nobody", "tile": "1m"}\n'
    refused = api.post_log("/v1/replay", bad, role="auditor")
    with pytest.raises(MjledgerError) as library:
        replay(bad)
    assert refused.status_code == CODES[library.value.code]
    assert (refused.json()["code"], refused.json()["line"]) == (
        library.value.code,
        library.value.line,
    )
