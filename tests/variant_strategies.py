"""Hypothesis strategies for LEGAL logs that switch on the variants of variants.md.

``variant_logs`` plays logs of both rule sets with any combination of the variants: Hong Kong
half gun, liability, false wins, void hands that pass the deal; Sichuan blood flow, kong
payments from everyone, each winner's full passed money, passing of the last kong only, the
feeder paying a claimed kong's bloom, the pig and not-ready variants, refunds that skip
winners; table stakes on both; ``first_turn`` wherever the log allows it; of the second set,
Sichuan's flat false win and winners exempt at the wall, the stakes leftover to the first
seat and Hong Kong limits of 5 to 13. Like
``tests/strategies.py`` it only guarantees legality; the money is for the tests to derive
(tests/model.py). A match with stakes stops after the hand in which someone went bust, which
only the money can tell, so the strategy asks the model where that is.
"""

from __future__ import annotations

from typing import Any

from hypothesis import strategies as st

from .model import model
from .strategies import (
    MAX_HONGKONG_HANDS,
    SUITS,
    _hongkong_win_fields,
    _kong,
    _maybe_tile,
    _wall_entry,
    hongkong_rules,
    kongs_on_replacements,
    player_ids,
    players_st,
    sichuan_rules,
)

Line = dict[str, Any]

HONGKONG_VARIANTS: dict[str, tuple[Any, ...]] = {
    "discard_pays": ("double", "all", "half"),
    "void_hand_dealer": ("stays", "passes"),
}
SICHUAN_VARIANTS: dict[str, tuple[Any, ...]] = {
    "blood_flow": (False, True),
    "exposed_kong_pays": ("discarder", "everyone"),
    "kong_passing_split": ("split", "none", "each_full"),
    "kong_passing_scope": ("all", "last"),
    "claimed_kong_bloom": ("self_draw", "feeder_pays"),
    "pig_pays": ("non_pigs", "still_in"),
    "not_ready_includes_pigs": (True, False),
    "refund_to_winners": (True, False),
    "added_kong_from_hand": ("paid", "unpaid"),
}
# Keys that only shape passing: at their defaults under kong_money_passing "refund" (variants.md,
# second set: "Refining keys kong_passing_split and kong_passing_scope must then be at their
# defaults").
PASSING_REFINEMENTS = ("kong_passing_split", "kong_passing_scope")
# Variants, second set (variants.md), part: 诈胡 as a flat penalty, blood flow's winners left
# out at the wall, the stakes leftover to the first seat, a Hong Kong limit of 5 to 13.
SICHUAN_VARIANTS.update(
    sichuan_false_win=("refused", "flat"), blood_flow_wall=("all", "exempt_winners")
)
LEFTOVERS: tuple[str, ...] = ("after_payer", "lowest_seat")


@st.composite
def variant_rules(draw: st.DrawFn, ruleset: str) -> Line:
    """Valid ``rules``: the base keys at random plus any subset of the variant keys."""
    if ruleset == "hongkong":
        rules, variants = draw(hongkong_rules()), HONGKONG_VARIANTS
    else:
        rules, variants = draw(sichuan_rules()), SICHUAN_VARIANTS
    for key in draw(st.sets(st.sampled_from(sorted(variants)))):
        rules[key] = draw(st.sampled_from(variants[key]))
    if ruleset == "sichuan" and draw(st.integers(0, 3)) == 0:
        rules["kong_money_passing"] = "refund"  # 杠上炮退税
        for key in PASSING_REFINEMENTS:
            rules.pop(key, None)
    _second_set_rules(draw, ruleset, rules)
    if rules.get("discard_pays") == "half":
        # variants.md: "A table with "half" needs an even points_per_unit"
        rules["points_per_unit"] = 2 * draw(st.one_of(st.integers(1, 4), st.integers(1, 500_000)))
    return rules


def _second_set_rules(draw: st.DrawFn, ruleset: str, rules: Line) -> None:
    """The second set's keys, each only where it may stand: ``blood_flow_wall`` "refines
    blood_flow" (its values other than "all" only with blood flow); a Hong Kong limit "any
    integer 5–13", min_fan still at most the limit (``stakes_leftover``, which refines stakes,
    is drawn with them: :func:`variant_logs`)."""
    if rules.get("blood_flow_wall", "all") != "all":
        rules["blood_flow"] = True
    if ruleset == "hongkong" and draw(st.booleans()):
        rules["fan_limit"] = draw(st.integers(5, 13))
        rules["min_fan"] = min(rules.get("min_fan", 3), rules["fan_limit"])


def _next(players: list[str], player: str) -> str:
    return players[(players.index(player) + 1) % 4]


@st.composite
def _stakes(draw: st.DrawFn, players: list[str]) -> dict[str, int]:
    small = st.integers(1, 300)
    return {p: draw(st.one_of(small, small, st.integers(1, 10**12))) for p in players}


@st.composite
def _hongkong_hand(
    draw: st.DrawFn, players: list[str], dealer: str, rules: Line, may_be_unfinished: bool
) -> tuple[list[Line], str | None]:
    """One Hong Kong hand after its ``hand_started``: its lines and whether the deal passes."""
    lines: list[Line] = []
    kongs, discarders = False, set()
    kong_count: dict[str, int] = {}  # at most four per player in a hand
    for _ in range(draw(st.integers(0, 4))):
        if draw(st.integers(0, 3)) == 0:
            line = draw(_kong(players, kong_count))
            kongs = True
        else:
            line = draw(
                _maybe_tile({"type": "discarded", "player": draw(st.sampled_from(players))})
            )
            discarders.add(line["player"])
        lines.append(line)
    endings = ["won_on_discard", "self_drawn", "wall_exhausted", "false_win"]
    if may_be_unfinished:
        endings.append("unfinished")
    ending = draw(st.sampled_from(endings))
    passes_on_void = rules.get("void_hand_dealer") == "passes"
    if ending == "unfinished":
        return lines, None
    if ending == "wall_exhausted":
        lines.append({"type": "wall_exhausted"})
        return lines, _next(players, dealer) if passes_on_void else dealer
    if ending == "false_win":
        lines.append({"type": "false_win", "player": draw(st.sampled_from(players))})
        return lines, _next(players, dealer) if passes_on_void else dealer
    winner = draw(st.sampled_from(players))
    win: Line = {"type": ending, "player": winner}
    robbing = False
    if ending == "won_on_discard":
        win["from"] = draw(st.sampled_from([p for p in players if p != winner]))
        robbing = draw(st.integers(0, 3)) == 0
        if robbing:
            win["robbing_kong"] = True
    win.update(draw(_hongkong_win_fields(rules)))
    if ending == "won_on_discard" and draw(st.integers(0, 3)) == 0:
        win["new_discard"] = True  # "Hong Kong, where a hand has one win": changes nothing
    if draw(st.integers(0, 2)) == 0:
        win["liable"] = draw(st.sampled_from([p for p in players if p != winner]))
    if _may_be_first_turn(win, dealer, kongs, discarders, robbing) and draw(st.booleans()):
        win["first_turn"] = True
    lines.append(win)
    return lines, dealer if winner == dealer else _next(players, dealer)


def _may_be_first_turn(
    win: Line, dealer: str, kongs: bool, discarders: set[str], robbing: bool
) -> bool:
    """variants.md, "First turn": the cases the log does not contradict."""
    if kongs or robbing:
        return False
    if win["type"] == "self_drawn" and win["player"] != dealer:
        return win["player"] not in discarders
    if win["type"] == "won_on_discard" and win["from"] != dealer:
        return False
    return not discarders


@st.composite
def _sichuan_hand(
    draw: st.DrawFn, players: list[str], dealer: str, rules: Line, may_be_unfinished: bool
) -> tuple[list[Line], str | None]:
    """One Sichuan hand after its ``hand_started``: its lines and the next dealer."""
    blood = bool(rules.get("blood_flow"))
    lines: list[Line] = []
    winners: list[str] = []  # in order of first win
    first_run: list[str] = []
    first_discarder: str | None = None
    kongs, discarders, wins = False, set(), False
    kong_count: dict[str, int] = {}  # at most four per player in a hand

    def still_in() -> list[str]:
        return list(players) if blood else [p for p in players if p not in winners]

    for player in draw(st.lists(st.sampled_from(players), unique=True)):
        lines.append(
            {"type": "void_suit_chosen", "player": player, "suit": draw(st.sampled_from(SUITS))}
        )
    last_run_from: str | None = None
    actions = ("discard", "discard", "kong", "kong", "win", "win", "rob", "self_draw")
    actions += ("kong_win", "kong_bloom")
    if rules.get("sichuan_false_win") == "flat":
        actions += ("false_win",)
    for _ in range(draw(st.integers(0, 14))):
        action = draw(st.sampled_from(actions))
        if action == "discard":
            line = draw(
                _maybe_tile({"type": "discarded", "player": draw(st.sampled_from(still_in()))})
            )
            lines.append(line)
            discarders.add(line["player"])
            last_run_from = None
        elif action == "kong":
            line = draw(_from_hand(draw(_kong(still_in(), kong_count))))
            lines.append(line)
            if line["type"] == "kong_declared":
                kongs = True
            else:  # nobody still in may declare another kong: a discard instead
                discarders.add(line["player"])
            last_run_from = None
        elif action == "false_win":
            # 诈胡 (second set): "The player must still be in the hand"; "the hand goes on".
            lines.append({"type": "false_win", "player": draw(st.sampled_from(still_in()))})
            last_run_from = None
        elif action in ("self_draw", "kong_bloom"):
            winner = draw(st.sampled_from(still_in()))
            if action == "kong_bloom" and kong_count.get(winner, 0) < 4:
                # The replacement tile of an exposed kong (variants.md, claimed_kong_bloom).
                kong_count[winner] = kong_count.get(winner, 0) + 1
                feeder = draw(st.sampled_from([p for p in still_in() if p != winner]))
                lines.append(
                    {"type": "kong_declared", "player": winner, "kind": "exposed", "from": feeder}
                )
                kongs = True
            win: Line = {"type": "self_drawn", "player": winner, "fan": draw(st.integers(0, 9))}
            first_turn_ok = (
                not kongs
                and not wins
                and (not discarders if winner == dealer else winner not in discarders)
            )
            if first_turn_ok and draw(st.booleans()):
                win["first_turn"] = True
            lines.append(win)
            if not first_run:
                first_run = [winner]
            if winner not in winners:
                winners.append(winner)
            wins, last_run_from = True, None
        else:
            discarder = draw(st.sampled_from(still_in()))
            others = [p for p in still_in() if p != discarder]
            if action == "kong_win":
                kong_lines = draw(kongs_on_replacements(discarder, others, kong_count))
                kong_lines = [draw(_from_hand(k)) for k in kong_lines]
                lines.extend(kong_lines)
                kongs = kongs or bool(kong_lines)
                if kong_lines:  # no kong drawn: the run before still adjoins this one
                    last_run_from = None
            # variants.md, "Several discards in a row by one player": a later discard by the
            # same discarder is marked (or, as before, another player's discard comes between);
            # the marker "may" stand on the first win on any discard.
            marked = draw(st.booleans())
            if discarder == last_run_from and not marked:
                lines.append({"type": "discarded", "player": draw(st.sampled_from(others))})
                discarders.add(lines[-1]["player"])
            room = len(others) if blood else min(len(others), 3 - len(winners))
            run = draw(st.lists(st.sampled_from(others), min_size=1, max_size=room, unique=True))
            first_turn_ok = (
                action != "rob"
                and not kongs
                and not wins
                and not discarders
                and discarder == dealer
            )
            for k, winner in enumerate(run):
                line = {
                    "type": "won_on_discard",
                    "player": winner,
                    "from": discarder,
                    "fan": draw(st.integers(0, 9)),
                }
                if k == 0 and marked:
                    line["new_discard"] = True
                if action == "rob":
                    line["robbing_kong"] = True
                if first_turn_ok and draw(st.booleans()):
                    line["first_turn"] = True
                lines.append(line)
                if winner not in winners:
                    winners.append(winner)
            if not first_run:
                first_run = list(run)
                first_discarder = discarder
            wins, last_run_from = True, discarder
            discarders.add(discarder)
        if not blood and len(winners) >= 3:
            return lines, _dealer_after(dealer, first_run, first_discarder)
    if may_be_unfinished and draw(st.booleans()):
        return lines, None
    checked = still_in()
    if rules.get("blood_flow_wall") == "exempt_winners":  # "exactly the players who have not won"
        checked = [p for p in players if p not in winners]
    remaining = {p: draw(_wall_entry()) for p in checked}
    lines.append({"type": "wall_exhausted", "remaining": remaining})
    return lines, _dealer_after(dealer, first_run, first_discarder)


@st.composite
def _from_hand(draw: st.DrawFn, line: Line) -> Line:
    """A Sichuan added kong, maybe made from a tile already held (variants.md, "Added kong
    from hand": ``from_hand`` only on ``kind: "added"``)."""
    if line["type"] == "kong_declared" and line["kind"] == "added" and draw(st.booleans()):
        return {**line, "from_hand": draw(st.sampled_from((True, True, False)))}
    return line


def _dealer_after(dealer: str, first_run: list[str], first_discarder: str | None) -> str:
    if not first_run:
        return dealer
    if len(first_run) == 1:
        return first_run[0]
    assert first_discarder is not None
    return first_discarder


@st.composite
def variant_logs(
    draw: st.DrawFn,
    ruleset: str | None = None,
    max_hands: int = 5,
    stakes: bool | None = None,
    with_rules: Line | None = None,
) -> list[Line]:
    """A random LEGAL log with variants (and maybe stakes) switched on, one dict a line;
    ``with_rules`` fixes some keys (say ``{"blood_flow": True}``)."""
    if ruleset is None:
        ruleset = draw(st.sampled_from(("hongkong", "sichuan")))
    players = draw(players_st)
    rules = {**draw(variant_rules(ruleset)), **(with_rules or {})}
    if stakes is None:
        stakes = draw(st.booleans())
    if stakes and draw(st.booleans()):  # second set: refines stakes, either rule set
        rules["stakes_leftover"] = draw(st.sampled_from(LEFTOVERS))
    stand_alone = not stakes and draw(st.integers(0, 3)) == 0
    head: Line
    if stand_alone:
        head = {"type": "hand_started", "ruleset": ruleset, "players": players}
        head["dealer"] = draw(st.sampled_from(players))
        head["rules"] = rules
        if draw(st.booleans()):
            head["number"] = draw(st.integers(1, 40))
        n_hands = 1
    else:
        head = {"type": "match_started", "ruleset": ruleset, "players": players, "rules": rules}
        if draw(st.booleans()):
            head["match"] = draw(player_ids)
        if stakes:
            head["stakes"] = draw(_stakes(players))
        limit = min(max_hands, MAX_HONGKONG_HANDS) if ruleset == "hongkong" else max_hands
        n_hands = draw(st.integers(0, limit))
    lines: list[Line] = [head]
    dealer = head["dealer"] if stand_alone else draw(st.sampled_from(players))
    for number in range(n_hands):
        last = number == n_hands - 1
        if not stand_alone:
            start: Line = {"type": "hand_started"}
            if number == 0:
                start["dealer"] = dealer
            lines.append(start)
        if ruleset == "hongkong":
            body, after = draw(_hongkong_hand(players, dealer, rules, last))
        else:
            body, after = draw(_sichuan_hand(players, dealer, rules, last))
        lines.extend(body)
        if after is not None:
            dealer = after
    if stakes:
        lines = _until_bust(lines)
    return lines


def _until_bust(lines: list[Line]) -> list[Line]:
    """The log cut after the hand in which someone went bust ("a further hand is an error")."""
    over = model(lines).bust_hand
    if over is None:
        return lines
    starts = [i for i, line in enumerate(lines) if line["type"] == "hand_started"]
    return lines[: starts[over + 1]] if over + 1 < len(starts) else lines
