"""``replay LOG``'s tables written as the log's hands settle, for standard output that is a
pipe or a file.

Folding the whole log first and then drawing a table a hand (``render_replay``) held every
hand in memory and went through the general fold; here each hand is settled by
:class:`~mjledger.fold.stream.SettledHands` — a rule set's quick fold where it has one, the
general fold wherever that leaves the hand — and printed at once by the same statements
(``render_head``, ``render_settled``, ``render_totals``), a hand's rows written by the plain
writer (:meth:`~mjledger.cli.render.TerminalConsole.print_rows`). All or nothing still holds:
what is printed is held until the log has been read to its end (the caller spools it), and
a refused log's error is the general fold's, as ``replay --json`` reports it.
"""

from __future__ import annotations

import io
from collections.abc import Iterable, Iterator
from typing import TYPE_CHECKING, Final

from mjledger.cli.render import render_head, render_settled, render_totals, settled_net
from mjledger.fold.stream import SettledHands

if TYPE_CHECKING:
    from mjledger.cli.render import TerminalConsole
    from mjledger.log.events import Event

# Text held before it is handed on as a part (the caller spools the parts).
PART: Final = 1 << 16


class Held(io.StringIO):
    """What the console writes, held, under the encoding of the file it stands in for (rich
    chooses a table's box by it)."""

    def __init__(self, encoding: str | None) -> None:
        super().__init__()
        self._encoding = encoding

    @property
    def encoding(self) -> str | None:  # type: ignore[override]
        return self._encoding


def replay_text_parts(
    events: Iterable[tuple[int | None, Event]], console: TerminalConsole
) -> Iterator[str]:
    """The text ``render_replay`` prints on ``console`` for the log ``events``, in parts, a
    few hands at a time; ``console`` must write plain text (``writes_plain``), so that what it
    writes does not depend on where it writes it."""
    original = console.file
    held = Held(getattr(original, "encoding", None))
    console.file = held
    try:
        hands = SettledHands(events)
        totals: dict[str, int] | None = None
        players: tuple[str, ...] = ()
        for hand in hands:
            if totals is None:
                totals = _opened(hands, console)
                players = tuple(totals)
            render_settled(hand, players, console)
            for player, amount in settled_net(hand).items():
                totals[player] += amount
            if held.tell() >= PART:
                yield held.getvalue()
                held.seek(0)
                held.truncate()
        if totals is None:  # a match without hands
            totals = _opened(hands, console)
        render_totals(tuple(totals), totals, console)
        yield held.getvalue()
    finally:
        console.file = original


def _opened(hands: SettledHands, console: TerminalConsole) -> dict[str, int]:
    """The log's head printed (its first line read); every player's total, 0, in seat order."""
    assert hands.head is not None
    render_head(hands.head, console)
    return dict.fromkeys(hands.head.players, 0)
