"""The command line's tables, for people (the JSON output is for programs).

One way of saying each thing on screen: players in seat order with a column each (so a name
and its amount never wrap apart at 80 columns), ids whole, amounts signed and coloured (gains
green, losses red), a dealer's streak said the same way everywhere ("streak 2", as
``explain`` and the log's ``dealer_streak`` count it), and each hand's title on its own line
above its payments. Text from a log or a store is always shown inert (:func:`inert`).
"""

from __future__ import annotations

import json
from collections.abc import Collection, Iterable, Mapping, Sequence
from typing import TYPE_CHECKING, Any

from rich import table as rich_table
from rich.cells import cell_len
from rich.console import Console, ConsoleOptions, RenderResult
from rich.segment import Segment
from rich.text import Text

from mjledger._text import escaped
from mjledger.cli.plain import plain_print, plain_rows, plain_table, title_text
from mjledger.rules.house import rules_to_json
from mjledger.rules.protocol import QuickHand

if TYPE_CHECKING:
    from collections.abc import Callable

    from mjledger.fold.hand import HandState
    from mjledger.fold.match import MatchState
    from mjledger.fold.replay import Replay


class TerminalConsole(Console):
    """rich's console as the command uses it: every string printed as literal text (no markup,
    no emoji codes, no automatic highlighting: digits inside a match id are not numbers), its
    control characters escaped as :func:`mjledger._text.escaped` writes them — a table's
    title and cells too —, and a broken pipe left to :class:`MjledgerGroup` (rich would
    exit 1). Styled text is built as :class:`rich.text.Text` (``render.inert``)."""

    def __init__(self, **options: Any) -> None:
        options.setdefault("highlight", False)
        options.setdefault("markup", False)
        options.setdefault("emoji", False)
        super().__init__(**options)

    def render_str(self, text: str, **options: Any) -> Text:
        options.update(markup=False, emoji=False)
        return super().render_str(escaped(text), **options)

    def on_broken_pipe(self) -> None:
        self.quiet = True
        raise BrokenPipeError

    def print(self, *objects: Any, **options: Any) -> None:
        """rich's ``print``; where what it would write is plain text (no colour, nothing to
        wrap: cli/plain.py), that text written directly, as rich would have written it."""
        where = self._plain()
        if where is not None:
            text = plain_print(objects, options, self, where)
            if text is not None:
                self.file.write(text)
                return
        super().print(*objects, **options)

    def print_rows(self, table: Callable[[], Table], rows: Sequence[Sequence[str]]) -> None:
        """The table ``table()`` makes (its columns, no rows) with ``rows`` added, printed:
        where that is plain text, written from the rows' strings directly (no rich cell is
        made), else built and printed by :meth:`print`. A string cell is shown inert."""
        where = self._plain()
        if where is not None:
            columns = self._columns.get(table)
            if columns is None:
                columns = self._columns[table] = table()
            text = plain_rows(columns, rows, self, where)
            if text is not None:
                self.file.write(text)
                return
        self.print(filled(table(), rows))

    def writes_plain(self) -> bool:
        """Whether this console writes plain text (a pipe or a file, no colour): what it
        prints is then the same wherever its file is (``replay`` holds it to print it whole)."""
        return self._plain() is not None

    _plain_options: ConsoleOptions | None = None
    _columns: dict[Callable[[], Table], Table]

    def _plain(self) -> ConsoleOptions | None:
        """The options plain text is written with, or None (rich prints everything)."""
        if self._plain_options is None and self._writes_plain():
            self._plain_options = self.options  # a pipe or a file: its size does not change
            self._columns = {}
        return self._plain_options if self._buffer_index == 0 else None

    def _writes_plain(self) -> bool:
        return (
            not self.is_terminal
            and self.color_system is None
            and not self.record
            and not self.quiet
        )


REASON_TEXT = {
    "won_on_discard": "win on discard",
    "self_drawn": "self-drawn win",
    "kong_exposed": "exposed kong",
    "kong_added": "added kong (wind)",
    "kong_concealed": "concealed kong (rain)",
    "kong_money_passed": "kong money passed",
    "flower_pig": "flower pig",
    "not_ready": "not ready",
    "kong_refund": "kong refund",
    "liability": "liability (包)",
    "false_win": "false win (詐糊)",
}


class Table(rich_table.Table):
    """rich's table with its title printed whole on a line of its own, as the text of a log
    is shown (:func:`inert`): rich wraps a title to the table's width, which breaks a long id
    or a list of players in the middle at 80 columns."""

    def __rich_console__(self, console: Console, options: ConsoleOptions) -> RenderResult:
        plain = plain_table(self, console, options)
        if plain is not None:  # the same characters, without rich's layout (cli/plain.py)
            yield Segment(plain)
            return
        title = self.title
        if title is None:
            yield from super().__rich_console__(console, options)
            return
        self.title = None
        try:
            yield Segment(title_text(title), console.get_style(self.title_style or "table.title"))
            yield Segment.line()
            yield from super().__rich_console__(console, options)
        finally:
            self.title = title


def inert(text: str, style: str = "") -> Text:
    """Text from a log or a store (an id, a reason, a staff name) as a view shows it: literal,
    never read as markup, its control characters escaped. Every view builds such text here."""
    return Text(escaped(text), style=style)


def id_column(table: Table, header: str, ids: Iterable[str], *, width: int, **options: Any) -> None:
    """A column of ids, each shown whole: the column is as wide as its longest id, and the
    other columns give way; only an id wider than the line itself is folded."""
    longest = max((cell_len(escaped(i)) for i in ids), default=0)
    if longest + 4 <= width:  # the id, its padding and borders fit on one line
        table.add_column(header, no_wrap=True, min_width=max(longest, len(header)), **options)
    else:
        table.add_column(header, overflow="fold", **options)


def json_text(value: object) -> str:
    """A house rule's value as the log writes it: ``true``, not Python's ``True``."""
    return value if isinstance(value, str) else json.dumps(value, ensure_ascii=False)


def streak_text(streak: int) -> str:
    """A dealer's streak as the log counts it (``dealer_streak``: how many hands in a row the
    dealer kept the deal before this one, 0 on a first hand): the one wording of streaks on
    screen, in ``replay``, ``hand``, ``streaks`` and ``explain`` alike."""
    return f"streak {streak}"


def signed(amount: int) -> str:
    return f"{amount:+d}" if amount else "0"


def money(amount: int) -> Text:
    """A signed amount, green for a gain and red for a loss."""
    style = "green" if amount > 0 else "red" if amount < 0 else ""
    return Text(signed(amount), style=style)


def player_columns(table: Table, players: Iterable[str]) -> None:
    for player in players:
        table.add_column(inert(player), justify="right", no_wrap=True)


def render_replay(result: Replay, console: Console) -> None:
    """A settled log's tables: its head, each hand, the totals (``replay LOG``; the command
    line prints a long log's hands as they settle, through the same three statements)."""
    render_head(result.state, console)
    for hand in result.hands:
        render_settled(hand, result.players, console)
    render_totals(result.players, result.totals(), console)


def render_head(state: MatchState, console: Console) -> None:
    """What a log's first line says: the table, its players, house rules and stakes."""
    ruleset, match = state.ruleset, state.match_id
    title = f"{ruleset} match {match}" if match else f"{ruleset} log"
    # One-line texts are printed whole (soft_wrap): a pipe is 80 columns, and a line broken
    # by the printer reads as two.
    console.print(
        inert(title, style="bold"),
        inert(f"— players {', '.join(state.players)}"),
        soft_wrap=True,
    )
    rules = ", ".join(f"{k}={json_text(v)}" for k, v in rules_to_json(state.rules).items())
    console.print(f"house rules: {rules}", soft_wrap=True)
    stakes = state.initial_stakes
    if stakes is not None:
        console.print(
            "stakes: " + "  ".join(f"{p} {stakes[p]}" for p in state.players), soft_wrap=True
        )


def render_settled(hand: HandState | QuickHand, players: tuple[str, ...], console: Console) -> None:
    """One settled hand as ``replay`` shows it, the general fold's or a quick fold's (which
    never settles table stakes: only the general fold's hand ends a match)."""
    render_hand(hand, players, console)
    if isinstance(hand, QuickHand) or not hand.ended:
        return
    stakes = hand.stakes
    if stakes is not None and stakes.bust:
        who = ", ".join(p for p in players if p in stakes.bust)
        console.print(f"the match ends: {who} went bust", soft_wrap=True)


def render_totals(players: tuple[str, ...], totals: Mapping[str, int], console: Console) -> None:
    table = Table(title="Totals", title_justify="left")
    player_columns(table, players)
    table.add_row(*(money(totals[p]) for p in players))
    console.print(table)


def hand_title(hand: HandState | QuickHand) -> str:
    run = f" ({streak_text(hand.dealer_streak)})" if hand.dealer_streak else ""
    # A quick fold settles no false win (it leaves that hand to the general fold).
    false_win_by = None if isinstance(hand, QuickHand) else hand.false_win_by
    if hand.outcome == "won":
        outcome = "won by " + ", ".join(hand.winners)
    elif false_win_by is not None:
        outcome = f"no winner (false win by {false_win_by})"
    elif hand.outcome == "void":
        outcome = f"{OUTCOME_TEXT['void']} (wall exhausted)"
    else:
        outcome = "unfinished" + (
            " — won so far by " + ", ".join(hand.winners) if hand.winners else ""
        )
    nxt = f"; next dealer {hand.next_dealer}" if hand.next_dealer else ""
    return (
        f"Hand {hand.number} — dealer {hand.dealer}{run}, {hand.round_wind} round — {outcome}{nxt}"
    )


def render_hand(hand: HandState | QuickHand, players: tuple[str, ...], console: Console) -> None:
    console.print(inert(hand_title(hand), style="bold"), soft_wrap=True)
    if not hand.transfers:
        console.print("no payments", style="dim")
    else:
        render_payments(hand, players, console)
    stakes = None if isinstance(hand, QuickHand) else hand.stakes
    if stakes is not None:
        console.print(balances_text(stakes.as_dict(), stakes.bust), soft_wrap=True)


def balances_text(balances: Mapping[str, int], bust: Collection[str]) -> str:
    """Table stakes: ``balances: ana 0 (bust)  bo 104 ...``."""
    return "balances: " + "  ".join(
        f"{p} {b}" + (" (bust)" if p in bust else "") for p, b in balances.items()
    )


def filled(table: Table, rows: Iterable[Sequence[str | Text]]) -> Table:
    """``table`` with ``rows`` added."""
    for row in rows:
        table.add_row(*row)
    return table


def settled_net(hand: HandState | QuickHand) -> Mapping[str, int]:
    """A settled hand's net, whichever fold settled it (a quick fold's hand holds it; the
    general fold's works it out from its transfers)."""
    return hand.net if isinstance(hand, QuickHand) else hand.net()


def payments_table() -> Table:
    """A hand's payments: the columns, without rows."""
    table = Table()
    table.add_column("line", justify="right")
    table.add_column("from")
    table.add_column("to")
    table.add_column("amount", justify="right")
    table.add_column("reason")
    return table


def payment_rows(hand: HandState | QuickHand) -> list[tuple[str, str, str, str, str]]:
    """A hand's payments as the table's cells (text from the log, shown inert by the console),
    one row a transfer: a general fold's :class:`Transfer` or a quick fold's dict of it."""
    if isinstance(hand, QuickHand):
        return [
            (str(t["line"]), t["from"], t["to"], str(t["amount"]), REASON_TEXT[t["reason"]])
            for t in hand.transfers
        ]
    return [
        (str(t.line), t.payer, t.payee, str(t.amount), REASON_TEXT[t.reason])
        for t in hand.transfers
    ]


def render_payments(
    hand: HandState | QuickHand, players: tuple[str, ...], console: Console
) -> None:
    rows = payment_rows(hand)
    if isinstance(console, TerminalConsole):
        console.print_rows(payments_table, rows)
    else:
        # Any other console may read markup: every cell from the log made inert here.
        console.print(filled(payments_table(), ([inert(c) for c in row] for row in rows)))
    net = settled_net(hand)
    line = Text("net: ")
    for i, p in enumerate(players):
        line.append(escaped(("  " if i else "") + f"{p} "))
        line.append_text(money(net[p]))
    console.print(line)


def scores_tables(
    by_match: dict[str, dict[str, int]], players_of: dict[str, Sequence[str]], width: int
) -> list[Table]:
    """Per-match totals, one table per group of consecutive matches at the same table (the
    same players in the same seats), a column per player in seat order."""
    tables: list[Table] = []
    current: tuple[str, ...] | None = None
    for match, scores in by_match.items():
        seats = tuple(players_of.get(match) or scores)
        if seats != current:
            current = seats
            table = Table(title=f"By match — {', '.join(seats)}", title_justify="left")
            id_column(table, "match", by_match, width=width)
            player_columns(table, seats)
            tables.append(table)
        tables[-1].add_row(inert(match), *(money(scores.get(p, 0)) for p in seats))
    return tables


# Three things the JSON and the events call "void" have a word each on screen: a void suit (a
# Sichuan player's missing suit) keeps it; a hand nobody won has "no winner"; a hand annulled
# by staff (``mjledger void``) is "annulled by staff".
OUTCOME_TEXT = {"won": "won", "void": "no winner", "unfinished": "unfinished"}
CORRECTION_TEXT = {"corrected": "corrected", "voided": "annulled by staff"}


def nets_text(net: Mapping[str, int], players: Sequence[str]) -> str:
    return "  ".join(f"{p} {signed(net.get(p, 0))}" for p in players)


def correction_text(note: Mapping[str, Any]) -> str:
    """A correction in one line: what, when, who, why (``history`` and ``hand``)."""
    kind = CORRECTION_TEXT[note["kind"]]
    return f"{kind} {note['when'][:10]} by {note['by']}: {note['reason']}"


def render_corrections(
    notes: Sequence[Mapping[str, Any]], players: Sequence[str], console: Console
) -> None:
    """A corrected or annulled stored hand marked under it, with its net as recorded and as
    it stands now."""
    for note in notes:
        console.print(inert(correction_text(note), style="bold"))
        console.print(inert(f"  as recorded: {nets_text(note['original_net'], players)}"))
        console.print(inert(f"  now:         {nets_text(note['net'], players)}"))


def history_table(
    match: str,
    players: Sequence[str],
    entries: Sequence[Any],
    corrected: Mapping[int, Sequence[Mapping[str, Any]]] | None = None,
) -> Table:
    """Each hand a row, each player a column; a corrected or voided hand says so after its
    outcome. Under table stakes a last column holds each player's balance after the hand."""
    table = Table(title=f"History of {match}", title_justify="left")
    table.add_column("hand", justify="right")
    table.add_column("dealer")
    table.add_column("wind")
    table.add_column("outcome")
    player_columns(table, players)
    staked = any(e.balances is not None for e in entries)
    if staked:
        table.add_column("balances")
    for e in entries:
        outcome = OUTCOME_TEXT.get(e.outcome, e.outcome)
        outcome += " (" + ", ".join(e.winners) + ")" if e.winners else ""
        for c in (corrected or {}).get(e.number, []):
            outcome += "; " + correction_text(c)
        row: list[Text | str] = [
            str(e.number),
            inert(e.dealer),
            e.round_wind,
            inert(outcome),
            *(money(e.net.get(p, 0)) for p in players),
        ]
        if staked:
            row.append(inert("  ".join(f"{p} {b}" for p, b in (e.balances or {}).items())))
        table.add_row(*row)
    return table


def first_bust(entries: Sequence[Any]) -> dict[str, int]:
    """Table stakes: each bust player and the hand in which they went bust."""
    bust: dict[str, int] = {}
    for e in entries:
        for p in e.bust:
            bust.setdefault(p, e.number)
    return bust
