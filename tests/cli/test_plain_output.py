"""The plain writer (cli/plain.py) prints what rich prints, byte for byte.

Every table and line is printed twice, by a :class:`TerminalConsole` (which writes plain text
itself where it can) and by rich's own ``Console.print`` on the same console, on random cells:
ids, wide (CJK) characters, control characters, blanks at the ends, cells too wide for the
line, every box and padding the views use. Then the views on random logs: ``replay`` of a
long log prints the same as before the writer existed, rich drawing every table.
"""

from __future__ import annotations

import io
from typing import Any

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from rich import box
from rich.console import Console
from rich.text import Text

from mjledger.cli.plain import plain_print
from mjledger.cli.render import Table, TerminalConsole, inert, money, render_replay
from mjledger.fold.replay import replay

from ..helpers import jsonl
from ..strategies import legal_logs

pytestmark = pytest.mark.cli

cell_text = st.text(
    alphabet=st.one_of(
        st.characters(codec="ascii", categories=("L", "N", "P", "Zs")),
        st.sampled_from("包詐糊—é\u3000\t\n\x1b\x07 "),
    ),
    max_size=12,
)
cells = st.one_of(
    cell_text,
    cell_text.map(inert),
    st.integers(-10_000, 10_000).map(money),
)
BOXES = (box.HEAVY_HEAD, box.SIMPLE_HEAD, box.ROUNDED, box.ASCII)


def printed(objects: tuple[Any, ...], width: int, plain: bool, **options: Any) -> str:
    """What a console ``width`` wide writes for ``print(*objects)``: the plain writer's
    (``plain``) or rich's own, drawing everything."""
    out = io.StringIO()
    console = TerminalConsole(file=out, width=width)
    if plain:
        console.print(*objects, **options)
    else:
        Console.print(console, *objects, **options)
    return out.getvalue()


@st.composite
def tables(draw: st.DrawFn) -> Table:
    options: dict[str, Any] = {
        "box": draw(st.sampled_from(BOXES)),
        "show_edge": draw(st.booleans()),
        "padding": draw(st.sampled_from(((0, 1), 0, (0, 2)))),
        "pad_edge": draw(st.booleans()),
    }
    if draw(st.booleans()):
        options["title"] = draw(st.one_of(cell_text, cell_text.map(inert)))
        options["title_justify"] = "left"
    table = Table(**options)
    for header in draw(st.lists(cell_text, min_size=1, max_size=6)):
        table.add_column(
            header,
            justify=draw(st.sampled_from(("left", "right"))),
            no_wrap=draw(st.booleans()),
            min_width=draw(st.one_of(st.none(), st.integers(0, 12))),
        )
    for _ in range(draw(st.integers(0, 5))):
        table.add_row(*(draw(cells) for _ in table.columns))
    return table


@settings(max_examples=400, deadline=None)
@given(tables(), st.integers(20, 120))
def test_a_table_is_printed_as_rich_prints_it(table: Table, width: int) -> None:
    assert printed((table,), width, plain=True) == printed((table,), width, plain=False)


@settings(max_examples=300, deadline=None)
@given(
    st.lists(cells, max_size=4),
    st.integers(20, 120),
    st.booleans(),
    st.sampled_from((" ", "", " — ")),
)
def test_a_line_is_printed_as_rich_prints_it(
    items: list[Any], width: int, soft_wrap: bool, sep: str
) -> None:
    objects = tuple(items)
    options = {"soft_wrap": soft_wrap, "sep": sep, "style": "bold"}
    assert printed(objects, width, True, **options) == printed(objects, width, False, **options)


def test_what_the_writer_leaves_to_rich() -> None:
    """A cell that would wrap, colour, an option it does not know: rich prints them."""
    console = TerminalConsole(file=io.StringIO(), width=20)
    table = Table()
    table.add_column("a")
    table.add_row("x" * 30)
    assert plain_print((table,), {}, console, console.options) is None
    assert plain_print((Text("a\nb"),), {}, console, console.options) is None
    assert plain_print(("a",), {"justify": "center"}, console, console.options) is None
    assert plain_print(("a",), {}, console, console.options) == "a\n"
    coloured = TerminalConsole(file=io.StringIO(), width=80, force_terminal=True)
    coloured.print(inert("ana", style="bold"))
    assert "\x1b[1m" in coloured.file.getvalue()  # type: ignore[attr-defined]


@settings(max_examples=40, deadline=None)
@given(legal_logs(), st.integers(40, 100))
def test_replay_prints_what_rich_alone_printed(lines: list[Any], width: int) -> None:
    result = replay(jsonl(*lines))
    fast, slow = io.StringIO(), io.StringIO()
    render_replay(result, TerminalConsole(file=fast, width=width))

    class RichOnly(TerminalConsole):
        def print(self, *objects: Any, **options: Any) -> None:
            Console.print(self, *objects, **options)

    original = Table.__rich_console__
    Table.__rich_console__ = _rich_drawn  # type: ignore[method-assign]
    try:
        render_replay(result, RichOnly(file=slow, width=width))
    finally:
        Table.__rich_console__ = original  # type: ignore[method-assign]
    assert fast.getvalue() == slow.getvalue()


def _rich_drawn(self: Table, console: Any, options: Any) -> Any:
    """Table.__rich_console__ with the plain writer switched off: rich lays out every table."""
    from rich.segment import Segment

    from mjledger.cli.plain import title_text

    title = self.title
    if title is None:
        yield from super(Table, self).__rich_console__(console, options)
        return
    self.title = None
    try:
        yield Segment(title_text(title), console.get_style(self.title_style or "table.title"))
        yield Segment.line()
        yield from super(Table, self).__rich_console__(console, options)
    finally:
        self.title = title
