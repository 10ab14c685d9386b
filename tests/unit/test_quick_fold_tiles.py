"""The quick folds on logs with tiles (``mjledger simulate``'s): the same output bytes or the
same error as the general fold, on simulated logs under house rules and variants and on those
logs with their tiles, fan, flags and lines changed — and hands with tiles are settled by the
quick fold itself, not left to the general fold (issue 25)."""

from __future__ import annotations

import json
import random
from typing import Any

import pytest
from hypothesis import given
from hypothesis import strategies as st

from mjledger.sim.run import simulate
from tests.strategies import sichuan_rules
from tests.unit.test_fast_path import fast_output, strict_output
from tests.unit.test_quick_fold import fallbacks

# Tables the quick fold plays (no variant but blood flow) and tables it leaves to the general
# fold.
QUICK_TABLES: list[dict[str, Any]] = [
    {},
    {"fan_cap": 6, "self_draw_bonus": "fan", "base": 3},
    {"kong_passing_split": "none", "kong_money_passing": False},
    {"heavenly": True, "earthly": True, "all_258_pungs": True, "terminals_in_all": True},
    {"blood_flow": True},
    {"blood_flow": True, "kong_passing_split": "each_full", "fan_cap": 3},
]
OTHER_TABLES: list[tuple[str, dict[str, Any]]] = [
    ("sichuan", {"blood_flow": True, "blood_flow_wall": "exempt_winners"}),
    ("sichuan", {"blood_flow": True, "claimed_kong_bloom": "feeder_pays"}),
    ("sichuan", {"pig_pays": "still_in", "refund_to_winners": False}),
    ("hongkong", {}),
    ("hongkong", {"seven_pairs": True, "min_fan": 1}),
]


def simulated_lines(ruleset: str, rules: dict[str, Any], seed: int, hands: int) -> list[str]:
    (match,) = simulate(ruleset, hands=hands, seed=seed, rules=rules)
    return match.text().splitlines()


@pytest.mark.parametrize("rules", QUICK_TABLES)
def test_simulated_sichuan_tile_hands_are_settled_by_the_quick_fold(rules: dict[str, Any]) -> None:
    data = "\n".join(simulated_lines("sichuan", rules, 7, 40)).encode()
    out, calls = fallbacks(data)
    assert calls == 0
    assert isinstance(out, bytes)
    assert out == strict_output(data)


@given(
    st.one_of(
        st.tuples(st.just("sichuan"), st.sampled_from(QUICK_TABLES)),
        st.tuples(st.just("sichuan"), sichuan_rules().map(lambda r: {**r, "blood_flow": True})),
        st.tuples(st.just("sichuan"), sichuan_rules()),
        st.sampled_from(OTHER_TABLES),
    ),
    st.integers(0, 2**32),
    st.integers(1, 4),
)
def test_simulated_tile_logs_same_output(
    table: tuple[str, dict[str, Any]], seed: int, hands: int
) -> None:
    ruleset, rules = table
    data = "\n".join(simulated_lines(ruleset, rules, seed, hands)).encode()
    assert fast_output(data) == strict_output(data)


TILE_CHARS = "123456789mps"


def _changed_tiles(text: str, rng: random.Random) -> str:
    """``text`` (a tile string) with one character replaced, one tile dropped or one added."""
    how = rng.choice(("replace", "drop", "add"))
    i = rng.randrange(len(text))
    if how == "replace":
        return text[:i] + rng.choice(TILE_CHARS) + text[i + 1 :]
    if how == "drop" and len(text) > 2:
        return text[:i] + text[i + 1 :]
    return rng.choice("123456789") + rng.choice("mps") + text


def _changed(line: dict[str, Any], rng: random.Random) -> dict[str, Any]:
    """One fact of a line with tiles changed: its tiles, winning tile, melds, fan, flags, player,
    discarder, void suit or a wall entry."""
    kind = line["type"]
    if kind in ("won_on_discard", "self_drawn"):
        key = rng.choice(
            ("tiles", "winning_tile", "melds", "fan", "last_tile", "robbing_kong", "player", "from")
        )
        if key == "tiles":
            line["tiles"] = _changed_tiles(line["tiles"], rng)
        elif key == "winning_tile":
            line["winning_tile"] = rng.choice("123456789") + rng.choice("mps")
        elif key == "melds":
            if line.get("melds"):
                line["melds"].pop(rng.randrange(len(line["melds"])))
            else:
                line["melds"] = [{"kind": "pung", "tiles": "555p"}]
        elif key == "fan":
            line["fan"] = rng.randrange(0, 9)
        elif key in ("last_tile", "robbing_kong"):
            line[key] = not line.get(key, False)
        else:
            line[key] = rng.choice(("ana", "bo", "cy", "di"))
    elif kind == "wall_exhausted" and line.get("remaining"):
        player = rng.choice(sorted(line["remaining"]))
        entry = line["remaining"][player]
        if entry.get("tiles") and rng.random() < 0.7:
            entry["tiles"] = _changed_tiles(entry["tiles"], rng)
        elif rng.random() < 0.5:
            del line["remaining"][player]
        else:
            line["remaining"][player] = {"ready": True, "best_fan": rng.randrange(0, 5)}
    elif kind == "void_suit_chosen":
        line["suit"] = rng.choice("mps")
    elif kind == "kong_declared":
        line["player"] = rng.choice(("ana", "bo", "cy", "di"))
    return line


@st.composite
def damaged_tile_logs(draw: st.DrawFn) -> bytes:
    """A simulated log with one to three lines changed, dropped, repeated or swapped: tiles that
    cannot win, a fan the tiles do not make, a fifth copy, a void suit held, a wall entry left
    out, a kong bloom or cannon lost, a discarder who is not in."""
    ruleset, rules = draw(
        st.one_of(
            st.tuples(st.just("sichuan"), st.sampled_from(QUICK_TABLES)),
            st.sampled_from(OTHER_TABLES),
        )
    )
    lines = simulated_lines(ruleset, rules, draw(st.integers(0, 2**32)), draw(st.integers(1, 3)))
    rng = random.Random(draw(st.integers(0, 2**32)))
    for _ in range(draw(st.integers(1, 3))):
        i = draw(st.integers(1, len(lines) - 1))
        how = draw(st.sampled_from(("change", "change", "change", "drop", "repeat", "swap")))
        if how == "change":
            lines[i] = json.dumps(_changed(json.loads(lines[i]), rng))
        elif how == "drop":
            del lines[i]
        elif how == "repeat":
            lines.insert(i, lines[i])
        elif i + 1 < len(lines):
            lines[i], lines[i + 1] = lines[i + 1], lines[i]
    return "\n".join(lines).encode()


@given(damaged_tile_logs())
def test_damaged_tile_logs_same_output_or_same_error(data: bytes) -> None:
    assert fast_output(data) == strict_output(data)
