"""Logs that carry tiles (log-format.md, "Tiles (optional)"; rules.md, "Fan from tiles").

The figures are worked by hand from rules.md; each tiles log is checked against the same log
with the fans and wall facts asserted, which must settle identically.
"""

from __future__ import annotations

import json

import pytest

from mjledger import LogError, replay

HEAD = [
    {"type": "hand_started", "ruleset": "sichuan", "players": ["a", "b", "c", "d"], "dealer": "a"},
    {"type": "void_suit_chosen", "player": "a", "suit": "m"},
    {"type": "void_suit_chosen", "player": "b", "suit": "p"},
    {"type": "void_suit_chosen", "player": "c", "suit": "s"},
    {"type": "void_suit_chosen", "player": "d", "suit": "m"},
    {"type": "kong_declared", "player": "b", "kind": "concealed", "tile": "4s"},
    {"type": "discarded", "player": "b", "tile": "1p"},
    {"type": "discarded", "player": "c", "tile": "6m"},
]
B_KONG = [{"kind": "kong", "tiles": "4444s", "concealed": True}]


def log(*lines: dict) -> str:
    return "\n".join(json.dumps(line) for line in lines) + "\n"


def sichuan_hand(*, tiles: bool) -> str:
    # line 9: d wins on c's 7p with seven pairs, all dots: 七对 2 + 清一色 2 = 4 fan.
    d_win = {"type": "won_on_discard", "player": "d", "from": "c"}
    d_win |= {"tiles": "1122334455667p", "winning_tile": "7p"} if tiles else {"fan": 4}
    # line 11: c self-draws a plain hand (123 456 789m, 222p, 11p): 0 fan.
    c_win = {"type": "self_drawn", "player": "c"}
    c_win |= {"tiles": "123456789m1122p", "winning_tile": "2p"} if tiles else {"fan": 0}
    # line 13: a is ready on 6s/9s with a plain hand (best 0); b holds isolated tiles.
    if tiles:
        remaining = {
            "a": {"tiles": "111234567p9978s", "melds": []},
            "b": {"tiles": "13579m13579s", "melds": B_KONG},
        }
    else:
        remaining = {"a": {"ready": True, "best_fan": 0}, "b": {"ready": False}}
    return log(
        *HEAD,
        d_win,
        {"type": "discarded", "player": "a", "tile": "2m"},
        c_win,
        {"type": "discarded", "player": "a", "tile": "8p"},
        {"type": "wall_exhausted", "remaining": remaining},
    )


def test_tiles_settle_like_asserted_facts() -> None:
    with_tiles = replay(sichuan_hand(tiles=True)).to_json()
    asserted = replay(sichuan_hand(tiles=False)).to_json()
    assert with_tiles == asserted
    hand = with_tiles["hands"][0]
    won = [t for t in hand["transfers"] if t["reason"] == "won_on_discard"]
    # rules.md "A win": base × 2^min(4, 4) = 16 from the discarder.
    assert won == [{"from": "c", "to": "d", "amount": 16, "reason": "won_on_discard", "line": 9}]
    # Not ready: b pays the ready a base × 2^0 = 1; refund: b returns 2 to each payer.
    assert {(t["from"], t["to"], t["amount"], t["reason"]) for t in hand["transfers"]} >= {
        ("b", "a", 1, "not_ready"),
        ("b", "a", 2, "kong_refund"),
        ("b", "c", 2, "kong_refund"),
        ("b", "d", 2, "kong_refund"),
    }


def test_a_fan_that_disagrees_with_the_tiles_is_rejected_naming_both() -> None:
    text = sichuan_hand(tiles=True).replace(
        '"winning_tile": "7p"}', '"winning_tile": "7p", "fan": 3}'
    )
    with pytest.raises(LogError) as caught:
        replay(text)
    assert caught.value.line == 9
    assert "fan 3" in str(caught.value)
    assert "make 4" in str(caught.value)


def test_a_matching_fan_is_accepted() -> None:
    text = sichuan_hand(tiles=True).replace(
        '"winning_tile": "7p"}', '"winning_tile": "7p", "fan": 4}'
    )
    assert replay(text).totals() == replay(sichuan_hand(tiles=False)).totals()


@pytest.mark.parametrize(
    ("tiles", "winning", "problem"),
    [
        ("1111223344556p", "1p", "5 times"),  # a fifth copy of 1p
        ("1122334455667p", "9p", "not a complete hand"),  # not a complete hand
        ("112233445566p", "7p", "has 14"),  # wrong size
        ("1122334455667m", "7m", "void suit"),  # holds the winner's void suit (m for d)
    ],
)
def test_impossible_wins_are_rejected_on_their_line(tiles: str, winning: str, problem: str) -> None:
    text = sichuan_hand(tiles=True).replace(
        '"tiles": "1122334455667p", "winning_tile": "7p"',
        f'"tiles": "{tiles}", "winning_tile": "{winning}"',
    )
    with pytest.raises(LogError) as caught:
        replay(text)
    assert caught.value.line == 9
    assert problem in str(caught.value)


def test_a_fifth_copy_across_the_wall_entries_is_rejected() -> None:
    # 1p ×3 in a's hand and 1p ×2 in b's: five copies on one line.
    text = sichuan_hand(tiles=True).replace('"13579m13579s"', '"11p579m13579s"')
    with pytest.raises(LogError) as caught:
        replay(text)
    assert caught.value.line == 13


def test_a_flower_pig_is_derived_from_tiles() -> None:
    # b still holds 5p, its void suit: a flower pig pays every non-pig 2^fan_cap = 16.
    text = sichuan_hand(tiles=True).replace('"13579m13579s"', '"5p3579m13579s"')
    hand = replay(text).to_json()["hands"][0]
    pig = [t for t in hand["transfers"] if t["reason"] == "flower_pig"]
    assert sorted((t["from"], t["to"], t["amount"]) for t in pig) == [
        ("b", "a", 16),
        ("b", "c", 16),
        ("b", "d", 16),
    ]


def test_kong_bloom_adds_a_fan_from_the_log_itself() -> None:
    # rules.md: +1 for winning on a kong's replacement tile (杠上花): c declares a concealed
    # kong and self-draws at once; plain hand 0 + 根 1 (the kong) + 杠上花 1 = 2 fan.
    lines = [
        *HEAD[:5],
        {"type": "kong_declared", "player": "c", "kind": "concealed", "tile": "9m"},
        {
            "type": "self_drawn",
            "player": "c",
            "tiles": "123456m1122p",
            "winning_tile": "2p",
            "melds": [{"kind": "kong", "tiles": "9999m", "concealed": True}],
            "fan": 2,
        },
    ]
    hand = replay(log(*lines)).to_json()["hands"][0]
    drawn = [t for t in hand["transfers"] if t["reason"] == "self_drawn"]
    assert {t["amount"] for t in drawn} == {4 + 1}  # 2^2 + 1 base self-draw bonus


def test_a_hong_kong_win_from_tiles_uses_seat_and_round_wind() -> None:
    # b sits south (a deals); round east. b holds a pung of east (round wind, 1 faan), a pung
    # of south (seat wind, 1 faan), all pungs (3) and a concealed hand (1): 6 faan, on a's
    # discard — the half-spicy 32 units, paid double by the discarder: 64.
    lines = [
        {
            "type": "hand_started",
            "ruleset": "hongkong",
            "players": ["a", "b", "c", "d"],
            "dealer": "a",
        },
        {
            "type": "won_on_discard",
            "player": "b",
            "from": "a",
            "tiles": "111z222z555m999p3s",
            "winning_tile": "3s",
        },
    ]
    result = replay(log(*lines)).to_json()["hands"][0]
    assert result["winners"] == ["b"]
    amount = result["transfers"][0]["amount"]
    asserted = replay(
        log(
            lines[0],
            {**{k: v for k, v in lines[1].items() if k not in ("tiles", "winning_tile")}, "fan": 6},
        )
    ).to_json()
    assert amount == asserted["hands"][0]["transfers"][0]["amount"] == 64


def _hong_kong_self_draw_after(discards: list[str], **flags: bool) -> int:
    lines = [
        {
            "type": "hand_started",
            "ruleset": "hongkong",
            "players": ["a", "b", "c", "d"],
            "dealer": "a",
        },
        *({"type": "discarded", "player": p} for p in discards),
        {
            "type": "self_drawn",
            "player": "c",
            "tiles": "123m456m789m123p5p",
            "winning_tile": "5p",
            **flags,
        },
    ]
    return replay(log(*lines)).to_json()["hands"][0]["transfers"][0]["amount"]


def test_earthly_needs_first_turn_and_is_never_inferred() -> None:
    """variants.md: "mjledger never infers a first turn from lines a log leaves out"."""
    # A common hand, concealed, self-drawn: 1 + 1 + 1 = 3 faan, 8 units from each player.
    assert _hong_kong_self_draw_after(["a", "b", "c", "d", "a", "b"]) == 8
    # Before c's own first discard but without the flag: still 3 faan (0.1 paid 128 as 地糊).
    assert _hong_kong_self_draw_after(["a", "b"]) == 8
    # With "first_turn": 地糊, a limit hand (128 units at 10).
    assert _hong_kong_self_draw_after(["a", "b"], first_turn=True) == 128
    # The log contradicts it when c has discarded.
    with pytest.raises(LogError) as caught:
        _hong_kong_self_draw_after(["a", "b", "c"], first_turn=True)
    assert caught.value.line == 5
    assert "first_turn" in str(caught.value)


def test_a_plain_fan_on_a_hand_the_tiles_make_a_limit_is_rejected() -> None:
    # The dealer's self-draw on the first turn is 天糊, a limit hand: "fan": 2 contradicts it.
    start = {"type": "hand_started", "ruleset": "hongkong", "players": ["a", "b", "c", "d"]}
    start["dealer"] = "a"
    win = {
        "type": "self_drawn",
        "player": "a",
        "tiles": "123m456m789m22z55z",
        "winning_tile": "5z",
        "first_turn": True,
    }
    with pytest.raises(LogError) as caught:
        replay(log(start, {**win, "fan": 2}))
    assert caught.value.line == 2
    assert "limit hand" in str(caught.value)
    # With "limit": true the hand is worth the limit whatever fan is given (rules.md).
    limit = replay(log(start, {**win, "fan": 2, "limit": True})).to_json()
    assert limit == replay(log(start, win)).to_json()
    assert limit["hands"][0]["transfers"][0]["amount"] == 128
