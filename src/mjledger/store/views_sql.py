"""The read models' tables and statements (table data: SQLite's text, placeholders ``?``;
:mod:`mjledger.store.postgres` rewrites them for PostgreSQL's schema and ``%s``). The views'
logic, :class:`mjledger.store.views.ViewsCore`, runs them by name.
"""

from __future__ import annotations

from typing import Final

SQL: Final[dict[str, str]] = {
    "create_matches": (
        "CREATE TABLE IF NOT EXISTS view_matches (match TEXT PRIMARY KEY, seq BIGINT, "
        "stream TEXT UNIQUE NOT NULL, ruleset TEXT NOT NULL, players TEXT NOT NULL, "
        "rules TEXT NOT NULL)"
    ),
    "create_hand_ids": (
        "CREATE TABLE IF NOT EXISTS view_hand_ids (stream TEXT PRIMARY KEY, "
        "match TEXT NOT NULL, number INTEGER NOT NULL)"
    ),
    "create_hands": (
        "CREATE TABLE IF NOT EXISTS view_hands (match TEXT NOT NULL, number INTEGER NOT NULL, "
        "ruleset TEXT NOT NULL, dealer TEXT NOT NULL, dealer_streak INTEGER NOT NULL, "
        "round_wind TEXT NOT NULL, outcome TEXT NOT NULL, winners TEXT NOT NULL, "
        "next_dealer TEXT, PRIMARY KEY (match, number))"
    ),
    "create_hand_net": (
        "CREATE TABLE IF NOT EXISTS view_hand_net (match TEXT NOT NULL, number INTEGER NOT NULL, "
        "ruleset TEXT NOT NULL, player TEXT NOT NULL, amount INTEGER NOT NULL, "
        "PRIMARY KEY (match, number, player))"
    ),
    # How many notifications have been applied, counted in the same transaction as the
    # tracking position: equal to the number of stored events when each was applied once.
    "create_progress": (
        "CREATE TABLE IF NOT EXISTS view_progress (application_name TEXT PRIMARY KEY, "
        "applied BIGINT NOT NULL)"
    ),
    "create_damage": (
        "CREATE TABLE IF NOT EXISTS view_damage (stream TEXT PRIMARY KEY, match TEXT, "
        "problem TEXT NOT NULL)"
    ),
    "upsert_damage": (
        "INSERT INTO view_damage (stream, match, problem) VALUES (?, ?, ?) "
        "ON CONFLICT (stream) DO UPDATE SET match = excluded.match, problem = excluded.problem"
    ),
    "select_damaged": "SELECT stream, match, problem FROM view_damage ORDER BY match, stream",
    "select_damaged_matches": "SELECT DISTINCT match FROM view_damage WHERE match IS NOT NULL",
    "forget_hands": "DELETE FROM view_hands WHERE match = ?",
    "forget_net": "DELETE FROM view_hand_net WHERE match = ?",
    "forget_balances": "DELETE FROM view_hand_balances WHERE match = ?",
    # Table stakes (variants.md): each player's balance after each hand (in seat order), and
    # who is bust.
    "create_hand_balances": (
        "CREATE TABLE IF NOT EXISTS view_hand_balances (match TEXT NOT NULL, "
        "number INTEGER NOT NULL, seat INTEGER NOT NULL, player TEXT NOT NULL, "
        "balance BIGINT NOT NULL, bust INTEGER NOT NULL, PRIMARY KEY (match, number, player))"
    ),
    "drop": (
        "DROP TABLE IF EXISTS view_matches; DROP TABLE IF EXISTS view_hand_ids; "
        "DROP TABLE IF EXISTS view_hands; DROP TABLE IF EXISTS view_hand_net; "
        "DROP TABLE IF EXISTS view_damage; DROP TABLE IF EXISTS view_progress; "
        "DROP TABLE IF EXISTS view_hand_balances; "
        "DELETE FROM tracking WHERE application_name = 'mjledger'"
    ),
    "count_applied": (
        "INSERT INTO view_progress AS p (application_name, applied) VALUES (?, ?) "
        "ON CONFLICT (application_name) DO UPDATE SET applied = p.applied + excluded.applied"
    ),
    "select_applied": "SELECT applied FROM view_progress WHERE application_name = ?",
    # The position a batch starts from, read again inside the batch's transaction (and locked,
    # on PostgreSQL): a batch that another catch-up has overtaken is not applied twice.
    "start_position": (
        "INSERT INTO tracking (application_name, notification_id) VALUES (?, 0) "
        "ON CONFLICT DO NOTHING"
    ),
    "lock_position": "SELECT MAX(notification_id) FROM tracking WHERE application_name = ?",
    "upsert_match": (
        "INSERT INTO view_matches (match, seq, stream, ruleset, players, rules) "
        "VALUES (?, ?, ?, ?, ?, ?) ON CONFLICT (match) DO NOTHING"
    ),
    "upsert_hand_id": (
        "INSERT INTO view_hand_ids (stream, match, number) VALUES (?, ?, ?) "
        "ON CONFLICT (stream) DO NOTHING"
    ),
    "select_hand_id": "SELECT match, number FROM view_hand_ids WHERE stream = ?",
    "select_match_of_stream": "SELECT match FROM view_matches WHERE stream = ?",
    "upsert_hand": (
        "INSERT INTO view_hands (match, number, ruleset, dealer, dealer_streak, round_wind, "
        "outcome, winners, next_dealer) VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?) "
        "ON CONFLICT (match, number) DO UPDATE SET dealer = excluded.dealer, "
        "dealer_streak = excluded.dealer_streak, round_wind = excluded.round_wind, "
        "outcome = excluded.outcome, winners = excluded.winners, "
        "next_dealer = excluded.next_dealer"
    ),
    "upsert_net": (
        "INSERT INTO view_hand_net (match, number, ruleset, player, amount) "
        "VALUES (?, ?, ?, ?, ?) ON CONFLICT (match, number, player) "
        "DO UPDATE SET amount = excluded.amount"
    ),
    "upsert_balance": (
        "INSERT INTO view_hand_balances (match, number, seat, player, balance, bust) "
        "VALUES (?, ?, ?, ?, ?, ?) ON CONFLICT (match, number, player) "
        "DO UPDATE SET balance = excluded.balance, bust = excluded.bust"
    ),
    "latest_balances": (
        "SELECT b.match, b.player, b.balance, b.bust FROM view_hand_balances b "
        "JOIN view_matches m ON m.match = b.match "
        "WHERE b.number = (SELECT MAX(number) FROM view_hand_balances WHERE match = b.match) "
        "ORDER BY m.seq, b.seat"
    ),
    "history_balances": (
        "SELECT number, player, balance, bust FROM view_hand_balances WHERE match = ? "
        "ORDER BY number, seat"
    ),
    "scores_by_match": (
        "SELECT m.match, n.player, SUM(n.amount) FROM view_hand_net n "
        "JOIN view_matches m ON m.match = n.match GROUP BY m.match, n.player "
        "ORDER BY m.seq, n.player"
    ),
    "scores_by_player": (
        "SELECT ruleset, player, SUM(amount), COUNT(DISTINCT match) FROM view_hand_net "
        "GROUP BY ruleset, player ORDER BY ruleset, SUM(amount) DESC, player"
    ),
    "current_dealers": (
        "SELECT h.match, h.number, h.dealer, h.dealer_streak, h.outcome, h.next_dealer "
        "FROM view_hands h JOIN view_matches m ON m.match = h.match "
        "WHERE h.number = (SELECT MAX(number) FROM view_hands WHERE match = h.match) "
        "ORDER BY m.seq"
    ),
    "longest_streaks": (
        "SELECT dealer, MAX(dealer_streak) + 1 FROM view_hands GROUP BY dealer "
        "ORDER BY MAX(dealer_streak) DESC, dealer"
    ),
    "history": (
        "SELECT number, dealer, dealer_streak, round_wind, outcome, winners, next_dealer "
        "FROM view_hands WHERE match = ? ORDER BY number"
    ),
    "history_net": (
        "SELECT number, player, amount FROM view_hand_net WHERE match = ? ORDER BY number"
    ),
    "match_players": "SELECT players, ruleset FROM view_matches WHERE match = ?",
    "all_players": "SELECT match, players FROM view_matches ORDER BY seq",
}

# The statements that create the read models' tables, in order.
VIEW_TABLES: Final = (
    "create_matches",
    "create_hand_ids",
    "create_hands",
    "create_hand_net",
    "create_progress",
    "create_damage",
    "create_hand_balances",
)
