"""The ledger store: matches, hands and tables as event-sourced streams (eventsourcing).

Streams, each with a stable id derived from its name:

* a **match** stream: ``match_started``, then one ``hand_closed`` per finished hand;
* a **hand** stream per hand: a stand-alone ``hand_started`` (the hand's whole context, so the
  stream replays on its own), then the hand's events exactly as a log writes them;
* a **table** stream: ``table_opened``, ``rules_changed``, ``match_opened``.

Every event goes through the same folds as ``mjledger replay`` before it is saved, and a hand's
closing is saved in the same transaction as the event that closed it. Writers never lock:
each append names the stream version it extends, and the database's primary key on
``(stream, version)`` makes the loser of a race fail with :class:`ConcurrencyError`.
"""

from __future__ import annotations

import os
import threading
import uuid
from collections.abc import Callable, Iterator, Sequence
from contextlib import contextmanager, suppress
from typing import Any, cast

from eventsourcing.application import AggregateNotFoundError, Application
from eventsourcing.persistence import (
    InfrastructureFactory,
    IntegrityError,
    Mapper,
    StoredEvent,
)
from eventsourcing.utils import Environment

from mjledger._gc import gc_paused
from mjledger.errors import ConcurrencyError, StoreError
from mjledger.fold.hand import HandEvent, HandState
from mjledger.fold.match import open_hand
from mjledger.fold.replay import Replay, replay_events
from mjledger.log.events import Event, HandStarted, MatchStarted
from mjledger.rules.protocol import HouseRules
from mjledger.store.appends import (
    appended,
    house_rules,
    opened_at,
    refuse_outside_hand,
    table_opened,
)
from mjledger.store.backends import PERSISTENCE, backend_for
from mjledger.store.corrections import correction_log
from mjledger.store.events import RulesChanged
from mjledger.store.exports import corrected_export, export_text, recorded_export
from mjledger.store.hand_forms import stand_alone_start
from mjledger.store.importer import (
    CheckedLog,
    RecordResult,
    check_log,
    new_match_id,
)
from mjledger.store.location import PostgresStore, SqliteStore, StoreLocation
from mjledger.store.projectors import (
    HandRecord,
    MatchRecord,
    TableRecord,
    project_hand,
    project_match,
    project_table,
    projector,
)
from mjledger.store.recording import lost_race, raced, write_log
from mjledger.store.records import GENESIS, Recorded, RecordMapper, TableRow, seal
from mjledger.store.rederive import Rederivation, Row, match_ids, replays
from mjledger.store.settled import hand_at_version, settled_hand
from mjledger.store.signing import signer_from_env
from mjledger.store.streams import (
    STORE_ENV,
    hand_stream,
    match_stream,
    store_path,
    table_stream,
)
from mjledger.store.verify import ChainVerifier
from mjledger.store.views import ViewsCore

__all__ = [
    "PERSISTENCE",
    "STORE_ENV",
    "Ledger",
    "RecordResult",
    "hand_stream",
    "match_stream",
    "store_path",
    "table_stream",
]


class Ledger(Application[uuid.UUID]):
    """The ledger: open it on a store, start matches and hands, record events, read payouts.

    >>> ledger = Ledger("table7.sqlite")                       # doctest: +SKIP
    >>> match = ledger.start_match(ruleset_name, ["ana", "bo", "cy", "di"])
    >>> number = ledger.start_hand(match)
    >>> ledger.record(match, number, KongDeclared(player="bo", kind="concealed"))
    >>> ledger.settlement(match, number).net()

    A ``Ledger`` is safe to share between the threads of one process; several processes may
    open the same store.
    """

    name = "mjledger"

    def __init__(
        self,
        path: str | os.PathLike[str] | StoreLocation | None = None,
        *,
        persistence: str = "sqlite",
        env: dict[str, str] | None = None,
        read_only: bool = False,
        views: str | None = None,
        signing_key: str | os.PathLike[str] | None = None,
        verify: bool = False,
    ) -> None:
        """Open the store named by ``path`` — a file (SQLite) or a ``postgresql://`` URL
        (PostgreSQL; docs/deployment.md) — else by ``$MJLEDGER_STORE``; ``persistence="memory"``
        runs on eventsourcing's in-memory recorders, nothing written anywhere.

        ``read_only`` opens an existing SQLite store for reading only (it may sit in a directory
        that cannot be written); ``views`` names the read models' database instead of the file
        beside the store (``":memory:"`` when that file cannot be written).

        ``signing_key`` (else ``$MJLEDGER_SIGNING_KEY``): a private key file to sign each hand's
        closing and the store head with; ``verify``: check the digest chain of
        every stream before settling from it (docs/store.md, "Verify on read")."""
        self.backend = backend = backend_for(path, persistence=persistence, read_only=read_only)
        self.location = backend.location
        # What callers (the command line, the views) read of the store's kind, kept as before.
        self.persistence = backend.name
        self.postgres = self.location if isinstance(self.location, PostgresStore) else None
        self.path = self.location.path if isinstance(self.location, SqliteStore) else None
        self.read_only = backend.read_only
        self.views_db = views
        signer = signer_from_env(signing_key)  # a bad key is refused before the store opens
        settings = {
            "AGGREGATE_CACHE_MAXSIZE": "4096",
            "DEEPCOPY_FROM_AGGREGATE_CACHE": "n",
            **backend.settings(),
            **(env or {}),
        }
        # Explicit settings win over the process environment (Application's default order is
        # class env < os.environ < given env; we pass everything as the given env).
        self._lock = threading.RLock()
        self._views: ViewsCore | None = None
        try:
            super().__init__(env=settings)
        except BaseException as error:
            factory = getattr(self, "factory", None)
            if factory is not None:  # no pool left trying to connect in the background
                factory.close()
            failure = backend.open_failure(error)
            if failure is not None:
                raise failure from None
            raise
        if backend.keeps_head:  # the recorders that keep the head sign it, and each hand
            self.recorder.signer = signer  # type: ignore[attr-defined]
        self.verifier = ChainVerifier(self.recorder) if verify else None

    def construct_mapper(self) -> Mapper[uuid.UUID]:
        return RecordMapper()

    def construct_factory(self, env: Environment) -> InfrastructureFactory[Any]:
        factory = super().construct_factory(env)
        self.backend.adapt(factory)
        return factory

    # --- reading streams ----------------------------------------------------------------------

    def _get(self, stream: uuid.UUID, *, version: int | None = None, projector_func: Any) -> Any:
        if self.verifier is not None:  # before folding: a damaged row is never folded
            self.verifier.check_rows(stream, version)
        record = self.repository.get(stream, version=version, projector_func=projector_func)
        if version is None and self.repository.cache is not None:
            # eventsourcing fast-forwards a cached stream but does not cache the result: put it
            # back, or every read re-folds all that was appended since the stream's first read
            # (a long match recorded into an open Ledger became quadratic in its hands).
            self.repository.cache.put(stream, record)
        if self.verifier is not None:
            self.verifier.check(stream, record.version, record.digest)
        return record

    def match(self, match_id: str) -> MatchRecord:
        try:
            record: MatchRecord = self._get(
                match_stream(match_id), projector_func=projector(project_match)
            )
        except AggregateNotFoundError:
            raise StoreError(f"no match {match_id!r} in {self.location}", code="no_match") from None
        return record

    def has_match(self, match_id: str) -> bool:
        return bool(self.recorder.select_events(match_stream(match_id), limit=1))

    def hand(self, match_id: str, number: int, *, version: int | None = None) -> HandRecord:
        """The hand's stream folded (up to ``version``, the state a dispute asks about)."""
        try:
            record: HandRecord = self._get(
                hand_stream(match_id, number),
                version=version,
                projector_func=projector(project_hand),
            )
        except AggregateNotFoundError:
            raise StoreError(f"match {match_id!r} has no hand {number}", code="no_hand") from None
        return record

    def forget_hand(self, match_id: str, number: int) -> None:
        """Drop hand ``number``'s folded stream from the ledger's cache: a reader going through
        a long match once (``report``) then holds one hand at a time, not every hand's record
        with its events (the cache keeps 4,096 streams)."""
        cache = self.repository.cache
        if cache is not None:
            with suppress(KeyError):  # never read, or already evicted
                cache.get(hand_stream(match_id, number), evict=True)

    def hand_events(self, match_id: str, number: int) -> list[Event]:
        """The hand's stored events, read without folding them (for export and audits)."""
        if self.verifier is not None:
            self.hand(match_id, number)
        return [cast(Recorded, r).event for r in self.events.get(hand_stream(match_id, number))]

    def table(self, table_id: str) -> TableRecord:
        try:
            record: TableRecord = self._get(
                table_stream(table_id), projector_func=projector(project_table)
            )
        except AggregateNotFoundError:
            raise StoreError(f"no table {table_id!r} in {self.location}", code="no_match") from None
        return record

    def hands_in(self, match_id: str) -> int:
        """How many hands the match has started (closed ones plus one in progress, if any)."""
        closed = len(self.match(match_id).closed)
        started = self.recorder.select_events(hand_stream(match_id, closed + 1), limit=1)
        return closed + (1 if started else 0)

    # --- tables -------------------------------------------------------------------------------

    def open_table(
        self,
        table_id: str,
        ruleset: str,
        players: Sequence[str],
        rules: HouseRules | dict[str, Any] | None = None,
    ) -> TableRecord:
        opened = table_opened(table_id, ruleset, players, rules)
        self._save([seal(table_stream(table_id), 1, opened, GENESIS)], f"table {table_id!r}")
        return self.table(table_id)

    def change_rules(self, table_id: str, rules: HouseRules | dict[str, Any]) -> TableRecord:
        """New house rules for the table's next match; a match in play keeps its own."""
        table = self.table(table_id)
        changed = RulesChanged(ruleset=table.ruleset, rules=house_rules(table.ruleset, rules))  # type: ignore[arg-type]
        self._save([seal(table_stream(table_id), table.version + 1, changed, table.digest)])
        return self.table(table_id)

    # --- writing ------------------------------------------------------------------------------

    def start_match(
        self,
        ruleset: str | None = None,
        players: Sequence[str] | None = None,
        rules: HouseRules | dict[str, Any] | None = None,
        *,
        match_id: str | None = None,
        table: str | None = None,
        stakes: dict[str, int] | None = None,
    ) -> str:
        """Open a match (at a table, under the table's rules at this moment); returns its id.
        ``stakes``: each player's balance when the match starts (table stakes, variants.md)."""
        match_id = match_id or new_match_id()
        saved: list[Recorded] = []
        if table is not None:
            t = self.table(table)
            saved.append(opened_at(t, match_id, ruleset, players))
            ruleset, players, rules = t.ruleset, t.players, rules or t.rules
        if ruleset is None or players is None:
            raise StoreError(
                "a match needs a ruleset and four players (or a table)", code="bad_parameter"
            )
        # A bad rule set, table, house rule or stakes is a FormatError, as in a log's
        # match_started.
        event = MatchStarted(
            ruleset=ruleset,  # type: ignore[arg-type]
            players=tuple(players),
            match=match_id,
            rules=house_rules(ruleset, rules),
            stakes=stakes,
        )
        saved.insert(0, seal(match_stream(match_id), 1, event, GENESIS))
        self._save(saved, f"match {match_id!r}")
        return match_id

    def start_hand(self, match_id: str, dealer: str | None = None) -> int:
        """Open the match's next hand; ``dealer``, if given, must agree with the rotation."""
        match = self.match(match_id)
        number = len(match.closed) + 1
        if self.recorder.select_events(hand_stream(match_id, number), limit=1):
            raise StoreError(
                f"hand {number} of match {match_id!r} is still in progress", code="hand_in_play"
            )
        state = open_hand(match.state, HandStarted(dealer=dealer), None)
        assert state.hand is not None
        first = stand_alone_start(state, state.hand)
        self._save([seal(hand_stream(match_id, number), 1, first, match.digest)])
        return number

    def record(
        self,
        match_id: str,
        number: int,
        event: HandEvent,
        *,
        expected_version: int | None = None,
    ) -> int:
        """Validate and append one event to a hand; returns the hand's new version.

        A rejected event raises a :class:`RuleError` and nothing is stored. With
        ``expected_version`` (the version the caller last read), an append that is no longer
        on top of the stream raises :class:`ConcurrencyError`: reload and retry. Without it,
        the event is appended on top of the stream as it is when the append lands.
        """
        refuse_outside_hand(event)
        hand = self.hand(match_id, number)
        saved = appended(match_id, number, self.match(match_id), hand, event, expected_version)
        try:
            self._save(saved)
        except ConcurrencyError:
            if expected_version is not None:
                raise
            # No version named: the event goes on top of what another writer appended first,
            # validated again against that state (so it may now be refused), never dropped.
            return self.record(match_id, number, event)
        return hand.version + 1

    def _save(self, records: Sequence[Recorded], exists: str | None = None) -> None:
        self._insert([self.mapper.to_stored_event(r) for r in records], exists)

    def _insert(self, rows: Sequence[StoredEvent], exists: str | None = None) -> None:
        try:
            # The recorder directly: Application.save would only add a runtime protocol check
            # per event and notification hooks this application does not use.
            self.recorder.insert_events(rows)
        except IntegrityError:
            if exists is not None and rows[0].originator_version == 1:
                raise StoreError(
                    f"{exists} already exists in {self.location}", code="match_exists"
                ) from None
            raise lost_race() from None

    @contextmanager
    def _writer(self) -> Iterator[Callable[[Sequence[TableRow]], None]]:
        """What inserts a long run of transactions, rows in the table's form, a lost race a
        :class:`ConcurrencyError`: the backend's writer (on SQLite one connection for them
        all, :meth:`HeadRecorder.writer`)."""
        with self.backend.writer(self.recorder) as write:
            yield raced(write)

    # --- reading results ----------------------------------------------------------------------

    def settlement(self, match_id: str, number: int) -> HandState:
        """The hand as ``replay`` of the match's export reports it (lines, next dealer and all)."""
        return settled_hand(self, match_id, number)

    def hand_at(self, match_id: str, number: int, version: int) -> HandState:
        """The hand after its first ``version`` events (1 is its ``hand_started``), as a dispute
        asks about it: transfer lines are lines of the match's export, as in ``settlement``."""
        return hand_at_version(self, match_id, number, version)

    def export_lines(self, match_id: str) -> Iterator[tuple[int, Event]]:
        """The match's export as (line, event): the lines of the log as recorded, which a
        correction never renumbers (a voided hand's lines between its start and its empty wall
        stand blank; docs/store.md, "Corrections")."""
        log = correction_log(self, match_id)
        if log is not None:
            return corrected_export(self, match_id, log)
        return enumerate(self.export_events(match_id, corrected=False), 1)

    def export_events(self, match_id: str, *, corrected: bool = True) -> Iterator[Event]:
        """The match as log events: ``match_started``, then each hand's events in order
        (with its corrections applied, unless ``corrected`` is false: then as recorded)."""
        if corrected:
            return (event for _line, event in self.export_lines(match_id))
        return recorded_export(self, match_id)

    def replay_match(self, match_id: str) -> Replay:
        """Re-derive the whole match from its stored events, exactly as ``replay`` of its export
        would (what an auditor re-checks), without writing or re-reading any JSON text."""
        return replay_events(self.export_lines(match_id))

    def replay_all(self) -> dict[str, Replay]:
        """Re-derive every match in the store in one pass over its notification log.

        Each match comes out exactly as ``replay`` of its export gives it. One sequential read
        serves all matches (a hand's events follow its ``hand_started``, and a match's hands
        follow each other), instead of one query per hand. :meth:`rederive` is the same pass
        without holding the hands. The cyclic garbage collector is paused meanwhile (the folds
        make no cycles, and walking every hand held again and again cost a quarter of the
        time); it is back on, if it was on, when this returns.
        """
        if self.verifier is not None:  # stream by stream, each verified
            return {m: self.replay_match(m) for m in self.matches()}
        return replays(self._rederivation())

    def rederive(self) -> Iterator[tuple[str, HandState]]:
        """Every hand of every match in the store, re-derived as ``replay`` of the match's
        export settles it, yielded as ``(match id, hand)`` once settled: one pass over the
        rows, holding only each match's hand in play (:mod:`mjledger.store.rederive`). With
        ``verify=True``, match by match through the verified streams instead."""
        if self.verifier is not None:
            return (
                (match, hand) for match in self.matches() for hand in self.replay_match(match).hands
            )
        return iter(self._rederivation())

    def _rederivation(self) -> Rederivation:
        return Rederivation(self._rows, self.mapper.to_domain_event, self.replay_match)

    def _rows(self, topics: Sequence[str]) -> Iterator[Row]:
        return self.backend.rows(self.recorder, topics)

    def export(self, match_id: str) -> str:
        """A canonical log: one event per line; it replays to the same result. Blank lines
        stand only where a correction left a hand shorter than recorded, so that every line
        keeps its recorded number."""
        return export_text(self.export_lines(match_id))

    def matches(self) -> list[str]:
        """Every match id in the store, in the order they were started (a ``match_started``
        row that cannot be read is left out: the other matches stay listed)."""
        return match_ids(self._rows, self.mapper.to_domain_event)

    # --- whole logs ---------------------------------------------------------------------------

    def record_log(
        self, text: str, *, progress: Callable[[int, int], None] | None = None
    ) -> RecordResult:
        """Record a match log: validated whole first (nothing is written if any line is
        rejected), then each hand in its own transaction, so a crash leaves whole hands only.

        A match id already in the store is left unchanged when the log holds exactly its
        stored events, continued when the stored events are a prefix of the log (an earlier
        recording that stopped part way), and refused otherwise. A log without a match id gets
        one derived from its content, so recording it again changes nothing.

        The cyclic garbage collector is paused meanwhile, as ``mjledger record`` pauses it
        (checking and writing make no cycles; its passes cost about 2% of the time); it is
        back on, if it was on, when this returns.
        """
        with gc_paused():
            return self.record_checked(check_log(text), progress=progress)

    def record_checked(
        self, log: CheckedLog, *, progress: Callable[[int, int], None] | None = None
    ) -> RecordResult:
        """Record a log :func:`~mjledger.store.importer.check_log` has validated (see
        :meth:`record_log`), decoding it again a hand at a time as it is written.

        Another writer may be recording the same match at the same moment: each append that
        loses a race re-reads what is stored and goes on from there, so both end with the
        whole match stored once, and a writer that found everything there says so.
        """
        return write_log(self, log, progress)

    # --- projections --------------------------------------------------------------------------

    @property
    def views(self) -> ViewsCore:
        """The read models (running scores, dealer streaks, match history), caught up on read."""
        with self._lock:
            if self._views is None:
                self._views = self.backend.views(self)
            return self._views

    @property
    def position(self) -> int:
        """The newest notification id in the store: what a reader waits for
        (``views.wait_for(ledger.position)``) to see everything written so far."""
        return self.recorder.max_notification_id() or 0

    def drop_views(self) -> None:
        """Close the read models; the next use of :attr:`views` opens them again."""
        with self._lock:
            if self._views is not None:
                self._views.close()
                self._views = None

    def close(self) -> None:
        self.drop_views()
        release = getattr(self.recorder, "release_writer", None)  # SQLite's kept connection
        if release is not None:
            release()
        super().close()
