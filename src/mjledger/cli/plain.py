"""What rich would print, written directly, where that is plain text: a long log's tables.

rich lays out a table by rendering every cell through its console (segments, styles, wrapping),
which is most of the time ``replay LOG`` takes on a long log — a table a hand. Where nothing
needs rich's layout — no colour (standard output is not a terminal), every line fits the width,
one line a cell, a box the terminal can draw — the same characters are written here from the
cells' plain text: each column as wide as its widest cell (header included) plus its padding,
the cells justified in it, rows between the box's lines. Anything else (a cell that would
wrap, a fixed column width, colour, a style rich draws) returns None, and rich renders it.
A property test holds this module to rich's output byte for byte.
"""

from __future__ import annotations

import re
from collections.abc import Sequence
from functools import lru_cache
from typing import TYPE_CHECKING, Any, Final

from rich.cells import cell_len
from rich.table import Table
from rich.text import Text

from mjledger._text import escaped

if TYPE_CHECKING:
    from rich.console import Console, ConsoleOptions
    from rich.table import Column

# What rich would do differently with a cell (a tab expanded, a line broken, a control code,
# text it strips): left to rich.
_NOT_PLAIN: Final = re.compile(r"[\n\t\r\x1b]|^\s|\s$")


def width_of(text: str) -> int:
    """Cells ``text`` takes on a terminal (rich's measure; printable ASCII: one a character)."""
    return len(text) if text.isascii() and text.isprintable() else cell_len(text)


def plain_cell(cell: Any) -> str | None:
    """A cell's text as rich prints it without colour (a string as the console renders one:
    escaped, by :class:`mjledger.cli.render.TerminalConsole`), or None where rich must lay
    it out: text with a justification or overflow of its own, or anything but text."""
    if isinstance(cell, str):
        text = escaped(cell)
    elif type(cell) is Text and cell.justify is None and cell.overflow is None:
        text = cell.plain
    else:
        return None
    return None if _NOT_PLAIN.search(text) else text


# The options of ``Console.print`` this module writes as rich would (others: rich prints).
_PRINT_OPTIONS = frozenset(("sep", "style", "soft_wrap"))


def plain_print(
    objects: Sequence[Any], options: dict[str, Any], console: Console, where: ConsoleOptions
) -> str | None:
    """What ``console.print(*objects, **options)`` writes, where it is plain text: a table
    (:func:`plain_table`), or text on one line (rich joins the objects by ``sep``; a style is
    not drawn without colour; ``soft_wrap`` prints a line longer than the width whole)."""
    if not options.keys() <= _PRINT_OPTIONS:
        return None
    if len(objects) == 1 and isinstance(objects[0], Table) and not options.get("style"):
        return plain_table(objects[0], console, where)
    texts = [plain_cell(item) for item in objects]
    if any(text is None for text in texts):
        return None
    line = str(options.get("sep", " ")).join(text for text in texts if text is not None)
    if not options.get("soft_wrap") and width_of(line) > where.max_width:
        return None  # rich would wrap it
    return line + "\n"


def plain_table(table: Table, console: Console, options: ConsoleOptions) -> str | None:
    """The table as rich prints it on ``console`` (the title on a line of its own, as
    :class:`mjledger.cli.render.Table` prints it, then the box and the rows), or None."""
    return _plain_grid(table, [[c.header, *c._cells] for c in table.columns], console, options)


def plain_rows(
    table: Table, rows: Sequence[Sequence[Any]], console: Console, options: ConsoleOptions
) -> str | None:
    """``table`` (its columns, no rows) with ``rows`` added, as :func:`plain_table` prints
    it, read from the rows' cells as they are (no rich cell is made), or None."""
    columns = table.columns
    if table.rows or any(len(row) != len(columns) for row in rows):
        return None  # rich pads a short row, refuses a long one
    by_column = list(zip(*rows, strict=True)) if rows else [()] * len(columns)
    cells = [[c.header, *column] for c, column in zip(columns, by_column, strict=True)]
    return _plain_grid(table, cells, console, options)


def _plain_grid(
    table: Table, cells: list[list[Any]], console: Console, options: ConsoleOptions
) -> str | None:
    """:func:`plain_table` of ``table`` laid out with ``cells`` (each column's header, then
    its cells), or None."""
    if not _plain_layout(table, console, options):
        return None
    title = None if table.title is None else title_text(table.title)
    if title is not None and (width_of(title) > options.max_width or "\n" in title):
        return None
    columns = table.columns
    texts: list[list[str]] = []
    for column in cells:
        plain = [_plain_str(c) if type(c) is str else plain_cell(c) for c in column]
        if None in plain:
            return None
        texts.append(plain)  # type: ignore[arg-type]  # no None in it
    pads = [_padding(table, i) for i in range(len(columns))]
    simple = [_simple(column) for column in texts]
    widths = [
        max(
            max(map(len if simple else width_of, column)) + left + right,
            (c.min_width or 0) + left + right,
        )
        or 1
        for c, column, (left, right), simple in zip(columns, texts, pads, simple, strict=True)
    ]
    if sum(widths) + table._extra_width > options.max_width:
        return None  # rich would wrap or shrink a column
    safe = console.safe_box if table.safe_box is None else table.safe_box
    justified = [
        _justified_column(column, width, pad, c.justify, simple)
        for column, width, pad, c, simple in zip(texts, widths, pads, columns, simple, strict=True)
    ]
    return _draw(table, options, safe, title, widths, justified)


@lru_cache(maxsize=1 << 12)
def _plain_str(cell: str) -> str | None:
    """:func:`plain_cell` of a string, remembered: a long log's tables repeat the same few
    names, reasons and numbers."""
    return plain_cell(cell)


def _simple(texts: list[str]) -> bool:
    """Whether every text of a column is printable ASCII (one cell a character)."""
    joined = "".join(texts)
    return joined.isascii() and joined.isprintable()


def title_text(title: Any) -> str:
    """A table's title as a line of its own shows it: whole, its control characters escaped."""
    return escaped(title.plain if isinstance(title, Text) else str(title))


def _plain_layout(table: Table, console: Console, options: ConsoleOptions) -> bool:
    """Whether rich would draw ``table`` with no colour and none of what this module leaves
    to it (a width of its own, expansion, footers, lines between rows, captions...)."""
    return (
        console.color_system is None
        and not options.legacy_windows
        and not options.ascii_only
        and bool(table.columns)
        and table.box is not None
        and table.show_header
        and not table.expand
        and table.width is None
        and table.min_width is None
        and not table.show_footer
        and not table.show_lines
        and not table.leading
        and table.caption is None
        and not table.collapse_padding
        and not table.row_styles
        and tuple(table.padding[::2]) == (0, 0)  # no blank lines above or below a cell
        and all(_plain_column(c) for c in table.columns)
    )


def _plain_column(column: Column) -> bool:
    return (
        column.width is None
        and column.max_width is None
        and column.ratio is None
        and column.justify in ("left", "right")
        and column.vertical == "top"
    )


def _padding(table: Table, index: int) -> tuple[int, int]:
    """A column's left and right padding (rich's, with its edges)."""
    _, right, _, left = table.padding
    if not table.pad_edge:
        left = 0 if index == 0 else left
        right = 0 if index == len(table.columns) - 1 else right
    return left, right


def _draw(
    table: Table,
    options: ConsoleOptions,
    safe: bool,
    title: str | None,
    widths: list[int],
    columns: list[list[str]],
) -> str:
    """The table's lines, from each column's cells as justified in their width."""
    assert table.box is not None
    box = table.box.substitute(options, safe=safe)
    edge = table.show_edge
    out: list[str] = [] if title is None else [title]
    if edge:
        out.append(box.get_top(widths))
    count = len(columns[0])
    for number, row in enumerate(zip(*columns, strict=True)):
        first, last = number == 0, number == count - 1
        left, vertical, right = (
            (box.head_left, box.head_vertical, box.head_right)
            if first
            else (box.foot_left, box.foot_vertical, box.foot_right)
            if last
            else (box.mid_left, box.mid_vertical, box.mid_right)
        )
        line = vertical.join(row)
        out.append(f"{left}{line}{right}" if edge else line)
        if first:
            out.append(box.get_row(widths, "head", edge=edge))
    if edge:
        out.append(box.get_bottom(widths))
    return "\n".join(out) + "\n"


def _justified_column(
    texts: list[str], width: int, pad: tuple[int, int], justify: str, simple: bool
) -> list[str]:
    """A column's texts, each justified in the column's ``width`` with its padding."""
    left, right = pad
    if simple:  # one cell a character: str's own justification
        room = width - left - right
        lead, trail = " " * left, " " * right
        fill = str.rjust if justify == "right" else str.ljust
        return [lead + fill(text, room) + trail for text in texts]
    return [_justified(text, width, pad, justify) for text in texts]


def _justified(text: str, width: int, pad: tuple[int, int], justify: str) -> str:
    left, right = pad
    room = width - left - right - width_of(text)
    body = " " * room + text if justify == "right" else text + " " * room
    return " " * left + body + " " * right
