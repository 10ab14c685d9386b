"""The command line's tables, for people (the JSON output is for programs).

One way of saying each thing on screen: players in seat order with a column each (so a name
and its amount never wrap apart at 80 columns), amounts signed and coloured (gains green,
losses red), a dealer's run of hands said the same way everywhere ("2nd hand in a row"), and
each hand's title on its own line above its payments.
"""

from __future__ import annotations

from collections.abc import Collection, Iterable, Mapping, Sequence
from typing import Any

from rich.console import Console
from rich.table import Table
from rich.text import Text

from mjledger._text import escaped
from mjledger.fold.hand import HandState
from mjledger.fold.replay import Replay

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


def inert(text: str, style: str = "") -> Text:
    """Text from a log or a store (an id, a reason, a staff name) as a view shows it: literal,
    never read as markup, its control characters escaped. Every view builds such text here."""
    return Text(escaped(text), style=style)


def ordinal(n: int) -> str:
    suffix = "th" if 10 <= n % 100 <= 20 else {1: "st", 2: "nd", 3: "rd"}.get(n % 10, "th")
    return f"{n}{suffix}"


def in_a_row(hands: int) -> str:
    """A dealer's run, counting this hand: the one wording of streaks on screen."""
    return "1st hand" if hands <= 1 else f"{ordinal(hands)} hand in a row"


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
    title = f"{result.ruleset} match {result.match}" if result.match else f"{result.ruleset} log"
    console.print(inert(title, style="bold"), inert(f"— players {', '.join(result.players)}"))
    rules = ", ".join(f"{k}={v}" for k, v in result.to_json()["rules"].items())
    console.print(f"house rules: {rules}", markup=False)
    stakes = result.state.initial_stakes
    if stakes is not None:
        console.print(
            "stakes: " + "  ".join(f"{p} {stakes[p]}" for p in result.players), markup=False
        )
    for hand in result.hands:
        render_hand(hand, result.players, console)
        if hand.stakes is not None and hand.stakes.bust and hand.ended:
            who = ", ".join(p for p in result.players if p in hand.stakes.bust)
            console.print(f"the match ends: {who} went bust", markup=False)
    totals = Table(title="Totals", title_justify="left")
    player_columns(totals, result.players)
    t = result.totals()
    totals.add_row(*(money(t[p]) for p in result.players))
    console.print(totals)


def hand_title(hand: HandState) -> str:
    run = f" ({in_a_row(hand.dealer_streak + 1)})" if hand.dealer_streak else ""
    if hand.outcome == "won":
        outcome = "won by " + ", ".join(hand.winners)
    elif hand.false_win_by is not None:
        outcome = f"void (false win by {hand.false_win_by})"
    elif hand.outcome == "void":
        outcome = "void (wall exhausted, no winner)"
    else:
        outcome = "unfinished" + (
            " — won so far by " + ", ".join(hand.winners) if hand.winners else ""
        )
    nxt = f"; next dealer {hand.next_dealer}" if hand.next_dealer else ""
    return (
        f"Hand {hand.number} — dealer {hand.dealer}{run}, {hand.round_wind} round — {outcome}{nxt}"
    )


def render_hand(hand: HandState, players: tuple[str, ...], console: Console) -> None:
    console.print(inert(hand_title(hand), style="bold"))
    if not hand.transfers:
        console.print("no payments", style="dim")
    else:
        render_payments(hand, players, console)
    if hand.stakes is not None:
        console.print(balances_text(hand.stakes.as_dict(), hand.stakes.bust), markup=False)


def balances_text(balances: Mapping[str, int], bust: Collection[str]) -> str:
    """Table stakes: ``balances: ana 0 (bust)  bo 104 ...``."""
    return "balances: " + "  ".join(
        f"{p} {b}" + (" (bust)" if p in bust else "") for p, b in balances.items()
    )


def render_payments(hand: HandState, players: tuple[str, ...], console: Console) -> None:
    table = Table()
    table.add_column("line", justify="right")
    table.add_column("from")
    table.add_column("to")
    table.add_column("amount", justify="right")
    table.add_column("reason")
    for t in hand.transfers:
        table.add_row(
            str(t.line), inert(t.payer), inert(t.payee), str(t.amount), REASON_TEXT[t.reason]
        )
    console.print(table)
    net = hand.net()
    line = Text("net: ")
    for i, p in enumerate(players):
        line.append(escaped(("  " if i else "") + f"{p} "))
        line.append_text(money(net[p]))
    console.print(line)


def scores_tables(
    by_match: dict[str, dict[str, int]], players_of: dict[str, Sequence[str]]
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
            table.add_column("match", overflow="fold")
            player_columns(table, seats)
            tables.append(table)
        tables[-1].add_row(inert(match), *(money(scores.get(p, 0)) for p in seats))
    return tables


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
        outcome = e.outcome + (" (" + ", ".join(e.winners) + ")" if e.winners else "")
        for c in (corrected or {}).get(e.number, []):
            outcome += f"; {c['kind']} {c['when'][:10]} by {c['by']}: {c['reason']}"
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
