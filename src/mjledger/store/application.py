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

import operator
import os
import threading
import uuid
from collections.abc import Callable, Iterator, Sequence
from contextlib import contextmanager
from pathlib import Path
from typing import Any, Final, cast

import attrs
from eventsourcing.application import AggregateNotFoundError, Application
from eventsourcing.persistence import (
    InfrastructureFactory,
    IntegrityError,
    Mapper,
    PersistenceError,
    StoredEvent,
)
from eventsourcing.utils import Environment

from mjledger._gc import gc_paused
from mjledger.errors import ConcurrencyError, FormatError, LogError, RuleError, StoreError
from mjledger.fold.hand import HandEvent, HandState, close_hand, evolve_hand
from mjledger.fold.match import open_hand, rotate
from mjledger.fold.replay import Replay, replay_events
from mjledger.log.codec import dumps_event
from mjledger.log.events import Event, HandStarted, MatchStarted
from mjledger.rules.house import default_rules, rules_from_json
from mjledger.rules.protocol import HouseRules
from mjledger.store.corrections import correction_log, settle_corrected
from mjledger.store.corrections import export_events as corrected_export
from mjledger.store.events import MatchOpened, RulesChanged, TableOpened
from mjledger.store.files import read_only_uri
from mjledger.store.head import HeadRecorder, stored_events, table_rows
from mjledger.store.importer import (
    HAND_CLOSED,
    HAND_STARTED,
    MATCH_STARTED,
    CheckedLog,
    RecordResult,
    check_log,
    closing_of,
    comparable,
    in_match_form,
    new_match_id,
    shift_lines,
    stand_alone_start,
)
from mjledger.store.location import PostgresStore, SqliteStore, StoreLocation, store_location
from mjledger.store.projectors import (
    HandRecord,
    MatchRecord,
    TableRecord,
    project_hand,
    project_match,
    project_table,
    projector,
)
from mjledger.store.records import (
    GENESIS,
    Recorded,
    RecordMapper,
    TableRow,
    seal,
    topic_of,
    with_rules,
)
from mjledger.store.rederive import Rederivation, Row, rows
from mjledger.store.signing import signer_from_env
from mjledger.store.streams import (
    STORE_ENV,
    hand_stream,
    match_stream,
    store_path,
    table_stream,
)
from mjledger.store.verify import ChainVerifier
from mjledger.store.views import ViewsCore, open_views

# Persistence modules a Ledger can run on, by name (eventsourcing's PERSISTENCE_MODULE).
PERSISTENCE: Final[dict[str, str]] = {
    "sqlite": "eventsourcing.sqlite",
    "memory": "eventsourcing.popo",
    "postgres": "eventsourcing.postgres",  # chosen by a postgresql:// URL
}

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
        if persistence not in PERSISTENCE:
            raise StoreError(
                f"unknown persistence {persistence!r} (known: {', '.join(PERSISTENCE)})",
                code="bad_parameter",
            )
        memory = persistence == "memory"
        self.location = SqliteStore(Path(":memory:")) if memory else store_location(path)
        self.postgres = self.location if isinstance(self.location, PostgresStore) else None
        self.path = self.location.path if isinstance(self.location, SqliteStore) else None
        if self.postgres is not None:
            persistence = "postgres"
        elif persistence == "postgres":
            raise StoreError(
                f"PostgreSQL needs a postgresql:// URL, not {self.location}", code="bad_parameter"
            )
        self.persistence = persistence
        self.read_only = read_only and persistence == "sqlite"
        self.views_db = views
        signer = signer_from_env(signing_key)  # a bad key is refused before the store opens
        settings = {
            "PERSISTENCE_MODULE": PERSISTENCE[persistence],
            "AGGREGATE_CACHE_MAXSIZE": "4096",
            "DEEPCOPY_FROM_AGGREGATE_CACHE": "n",
        }
        if self.postgres is not None:
            settings.update(self.postgres.settings())
            settings["APPLICATION_RECORDER_TOPIC"] = "mjledger.store.postgres:LedgerRecorder"
        else:
            assert self.path is not None
            dbname = read_only_uri(self.path) if self.read_only else str(self.path)
            settings.update({"SQLITE_DBNAME": dbname, "SQLITE_LOCK_TIMEOUT": "30"})
            if self.read_only:
                settings["CREATE_TABLE"] = "n"
            if persistence == "sqlite":  # the store head, and signatures, in each transaction
                settings["APPLICATION_RECORDER_TOPIC"] = "mjledger.store.head:HeadRecorder"
        settings.update(env or {})
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
            if self.postgres is not None and isinstance(error, PersistenceError):
                from mjledger.store.postgres import open_failure

                raise open_failure(self.postgres, error) from None
            raise
        if persistence != "memory":  # both backends' recorders keep the head and sign
            self.recorder.signer = signer  # type: ignore[attr-defined]
        self.verifier = ChainVerifier(self.recorder) if verify else None

    def construct_mapper(self) -> Mapper[uuid.UUID]:
        return RecordMapper()

    def construct_factory(self, env: Environment) -> InfrastructureFactory[Any]:
        factory = super().construct_factory(env)
        if self.read_only:
            # Reading never switches the journal mode (a read-only or immutable file cannot).
            cast(Any, factory).datastore.pool.is_journal_mode_wal = True
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
        event = MatchStarted(ruleset=ruleset, players=tuple(players))  # type: ignore[arg-type]
        opened = TableOpened(
            table=table_id,
            ruleset=event.ruleset,
            players=event.players,
            rules=_rules(event.ruleset, rules),
        )
        self._save([seal(table_stream(table_id), 1, opened, GENESIS)], f"table {table_id!r}")
        return self.table(table_id)

    def change_rules(self, table_id: str, rules: HouseRules | dict[str, Any]) -> TableRecord:
        """New house rules for the table's next match; a match in play keeps its own."""
        table = self.table(table_id)
        changed = RulesChanged(ruleset=table.ruleset, rules=_rules(table.ruleset, rules))  # type: ignore[arg-type]
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
            if ruleset not in (None, t.ruleset) or players not in (
                None,
                list(t.players),
                t.players,
            ):
                raise StoreError(
                    f"table {table!r} plays {t.ruleset} with {', '.join(t.players)}",
                    code="bad_parameter",
                )
            ruleset, players, rules = t.ruleset, t.players, rules or t.rules
            saved.append(seal(table_stream(table), t.version + 1, MatchOpened(match_id), t.digest))
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
            rules=_rules(ruleset, rules),
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
        if isinstance(event, (MatchStarted, HandStarted)):
            raise RuleError(
                "record() takes the events inside a hand; use start_match/start_hand",
                event_type=type(event).TYPE,
                code="wrong_event_type",
            )
        hand = self.hand(match_id, number)
        if expected_version is not None and expected_version != hand.version:
            raise ConcurrencyError(
                f"hand {number} of match {match_id!r} is at version {hand.version}, "
                f"not {expected_version}: reload and retry"
            )
        version = hand.version + 1
        match = self.match(match_id)
        # A stored hand has no log of its own: the event's line is the one it takes in the
        # match's export, named after the problem (docs/library.md).
        line = match.first_line(number) - 1 + version
        try:
            state = evolve_hand(shift_lines(hand.state, match.first_line(number) - 1), event, line)
        except LogError as exc:
            raise exc.in_stored_hand(number, line) from None
        saved = [seal(hand_stream(match_id, number), version, event, hand.digest)]
        if state.ended:
            rotated = rotate(match.state, state)
            closing = closing_of(state, rotated, version, saved[0].digest)
            saved.append(seal(match_stream(match_id), match.version + 1, closing, match.digest))
        try:
            self._save(saved)
        except ConcurrencyError:
            if expected_version is not None:
                raise
            # No version named: the event goes on top of what another writer appended first,
            # validated again against that state (so it may now be refused), never dropped.
            return self.record(match_id, number, event)
        return version

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
            raise _lost_race() from None

    @contextmanager
    def _writer(self) -> Iterator[Callable[[Sequence[TableRow]], None]]:
        """What inserts a long run of transactions, rows in the table's form, a lost race a
        :class:`ConcurrencyError`: on SQLite the recorder's writer (one connection for them
        all, :meth:`HeadRecorder.writer`), else the recorder itself."""
        recorder = self.recorder
        if isinstance(recorder, HeadRecorder):
            with recorder.writer() as write:
                yield _raced(write)
        else:
            yield _raced(lambda rows: recorder.insert_events(stored_events(rows)))

    # --- reading results ----------------------------------------------------------------------

    def settlement(self, match_id: str, number: int) -> HandState:
        """The hand as ``replay`` of the match's export reports it (lines, next dealer and all)."""
        match = self.match(match_id)
        try:
            hand = self.hand(match_id, number)
        except LogError as exc:  # an illegal stored row: placed at its line of the export
            line = None if exc.line is None else match.first_line(number) + exc.line - 1
            raise StoreError(
                f"stored hand {number} cannot be settled: {exc.at(line)}", code="store_damaged"
            ) from None
        # An open run of wins is closed as the end of the export would close it, then hand-stream
        # positions become export lines.
        state = shift_lines(close_hand(hand.state), match.first_line(number) - 1)
        if number <= len(match.closed):
            state = attrs.evolve(state, next_dealer=match.closed[number - 1].next_dealer)
        # Upheld disputes are a compensating record beside the hand (store.corrections).
        return settle_corrected(self, match, number, state)

    def hand_at(self, match_id: str, number: int, version: int) -> HandState:
        """The hand after its first ``version`` events (1 is its ``hand_started``), as a dispute
        asks about it: transfer lines are lines of the match's export, as in ``settlement``."""
        stored = self.hand(match_id, number).version
        if not 1 <= version <= stored:
            raise StoreError(
                f"hand {number} of match {match_id!r} has versions 1 to {stored}, not {version}",
                code="no_hand",
            )
        state = self.hand(match_id, number, version=version).state
        match = self.match(match_id)
        return shift_lines(close_hand(state), match.first_line(number) - 1)

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
            yield from (event for _line, event in self.export_lines(match_id))
            return
        match = self.match(match_id)
        yield with_rules(match.started)
        for number in range(1, self.hands_in(match_id) + 1):
            events = self.hand_events(match_id, number)
            first = events[0]
            assert isinstance(first, HandStarted)
            yield in_match_form(first)
            yield from events[1:]

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
        rederivation = self._rederivation()
        hands: dict[str, list[HandState]] = {}
        with gc_paused():
            for match, hand in rederivation:
                hands.setdefault(match, []).append(hand)
        out = {}
        for match, folder in rederivation.folders.items():
            state = folder.state
            assert state is not None
            out[match] = Replay(
                ruleset=state.ruleset,
                match=state.match_id,
                players=state.players,
                rules=state.rules,
                hands=tuple(hands.get(match, ())),
                state=state,
            )
        return out

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
        return rows(self.recorder, topics)

    def export(self, match_id: str) -> str:
        """A canonical log: one event per line; it replays to the same result. Blank lines
        stand only where a correction left a hand shorter than recorded, so that every line
        keeps its recorded number."""
        out: list[str] = []
        last = 0
        for line, event in self.export_lines(match_id):
            out.append("\n" * (line - last - 1) + dumps_event(event) + "\n")
            last = line
        return "".join(out)

    def matches(self) -> list[str]:
        """Every match id in the store, in the order they were started (a ``match_started``
        row that cannot be read is left out: the other matches stay listed)."""
        topic = topic_of(MatchStarted)
        found = []
        start = 1
        while True:
            batch = self.recorder.select_notifications(start, 2000, topics=[topic])
            for n in batch:
                try:
                    found.append(cast(Recorded, self.mapper.to_domain_event(n)).event.match)
                except StoreError:
                    continue
            if len(batch) < 2000:
                return found
            start = batch[-1].id + 1

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
        written = _Written()
        for _ in range(log.hands + 3):
            stored = self._stored_records(log.match)
            try:
                self._write_missing(log, stored, written, progress)
            except ConcurrencyError:
                continue  # another writer appended first: compare with what it stored
            break
        else:  # pragma: no cover - every lost race means the other writer got further
            raise ConcurrencyError(f"match {log.match!r} kept changing while it was recorded")
        return RecordResult(
            match=log.match,
            status=(
                "recorded" if written.started else "resumed" if written.batches else "unchanged"
            ),
            hands=written.hands,
            events=written.events,
            id_assigned=log.id_assigned,
        )

    def _stored_records(self, match_id: str) -> dict[uuid.UUID, list[dict[str, Any]]] | None:
        if not self.has_match(match_id):
            return None
        streams = [match_stream(match_id)] + [
            hand_stream(match_id, n) for n in range(1, self.hands_in(match_id) + 1)
        ]
        return {
            s: [
                comparable(cast(Recorded, self.mapper.to_domain_event(e)))
                for e in self.recorder.select_events(s)
            ]
            for s in streams
        }

    def _write_missing(
        self,
        log: CheckedLog,
        stored: dict[uuid.UUID, list[dict[str, Any]]] | None,
        written: _Written,
        progress: Callable[[int, int], None] | None,
    ) -> None:
        """Compare the log with what is stored of its match (one pass, writing nothing), then
        write what is missing (a second pass): memory holds one hand of the log, not all."""
        have = {stream: len(rows) for stream, rows in (stored or {}).items()}
        total = log.hands + 1
        if stored is not None:
            seen = total = 0
            for batch, lines in log.batches():
                missing = False
                for r, line in zip(batch, lines, strict=True):
                    kept = stored.get(r.originator_id, [])
                    if r.originator_version > len(kept):
                        missing = True
                    elif kept[r.originator_version - 1] != comparable(r):
                        raise StoreError(
                            f"match {log.match!r} is already recorded with different events: "
                            f"line {line} ({type(r.event).TYPE}) differs from the stored match",
                            code="log_conflict",
                            line=line,
                        )
                    else:
                        seen += 1
                total += missing
            if seen != sum(have.values()):
                raise StoreError(
                    f"match {log.match!r} is already recorded with more events than this log holds",
                    code="log_conflict",
                )
            if not total:
                return
        # Nothing of the match stored yet: every row, from the spool (decoded and folded
        # once, by check_log). Else the rows missing, the log decoded again.
        batches = (
            log.rows()
            if stored is None
            else (
                table_rows(
                    [
                        self.mapper.to_stored_event(r)
                        for r in batch
                        if r.originator_version > have.get(r.originator_id, 0)
                    ]
                )
                for batch, _ in log.batches()
            )
        )
        done = 0
        with self._writer() as insert:
            for rows in batches:
                if not rows:
                    continue
                insert(rows)
                written.add(list(map(_TOPIC, rows)))
                done += 1
                if progress is not None:
                    progress(done, total)

    # --- projections --------------------------------------------------------------------------

    @property
    def views(self) -> ViewsCore:
        """The read models (running scores, dealer streaks, match history), caught up on read."""
        with self._lock:
            if self._views is None:
                if self.postgres is not None:
                    from mjledger.store.postgres import PostgresLedgerViews

                    self._views = PostgresLedgerViews(self)
                else:
                    self._views = open_views(self)
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
        super().close()


_TOPIC: Final = operator.itemgetter(2)  # a row's topic, in the table's form


def _lost_race() -> ConcurrencyError:
    return ConcurrencyError("another writer appended to the same stream first: reload and retry")


def _raced(write: Callable[[Sequence[TableRow]], object]) -> Callable[[Sequence[TableRow]], None]:
    """``write`` with a lost race (a row another writer inserted first) a ConcurrencyError."""

    def insert(rows: Sequence[TableRow]) -> None:
        try:
            write(rows)
        except IntegrityError:
            raise _lost_race() from None

    return insert


def _rules(ruleset: str, rules: HouseRules | dict[str, Any] | None) -> HouseRules:
    if rules is None:
        return default_rules(ruleset)
    if isinstance(rules, dict):
        return rules_from_json(ruleset, rules)
    expected = type(default_rules(ruleset))
    if not isinstance(rules, expected):
        raise FormatError(f"{ruleset} needs {expected.__name__}, not {type(rules).__name__}")
    return rules


class _Written:
    """What one ``record`` wrote, counted as it goes (the records themselves are not kept)."""

    def __init__(self) -> None:
        self.started = False
        self.batches = self.hands = self.events = 0

    def add(self, topics: list[str]) -> None:
        """Count one written batch, by its rows' topics (counted in C: a hand has many)."""
        self.batches += 1
        self.started |= MATCH_STARTED in topics
        self.hands += topics.count(HAND_STARTED)
        self.events += len(topics) - topics.count(HAND_CLOSED)
