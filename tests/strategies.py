"""Hypothesis strategies for mjledger logs, shared by every test module that needs random logs.

``legal_logs`` plays LEGAL logs of both rule sets (log-format.md, rules.md): a match or a
stand-alone hand, several hands per match, each hand a legal sequence of void suits, discards,
kongs of every kind, robbing wins (several robbers possible), wins on one discard with several
winners, self-draws and wall ends, the last hand possibly unfinished. It only guarantees
legality; what the log is worth is for the tests to derive from the spec.

``corrupted_log_texts`` damages such logs (lines dropped, duplicated, swapped; unknown
players; bad values; repeated keys; broken JSON; unknown fields and types), so the result may
or may not still be legal.
"""

from __future__ import annotations

import json
from typing import Any

from hypothesis import strategies as st

RULESETS = ("hongkong", "sichuan")
WINDS = ("east", "south", "west", "north")
SUITS = ("m", "p", "s")
KONG_KINDS = ("exposed", "added", "concealed")
TILES = tuple(f"{n}{s}" for s in "mps" for n in range(1, 10)) + tuple(f"{n}z" for n in range(1, 8))

# Hong Kong: 16 passes of the deal end a match, so any match of at most 15 hands is legal
# however the deal moves (rules.md, "End of hand and dealer").
MAX_HONGKONG_HANDS = 15

Line = dict[str, Any]

# log-format.md's ids: no control character (Cc), line or paragraph separator (Zl, Zp) or
# bidirectional control.
BIDI_CONTROLS = "\u061c\u200e\u200f\u202a\u202b\u202c\u202d\u202e\u2066\u2067\u2068\u2069"
id_characters = st.characters(
    codec="utf-8",
    exclude_categories=("Cs", "Cc", "Zl", "Zp"),
    exclude_characters=BIDI_CONTROLS,
)
player_ids = st.text(alphabet=id_characters, min_size=1, max_size=6)
players_st = st.lists(player_ids, min_size=4, max_size=4, unique=True)
tiles_st = st.sampled_from(TILES)


@st.composite
def hongkong_rules(draw: st.DrawFn) -> dict[str, Any]:
    """A random valid Hong Kong ``rules`` object: any subset of the keys, every value."""
    fan_limit = draw(st.sampled_from((8, 10, 13)))
    full = {
        "table": draw(st.sampled_from(("half_spicy", "spicy"))),
        "points_per_unit": draw(st.one_of(st.integers(1, 5), st.integers(1, 1_000_000))),
        "min_fan": draw(st.integers(0, fan_limit)),
        "fan_limit": fan_limit,
        "discard_pays": draw(st.sampled_from(("double", "all"))),
    }
    keys = draw(st.sets(st.sampled_from(sorted(full))))
    rules = {k: full[k] for k in sorted(keys)}
    # min_fan must be at most the limit in force: the default limit (10) if it is left out.
    if "min_fan" in rules and "fan_limit" not in rules and rules["min_fan"] > 10:
        rules["fan_limit"] = fan_limit
    return rules


@st.composite
def sichuan_rules(draw: st.DrawFn) -> dict[str, Any]:
    """A random valid Sichuan ``rules`` object: any subset of the keys, every value."""
    full = {
        "base": draw(st.one_of(st.integers(1, 5), st.integers(1, 1_000_000))),
        "fan_cap": draw(st.sampled_from((3, 4, 5, 6))),
        "self_draw_bonus": draw(st.sampled_from(("base", "fan", "none"))),
        "kong_money_passing": draw(st.booleans()),
        "kong_passing_split": draw(st.sampled_from(("split", "none"))),
    }
    keys = draw(st.sets(st.sampled_from(sorted(full))))
    return {k: full[k] for k in sorted(keys)}


def house_rules(ruleset: str) -> st.SearchStrategy[dict[str, Any]]:
    return hongkong_rules() if ruleset == "hongkong" else sichuan_rules()


def _effective_min_fan(rules: dict[str, Any]) -> int:
    return int(rules.get("min_fan", 3))


def _next(players: list[str], player: str) -> str:
    return players[(players.index(player) + 1) % 4]


@st.composite
def _maybe_tile(draw: st.DrawFn, line: Line) -> Line:
    if draw(st.booleans()):
        line["tile"] = draw(tiles_st)
    return line


@st.composite
def _kong(draw: st.DrawFn, still_in: list[str], kongs: dict[str, int]) -> Line:
    """A kong by a player who has declared fewer than four this hand (rules: at most four),
    or a discard when nobody can."""
    able = [p for p in still_in if kongs.get(p, 0) < 4]
    if not able:
        return {"type": "discarded", "player": draw(st.sampled_from(still_in))}
    player = draw(st.sampled_from(able))
    kongs[player] = kongs.get(player, 0) + 1
    kind = draw(st.sampled_from(KONG_KINDS))
    line: Line = {"type": "kong_declared", "player": player, "kind": kind}
    if kind == "exposed":
        line["from"] = draw(st.sampled_from([p for p in still_in if p != player]))
    return draw(_maybe_tile(line))


@st.composite
def _hongkong_win_fields(draw: st.DrawFn, rules: dict[str, Any]) -> Line:
    if draw(st.integers(0, 5)) == 0:  # a limit hand: any fan, or none, exempt from min_fan
        fields: Line = {"limit": True}
        if draw(st.booleans()):
            fields["fan"] = draw(st.integers(0, 20))
        return fields
    return {"fan": draw(st.integers(_effective_min_fan(rules), 16))}


@st.composite
def hongkong_hand(
    draw: st.DrawFn, players: list[str], rules: dict[str, Any], may_be_unfinished: bool
) -> tuple[list[Line], str | None, str | None]:
    """The lines of one Hong Kong hand after its ``hand_started``.

    Returns the lines, the winner (or ``None``) and how it ended (``"won"``, ``"void"`` or
    ``None`` when unfinished).
    """
    lines: list[Line] = []
    kongs: dict[str, int] = {}
    for _ in range(draw(st.integers(0, 6))):
        if draw(st.integers(0, 3)) == 0:
            lines.append(draw(_kong(players, kongs)))
        else:
            lines.append(
                draw(_maybe_tile({"type": "discarded", "player": draw(st.sampled_from(players))}))
            )
    endings = ["won_on_discard", "self_drawn", "wall_exhausted"]
    if may_be_unfinished:
        endings.append("unfinished")
    ending = draw(st.sampled_from(endings))
    if ending == "unfinished":
        return lines, None, None
    if ending == "wall_exhausted":
        lines.append({"type": "wall_exhausted"})
        return lines, None, "void"
    winner = draw(st.sampled_from(players))
    win: Line = {"type": ending, "player": winner}
    if ending == "won_on_discard":
        win["from"] = draw(st.sampled_from([p for p in players if p != winner]))
        if draw(st.integers(0, 3)) == 0:
            win["robbing_kong"] = True
    win.update(draw(_hongkong_win_fields(rules)))
    lines.append(win)
    return lines, winner, "won"


@st.composite
def kongs_on_replacements(
    draw: st.DrawFn, player: str, others: list[str], kongs: dict[str, int]
) -> list[Line]:
    """One or two kongs in a row by ``player`` (on replacement tiles) before their discard: the
    case kong money passing is about (rules.md, "Kong money passing"). None past the cap of
    four per player in a hand (``kongs`` counts them)."""
    lines: list[Line] = []
    for _ in range(draw(st.integers(1, 2))):
        if kongs.get(player, 0) >= 4:
            break
        kongs[player] = kongs.get(player, 0) + 1
        kind = draw(st.sampled_from(KONG_KINDS))
        line: Line = {"type": "kong_declared", "player": player, "kind": kind}
        if kind == "exposed":
            line["from"] = draw(st.sampled_from(others))
        lines.append(line)
    return lines


@st.composite
def _wall_entry(draw: st.DrawFn) -> Line:
    shape = draw(st.sampled_from(("flower_pig", "ready", "not_ready")))
    if shape == "flower_pig":
        return {"flower_pig": True}
    if shape == "ready":
        return {"ready": True, "best_fan": draw(st.integers(0, 9))}
    return {"ready": False}


@st.composite
def sichuan_hand(
    draw: st.DrawFn, players: list[str], may_be_unfinished: bool
) -> tuple[list[Line], list[str], str | None, bool]:
    """The lines of one Sichuan blood-battle hand after its ``hand_started``.

    Returns the lines, the winners in order, the discarder of the first win when it had
    several winners (else ``None``), and whether the hand ended.
    """
    lines: list[Line] = []
    still_in = list(players)
    winners: list[str] = []
    first_run_discarder: str | None = None
    for player in draw(st.lists(st.sampled_from(players), unique=True)):
        lines.append(
            {"type": "void_suit_chosen", "player": player, "suit": draw(st.sampled_from(SUITS))}
        )
    last_run_from: str | None = None  # a win run just logged on this player's tile
    kongs: dict[str, int] = {}
    for _ in range(draw(st.integers(0, 14))):
        action = draw(
            st.sampled_from(
                ("discard", "discard", "kong", "kong", "win", "win", "rob", "self_draw", "kong_win")
            )
        )
        if action == "discard":
            lines.append(
                draw(_maybe_tile({"type": "discarded", "player": draw(st.sampled_from(still_in))}))
            )
            last_run_from = None
        elif action == "kong":
            lines.append(draw(_kong(still_in, kongs)))
            last_run_from = None
        elif action == "self_draw":
            winner = draw(st.sampled_from(still_in))
            lines.append({"type": "self_drawn", "player": winner, "fan": draw(st.integers(0, 9))})
            still_in.remove(winner)
            winners.append(winner)
            last_run_from = None
        else:
            discarder = draw(st.sampled_from(still_in))
            others = [p for p in still_in if p != discarder]
            if action == "kong_win":
                lines.extend(draw(kongs_on_replacements(discarder, others, kongs)))
                last_run_from = None
            if discarder == last_run_from:
                # A new discard by the same player: something must come between, or the two
                # runs would read as one (log-format.md, several winners on one discard).
                lines.append({"type": "discarded", "player": draw(st.sampled_from(others))})
            room = min(len(others), 3 - len(winners))
            run = draw(st.lists(st.sampled_from(others), min_size=1, max_size=room, unique=True))
            for winner in run:
                line: Line = {
                    "type": "won_on_discard",
                    "player": winner,
                    "from": discarder,
                    "fan": draw(st.integers(0, 9)),
                }
                if action == "rob":
                    line["robbing_kong"] = True
                lines.append(line)
                still_in.remove(winner)
            if not winners and len(run) > 1:
                first_run_discarder = discarder
            winners.extend(run)
            last_run_from = discarder
        if len(winners) >= 3:
            return lines, winners, first_run_discarder, True
    if may_be_unfinished and draw(st.booleans()):
        return lines, winners, first_run_discarder, False
    remaining = {p: draw(_wall_entry()) for p in still_in}
    lines.append({"type": "wall_exhausted", "remaining": remaining})
    return lines, winners, first_run_discarder, True


@st.composite
def legal_logs(draw: st.DrawFn, ruleset: str | None = None, max_hands: int = 5) -> list[Line]:
    """A random LEGAL log as a list of JSON-able dicts, one per line.

    A match (``match_started`` then 0..``max_hands`` hands) or a stand-alone hand.
    """
    if ruleset is None:
        ruleset = draw(st.sampled_from(RULESETS))
    players = draw(players_st)
    rules = draw(house_rules(ruleset))
    with_rules = draw(st.booleans())
    stand_alone = draw(st.integers(0, 3)) == 0
    head: Line
    if stand_alone:
        head = {"type": "hand_started", "ruleset": ruleset, "players": players}
        head["dealer"] = draw(st.sampled_from(players))
        if with_rules:
            head["rules"] = rules
        if draw(st.booleans()):
            head["match"] = draw(player_ids)
        if draw(st.booleans()):
            head["number"] = draw(st.integers(1, 40))
        if draw(st.booleans()):
            head["dealer_streak"] = draw(st.integers(0, 9))
        if ruleset == "hongkong" and draw(st.booleans()):
            head["round_wind"] = draw(st.sampled_from(WINDS))
        n_hands = 1
    else:
        head = {"type": "match_started", "ruleset": ruleset, "players": players}
        if draw(st.booleans()):
            head["match"] = draw(player_ids)
        if with_rules:
            head["rules"] = rules
        limit = min(max_hands, MAX_HONGKONG_HANDS) if ruleset == "hongkong" else max_hands
        n_hands = draw(st.integers(0, limit))
    if draw(st.integers(0, 4)) == 0:
        head["format"] = 1
    if not with_rules:
        rules = {}

    lines: list[Line] = [head]
    dealer = head.get("dealer") if stand_alone else draw(st.sampled_from(players))
    assert isinstance(dealer, str)
    for number in range(n_hands):
        last = number == n_hands - 1
        if not stand_alone:
            start: Line = {"type": "hand_started"}
            if (number == 0 and dealer != players[0]) or draw(st.booleans()):
                start["dealer"] = dealer
            lines.append(start)
        if ruleset == "hongkong":
            body, winner, _ended = draw(hongkong_hand(players, rules, last))
            lines.extend(body)
            if winner is not None and winner != dealer:
                dealer = _next(players, dealer)
        else:
            body, winners, first_run_discarder, _finished = draw(sichuan_hand(players, last))
            lines.extend(body)
            if first_run_discarder is not None:
                dealer = first_run_discarder
            elif winners:
                dealer = winners[0]
    return lines


def log_text(lines: list[Line], newline: str = "\n") -> str:
    """JSON Lines text of ``lines`` (one object a line, a final newline)."""
    return "".join(json.dumps(line, ensure_ascii=False) + newline for line in lines)


@st.composite
def legal_log_text(draw: st.DrawFn, ruleset: str | None = None, max_hands: int = 5) -> str:
    """A random legal log as JSON Lines text."""
    return log_text(draw(legal_logs(ruleset, max_hands)))


# --- corrupted logs -----------------------------------------------------------------------------

BAD_VALUES: tuple[Any, ...] = (
    True,
    False,
    None,
    3.0,
    "3",
    -1,
    -7,
    0,
    1,
    10**30,
    "",
    "nobody",
    [],
    {},
    ["a", "b"],
    {"ready": True},
    "east",
    "exposed",
    "1m",
)
FIELDS = (
    "type",
    "player",
    "from",
    "fan",
    "limit",
    "robbing_kong",
    "dealer",
    "players",
    "ruleset",
    "rules",
    "remaining",
    "kind",
    "suit",
    "tile",
    "tiles",
    "winning_tile",
    "melds",
    "number",
    "dealer_streak",
    "round_wind",
    "format",
    "match",
    "best_fan",
    "surprise",
)
TYPES = (
    "match_started",
    "hand_started",
    "void_suit_chosen",
    "discarded",
    "kong_declared",
    "won_on_discard",
    "self_drawn",
    "wall_exhausted",
    "hand_ended",
    "",
)


def _players_of(lines: list[Line]) -> list[str]:
    head = lines[0] if lines and isinstance(lines[0], dict) else {}
    players = head.get("players")
    return list(players) if isinstance(players, list) else ["ana"]


@st.composite
def _mutate(draw: st.DrawFn, texts: list[str], lines: list[Line]) -> list[str]:
    """One damage to a log given both as dicts and as its line texts (kept in step)."""
    n = len(texts)
    i = draw(st.integers(0, max(n - 1, 0)))
    kind = draw(
        st.sampled_from(
            (
                "drop",
                "duplicate",
                "swap",
                "unknown_player",
                "bad_value",
                "unknown_field",
                "drop_field",
                "unknown_type",
                "repeated_key",
                "broken_json",
                "blank",
                "garbage",
                "crlf",
            )
        )
    )
    texts = list(texts)
    if n == 0:
        return [draw(st.text(max_size=20))]
    obj = json.loads(texts[i]) if _is_object(texts[i]) else None
    if kind == "drop":
        del texts[i]
    elif kind == "duplicate":
        texts.insert(i, texts[i])
    elif kind == "swap":
        j = draw(st.integers(0, n - 1))
        texts[i], texts[j] = texts[j], texts[i]
    elif kind == "unknown_player" and obj is not None:
        stranger = draw(st.sampled_from(("zed", "", "ANA")))
        old = draw(st.sampled_from(_players_of(lines)))
        texts[i] = texts[i].replace(json.dumps(old, ensure_ascii=False), json.dumps(stranger))
    elif kind == "bad_value" and obj is not None:
        obj[draw(st.sampled_from(FIELDS))] = draw(st.sampled_from(BAD_VALUES))
        texts[i] = json.dumps(obj, ensure_ascii=False)
    elif kind == "unknown_field" and obj is not None:
        obj[draw(st.sampled_from(("note", "Fan", "from_", "extra")))] = draw(
            st.sampled_from(BAD_VALUES)
        )
        texts[i] = json.dumps(obj, ensure_ascii=False)
    elif kind == "drop_field" and obj:
        del obj[draw(st.sampled_from(sorted(obj)))]
        texts[i] = json.dumps(obj, ensure_ascii=False)
    elif kind == "unknown_type" and obj is not None:
        obj["type"] = draw(st.sampled_from(TYPES))
        texts[i] = json.dumps(obj, ensure_ascii=False)
    elif kind == "repeated_key" and obj:
        key = draw(st.sampled_from(sorted(obj)))
        texts[i] = "{" + json.dumps(key) + ": " + json.dumps(obj[key]) + ", " + texts[i][1:]
    elif kind == "broken_json":
        cut = draw(st.integers(0, len(texts[i])))
        texts[i] = texts[i][:cut] + draw(st.sampled_from(("", "}", ",", "NaN", '"', "{]")))
    elif kind == "blank":
        texts.insert(i, draw(st.sampled_from(("", " ", "\t", "   \r"))))
    elif kind == "garbage":
        texts.insert(i, draw(st.text(max_size=30).filter(lambda t: "\n" not in t)))
    elif kind == "crlf":
        texts[i] = texts[i] + "\r"
    return texts


def _is_object(text: str) -> bool:
    try:
        return isinstance(json.loads(text), dict)
    except ValueError:
        return False


@st.composite
def corrupted_log_texts(draw: st.DrawFn, ruleset: str | None = None) -> str:
    """A legal log with 1–4 random damages, as JSON Lines text (possibly still legal)."""
    lines = draw(legal_logs(ruleset, max_hands=3))
    texts = [json.dumps(line, ensure_ascii=False) for line in lines]
    for _ in range(draw(st.integers(1, 4))):
        texts = draw(_mutate(texts, lines))
    return "".join(t + "\n" for t in texts) if draw(st.booleans()) else "\n".join(texts)
