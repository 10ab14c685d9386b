"""The second set of variants, part A (issue 23; variants.md, "Variants, second set"):
``won_on_discard.new_discard`` in both rule sets, ``kong_money_passing: "refund"`` (杠上炮退税)
and ``kong_declared.from_hand`` with ``added_kong_from_hand``.

- every worked example of the section that is part A's, cited, figure by figure;
- the strict checks: each a clear error naming its line, the same on the fast path;
- the sentences read literally (one test each, quoting it).

The Hypothesis properties (zero-sum, stakes, the independent model, record → export →
re-replay, fast = strict) draw these options through tests/variant_strategies.py.
"""

from __future__ import annotations

import json
from collections import Counter
from typing import Any

import pytest

from mjledger import LogError, replay
from mjledger.explain import explain_log, money_by_player
from mjledger.explain.i18n import render_hand
from mjledger.fold.replay import replay_events
from mjledger.fold.stream import replay_json_parts
from mjledger.log.codec import read_log_bytes
from mjledger.log.reader import iter_log

from ..model import model
from ..strategies import log_text
from .test_variants import discard, drawn, run, transfers, won

P = ["ana", "bo", "cy", "di"]
ANA, BO, CY, DI = P
Line = dict[str, Any]
REFUND = {"kong_money_passing": "refund"}
UNPAID = {"added_kong_from_hand": "unpaid"}


def alone(ruleset: str = "sichuan", dealer: str = ANA, rules: Line | None = None) -> Line:
    line: Line = {"type": "hand_started", "ruleset": ruleset, "players": P, "dealer": dealer}
    if rules is not None:
        line["rules"] = rules
    return line


def kong(player: str, kind: str, frm: str | None = None, **extra: Any) -> Line:
    line: Line = {"type": "kong_declared", "player": player, "kind": kind, **extra}
    if frm is not None:
        line["from"] = frm
    return line


def agrees_with_the_model(*lines: Line) -> dict[str, Any]:
    """The replay, checked transfer for transfer against tests/model.py."""
    out = run(*lines)
    assert [transfers(h) for h in out["hands"]] == [h.transfers for h in model(list(lines)).hands]
    return out


def wall(*players: str) -> Line:
    return {"type": "wall_exhausted", "remaining": {p: {"ready": False} for p in players}}


# --- the worked examples, cited -------------------------------------------------------------


def test_worked_example_refund() -> None:
    """variants.md: "Refund, base 1: ana declares a concealed kong (bo, cy, di pay 2 each);
    ana's next discard wins for di at 2 fan: ana pays di 4, then returns 2 to each of bo, cy
    and di (line of di's win). Net: ana +6 − 4 − 6 = −4, bo 0, cy 0, di −2 + 4 + 2 = +4. With
    `true` the 6 would pass to di instead: ana −4, bo −2, cy −2, di +8." """
    lines = [alone(rules=REFUND), kong(ANA, "concealed"), won(DI, ANA, fan=2)]
    hand = agrees_with_the_model(*lines)["hands"][0]
    assert transfers(hand) == Counter(
        {
            **{(q, ANA, 2, "kong_concealed", 2): 1 for q in (BO, CY, DI)},
            (ANA, DI, 4, "won_on_discard", 3): 1,
            **{(ANA, q, 2, "kong_refund", 3): 1 for q in (BO, CY, DI)},
        }
    )
    assert hand["net"] == {ANA: -4, BO: 0, CY: 0, DI: 4}
    passing = run(alone(rules={"kong_money_passing": True}), *lines[1:])["hands"][0]
    assert passing["net"] == {ANA: -4, BO: -2, CY: -2, DI: 8}


def test_worked_example_refund_with_two_winners() -> None:
    """variants.md: "Refund with two winners (dcmshi's test, `fan_cap` 3): ana's concealed
    kong, a discard, a second concealed kong (6 again); bo and cy each win 3 fan on ana's next
    discard: ana pays 8 and 8, and refunds the second kong once (2 to each of bo, cy, di).
    Net: ana −10, bo +6, cy +6, di −2." """
    hand = agrees_with_the_model(
        alone(rules={**REFUND, "fan_cap": 3}),
        kong(ANA, "concealed"),
        discard(ANA),
        kong(ANA, "concealed"),
        won(BO, ANA, fan=3),
        won(CY, ANA, fan=3),
    )["hands"][0]
    refunds = [t for t in hand["transfers"] if t["reason"] == "kong_refund"]
    # "once per discard, not once per winner"; "every refund transfer carries the line of the
    # run's first win"
    assert sorted((t["from"], t["to"], t["amount"], t["line"]) for t in refunds) == [
        (ANA, q, 2, 5) for q in (BO, CY, DI)
    ]
    assert hand["net"] == {ANA: -10, BO: 6, CY: 6, DI: -2}


def test_worked_example_unpaid_added_kong() -> None:
    """variants.md: "Unpaid added kong: ana's `from_hand` added kong under `"unpaid"`: no
    transfer; without the key (or with `"paid"`) bo, cy and di pay 1 each." """
    added = kong(ANA, "added", from_hand=True)
    assert agrees_with_the_model(alone(rules=UNPAID), added)["hands"][0]["transfers"] == []
    for rules in (None, {"added_kong_from_hand": "paid"}):
        hand = agrees_with_the_model(alone(rules=rules), added)["hands"][0]
        assert transfers(hand) == Counter({(q, ANA, 1, "kong_added", 2): 1 for q in (BO, CY, DI)})


def test_worked_example_two_discards_in_a_row() -> None:
    """variants.md: "Two discards in a row (血战): di discards, cy wins (1 fan); the deal comes
    straight back to di, whose next discard bo wins (1 fan) … Two runs: cy is the first winner
    and deals next; without the marker the two lines are one discard with two winners and di
    (the discarder) would deal next." """
    first = {"type": "won_on_discard", "player": "cy", "from": "di", "fan": 1}
    second = {"type": "won_on_discard", "player": "bo", "from": "di", "fan": 1, "new_discard": True}
    marked = agrees_with_the_model(alone(), first, second, wall(ANA, DI))["hands"][0]
    assert marked["next_dealer"] == CY
    unmarked = {k: v for k, v in second.items() if k != "new_discard"}
    assert run(alone(), first, unmarked, wall(ANA, DI))["hands"][0]["next_dealer"] == DI


def test_the_repository_example_with_both_options_and_the_marker() -> None:
    """tests/data/variants/sichuan-kong-refund (the spec's examples/variants-2): bo's kong is
    refunded on the deal-in to cy; di's added kong from hand collects nothing and refunds
    nothing; ana's win on di's next discard is a second run, so cy alone is the first winner."""
    from ..conftest import DATA

    log = DATA / "variants" / "sichuan-kong-refund.jsonl"
    lines = [json.loads(x) for x in log.read_text(encoding="utf-8").splitlines()]
    out = agrees_with_the_model(*lines)
    assert out["hands"][0]["net"] == {ANA: 8, BO: -2, CY: 4, DI: -10}
    assert out["hands"][0]["next_dealer"] == CY


# --- new_discard: the sentences read literally ----------------------------------------------


def test_reading_new_discard_closes_the_run_before_it_and_settles_its_kong_money_first() -> None:
    """ "With it, the win closes the run before it (that run's kong money is settled first)
    and opens a new one"; "the earlier discard closed the discarder's kong window, so the later
    one passes or refunds nothing unless a kong was logged between"."""
    for rules in (None, REFUND):
        hand = agrees_with_the_model(
            alone(rules=rules),
            kong(DI, "concealed"),
            won(CY, DI, fan=1),
            won(BO, DI, fan=1, new_discard=True),
        )["hands"][0]
        kong_money = [t for t in hand["transfers"] if t["reason"] != "won_on_discard"]
        kong_money = [t for t in kong_money if t["reason"] != "kong_concealed"]
        assert {t["line"] for t in kong_money} == {3}  # cy's run only
        if rules is None:  # passed to cy alone
            assert [(t["to"], t["amount"]) for t in kong_money] == [(CY, 6)]
        else:  # refunded once, to each payer (bo among them, as a payer)
            assert sorted(t["to"] for t in kong_money) == [ANA, BO, CY]
    # a kong logged between separates the runs anyway, and its money passes to the later run
    hand = agrees_with_the_model(
        alone(),
        won(CY, DI, fan=1),
        kong(DI, "concealed"),
        won(BO, DI, fan=1, new_discard=True),
    )["hands"][0]
    assert (DI, BO, 4, "kong_money_passed", 4) in transfers(hand)


def test_reading_one_player_wins_once_per_run_and_robbing_may_follow_with_the_marker() -> None:
    """ "the rules of a run then apply to each run alone: one player wins once per run, robbing
    and ordinary wins do not mix within a run (a robbing run may follow an ordinary one from
    the same `from` when the marker separates them)"."""
    blood = alone(rules={"blood_flow": True})
    agrees_with_the_model(blood, won(CY, DI, fan=1), won(CY, DI, fan=2, new_discard=True))
    with pytest.raises(LogError, match="already won on this tile") as caught:
        run(blood, won(CY, DI, fan=1), won(CY, DI, fan=2))
    assert caught.value.line == 3
    rob = won(BO, DI, fan=1, robbing_kong=True, new_discard=True)
    agrees_with_the_model(alone(), won(CY, DI, fan=1), rob)
    with pytest.raises(LogError, match="cannot share one run") as caught:
        run(alone(), won(CY, DI, fan=1), {k: v for k, v in rob.items() if k != "new_discard"})
    assert caught.value.line == 3


def test_reading_new_discard_is_accepted_where_it_changes_nothing() -> None:
    """ "It is accepted where it changes nothing (the hand's first win; a previous line that
    is not a `won_on_discard` with the same `from`; Hong Kong, where a hand has one win)"."""
    cases = [
        [alone(), won(CY, DI, fan=1, new_discard=True)],
        [alone(), won(CY, DI, fan=1), won(BO, ANA, fan=1, new_discard=True)],
        [alone(), won(CY, DI, fan=1), discard(DI), won(BO, DI, fan=1, new_discard=True)],
        [alone(), drawn(CY, fan=1), won(BO, DI, fan=1, new_discard=True)],
        [alone("hongkong"), won(CY, DI, fan=3, new_discard=True)],
    ]
    for lines in cases:
        plain = [{k: v for k, v in line.items() if k != "new_discard"} for line in lines]
        assert run(*lines) == run(*plain)


def test_reading_the_dealer_rule_reads_the_first_run_alone() -> None:
    """ "the first run alone is the hand's first win (the dealer rule)": two winners on the
    first discard, then a later one: the discarder deals (several on the first discard)."""
    hand = agrees_with_the_model(
        alone(),
        won(CY, DI, fan=1),
        won(BO, DI, fan=1),
        won(ANA, DI, fan=1, new_discard=True),
    )["hands"][0]
    assert hand["next_dealer"] == DI
    assert hand["winners"] == [CY, BO, ANA]


def test_reading_first_turn_on_the_later_run_is_an_error() -> None:
    """ "a `first_turn` on the later run is an error (a win earlier in the hand)"."""
    first = won(CY, ANA, fan=1, first_turn=True)
    run(alone(), first)  # the dealer's first discard: allowed
    with pytest.raises(LogError, match="first_turn") as caught:
        run(alone(), first, won(BO, ANA, fan=1, first_turn=True, new_discard=True))
    assert caught.value.line == 3


def test_reading_without_blood_flow_a_winner_of_the_earlier_run_cannot_win_again() -> None:
    """ "without blood flow a winner of the earlier run cannot win again (they have left the
    hand: an error, as always)"."""
    with pytest.raises(LogError, match="already won") as caught:
        run(alone(), won(CY, DI, fan=1), won(CY, DI, fan=1, new_discard=True))
    assert caught.value.line == 3


# --- refund: the sentences read literally ---------------------------------------------------


def test_reading_no_refund_on_a_robbing_win_nor_on_an_empty_window() -> None:
    """ "Nothing happens on a robbing win (the robbed kong was never paid; the robbing still
    ends the robbed player's window), nor on a win whose discarder's window is empty"."""
    robbed = agrees_with_the_model(
        alone(rules=REFUND),
        kong(ANA, "concealed"),
        won(BO, ANA, fan=1, robbing_kong=True),
        discard(CY),
        won(DI, ANA, fan=1),
    )["hands"][0]
    assert all(t["reason"] != "kong_refund" for t in robbed["transfers"])
    empty = run(alone(rules=REFUND), kong(ANA, "concealed"), discard(ANA), won(BO, ANA, fan=1))
    assert all(t["reason"] != "kong_refund" for t in empty["hands"][0]["transfers"])


def test_reading_only_the_last_kong_goes_back_and_the_wall_never_returns_it_twice() -> None:
    """ "The window's earlier kongs stay the konger's (refundable at the wall as usual)";
    "Money refunded here is no longer the konger's: the wall's refund never returns it twice";
    "every player who paid that kong, winners included"; "each payer's own amount"."""
    hand = agrees_with_the_model(
        alone(rules=REFUND),
        kong(ANA, "exposed", BO),  # bo pays 2 × base
        kong(ANA, "concealed"),  # bo, cy, di pay 2 each
        won(BO, ANA, fan=0),
        wall(ANA, CY, DI),
    )["hands"][0]
    refunds = Counter((t["to"], t["amount"], t["line"]) for t in hand["transfers"])
    # the concealed kong (the last) on the deal-in, to bo the winner too; the exposed one at
    # the wall (ana is not ready), to bo who fed it
    assert refunds[(BO, 2, 4)] == 1
    assert refunds[(CY, 2, 4)] == 1
    assert refunds[(DI, 2, 4)] == 1
    at_wall = [t for t in hand["transfers"] if t["reason"] == "kong_refund" and t["line"] == 5]
    assert [(t["from"], t["to"], t["amount"]) for t in at_wall] == [(ANA, BO, 2)]


def test_reading_refund_to_winners_does_not_apply_on_a_deal_in() -> None:
    """ "`refund_to_winners` is a key of the wall's refund only and does not apply here"."""
    hand = agrees_with_the_model(
        alone(rules={**REFUND, "refund_to_winners": False}),
        drawn(CY, fan=0),
        kong(ANA, "concealed"),
        won(BO, ANA, fan=0),
    )["hands"][0]
    assert (ANA, CY, 2, "kong_refund", 4) not in transfers(hand)  # cy had left: never paid
    assert (ANA, BO, 2, "kong_refund", 4) in transfers(hand)
    blood = agrees_with_the_model(
        alone(rules={**REFUND, "refund_to_winners": False, "blood_flow": True}),
        drawn(CY, fan=0),
        kong(ANA, "concealed"),
        won(BO, ANA, fan=0),
    )["hands"][0]
    # "under blood flow every player paid, so every other player is refunded"
    assert {t["to"] for t in blood["transfers"] if t["reason"] == "kong_refund"} == {BO, CY, DI}


def test_reading_a_bust_konger_refunds_nothing_and_the_kong_counts_as_refunded() -> None:
    """ "the refund is a batch like any other: a konger whose balance no longer covers it pays
    back what they hold, split by the stakes rule; a bust konger refunds nothing. Either way
    that kong's money then counts as refunded"."""
    lines = [
        {
            "type": "match_started",
            "ruleset": "sichuan",
            "players": P,
            "rules": REFUND,
            "stakes": {ANA: 1, BO: 100, CY: 100, DI: 100},
        },
        {"type": "hand_started"},
        kong(ANA, "concealed"),  # ana 7
        won(BO, ANA, fan=3),  # ana owes 8, holds 7: pays 7, is bust, refunds nothing
    ]
    hand = agrees_with_the_model(*lines)["hands"][0]
    assert all(t["reason"] != "kong_refund" for t in hand["transfers"])
    assert hand["balances"][ANA] == 0


def test_reading_the_refinements_must_be_at_their_defaults_under_refund() -> None:
    """ "`kong_passing_split` other than `"split"` or `kong_passing_scope` other than `"all"`
    with `"refund"` is an error of the line that sets the rules"; "Older combinations (such as
    `kong_money_passing: false` with a `kong_passing_split`) stay accepted"."""
    for key, value in (
        ("kong_passing_split", "none"),
        ("kong_passing_split", "each_full"),
        ("kong_passing_scope", "last"),
    ):
        with pytest.raises(LogError, match=key) as caught:
            run(alone(rules={**REFUND, key: value}))
        assert caught.value.line == 1
    run(alone(rules={**REFUND, "kong_passing_split": "split", "kong_passing_scope": "all"}))
    run(alone(rules={"kong_money_passing": False, "kong_passing_split": "each_full"}))
    # "the older keys kong_money_passing and fan_limit are listed always"
    assert run(alone(rules=REFUND))["rules"]["kong_money_passing"] == "refund"
    assert run(alone())["rules"]["kong_money_passing"] is True
    assert "added_kong_from_hand" not in run(alone(rules={"added_kong_from_hand": "paid"}))["rules"]


# --- the added kong from hand: the sentences read literally ---------------------------------


def test_reading_an_unpaid_kong_joins_the_window_with_no_money() -> None:
    """ "it joins its declarer's window with no money — so under `kong_passing_scope: "last"` or
    `kong_money_passing: "refund"` a discard win right after it moves nothing, while under
    `"all"` the money of the window's earlier kongs still passes"."""
    body = [kong(ANA, "concealed"), kong(ANA, "added", from_hand=True), won(BO, ANA, fan=0)]
    moved = {
        "last": {"kong_passing_scope": "last"},
        "refund": REFUND,
        "all": {},
    }
    for name, rules in moved.items():
        hand = agrees_with_the_model(alone(rules={**UNPAID, **rules}), *body)["hands"][0]
        money = [t for t in hand["transfers"] if t["line"] == 4 and t["reason"] != "won_on_discard"]
        assert (money == []) == (name != "all"), name
        if name == "all":
            assert [(t["to"], t["amount"]) for t in money] == [(BO, 6)]


def test_reading_an_unpaid_kong_is_still_a_kong() -> None:
    """ "It is still a kong for everything else: it ends every first turn, its replacement tile
    can make a kong bloom … There is nothing for the wall's refund to return from it"."""
    with pytest.raises(LogError, match="first_turn"):
        run(
            alone(rules=UNPAID),
            kong(BO, "added", from_hand=True),
            drawn(CY, first_turn=True, fan=1),
        )
    tiles = {"tiles": "123m456m789m1p", "winning_tile": "1p"}
    melds = {"melds": [{"kind": "kong", "tiles": "5555p"}]}
    win = drawn(BO, **tiles, **melds)
    bloom = run(alone(rules=UNPAID), kong(BO, "added", from_hand=True), win)["hands"][0]
    paid = run(alone(), kong(BO, "added", from_hand=True), win)["hands"][0]
    later = run(alone(rules=UNPAID), kong(BO, "added", from_hand=True), discard(CY), win)
    assert bloom["transfers"] == [t for t in paid["transfers"] if t["reason"] == "self_drawn"]
    amount = bloom["transfers"][0]["amount"]
    assert amount > later["hands"][0]["transfers"][0]["amount"]  # the bloom's fan
    at_wall = run(alone(rules=UNPAID), kong(BO, "added", from_hand=True), wall(*P))["hands"][0]
    assert all(t["reason"] != "kong_refund" for t in at_wall["transfers"])


# --- strict checks --------------------------------------------------------------------------

BAD: list[tuple[str, list[Line], int, str]] = [
    ("new_discard not a boolean", [alone(), won(CY, DI, fan=1, new_discard=1)], 2, "new_discard"),
    ("new_discard null", [alone(), won(CY, DI, fan=1, new_discard=None)], 2, "new_discard"),
    ("new_discard on a self-draw", [alone(), drawn(CY, fan=1, new_discard=True)], 2, "unknown"),
    ("new_discard on a discard", [alone(), {**discard(CY), "new_discard": True}], 2, "unknown"),
    ("from_hand on a concealed kong", [alone(), kong(CY, "concealed", from_hand=True)], 2, "added"),
    (
        "from_hand false on a concealed",
        [alone(), kong(CY, "concealed", from_hand=False)],
        2,
        "added",
    ),
    (
        "from_hand on an exposed kong",
        [alone(), kong(CY, "exposed", DI, from_hand=True)],
        2,
        "added",
    ),
    (
        "from_hand in Hong Kong",
        [alone("hongkong"), kong(CY, "added", from_hand=True)],
        2,
        "from_hand",
    ),
    (
        "from_hand false in Hong Kong",
        [alone("hongkong"), kong(CY, "added", from_hand=False)],
        2,
        "from_hand",
    ),
    ("from_hand not a boolean", [alone(), kong(CY, "added", from_hand="yes")], 2, "from_hand"),
    (
        "refund spelt otherwise",
        [alone(rules={"kong_money_passing": "Refund"})],
        1,
        "kong_money_passing",
    ),
    ("refund as a number", [alone(rules={"kong_money_passing": 1})], 1, "kong_money_passing"),
    (
        "an unknown from-hand rule",
        [alone(rules={"added_kong_from_hand": "free"})],
        1,
        "added_kong_from_hand",
    ),
    (
        "the from-hand rule in Hong Kong",
        [alone("hongkong", rules=UNPAID)],
        1,
        "added_kong_from_hand",
    ),
    ("refund in Hong Kong", [alone("hongkong", rules=REFUND)], 1, "kong_money_passing"),
]


@pytest.mark.parametrize(("lines", "line", "needle"), [c[1:] for c in BAD], ids=[c[0] for c in BAD])
def test_a_bad_line_is_a_clear_error_naming_its_line_the_same_on_every_path(
    lines: list[Line], line: int, needle: str
) -> None:
    text = log_text(lines)
    with pytest.raises(LogError) as caught:
        replay(text)
    assert caught.value.line == line
    assert needle in str(caught.value)

    data = text.encode("utf-8")
    strict = _error(lambda: replay_events(read_log_bytes(data)))
    assert strict == (str(caught.value), line)
    assert _error(lambda: b"".join(replay_json_parts(iter_log([data])))) == strict


def _error(read: Any) -> tuple[str, int | None]:
    try:
        read()
    except LogError as exc:
        return str(exc), exc.line
    raise AssertionError("accepted")


def test_an_added_kong_from_a_drawn_tile_may_say_so() -> None:
    """ "`from_hand` is a boolean (`false` = absent)": `false` on an added kong pays as any."""
    hand = run(alone(rules=UNPAID), kong(ANA, "added", from_hand=False))["hands"][0]
    assert len(hand["transfers"]) == 3


# --- explained, in six languages ------------------------------------------------------------


@pytest.mark.parametrize("lang", ["en", "es", "fr", "it", "pt", "zh"])
def test_the_refund_and_the_unpaid_kong_are_explained_with_their_sums(lang: str) -> None:
    text = log_text(
        [
            alone(rules={**REFUND, **UNPAID}),
            kong(ANA, "concealed"),
            kong(ANA, "added", from_hand=True),
            discard(ANA),
            kong(BO, "concealed"),
            won(DI, BO, fan=2),
        ]
    )
    (hand,) = explain_log(text)
    assert money_by_player(hand) == replay(text).hands[0].net()
    rendered = render_hand(hand, lang)
    assert "added_kong_from_hand = unpaid" in rendered
    assert "kong_money_passing = refund" in rendered
    assert "{" not in rendered
