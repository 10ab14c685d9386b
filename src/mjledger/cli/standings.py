"""The store's standings: ``matches`` (what the store holds), ``scores`` (running totals)
and ``streaks`` (the dealer streaks), each read from the read models.

Kept apart from :mod:`mjledger.cli.main`, which adds them to the ``mjledger`` group, so that
the views of a store are read in one place, beside nothing else.
"""

from __future__ import annotations

from typing import Any

import click

from mjledger._text import escaped
from mjledger.cli.commands import command
from mjledger.cli.exits import json_option
from mjledger.cli.shell import print_json, refusals, store_option

__all__ = ["matches_command", "scores_command", "streaks_command"]


def say_empty(store: str | None) -> None:
    """What a view of a store with no match in it prints (a new store, a mistyped name)."""
    from mjledger.store.location import store_location

    click.echo(escaped(f"no matches in {store_location(store)}"))


@command("matches")
@store_option
@json_option(help="Print JSON.")
@refusals
def matches_command(store: str | None, as_json: bool) -> None:
    """The matches in the store: id, rule set, players, hands, state and last recorded."""
    from rich import box

    from mjledger.cli.render import Table, TerminalConsole, id_column, inert
    from mjledger.cli.store import MatchSummary, match_summaries, note, open_ledger
    from mjledger.errors import StoreError
    from mjledger.store.location import store_location

    with open_ledger(store) as ledger:
        listed = list(match_summaries(ledger))
    found = [m for m in listed if isinstance(m, MatchSummary)]
    for problem in listed:
        if isinstance(problem, StoreError):
            note(f"left out: {problem}")
    if as_json:
        print_json([m.to_json() for m in found])
        return
    if not found:
        say_empty(store)
        return
    table = Table(
        title=f"Matches in {store_location(store)}",
        box=box.SIMPLE_HEAD,
        show_edge=False,
        padding=0,  # the box divides columns by one space: 80 columns hold a 31-character id
    )
    console = TerminalConsole()
    id_column(table, "match", (m.match for m in found), width=console.width)
    # Words stand whole; the players' list and the time give way, wrapped between words.
    longest_player = max(len(escaped(p)) for m in found for p in m.players)
    table.add_column("rule set", no_wrap=True)
    table.add_column("hands", justify="right", no_wrap=True)
    table.add_column("state", no_wrap=True)
    table.add_column("players", min_width=longest_player, overflow="fold")
    whole = max(len(escaped(m.match)) + len(escaped(", ".join(m.players))) for m in found)
    fits = whole + len("hongkong hands between_hands 2026-12-01 21:54") + 5 <= console.width
    table.add_column("last recorded", width=None if fits else 10)  # else: the time below
    for m in found:
        table.add_row(
            inert(m.match),
            m.ruleset,
            str(m.hands),
            m.state,  # as --json says it: over, in_play, between_hands
            inert(", ".join(m.players)),
            (m.last_recorded or "")[:16].replace("T", " "),  # the time wraps below the date
        )
    console.print(table)


@command("scores")
@store_option
@json_option(help="Print JSON.")
@refusals
def scores_command(store: str | None, as_json: bool) -> None:
    """Running scores: per match, and per player across matches (one rule set at a time)."""
    from mjledger.cli.render import (
        Table,
        TerminalConsole,
        balances_text,
        id_column,
        inert,
        money,
        scores_tables,
    )
    from mjledger.cli.store import open_ledger, read_views

    with open_ledger(store) as ledger:
        by_match, by_player, players, stakes = read_views(
            ledger,
            lambda v: (
                v.scores_by_match(),
                v.scores_by_player(),
                v.players(),
                v.stakes_by_match(),
            ),
        )
    by_match = {m: {p: s[p] for p in players.get(m, s) if p in s} for m, s in by_match.items()}
    if as_json:
        out: dict[str, Any] = {
            "matches": by_match,
            "players": {
                ruleset: {p: {"total": t, "matches": m} for p, (t, m) in rows.items()}
                for ruleset, rows in by_player.items()
            },
        }
        if stakes:  # only where a match is played for table stakes
            out["stakes"] = stakes
        print_json(out)
        return
    if not by_match:
        say_empty(store)
        return
    console = TerminalConsole()
    for ruleset, rows in by_player.items():
        table = Table(title=f"Running scores — {ruleset}", title_justify="left")
        table.add_column("player")
        table.add_column("total", justify="right")
        table.add_column("matches", justify="right")
        for player, (total, matches) in rows.items():
            table.add_row(inert(player), money(total), str(matches))
        console.print(table)
    for table in scores_tables(by_match, players, console.width):
        console.print(table)
    if stakes:
        table = Table(title="Table stakes", title_justify="left")
        id_column(table, "match", stakes, width=console.width)
        table.add_column("balances")
        for match, entry in stakes.items():
            table.add_row(inert(match), inert(balances_text(entry["balances"], entry["bust"])))
        console.print(table)


@command("streaks")
@store_option
@json_option(help="Print JSON.")
@refusals
def streaks_command(store: str | None, as_json: bool) -> None:
    """Dealer streaks: each match's current dealer and streak, and each player's longest."""
    from mjledger.cli.render import Table, TerminalConsole, id_column, inert, streak_text
    from mjledger.cli.store import open_ledger, read_views

    with open_ledger(store) as ledger:
        current, longest = read_views(ledger, lambda v: (v.current_dealers(), v.longest_streaks()))
    if as_json:
        print_json(
            {
                "matches": [
                    {
                        "match": c.match,
                        "hand": c.hand,
                        "dealer": c.dealer,
                        "streak": c.streak,
                        "outcome": c.outcome,
                        "next_dealer": c.next_dealer,
                    }
                    for c in current
                ],
                "longest": longest,
            }
        )
        return
    if not current:
        say_empty(store)
        return
    console = TerminalConsole()
    table = Table(title="Current dealers", title_justify="left")
    id_column(table, "match", (c.match for c in current), width=console.width)
    for column in ("hand", "dealer", "dealing", "next dealer"):
        table.add_column(column, justify="right" if column == "hand" else "left")
    for c in current:
        table.add_row(
            inert(c.match),
            str(c.hand),
            inert(c.dealer),
            streak_text(c.streak - 1),
            c.next_dealer or "—",
        )
    console.print(table)
    table = Table(title="Longest streak, per player", title_justify="left")
    table.add_column("player")
    table.add_column("longest")
    for player, length in longest.items():  # a run of N hands dealt is streak N - 1
        table.add_row(inert(player), streak_text(length - 1))
    console.print(table)
