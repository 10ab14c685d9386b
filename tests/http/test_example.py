"""The spec's worked example, played through the API exactly (http-api.md, "Examples")."""

from __future__ import annotations

from tests.http.conftest import EXAMPLE_EVENTS, EXAMPLE_MATCH, Api

M = f"/v1/matches/{EXAMPLE_MATCH}"


def test_the_win_answers_the_settlement_at_once(api: Api) -> None:
    answer = api.example_hand()
    assert answer.status_code == 201
    assert answer.headers["location"] == f"{M}/hands/1/events/5"
    body = answer.json()
    assert body == {
        "match": EXAMPLE_MATCH,
        "number": 1,
        "seq": 5,
        "position": 5,
        "replayed": False,
        "ended": False,
        "settlement": {
            "number": 1,
            "dealer": "di",
            "dealer_streak": 0,
            "round_wind": "east",
            "outcome": "unfinished",
            "winners": ["cy"],
            "transfers": [
                {"from": "di", "to": "ana", "amount": 2, "reason": "kong_exposed", "line": 3},
                {"from": "ana", "to": "bo", "amount": 1, "reason": "kong_added", "line": 5},
                {"from": "cy", "to": "bo", "amount": 1, "reason": "kong_added", "line": 5},
                {"from": "di", "to": "bo", "amount": 1, "reason": "kong_added", "line": 5},
                {"from": "bo", "to": "cy", "amount": 4, "reason": "won_on_discard", "line": 6},
                {"from": "bo", "to": "cy", "amount": 3, "reason": "kong_money_passed", "line": 6},
            ],
            "net": {"ana": 1, "bo": -4, "cy": 6, "di": -3},
            "next_dealer": None,
            "correction": None,
            "open_run": True,
        },
    }
    assert answer.headers["cache-control"] == "no-store"


def test_the_same_request_again_is_200_replayed_and_writes_nothing(api: Api) -> None:
    first = api.example_hand().json()
    again = api.put(f"{M}/hands/1/events/5", EXAMPLE_EVENTS[-1])
    assert again.status_code == 200
    assert again.json() == {**first, "replayed": True}
    # key order, spacing and a field at its default do not matter
    spaced = '{ "fan":2,"from":"bo","player":"cy","type":"won_on_discard","robbing_kong":false}'
    assert api.put(f"{M}/hands/1/events/5", spaced).status_code == 200
    assert api.get(f"{M}/hands/1").json()["position"] == 5


def test_a_refused_event_leaves_the_hand_appendable_at_the_same_position(api: Api) -> None:
    api.example_hand()
    refused = api.put(f"{M}/hands/1/events/6", '{"type": "discarded", "player": "cy"}')
    assert refused.status_code == 422
    assert refused.headers["content-type"] == "application/problem+json"
    assert refused.json() == {
        "type": "urn:mjledger:problem:already_won",
        "title": "The player has already won",
        "status": 422,
        "detail": "discarded: player 'cy' has already won and takes no further part in the "
        "hand (hand 1, line 7 of the match's export)",
        "instance": f"{M}/hands/1/events/6",
        "code": "already_won",
        "line": 7,
        "event_type": "discarded",
        "position": 5,
    }
    assert api.get(f"{M}/hands/1").json()["position"] == 5
    ok = api.put(f"{M}/hands/1/events/6", '{"type": "discarded", "player": "di", "tile": "5m"}')
    assert ok.status_code == 201
    assert ok.json()["settlement"]["open_run"] is False


def test_the_loser_of_a_place_reloads_and_sends_at_the_next(api: Api) -> None:
    api.example_hand()
    a = api.put(f"{M}/hands/1/events/6", '{"type": "discarded", "player": "di", "tile": "5m"}')
    b = api.put(f"{M}/hands/1/events/6", '{"type": "self_drawn", "player": "ana", "fan": 1}')
    assert (a.status_code, b.status_code) == (201, 409)
    assert b.json()["code"] == "conflict"
    assert b.json()["position"] == 6
    again = api.put(f"{M}/hands/1/events/7", '{"type": "self_drawn", "player": "ana", "fan": 1}')
    assert again.status_code == 201
    assert again.json()["settlement"]["net"] == {"ana": 7, "bo": -7, "cy": 6, "di": -6}
    assert again.json()["ended"] is False  # blood flow: bo, di still in
