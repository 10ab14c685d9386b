"""Read models fed from the ledger's notification log: running scores, dealer streaks, history.

The views live in their own database beside the store (``mjledger.sqlite`` →
``mjledger.views.sqlite``), because eventsourcing's SQLite tables have fixed names. They are
driven by hand, not by ``ProjectionRunner`` (which needs subscriptions SQLite lacks): each
catch-up reads the notifications after the view's tracking position, rewrites the rows of every
hand those notifications touched, and writes the new tracking position in the same
transaction — so each notification takes effect exactly once, and a restart resumes where the
last committed batch stopped.

A hand's rows are recomputed from the store rather than patched event by event: the view then
holds exactly what ``replay`` gives for that hand, whatever the batch boundaries were.

Every SQL statement of the views is in ``SQL`` below, written once: on PostgreSQL
(``mjledger.store.postgres``) the same statements run with ``%s`` placeholders, schema-qualified
names and byte-order text collation, in the store's own schema beside the events.
"""

from __future__ import annotations

import json
import threading
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from pathlib import Path
from typing import TYPE_CHECKING, Any, Final, Protocol, cast

from attrs import frozen
from eventsourcing.persistence import IntegrityError, OperationalError, Tracking, TrackingRecorder
from eventsourcing.sqlite import SQLiteDatastore, SQLiteTrackingRecorder

from mjledger.errors import StoreError
from mjledger.fold.replay import OUTPUT
from mjledger.log.events import HandStarted, MatchStarted
from mjledger.rules.house import default_rules, rules_to_json
from mjledger.store.events import HandClosed, HandCorrected, HandVoided
from mjledger.store.records import Recorded
from mjledger.store.streams import hand_stream
from mjledger.store.views_sql import SQL, VIEW_TABLES


class LedgerSource(Protocol):
    """What the views read of a ledger: its notification log and its settled hands. (A
    protocol, so that the views never import the application that opens them.)"""

    name: str
    path: Path | None  # None: not a file (a PostgreSQL store)
    postgres: Any  # the PostgreSQL store, or None
    recorder: Any
    mapper: Any

    def settlement(self, match_id: str, number: int) -> Any: ...


BATCH: Final = 500


@frozen
class HistoryEntry:
    number: int
    dealer: str
    dealer_streak: int
    round_wind: str
    outcome: str
    winners: tuple[str, ...]
    net: dict[str, int]
    next_dealer: str | None
    balances: dict[str, int] | None = None  # with table stakes: after the hand
    bust: tuple[str, ...] = ()

    def to_json(self) -> dict[str, object]:
        """The same keys, in the same order, as a hand of the replay output (without
        transfers); ``balances`` and ``bust`` only where the match is played for stakes."""
        out = cast(dict[str, object], OUTPUT.unstructure(self))
        if self.balances is None:
            del out["balances"], out["bust"]
        return out


@frozen
class CurrentDealer:
    """The latest hand of a match: who deals it, how many hands in a row, and who deals next."""

    match: str
    hand: int
    dealer: str
    streak: int  # hands in a row this dealer has dealt, this one included
    outcome: str
    next_dealer: str | None


class Overtaken(Exception):  # noqa: N818 (a signal between two catch-ups, never raised out)
    """Another catch-up committed a batch after this one read its starting position."""


class ViewsCore:
    """The read models' logic on any database: feeding (exactly once), rebuilding, reading.

    A backend class mixes this with eventsourcing's tracking recorder for its database and
    says how to open a transaction (:meth:`_transaction`) and how to wait for new writes
    (:meth:`_wait_for_writes`).
    """

    ledger: LedgerSource
    sql: dict[str, str]
    _catch_up_lock: threading.Lock

    if TYPE_CHECKING:  # eventsourcing's tracking recorder (the other base class) has these

        def max_tracking_id(self, application_name: str) -> int | None: ...

        def _insert_tracking(self, c: Any, tracking: Tracking) -> None: ...

    @contextmanager
    def _transaction(self, *, commit: bool) -> Iterator[Any]:
        raise NotImplementedError
        yield

    def _wait_for_writes(self, stop: threading.Event, interval: float) -> None:
        """Return when the store may have new notifications, or ``interval`` s have passed."""
        stop.wait(interval)

    def _contended(self, error: Exception) -> bool:
        """Whether a failed batch lost a race with another catch-up (then: re-read, go on)."""
        return isinstance(error, Overtaken | IntegrityError | OperationalError)

    def _views_created(self) -> None:
        """The view tables exist (after opening or rebuilding): give the tracking position a
        row to lock, so that even the first batches of two catch-ups are serialised."""
        with self._transaction(commit=True) as c:
            c.execute(self.sql["start_position"], (self.ledger.name,))

    @property
    def position(self) -> int:
        """The last notification id applied to the views."""
        return self.max_tracking_id(self.ledger.name) or 0

    @property
    def applied(self) -> int:
        """How many notifications have been applied since the views were built: the number of
        stored events, each counted once (ids may have gaps on PostgreSQL, counts do not).
        Views built by mjledger 0.1 start counting from the first catch-up after upgrading;
        ``rebuild`` makes the count whole."""
        with self._transaction(commit=False) as c:
            c.execute(self.sql["select_applied"], (self.ledger.name,))
            row = c.fetchone()
        return int(row[0]) if row else 0

    # --- feeding --------------------------------------------------------------------------

    def catch_up(self, progress: Callable[[int, int], None] | None = None) -> int:
        """Apply every notification not yet applied; returns how many were applied.

        ``progress(done, total)`` is called after each batch (for a progress bar)."""
        applied = 0
        with self._catch_up_lock:
            total = None
            while True:
                position = self.position
                batch = self.ledger.recorder.select_notifications(position + 1, BATCH)
                if not batch:
                    return applied
                if progress is not None and total is None:
                    total = (self.ledger.recorder.max_notification_id() or 0) - position
                try:
                    self._apply(batch, position)
                except Exception as error:
                    if not self._contended(error):
                        raise
                    # Another process applied (part of) this batch first: re-read the position.
                    continue
                applied += len(batch)
                if progress is not None:
                    progress(applied, max(total or 0, applied))

    def wait_for(self, position: int, timeout: float = 10.0) -> None:
        """Block until notification ``position`` has been applied (read-your-writes with a
        separate ``mjledger project --follow`` process): pass ``ledger.position`` after a write.
        Raises :class:`StoreError` after ``timeout`` seconds."""
        try:
            cast(TrackingRecorder, self).wait(self.ledger.name, position, timeout)
        except TimeoutError:
            raise StoreError(
                f"the read models did not reach position {position} within {timeout:g} s "
                f"(at {self.position}; is a projection process running?)",
                code="store_unavailable",
            ) from None

    def follow(self, stop: threading.Event, *, interval: float = 1.0) -> Iterator[int]:
        """Catch up, then keep catching up as events are stored, until ``stop`` is set;
        yields how many notifications each catch-up applied (when any)."""
        while not stop.is_set():
            applied = self.catch_up()
            if applied:
                yield applied
            self._wait_for_writes(stop, interval)

    def _apply(self, batch: Any, position: int) -> None:
        """Apply one batch of notifications. A stored row that cannot be read (or a hand
        that cannot be settled because of one) marks its match damaged: that match's rows are
        left out of every view, and the other matches are unaffected."""
        ledger = self.ledger
        sql = self.sql
        dirty: dict[tuple[str, int], None] = {}
        with self._transaction(commit=True) as c:
            c.execute(sql["lock_position"], (ledger.name,))
            row = c.fetchone()
            if (row[0] if row and row[0] is not None else 0) != position:
                raise Overtaken
            c.execute(sql["select_damaged_matches"])
            damaged = {row[0] for row in c.fetchall()}
            for notification in batch:
                stream = notification.originator_id.hex
                try:
                    record = cast(Recorded, ledger.mapper.to_domain_event(notification))
                except StoreError as exc:
                    match = self._match_of(c, stream)
                    self._damage(c, stream, match, str(exc), damaged)
                    continue
                event = record.event
                if isinstance(event, MatchStarted):
                    c.execute(
                        sql["upsert_match"],
                        (
                            event.match,
                            notification.id,
                            stream,
                            event.ruleset,
                            json.dumps(list(event.players)),
                            json.dumps(rules_to_json(event.rules or default_rules(event.ruleset))),
                        ),
                    )
                elif isinstance(event, HandStarted) and event.number is not None:
                    c.execute(sql["upsert_hand_id"], (stream, event.match, event.number))
                    dirty[(str(event.match), event.number)] = None
                elif isinstance(event, (HandCorrected, HandVoided)):
                    dirty[(event.match, event.number)] = None
                elif isinstance(event, HandClosed):
                    c.execute(sql["select_match_of_stream"], (stream,))
                    row = c.fetchone()
                    if row is not None:
                        dirty[(row[0], event.number)] = None
                else:
                    c.execute(sql["select_hand_id"], (stream,))
                    row = c.fetchone()
                    if row is not None:
                        dirty[(row[0], row[1])] = None
            for match, number in dirty:
                if match in damaged:
                    continue
                try:
                    self._write_hand(c, match, number)
                except StoreError as exc:
                    self._damage(c, hand_stream(match, number).hex, match, str(exc), damaged)
            c.execute(sql["count_applied"], (ledger.name, len(batch)))
            self._insert_tracking(c, Tracking(ledger.name, batch[-1].id))

    def _match_of(self, c: Any, stream: str) -> str | None:
        for statement in ("select_match_of_stream", "select_hand_id"):
            c.execute(self.sql[statement], (stream,))
            row = c.fetchone()
            if row is not None:
                return str(row[0])
        return None

    def _damage(
        self, c: Any, stream: str, match: str | None, problem: str, damaged: set[str]
    ) -> None:
        c.execute(self.sql["upsert_damage"], (stream, match, problem))
        if match is not None:
            damaged.add(match)
            c.execute(self.sql["forget_hands"], (match,))
            c.execute(self.sql["forget_net"], (match,))
            c.execute(self.sql["forget_balances"], (match,))

    def damage(self) -> list[tuple[str | None, str]]:
        """What the views left out: (match or None when unknown, problem) per unreadable
        stream."""
        return [(match, problem) for _stream, match, problem in self._rows("select_damaged")]

    def _write_hand(self, c: Any, match: str, number: int) -> None:
        hand = self.ledger.settlement(match, number)
        c.execute(
            self.sql["upsert_hand"],
            (
                match,
                number,
                hand.ruleset,
                hand.dealer,
                hand.dealer_streak,
                hand.round_wind,
                hand.outcome,
                json.dumps(list(hand.winners)),
                hand.next_dealer,
            ),
        )
        c.executemany(
            self.sql["upsert_net"],
            [(match, number, hand.ruleset, p, a) for p, a in hand.net().items()],
        )
        if hand.stakes is not None:
            c.executemany(
                self.sql["upsert_balance"],
                [
                    (match, number, seat, p, b, int(p in hand.stakes.bust))
                    for seat, (p, b) in enumerate(hand.stakes.as_dict().items())
                ],
            )

    def rebuild(self, progress: Callable[[int, int], None] | None = None) -> int:
        """Drop every view row and the tracking position, then replay the whole log."""
        with self._catch_up_lock, self._transaction(commit=True) as c:
            for statement in self.sql["drop"].split("; "):
                c.execute(statement)
            for name in VIEW_TABLES:
                c.execute(self.sql[name])
        self._views_created()
        return self.catch_up(progress)

    # --- reading (caught up first, so a read follows every acknowledged write) --------------

    def _rows(self, name: str, *params: Any) -> list[Any]:
        self.catch_up()
        with self._transaction(commit=False) as c:
            c.execute(self.sql[name], params)
            return list(c.fetchall())

    def scores_by_match(self) -> dict[str, dict[str, int]]:
        out: dict[str, dict[str, int]] = {}
        for match, player, amount in self._rows("scores_by_match"):
            out.setdefault(match, {})[player] = int(amount)
        return out

    def scores_by_player(self) -> dict[str, dict[str, tuple[int, int]]]:
        """Per rule set, each player's running total and the number of matches it spans."""
        out: dict[str, dict[str, tuple[int, int]]] = {}
        for ruleset, player, amount, matches in self._rows("scores_by_player"):
            out.setdefault(ruleset, {})[player] = (int(amount), int(matches))
        return out

    def current_dealers(self) -> list[CurrentDealer]:
        return [
            CurrentDealer(match, number, dealer, streak + 1, outcome, nxt)
            for match, number, dealer, streak, outcome, nxt in self._rows("current_dealers")
        ]

    def longest_streaks(self) -> dict[str, int]:
        return {dealer: int(streak) for dealer, streak in self._rows("longest_streaks")}

    def stakes_by_match(self) -> dict[str, dict[str, Any]]:
        """Matches played for table stakes: each player's balance now, and who is bust."""
        out: dict[str, dict[str, Any]] = {}
        for match, player, balance, bust in self._rows("latest_balances"):
            entry = out.setdefault(match, {"balances": {}, "bust": []})
            entry["balances"][player] = int(balance)
            if bust:
                entry["bust"].append(player)
        return out

    def history(self, match: str) -> list[HistoryEntry]:
        nets: dict[int, dict[str, int]] = {}
        for number, player, amount in self._rows("history_net", match):
            nets.setdefault(number, {})[player] = amount
        balances: dict[int, dict[str, int]] = {}
        bust: dict[int, list[str]] = {}
        for number, player, balance, is_bust in self._rows("history_balances", match):
            balances.setdefault(number, {})[player] = int(balance)
            bust.setdefault(number, [])
            if is_bust:
                bust[number].append(player)
        return [
            HistoryEntry(
                number,
                dealer,
                streak,
                wind,
                outcome,
                tuple(json.loads(winners)),
                nets.get(number, {}),
                nxt,
                balances.get(number),
                tuple(bust.get(number, ())),
            )
            for number, dealer, streak, wind, outcome, winners, nxt in self._rows("history", match)
        ]

    def players(self) -> dict[str, tuple[str, ...]]:
        """Each match's players in seat order (the order its log lists them)."""
        return {m: tuple(json.loads(p)) for m, p in self._rows("all_players")}

    def close(self) -> None:
        pass


class LedgerViews(ViewsCore, SQLiteTrackingRecorder):
    """The materialised views of a SQLite store, in their own file beside it."""

    def __init__(self, datastore: SQLiteDatastore, ledger: LedgerSource):
        self.ledger = ledger
        self.sql = SQL
        self._catch_up_lock = threading.Lock()
        super().__init__(datastore)
        for attempt in range(5):
            try:
                self.create_table()
                break
            except (IntegrityError, OperationalError):
                # Another process created the tables (and their first tracking row) at the
                # same moment; the next attempt finds them there.
                if attempt == 4:
                    raise
                self.tracking_table_exists = False
                self.tracking_migration_previous = None
        self._views_created()

    def construct_create_table_statements(self) -> list[str]:
        return [
            *super().construct_create_table_statements(),
            *(SQL[name] for name in VIEW_TABLES),
        ]

    @contextmanager
    def _transaction(self, *, commit: bool) -> Iterator[Any]:
        with self.datastore.transaction(commit=commit) as c:
            yield c

    def close(self) -> None:
        self.datastore.close()


def views_path(store: Path) -> Path:
    """The companion file of the views: ``x.sqlite`` → ``x.views.sqlite``."""
    return store.with_name(f"{store.stem}.views{store.suffix or '.sqlite'}")


def open_views(ledger: LedgerSource) -> LedgerViews:
    """The read models of a SQLite store, in a companion file beside it; an in-memory ledger
    keeps them in an in-memory database, and a ledger may name another database for them
    (``Ledger(views=...)``). (A PostgreSQL store's are in ``store.postgres``.)"""
    assert ledger.path is not None
    in_memory = str(ledger.path) == ":memory:"
    named = getattr(ledger, "views_db", None)
    name = named or (":memory:" if in_memory else str(views_path(ledger.path)))
    datastore = SQLiteDatastore(db_name=name, lock_timeout=30)
    return LedgerViews(datastore, ledger)
