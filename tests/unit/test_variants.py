"""The variants of variants.md (issue 9): worked examples, strict checks, and properties.

- every log in tests/data/variants/ replays to its expected output (worked in its README);
- every worked example of variants.md, cited, figure by figure;
- the codec's and the folds' strict checks: each a clear error naming the line;
- Hypothesis over random legal logs with variants switched on (tests/variant_strategies.py):
  zero-sum; with stakes no balance below zero and no payment above what was due; under
  blood_flow the totals are the sum of the per-event settlements; and the independent model
  of the spec (tests/model.py) agrees with the fold, transfer for transfer.
"""

from __future__ import annotations

import json
from collections import Counter
from pathlib import Path
from typing import Any

import pytest
from hypothesis import given

from mjledger import LogError, replay
from mjledger.explain import explain_log, money_by_player
from mjledger.explain.i18n import render_hand

from ..conftest import DATA
from ..helpers import comparable_output as comparable
from ..model import HK_VARIANT_DEFAULTS, SC_VARIANT_DEFAULTS, model
from ..strategies import log_text
from ..variant_strategies import variant_logs

VARIANTS = DATA / "variants"
CASES = sorted(VARIANTS.glob("*.jsonl"))
P = ["ana", "bo", "cy", "di"]
ANA, BO, CY, DI = P
Line = dict[str, Any]


def run(*lines: Line) -> dict[str, Any]:
    return replay(log_text(list(lines))).to_json()


def transfers(hand: dict[str, Any]) -> Counter[tuple[Any, ...]]:
    return Counter(
        (t["from"], t["to"], t["amount"], t["reason"], t["line"]) for t in hand["transfers"]
    )


def match(ruleset: str, rules: Line | None = None, **extra: Any) -> Line:
    line: Line = {"type": "match_started", "ruleset": ruleset, "players": P}
    if rules is not None:
        line["rules"] = rules
    line.update(extra)
    return line


def alone(ruleset: str, dealer: str = ANA, rules: Line | None = None) -> Line:
    line: Line = {"type": "hand_started", "ruleset": ruleset, "players": P, "dealer": dealer}
    if rules is not None:
        line["rules"] = rules
    return line


HAND: Line = {"type": "hand_started"}


def won(player: str, frm: str, **extra: Any) -> Line:
    return {"type": "won_on_discard", "player": player, "from": frm, **extra}


def drawn(player: str, **extra: Any) -> Line:
    return {"type": "self_drawn", "player": player, **extra}


def discard(player: str) -> Line:
    return {"type": "discarded", "player": player}


def kong(player: str, kind: str, frm: str | None = None) -> Line:
    line: Line = {"type": "kong_declared", "player": player, "kind": kind}
    if frm is not None:
        line["from"] = frm
    return line


# --- the project's own variant examples -----------------------------------------------------


def test_every_variant_example_has_its_expected_output() -> None:
    assert len(CASES) >= 15
    for log in CASES:
        assert log.with_name(log.stem + ".expected.json").is_file(), log.name


@pytest.mark.parametrize("log", CASES, ids=lambda p: p.stem)
def test_variant_example_replays_to_its_expected_output(log: Path) -> None:
    want = json.loads(log.with_name(log.stem + ".expected.json").read_text(encoding="utf-8"))
    got = replay(log.read_text(encoding="utf-8")).to_json()
    assert comparable(got) == comparable(want)


def _lines(log: Path) -> list[Line]:
    return [json.loads(x) for x in log.read_text(encoding="utf-8").splitlines() if x.strip()]


# The model does not evaluate tiles: the logs with tiles have hand-worked outputs only.
WITHOUT_TILES = [log for log in CASES if not any("tiles" in line for line in _lines(log))]


@pytest.mark.parametrize("log", WITHOUT_TILES, ids=lambda p: p.stem)
def test_variant_example_agrees_with_the_model(log: Path) -> None:
    got = replay(log.read_text(encoding="utf-8")).to_json()
    m = model(_lines(log))
    assert [transfers(h) for h in got["hands"]] == [h.transfers for h in m.hands]


# --- the worked examples of variants.md, cited ----------------------------------------------


def test_worked_example_half_gun() -> None:
    """variants.md: "Half gun, 4 fan half-spicy (16 units), `points_per_unit` 2: share 32; the
    discarder pays 32, each other player 16; the winner collects 64." """
    out = run(
        alone("hongkong", rules={"points_per_unit": 2, "discard_pays": "half"}), won(CY, BO, fan=4)
    )
    assert transfers(out["hands"][0]) == Counter(
        {
            (BO, CY, 32, "won_on_discard", 2): 1,
            (ANA, CY, 16, "won_on_discard", 2): 1,
            (DI, CY, 16, "won_on_discard", 2): 1,
        }
    )
    assert out["hands"][0]["net"] == {ANA: -16, BO: -32, CY: 64, DI: -16}


def test_worked_example_liable_self_draw() -> None:
    """variants.md: "Liable self-draw, 3 fan (8 units), ppu 1: the liable player pays 24, the
    others nothing." """
    out = run(alone("hongkong"), drawn(DI, fan=3, liable=ANA))
    assert transfers(out["hands"][0]) == Counter({(ANA, DI, 24, "liability", 2): 1})


def test_worked_example_false_win() -> None:
    """variants.md: "False win, half-spicy, `fan_limit` 8, ppu 1: a limit self-draw collects
    3 × 64 = 192; the false winner pays 192 to each of three (576 in all)." """
    out = run(alone("hongkong", rules={"fan_limit": 8}), {"type": "false_win", "player": BO})
    hand = out["hands"][0]
    assert transfers(hand) == Counter({(BO, q, 192, "false_win", 2): 1 for q in (ANA, CY, DI)})
    assert hand["net"][BO] == -576
    assert hand["outcome"] == "void"
    assert hand["winners"] == []
    assert hand["next_dealer"] == ANA  # void_hand_dealer "stays" by default


def test_worked_example_each_full() -> None:
    """variants.md: "`kong_passing_split: "each_full"`: a concealed kong collected 6; two
    winners on the konger's next discard each receive 6 passed (the konger pays 12 in all)." """
    out = run(
        alone("sichuan", rules={"kong_passing_split": "each_full"}),
        kong(ANA, "concealed"),
        won(BO, ANA, fan=1),
        won(CY, ANA, fan=1),
    )
    passed = [t for t in out["hands"][0]["transfers"] if t["reason"] == "kong_money_passed"]
    assert sorted((t["from"], t["to"], t["amount"]) for t in passed) == [(ANA, BO, 6), (ANA, CY, 6)]
    assert sum(t["amount"] for t in passed) == 12


def test_worked_example_stakes() -> None:
    """variants.md: "Stakes 5 / 100 / 100 / 100 (ana, bo, cy, di), Sichuan base 1, cap 4: cy
    self-draws 3 fan (bonus `base`): ana owes 9 but holds 5, so ana pays 5 and is bust; bo and
    di pay 9 each. cy collects 23, and the match ends with this hand." """
    stakes = {ANA: 5, BO: 100, CY: 100, DI: 100}
    lines = [match("sichuan", stakes=stakes), HAND, drawn(CY, fan=3)]
    out = run(*lines)
    hand = out["hands"][0]
    assert transfers(hand) == Counter(
        {
            (ANA, CY, 5, "self_drawn", 3): 1,
            (BO, CY, 9, "self_drawn", 3): 1,
            (DI, CY, 9, "self_drawn", 3): 1,
        }
    )
    assert hand["net"][CY] == 23
    assert hand["balances"] == {ANA: 0, BO: 91, CY: 123, DI: 91}
    assert out["stakes"] == stakes
    # "the match ends with the hand in which anyone went bust (`next_dealer` null; a further
    # hand is an error)"
    ended = [
        *lines,
        discard(BO),
        {
            "type": "wall_exhausted",
            "remaining": {ANA: {"ready": False}, BO: {"ready": False}, DI: {"ready": False}},
        },
    ]
    assert run(*ended)["hands"][0]["next_dealer"] is None
    with pytest.raises(LogError) as caught:
        run(*ended, HAND)
    assert caught.value.line == len(ended) + 1


def test_first_turn_is_never_inferred() -> None:
    """variants.md: "mjledger never infers a first turn from lines a log leaves out"; issue 9:
    a 3-faan Hong Kong self-draw with tiles and no discards logged was paid 128 a player."""
    tiles = {"tiles": "123m456m789m123p5p", "winning_tile": "5p"}
    plain = run(alone("hongkong"), drawn(CY, **tiles))
    assert transfers(plain["hands"][0]) == Counter(
        {(q, CY, 8, "self_drawn", 2): 1 for q in (ANA, BO, DI)}
    )
    flagged = run(alone("hongkong"), drawn(CY, first_turn=True, **tiles))
    assert transfers(flagged["hands"][0]) == Counter(
        {(q, CY, 128, "self_drawn", 2): 1 for q in (ANA, BO, DI)}
    )


def test_first_turn_without_tiles_is_paid_as_logged() -> None:
    """variants.md: "Without tiles the logged `fan`/`limit` is paid as given (the flag is
    validated and stored, and `export` keeps it)." """
    out = run(alone("hongkong"), drawn(ANA, fan=3, first_turn=True))
    assert transfers(out["hands"][0]) == Counter(
        {(q, ANA, 8, "self_drawn", 2): 1 for q in (BO, CY, DI)}
    )
    sichuan = run(alone("sichuan", rules={"heavenly": True}), drawn(ANA, fan=1, first_turn=True))
    assert transfers(sichuan["hands"][0]) == Counter(
        {(q, ANA, 3, "self_drawn", 2): 1 for q in (BO, CY, DI)}
    )


def test_a_variant_key_at_its_default_is_accepted_and_not_listed() -> None:
    """variants.md: "A variant key set to its default is accepted and not listed in the
    output's `rules`." """
    hk = {"discard_pays": "double", **HK_VARIANT_DEFAULTS}
    sc = {"kong_passing_split": "split", **SC_VARIANT_DEFAULTS}
    assert run(alone("hongkong", rules=hk))["rules"] == run(alone("hongkong"))["rules"]
    assert run(alone("sichuan", rules=sc))["rules"] == run(alone("sichuan"))["rules"]
    on = run(alone("sichuan", rules={"blood_flow": True, "pig_pays": "still_in"}))["rules"]
    assert on == {**run(alone("sichuan"))["rules"], "blood_flow": True, "pig_pays": "still_in"}


# --- strict checks: each a clear error naming the line --------------------------------------

TILES = {"tiles": "123m456m789m123p5p", "winning_tile": "5p"}
STAKES = {ANA: 10, BO: 10, CY: 10, DI: 10}
BAD: list[tuple[str, list[Line], int, str]] = [
    ("a Sichuan key in Hong Kong", [match("hongkong", {"blood_flow": True})], 1, "blood_flow"),
    (
        "a Hong Kong key in Sichuan",
        [match("sichuan", {"void_hand_dealer": "passes"})],
        1,
        "void_hand_dealer",
    ),
    (
        "half with an odd points_per_unit",
        [match("hongkong", {"discard_pays": "half", "points_per_unit": 3})],
        1,
        "points_per_unit",
    ),
    (
        "half with the default points_per_unit",
        [alone("hongkong", rules={"discard_pays": "half"})],
        1,
        "points_per_unit",
    ),
    (
        "an unknown variant value",
        [match("sichuan", {"kong_passing_split": "each"})],
        1,
        "kong_passing_split",
    ),
    ("a number for a boolean variant", [match("sichuan", {"blood_flow": 1})], 1, "blood_flow"),
    ("liable naming the winner", [alone("hongkong"), drawn(BO, fan=3, liable=BO)], 2, "liable"),
    ("liable not at the table", [alone("hongkong"), drawn(BO, fan=3, liable="zed")], 2, "zed"),
    ("liable in Sichuan", [alone("sichuan"), drawn(BO, fan=3, liable=CY)], 2, "liable"),
    ("liable not a string", [alone("hongkong"), drawn(BO, fan=3, liable=3)], 2, "liable"),
    (
        "a false win in Sichuan",
        [alone("sichuan"), {"type": "false_win", "player": BO}],
        2,
        "false_win",
    ),
    (
        "a false win by no one at the table",
        [alone("hongkong"), {"type": "false_win", "player": "zed"}],
        2,
        "zed",
    ),
    (
        "a false win with a fan",
        [alone("hongkong"), {"type": "false_win", "player": BO, "fan": 3}],
        2,
        "unknown field: fan",
    ),
    ("stakes missing a player", [match("sichuan", stakes={ANA: 1, BO: 1, CY: 1})], 1, "di"),
    ("stakes naming a stranger", [match("sichuan", stakes={**STAKES, "zed": 1})], 1, "zed"),
    ("a stake of 0", [match("sichuan", stakes={**STAKES, DI: 0})], 1, "stake"),
    ("a stake above 10^12", [match("sichuan", stakes={**STAKES, DI: 10**12 + 1})], 1, "stake"),
    ("a stake of true", [match("sichuan", stakes={**STAKES, DI: True})], 1, "true"),
    ("a stake of 5.0", [match("sichuan", stakes={**STAKES, DI: 5.0})], 1, "5.0"),
    ("stakes on a stand-alone hand", [{**alone("sichuan"), "stakes": STAKES}], 1, "stakes"),
    (
        "first_turn not a boolean",
        [alone("hongkong"), drawn(ANA, fan=3, first_turn=1)],
        2,
        "first_turn",
    ),
    (
        "first_turn after a kong",
        [alone("hongkong"), kong(BO, "concealed"), drawn(ANA, fan=3, first_turn=True)],
        3,
        "first_turn",
    ),
    (
        "first_turn after a discard (heavenly)",
        [alone("hongkong"), discard(BO), drawn(ANA, fan=3, first_turn=True)],
        3,
        "first_turn",
    ),
    (
        "first_turn after the winner's discard (earthly)",
        [alone("hongkong"), discard(BO), drawn(BO, fan=3, first_turn=True)],
        3,
        "first_turn",
    ),
    (
        "first_turn on a discard after a discard",
        [alone("hongkong"), discard(ANA), won(BO, ANA, fan=3, first_turn=True)],
        3,
        "first_turn",
    ),
    (
        "first_turn on a discard not the dealer's",
        [alone("hongkong"), won(BO, CY, fan=3, first_turn=True)],
        2,
        "dealer",
    ),
    (
        "first_turn after a win",
        [alone("sichuan"), drawn(BO, fan=1), drawn(CY, fan=1, first_turn=True)],
        3,
        "first_turn",
    ),
    (
        "first_turn after an exposed kong",
        [alone("sichuan"), kong(CY, "exposed", ANA), drawn(BO, fan=1, first_turn=True)],
        3,
        "first_turn",
    ),
    (
        "first_turn with a meld",
        [
            alone("hongkong"),
            drawn(
                ANA,
                first_turn=True,
                tiles="456m789m123p5p",
                winning_tile="5p",
                melds=[{"kind": "pung", "tiles": "111m"}],
            ),
        ],
        2,
        "meld",
    ),
    (
        "first_turn with a concealed kong",
        [
            alone("hongkong"),
            drawn(
                ANA,
                first_turn=True,
                tiles="456m789m123p5p",
                winning_tile="5p",
                melds=[{"kind": "kong", "tiles": "1111m", "concealed": True}],
            ),
        ],
        2,
        "meld",
    ),
    (
        "a winner twice on one discard (blood flow)",
        [alone("sichuan", rules={"blood_flow": True}), won(BO, ANA, fan=1), won(BO, ANA, fan=1)],
        3,
        "bo",
    ),
    (
        "blood flow: the wall leaves out a winner",
        [
            alone("sichuan", rules={"blood_flow": True}),
            drawn(BO, fan=1),
            {
                "type": "wall_exhausted",
                "remaining": {ANA: {"ready": False}, CY: {"ready": False}, DI: {"ready": False}},
            },
        ],
        3,
        "bo",
    ),
]


@pytest.mark.parametrize(("lines", "line", "needle"), [c[1:] for c in BAD], ids=[c[0] for c in BAD])
def test_a_bad_variant_line_is_a_clear_error_naming_its_line(
    lines: list[Line], line: int, needle: str
) -> None:
    with pytest.raises(LogError) as caught:
        replay(log_text(lines))
    assert caught.value.line == line
    message = str(caught.value)
    assert needle in message
    if "unknown" not in needle:
        # the variants' keys, fields and events are known: refused for what they say
        assert "unknown field" not in message
        assert "unknown event type" not in message


def test_a_first_turn_that_the_log_allows() -> None:
    """variants.md: an earthly self-draw is contradicted only by the winner's own discard; several
    winners on the dealer's first discard may each carry the flag."""
    run(alone("hongkong"), discard(ANA), discard(BO), drawn(CY, fan=3, first_turn=True))
    out = run(
        alone("sichuan"),
        {"type": "void_suit_chosen", "player": BO, "suit": "m"},
        won(BO, ANA, fan=1, first_turn=True),
        won(CY, ANA, fan=1, first_turn=True),
    )
    assert out["hands"][0]["winners"] == [BO, CY]


# --- Hypothesis: random legal logs with variants --------------------------------------------


@given(variant_logs())
def test_variant_logs_are_zero_sum(lines: list[Line]) -> None:
    """Every hand's net and the totals sum to zero, and the nets are the transfers' sums."""
    out = replay(log_text(lines)).to_json()
    for hand in out["hands"]:
        net = dict.fromkeys(out["players"], 0)
        for t in hand["transfers"]:
            assert t["amount"] > 0
            assert t["from"] != t["to"]
            net[t["from"]] -= t["amount"]
            net[t["to"]] += t["amount"]
        assert net == hand["net"]
        assert sum(hand["net"].values()) == 0
    assert sum(out["totals"].values()) == 0


@given(variant_logs())
def test_the_model_of_the_spec_agrees_with_the_fold(lines: list[Line]) -> None:
    """tests/model.py, written from rules.md and variants.md alone: every transfer of every
    hand, the winners, the next dealer and the balances."""
    out = replay(log_text(lines)).to_json()
    m = model(lines)
    assert [transfers(h) for h in out["hands"]] == [h.transfers for h in m.hands]
    assert [h["winners"] for h in out["hands"]] == [h.winners for h in m.hands]
    assert [h["next_dealer"] for h in out["hands"]] == [h.next_dealer for h in m.hands]
    assert [h.get("balances") for h in out["hands"]] == [h.balances for h in m.hands]


@given(variant_logs(stakes=True))
def test_with_stakes_no_balance_below_zero_and_no_payment_above_its_due(lines: list[Line]) -> None:
    """variants.md, "Table stakes": "With stakes, nobody pays more than they hold"; a capped
    payer's balance is split "in proportion to what each was due, rounded down", so no win,
    kong or wall-check transfer exceeds what the same log owes without stakes."""
    out = replay(log_text(lines)).to_json()
    balances = dict(out["stakes"])
    for hand in out["hands"]:
        by_line: dict[int, list[dict[str, Any]]] = {}
        for t in hand["transfers"]:
            by_line.setdefault(t["line"], []).append(t)
        for line in sorted(by_line):
            for t in by_line[line]:
                balances[t["from"]] -= t["amount"]
                balances[t["to"]] += t["amount"]
            assert min(balances.values()) >= 0, (line, balances)
        assert hand["balances"] == balances
    head = {k: v for k, v in lines[0].items() if k != "stakes"}
    head["rules"] = dict(head["rules"])
    # second set: stakes_leftover refines stakes; "lowest_seat" may pay the first payee more
    # than its own dues (all the points left over), never a payer more than its batch's dues
    first_takes_all = head["rules"].pop("stakes_leftover", None) == "lowest_seat"
    unstaked = replay(log_text([head, *lines[1:]])).to_json()
    for staked, due in zip(out["hands"], unstaked["hands"], strict=True):
        owed: Counter[tuple[Any, ...]] = Counter()
        for t in due["transfers"]:
            owed[(t["from"], t["to"], t["reason"], t["line"])] += t["amount"]
        paid: Counter[tuple[Any, ...]] = Counter()
        for t in staked["transfers"]:
            paid[(t["from"], t["to"], t["reason"], t["line"])] += t["amount"]
        if first_takes_all:
            paid, owed = _by_payer_and_line(paid), _by_payer_and_line(owed)
        for key, amount in paid.items():
            if key[2] in ("kong_money_passed", "kong_refund"):
                # "Passing and refunds move what was actually paid, not what was due": their
                # dues follow the capped kong payments (the model checks them exactly).
                continue
            assert amount <= owed[key], key


def _by_payer_and_line(amounts: Counter[tuple[Any, ...]]) -> Counter[tuple[Any, ...]]:
    """Amounts summed per payer and line, the reason kept only where it is passed money."""
    out: Counter[tuple[Any, ...]] = Counter()
    for (payer, _payee, reason, line), amount in amounts.items():
        moved = reason if reason in ("kong_money_passed", "kong_refund") else ""
        out[(payer, "", moved, line)] += amount
    return out


@given(variant_logs(stakes=True))
def test_the_match_ends_with_the_hand_in_which_someone_went_bust(lines: list[Line]) -> None:
    """variants.md: "the match ends with the hand in which anyone went bust (`next_dealer` null;
    a further hand is an error)"."""
    out = replay(log_text(lines)).to_json()
    for i, hand in enumerate(out["hands"]):
        if 0 in hand["balances"].values() and hand["outcome"] != "unfinished":
            assert hand["next_dealer"] is None
            assert i == len(out["hands"]) - 1
            with pytest.raises(LogError) as caught:
                replay(log_text([*lines, HAND]))
            assert caught.value.line == len(lines) + 1


@given(variant_logs("sichuan", with_rules={"blood_flow": True}))
def test_blood_flow_totals_are_the_sum_of_the_per_event_settlements(lines: list[Line]) -> None:
    """Issue 9: "under blood_flow, every accepted log's totals equal the sum of its per-event
    settlements" — each event's settlement is what replaying up to it adds (settlement is
    online), it is exactly the transfers the full replay attributes to its lines, and the
    settlements add up to the totals."""
    out = replay(log_text(lines)).to_json()
    totals = out["totals"]
    full = [t for h in out["hands"] for t in h["transfers"]]
    summed = dict.fromkeys(totals, 0)
    previous: Counter[str] = Counter()
    closed_at = 0
    for k in range(1, len(lines) + 1):
        here, after = lines[k - 1], lines[k] if k < len(lines) else None
        if (
            after is not None
            and here["type"] == after["type"] == "won_on_discard"
            and here["from"] == after["from"]
        ):
            continue  # inside a run of wins on one discard: settled when the run closes
        now: Counter[str] = Counter()
        for t in (
            t for h in replay(log_text(lines[:k])).to_json()["hands"] for t in h["transfers"]
        ):
            now[t["from"]] -= t["amount"]
            now[t["to"]] += t["amount"]
        settlement = {p: now[p] - previous[p] for p in totals}
        assert sum(settlement.values()) == 0, (closed_at, k)
        attributed = dict.fromkeys(totals, 0)
        for t in full:
            if closed_at < t["line"] <= k:
                attributed[t["from"]] -= t["amount"]
                attributed[t["to"]] += t["amount"]
        assert settlement == attributed, (closed_at, k)
        for p in totals:
            summed[p] += settlement[p]
        previous, closed_at = now, k
    assert summed == totals


# --- the messages docs/log-format.md shows, exactly -----------------------------------------


def _message(lines: list[Line]) -> str:
    with pytest.raises(LogError) as caught:
        replay(log_text(lines))
    return str(caught.value)


def test_the_documented_variant_errors_read_exactly_as_documented() -> None:
    """docs/log-format.md, "Errors": the variants' rows, "exactly as mjledger prints them"."""
    hk = match("hongkong")
    assert _message([match("hongkong", {"blood_flow": True})]).startswith(
        "line 1: match_started: unknown house rule 'blood_flow' for hongkong (known: "
    )
    assert _message([match("hongkong", {"discard_pays": "half", "points_per_unit": 3})]) == (
        'line 1: match_started: house rule discard_pays "half" needs an even points_per_unit, not 3'
    )
    assert _message([match("sichuan", stakes={ANA: 1, BO: 1, CY: 1})]) == (
        "line 1: match_started: stakes leave out 'di'"
    )
    assert _message([match("sichuan", stakes={ANA: 1, BO: 1, CY: 1, DI: 0})]) == (
        "line 1: match_started: stakes: 'di': stake 0 is out of range (1 to 1000000000000)"
    )
    assert _message([hk, HAND, drawn(BO, fan=3, liable=BO)]) == (
        "line 3: self_drawn: liable 'bo' is the winner; the liable player is someone else"
    )
    assert _message([hk, HAND, discard(ANA), drawn(ANA, fan=3, first_turn=True)]) == (
        "line 4: self_drawn: first_turn, but 'ana' has discarded earlier in the hand"
    )
    stakes = {ANA: 3, BO: 100, CY: 100, DI: 100}
    assert _message([match("hongkong", stakes=stakes), HAND, drawn(BO, fan=3), HAND]) == (
        "line 4: hand_started: the match is over: 'ana' went bust in hand 1"
    )
    assert _message([{**alone("sichuan"), "stakes": STAKES}]) == (
        "line 1: hand_started: hand_started carries no stakes: a match sets them on "
        "match_started, and a stand-alone hand cannot carry them"
    )


# --- where mjledger reads variants.md literally (docs/rules.md, readings 16-26) -------------


def test_reading_first_turn_on_a_robbing_win_is_accepted() -> None:
    """Reading 16: the spec's list of contradictions does not name robbing."""
    out = run(alone("hongkong"), won(BO, ANA, fan=3, robbing_kong=True, first_turn=True))
    assert transfers(out["hands"][0]) == Counter({(ANA, BO, 16, "won_on_discard", 2): 1})


def test_reading_a_liable_discarder_still_pays_as_liability() -> None:
    """Reading 19: one transfer, reason `liability`, also when the liable player dealt in."""
    out = run(alone("hongkong"), won(BO, CY, fan=3, liable=CY))
    assert transfers(out["hands"][0]) == Counter({(CY, BO, 16, "liability", 2): 1})


def test_reading_feeder_pays_only_right_after_the_exposed_kong() -> None:
    """Reading 20: a line between the kong and the self-draw makes it an ordinary one; an
    added kong's replacement tile is an ordinary self-draw too."""
    rules = {"claimed_kong_bloom": "feeder_pays"}
    between = run(
        alone("sichuan", rules=rules),
        kong(CY, "exposed", BO),
        {"type": "void_suit_chosen", "player": DI, "suit": "m"},
        drawn(CY, fan=1),
    )
    assert {t["from"] for t in between["hands"][0]["transfers"] if t["line"] == 4} == {ANA, BO, DI}
    added = run(alone("sichuan", rules=rules), kong(CY, "added"), drawn(CY, fan=1))
    assert {t["from"] for t in added["hands"][0]["transfers"] if t["line"] == 3} == {ANA, BO, DI}


def test_reading_bust_at_exactly_zero_and_the_bust_player_stays_in() -> None:
    """Reading 23: paying exactly one's whole balance is bust; a bust player may still win."""
    stakes = {ANA: 3, BO: 100, CY: 100, DI: 100}
    out = run(match("sichuan", stakes=stakes), HAND, drawn(CY, fan=1), drawn(ANA, fan=1))
    hand = out["hands"][0]
    assert transfers(hand)[(ANA, CY, 3, "self_drawn", 3)] == 1
    assert hand["winners"] == [CY, ANA]
    assert hand["balances"][ANA] == 0 + 3 + 3  # paid all 3 (bust), then collected from bo and di


# --- explain (issue 13) on the variants -----------------------------------------------------


@pytest.mark.parametrize("log", CASES, ids=lambda p: p.stem)
def test_every_variant_hand_is_explained_and_its_money_is_the_settlement(log: Path) -> None:
    """Every transfer once, and each hand's money per player is its net; where a variant
    settles a step, the step says so (its arithmetic is in docs/rules.md, not in the step)."""
    text = log.read_text(encoding="utf-8")
    settled = replay(text).to_json()["hands"]
    hands = explain_log(text)
    assert len(hands) == len(settled)
    for hand, expected in zip(hands, settled, strict=True):
        assert money_by_player(hand) == expected["net"]
        mine = Counter((p.payer, p.payee, p.amount) for s in hand.steps for p in s.money)
        theirs = Counter((t["from"], t["to"], t["amount"]) for t in expected["transfers"])
        assert mine == theirs
        for lang in ("en", "zh"):
            assert render_hand(hand, lang)


@given(variant_logs())
def test_random_variant_logs_are_explained_without_a_gap(lines: list[Line]) -> None:
    text = log_text(lines)
    settled = replay(text).to_json()["hands"]
    hands = explain_log(text)
    assert [money_by_player(h) for h in hands] == [h["net"] for h in settled]


@pytest.mark.parametrize(
    ("first_turn", "dealer_self_draw", "expected"),
    [(True, True, (True, False)), (True, False, (False, True)), (False, True, (False, False))],
)
def test_first_turn_wins_is_the_one_statement_of_heavenly_and_earthly(
    first_turn: bool, dealer_self_draw: bool, expected: tuple[bool, bool]
) -> None:
    """variants.md, "First turn": heavenly is the dealer's self-draw, earthly any other win
    the log asserts as first-turn; without the assertion, neither."""
    from mjledger.rules.protocol import first_turn_wins

    assert first_turn_wins(first_turn, dealer_self_draw) == expected
