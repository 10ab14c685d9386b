"""``replay LOG``'s tables printed as the hands settle (cli/replay_text.py: the quick fold, the
plain writer's rows) against the renderer as it was: the whole log folded by the general fold,
then ``render_replay`` with rich drawing every table and line. The same text, byte for byte,
at every width, on random legal, variant, simulated tile and mutated logs, hostile names
included; the same error, line and message, for a bad log (issue 25)."""

from __future__ import annotations

import importlib
import io
import json
from collections.abc import Iterator
from contextlib import contextmanager
from typing import Any
from unittest import mock

import pytest
from click.testing import CliRunner
from hypothesis import given
from hypothesis import strategies as st
from rich.console import Console

from mjledger.cli import main
from mjledger.cli.render import Table, TerminalConsole, render_replay
from mjledger.cli.replay_text import replay_text_parts
from mjledger.fold.replay import replay_events
from mjledger.log.reader import iter_log
from tests.cli.test_plain_output import _rich_drawn
from tests.conftest import CONTRACT
from tests.helpers import jsonl
from tests.strategies import corrupted_log_texts, legal_log_text
from tests.unit.test_fast_path import outcome
from tests.unit.test_quick_fold_tiles import QUICK_TABLES, damaged_tile_logs, simulated_lines
from tests.variant_strategies import variant_logs

pytestmark = pytest.mark.cli

# The module (the package's ``main`` is the command group).
cli_main = importlib.import_module("mjledger.cli.main")
spooling = importlib.import_module("mjledger._replay_json")  # where output is spooled

widths = st.one_of(st.just(80), st.integers(30, 140))


class RichOnly(TerminalConsole):
    """The command's console with the plain writer off: rich prints every line."""

    def print(self, *objects: Any, **options: Any) -> None:
        Console.print(self, *objects, **options)


@contextmanager
def rich_tables() -> Iterator[None]:
    """Every table laid out by rich (the plain writer's tables switched off)."""
    original = Table.__rich_console__
    Table.__rich_console__ = _rich_drawn  # type: ignore[method-assign]
    try:
        yield
    finally:
        Table.__rich_console__ = original  # type: ignore[method-assign]


def before(data: bytes, width: int) -> Any:
    """The text as it was printed: the log folded whole, then drawn by rich."""

    def run() -> str:
        result = replay_events(iter_log((data,)))
        out = io.StringIO()
        with rich_tables():
            render_replay(result, RichOnly(file=out, width=width))
        return out.getvalue()

    return outcome(run)


def now(data: bytes, width: int, size: int = 1 << 20) -> Any:
    """The text as ``replay LOG`` prints it to a pipe or a file now, the log read in chunks."""
    chunks = [data[i : i + size] for i in range(0, len(data), size)]
    console = TerminalConsole(file=io.StringIO(), width=width)
    assert console.writes_plain()
    return outcome(lambda: "".join(replay_text_parts(iter_log(chunks), console)))


@given(legal_log_text(max_hands=4), widths, st.integers(1, 64))
def test_legal_logs_same_text(text: str, width: int, size: int) -> None:
    data = text.encode("utf-8")
    assert now(data, width, size) == before(data, width)


@given(variant_logs(max_hands=3), widths)
def test_variant_logs_same_text(lines: list[Any], width: int) -> None:
    """Variants and table stakes (balances, a bust ending the match) too."""
    data = jsonl(*lines).encode("utf-8")
    assert now(data, width) == before(data, width)


@given(
    st.one_of(
        st.tuples(st.just("sichuan"), st.sampled_from(QUICK_TABLES)),
        st.tuples(st.just("hongkong"), st.just({})),
    ),
    st.integers(0, 2**32),
    st.integers(1, 6),
    widths,
)
def test_simulated_tile_logs_same_text(
    table: tuple[str, dict[str, Any]], seed: int, hands: int, width: int
) -> None:
    ruleset, rules = table
    data = "\n".join(simulated_lines(ruleset, rules, seed, hands)).encode()
    assert now(data, width) == before(data, width)


@given(damaged_tile_logs(), widths)
def test_damaged_tile_logs_same_text_or_same_error(data: bytes, width: int) -> None:
    assert now(data, width) == before(data, width)


@given(corrupted_log_texts(), widths)
def test_corrupted_logs_same_text_or_same_error(text: str, width: int) -> None:
    data = text.encode("utf-8")
    assert now(data, width) == before(data, width)


NAMES = st.lists(
    st.one_of(
        st.sampled_from(("[bold]x[/]", " lead", "trail ", "包詐糊", "é\u3000x", "a" * 70, "<i>")),
        st.text(alphabet=st.characters(codec="utf-8", categories=("L", "Zs", "P")), min_size=1),
    ),
    min_size=4,
    max_size=4,
    unique=True,
)


@given(NAMES, st.integers(0, 2**32), widths)
def test_hostile_and_wide_names_same_text(names: list[str], seed: int, width: int) -> None:
    """Markup, blanks at the ends, wide characters and names too long for the line: shown as
    written (inert), each table rich must lay out left to rich."""
    lines = simulated_lines("sichuan", {}, seed, 3)
    renamed = "\n".join(lines)
    for old, new in zip(("ana", "bo", "cy", "di"), names, strict=True):
        renamed = renamed.replace(json.dumps(old), json.dumps(new))
    data = renamed.encode("utf-8")
    assert now(data, width) == before(data, width)


@pytest.mark.parametrize("columns", [40, 80, 120])
@pytest.mark.parametrize("name", sorted(p.name for p in CONTRACT.glob("*.jsonl")))
def test_the_command_prints_what_the_renderer_printed(name: str, columns: int) -> None:
    data = (CONTRACT / name).read_bytes()
    result = CliRunner().invoke(
        main, ["replay", str(CONTRACT / name)], env={"COLUMNS": str(columns)}
    )
    expected = before(data, columns)
    if isinstance(expected, str):
        assert result.exit_code == 0
        assert result.stdout == expected
    else:
        assert result.exit_code != 0
        assert result.stdout == ""


def test_a_refused_log_prints_nothing_but_its_error() -> None:
    lines = simulated_lines("sichuan", {}, 3, 5)
    lines.append('{"type": "discarded", "player": "nobody", "tile": "1m"}')
    data = "\n".join(lines).encode()
    expected = before(data, 80)
    assert not isinstance(expected, str)
    result = CliRunner().invoke(main, ["replay", "-"], input=data)
    assert result.exit_code != 0
    assert result.stdout == ""
    assert expected[1] in result.stderr


def test_a_long_log_through_the_spool_and_its_file() -> None:
    """Parts of many hands, the spool moved to a temporary file, copied out a block at a time
    (a block may end inside a character: the em dashes of the titles)."""
    data = "\n".join(simulated_lines("sichuan", {}, 5, 120)).encode()
    expected = before(data, 80)
    assert isinstance(expected, str)
    with mock.patch.object(spooling, "SPOOL_IN_MEMORY", 1000):
        result = CliRunner().invoke(main, ["replay", "-"], input=data, env={"COLUMNS": "80"})
    assert result.exit_code == 0
    assert result.stdout == expected


def test_a_plain_rich_console_shows_the_logs_names_in_payments_as_text() -> None:
    """On a console that reads markup (not mjledger's own), a payer or payee named like
    markup is printed as written, not read as a style (the payments' rows made inert)."""
    names = ["[bold]ana", "bo[/]", "cy", "di"]
    lines = [
        {"type": "match_started", "ruleset": "sichuan", "players": names},
        {"type": "hand_started"},
        {"type": "won_on_discard", "player": names[0], "from": names[1], "fan": 2},
        {"type": "wall_exhausted", "remaining": {n: {"ready": False} for n in names[1:]}},
    ]
    result = replay_events(iter_log([jsonl(*lines).encode()]))
    console = Console(file=io.StringIO(), width=30, color_system=None)  # rich lays it out
    render_replay(result, console)
    payments = console.file.getvalue().split("┡")[1].split("net:")[0]  # the rows
    assert "[b" in payments  # "[bold]ana" as written, cut to the narrow column (not "ana")
