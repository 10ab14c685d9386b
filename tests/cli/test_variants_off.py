"""Every variant off: the output is byte-identical to mjledger 0.1's (issue 9).

variants.md: "a log that uses none of them replays exactly as rules.md says, and its output is
unchanged". The expected outputs in tests/data/contract and tests/data/examples are the exact
bytes `mjledger replay --json` printed before the variants existed, and tests/data/variants-off
holds what the other views print without the variants' code (the replay's text view, and the
store's views of the example matches; regenerated from main's code when issue 7 changed how the
views look, so they pin "variants off changes nothing", not an old layout). Random
variant-free logs never show a variant's key, field or reason.
"""

from __future__ import annotations

from pathlib import Path

import pytest
from click.testing import CliRunner, Result
from hypothesis import given

from mjledger import replay
from mjledger.cli import main

from ..conftest import CONTRACT, DATA, EXAMPLES, EXPECTED_EXAMPLES
from ..strategies import legal_logs, log_text

SNAPSHOTS = DATA / "variants-off"
REPLAYED = [
    *(
        (log, log.with_name(log.stem + ".expected.json"))
        for log in sorted(CONTRACT.glob("*.jsonl"))
    ),
    *(
        (log, EXPECTED_EXAMPLES / (log.stem + ".expected.json"))
        for log in sorted(EXAMPLES.glob("*.jsonl"))
    ),
]
MATCHES = {
    "hk-tsimshatsui-t3-2026-12-05": EXAMPLES / "hongkong-match.jsonl",
    "chengdu-teahouse-t12-2026-12-06": EXAMPLES / "sichuan-match.jsonl",
}
OLD_REASONS = {
    "won_on_discard",
    "self_drawn",
    "kong_exposed",
    "kong_added",
    "kong_concealed",
    "kong_money_passed",
    "flower_pig",
    "not_ready",
    "kong_refund",
}
OLD_RULES = {
    "hongkong": ["table", "points_per_unit", "min_fan", "fan_limit", "discard_pays"],
    "sichuan": ["base", "fan_cap", "self_draw_bonus", "kong_money_passing", "kong_passing_split"],
}
HAND_KEYS = [
    "number",
    "dealer",
    "dealer_streak",
    "round_wind",
    "outcome",
    "winners",
    "transfers",
    "net",
    "next_dealer",
]


def invoke(*args: str) -> Result:
    result = CliRunner().invoke(main, list(args), env={"COLUMNS": "120", "NO_COLOR": "1"})
    assert result.exit_code == 0, result.output
    return result


@pytest.mark.parametrize(("log", "expected"), REPLAYED, ids=lambda p: p.stem)
def test_replay_json_is_byte_identical(log: Path, expected: Path) -> None:
    assert invoke("replay", str(log), "--json").stdout_bytes == expected.read_bytes()


@pytest.mark.parametrize("log", [log for log, _ in REPLAYED], ids=lambda p: p.stem)
def test_replay_text_view_is_byte_identical(log: Path) -> None:
    snapshot = SNAPSHOTS / (log.stem + ".replay.txt")
    assert invoke("replay", str(log)).stdout_bytes == snapshot.read_bytes()


def store_views(store: Path) -> dict[str, bytes]:
    """What every store view prints for the example matches, recorded into a fresh store."""
    out: dict[str, bytes] = {}
    for log in MATCHES.values():
        invoke("record", str(log), "--store", str(store))
    for command in ("scores", "streaks"):
        out[f"store-{command}.json"] = invoke(command, "--json", "--store", str(store)).stdout_bytes
        out[f"store-{command}.txt"] = invoke(command, "--store", str(store)).stdout_bytes
    for match in MATCHES:
        args = ("--store", str(store))
        out[f"{match}.history.json"] = invoke("history", match, "--json", *args).stdout_bytes
        out[f"{match}.history.txt"] = invoke("history", match, *args).stdout_bytes
        out[f"{match}.hand-1.json"] = invoke("hand", match, "1", "--json", *args).stdout_bytes
        out[f"{match}.hand-1.txt"] = invoke("hand", match, "1", *args).stdout_bytes
        out[f"{match}.export.jsonl"] = invoke("export", match, *args).stdout_bytes
    return out


def test_store_views_are_byte_identical(tmp_path: Path) -> None:
    views = store_views(tmp_path / "store.sqlite")
    assert sorted(views) == sorted(
        p.name for p in SNAPSHOTS.iterdir() if not p.name.endswith(".replay.txt")
    )
    for name, printed in views.items():
        assert printed == (SNAPSHOTS / name).read_bytes(), name


@given(legal_logs())
def test_a_log_without_variants_shows_none(lines: list[dict]) -> None:
    """variants.md: "new keys appear in the output's `rules` only when set to a value other
    than the default" — no `stakes`, no `balances`, no new reason, the keys in their order."""
    out = replay(log_text(lines)).to_json()
    assert list(out) == ["ruleset", "match", "players", "rules", "hands", "totals"]
    assert list(out["rules"]) == OLD_RULES[out["ruleset"]]
    for hand in out["hands"]:
        assert list(hand) == HAND_KEYS
        assert {t["reason"] for t in hand["transfers"]} <= OLD_REASONS
