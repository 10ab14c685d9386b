"""The audit: re-derive everything in a store from its raw rows and say what does not agree.

It reads the store's rows directly (read-only, one snapshot: a SQLite file or a PostgreSQL
schema, through :mod:`mjledger.store.audit_rows`), never through the ledger's caches, folds or
read models, and streams: one match stream and one hand at a time, each read straight from the
database in stream order, and one pass in commit order for the store head. What
it checks, per match: every row's link in its stream's digest chain, its topic against its
``type``, no version missing; each hand chained into its match; each hand replayed under the
match's rules (legal, zero-sum, fans and wall facts from tiles where tiles are logged) and its
``hand_closed`` equal to the replay; numbering, rotation, streaks and round winds; the read
models row by row against the replays; signatures (with a public key); and the store head
against every row. It never repairs anything: a damaged view is a finding like any other.

Rows as the ledger seals them are read in one step, their links hashed over their own bytes
(:mod:`mjledger.store.canonical_rows`); any other row is read strictly, the general way, so a
damaged row gives the same findings either way.

Findings are values (:class:`Finding`) with stable codes (:data:`CODES`).
"""

from __future__ import annotations

import json
from collections.abc import Callable, Iterable, Iterator, Sequence
from functools import lru_cache
from itertools import islice
from pathlib import Path
from typing import Any, Final

import attrs
import msgspec
from attrs import define, frozen

from mjledger._checks import ids_as_stored
from mjledger.errors import MjledgerError, RuleError, StoreError
from mjledger.fold.hand import HandState, close_hand
from mjledger.fold.match import MatchFold, MatchState, evolve, open_hand, start
from mjledger.log.codec import decode_json, upcast
from mjledger.log.events import WINDS, HandStarted, MatchStarted
from mjledger.rules.house import default_rules, rules_to_json
from mjledger.rules.registry import find_ruleset
from mjledger.store.audit_rows import AuditRows, SqliteRows
from mjledger.store.canonical_rows import canonical_rows
from mjledger.store.corrections import correction_stream, corrections_stream
from mjledger.store.events import (
    HandClosed,
    HandCorrected,
    HandVoided,
    MatchOpened,
    TableOpened,
)
from mjledger.store.head import fold_head
from mjledger.store.importer import closing_of, stand_alone_start
from mjledger.store.integrity import (
    HEAD_GENESIS,
    META_KEYS,
    event_class,
    hand_message,
    head_message,
    link,
    topic_of,
)
from mjledger.store.location import PostgresStore, StoreLocation, store_location
from mjledger.store.records import GENESIS, STORE_CONVERTER, stored_form, with_rules
from mjledger.store.signing import Verifier
from mjledger.store.streams import hand_stream, match_stream

CODES: Final[dict[str, str]] = {
    "row_unreadable": "a stored row is not JSON, or not an event of its type",
    "topic_mismatch": "a row's topic column names another class than its (chained) type",
    "row_missing": "a stream skips a version: a row was removed from its middle",
    "chain_broken": "a row's digest is not the link the chain gives after the row before it",
    "row_misplaced": "a row whose type does not belong at its place in its stream",
    "context_differs": "a hand's first row names another match, number or table than its match",
    "rotation_differs": "a hand's dealer, streak or round wind is not the rotation's",
    "replay_refused": "a hand does not replay: an illegal event, or a fan or wall fact its tiles "
    "contradict",
    "not_zero_sum": "a hand's settlement does not sum to zero",
    "replay_differs": "a hand_closed's result (dealer, streak, outcome, winners, net, rotation) "
    "is not the replay's",
    "closing_differs": "a hand_closed's fingerprint (number, events, hand_digest) is not its "
    "hand's",
    "closing_missing": "a hand ended but its match has no hand_closed for it",
    "hand_missing": "a hand_closed names a hand whose stream is empty",
    "hand_extra": "a hand stream after the match's last hand (or after an unfinished one)",
    "match_missing": "a table names a match the store does not hold",
    "stray_rows": "rows that belong to no stream of any match or table",
    "view_behind": "the read models have not applied every stored row",
    "view_differs": "a read-model row is not what the replays give",
    "head_missing": "the store has no head row",
    "head_mismatch": "the store head is not the head of the rows stored",
    "signature_invalid": "a signature does not verify with the public key",
    "unsigned_hand": "a hand_closed without a signature (with --public-key)",
    "unsigned_head": "the store head without a signature (with --public-key)",
    "head_rolled_back": "fewer rows than a saved head covers (--since): rows were removed, the "
    "store rolled back or its newest rows deleted",
    "head_rewritten": "the first rows are not those a saved head covers (--since): history "
    "rewritten, or another store's",
}

_HAND_FIELDS: Final = ("number", "events", "hand_digest")
_ROTATION_FIELDS: Final = ("dealer", "dealer_streak", "round_wind")
_TABLE_FIELDS: Final = ("match", "ruleset", "players", "rules")


@frozen
class Finding:
    """One thing the audit found wrong: where (match, hand, stream position, export line),
    what (a stable ``code`` and a sentence) and, where it applies, expected versus found."""

    code: str
    message: str
    match: str | None = None
    hand: int | None = None
    stream: str | None = None
    version: int | None = None
    line: int | None = None
    expected: Any = None
    found: Any = None

    def to_json(self) -> dict[str, Any]:
        return attrs.asdict(self)

    def __str__(self) -> str:
        where = []
        if self.match is not None:
            where.append(f"match {self.match}")
        if self.hand is not None:
            where.append(f"hand {self.hand}")
        if self.line is not None:
            where.append(f"line {self.line}")
        if self.stream is not None:
            version = f" v{self.version}" if self.version is not None else ""
            where.append(f"stream {self.stream[:8]}{version}")
        text = f"{self.code}: {', '.join(where) + ': ' if where else ''}{self.message}"
        if self.expected is not None or self.found is not None:
            text += f" (expected {_show(self.expected)}, found {_show(self.found)})"
        return text


def _show(value: Any) -> str:
    return json.dumps(value, ensure_ascii=False, sort_keys=True)


@define
class AuditSummary:
    """What the audit went through (filled in as it runs)."""

    store: str
    matches: int = 0
    hands: int = 0
    tables: int = 0
    rows: int = 0
    signed_hands: int = 0
    head: str | None = None
    head_signed: bool = False
    signatures_checked: bool = False
    views: str = "not compared"

    def to_json(self) -> dict[str, Any]:
        return attrs.asdict(self)


@frozen
class AuditReport:
    """The findings (empty: the store is clean) and the summary of one audit."""

    findings: tuple[Finding, ...]
    summary: AuditSummary

    @property
    def clean(self) -> bool:
        return not self.findings

    def to_json(self) -> dict[str, Any]:
        counts: dict[str, int] = {}
        for f in self.findings:
            counts[f.code] = counts.get(f.code, 0) + 1
        return {
            "clean": self.clean,
            "summary": self.summary.to_json(),
            "counts": counts,
            "findings": [f.to_json() for f in self.findings],
        }


Progress = Callable[[int, int], None]


def audit(
    path: str | Path | None = None,
    *,
    matches: Sequence[str] | None = None,
    public_key: Verifier | None = None,
    progress: Progress | None = None,
) -> AuditReport:
    """Audit a store (see the module's docstring); findings in the order they were found."""
    auditor = Auditor(path, matches=matches, public_key=public_key, progress=progress)
    findings = tuple(auditor.run())
    return AuditReport(findings, auditor.summary)


@frozen
class StoreHead:
    """The head recomputed from the rows, and the head row the store keeps."""

    rows: int
    digest: str
    stored_rows: int | None
    stored_digest: str | None
    signature: str | None

    @property
    def agrees(self) -> bool:
        return (self.stored_rows, self.stored_digest) == (self.rows, self.digest)

    def to_json(self) -> dict[str, Any]:
        """What ``audit --head --json`` prints and ``GET /v1/audit/head`` answers (the file
        ``audit --since`` reads back): stated once for both doors."""
        stored = None
        if self.stored_digest is not None:
            stored = {"head": self.stored_digest, "rows": self.stored_rows}
        return {
            "head": self.digest,
            "rows": self.rows,
            "stored": stored,
            "agrees": self.agrees,
            "signature": self.signature,
        }


def open_rows(store: str | Path | StoreLocation | None = None) -> AuditRows:
    """A read-only snapshot of the store's rows: a SQLite file or a PostgreSQL schema."""
    location = store_location(store)
    if isinstance(location, PostgresStore):
        from mjledger.store.postgres_audit import PostgresRows

        return PostgresRows(location)
    return SqliteRows(location.path)


def store_head(path: str | Path | StoreLocation | None = None) -> StoreHead:
    """The store's head digest by the formula of docs/store.md, recomputed from its rows."""
    source = open_rows(path)
    try:
        rows, _last, digest = fold_head(source.all_rows())
        stored = source.stored_head()
    except source.failures as exc:
        raise source.failure(exc) from None
    finally:
        source.close()
    if stored is None:
        return StoreHead(rows, digest, None, None, None)
    return StoreHead(rows, digest, stored[0], stored[2], stored[3])


class _Row:
    """A checked row: its position, its digest, its event if it reads, and its data
    (metadata and all). A row :mod:`mjledger.store.canonical_rows` read is decoded into its
    event only, and into its keys when a check first asks (by msgspec: the row is canonical
    JSON, which it decodes exactly as the strict decoder does)."""

    __slots__ = ("_data", "digest", "event", "rowid", "state", "version")

    def __init__(
        self,
        rowid: int,
        version: int,
        data: dict[str, Any] | None,
        digest: str,
        event: Any,
        state: Any = None,
    ) -> None:
        self.rowid = rowid
        self.version = version
        self._data = data
        self.digest = digest
        self.event = event
        self.state = state

    @property
    def data(self) -> dict[str, Any]:
        if self._data is None:
            self._data = msgspec.json.decode(self.state)  # a row CanonicalRows read
        return self._data


class Auditor:
    """One audit of one store; :meth:`run` yields findings as it streams through."""

    def __init__(
        self,
        path: str | Path | StoreLocation | None = None,
        *,
        matches: Sequence[str] | None = None,
        public_key: Verifier | None = None,
        progress: Progress | None = None,
    ) -> None:
        self.location = store_location(path)
        self.only = list(matches) if matches is not None else None
        self.verifier = public_key
        self.progress = progress
        self.summary = AuditSummary(
            store=str(self.location), signatures_checked=public_key is not None
        )
        self.views: AuditRows | None = None
        self._pending: list[Finding] = []
        self._canonical = canonical_rows()
        # A match's table in a hand's stored context, unstructured once (_context).
        self._table_context: tuple[tuple[Any, ...], dict[str, Any]] | None = None
        self._corrected_streams = 0
        self._done = 0
        self._total = 0

    # --- driving ------------------------------------------------------------------------------

    def run(self) -> Iterator[Finding]:
        source = open_rows(self.location)
        self.rows = source
        try:
            source.open_views()
            self.summary.views = source.views_status
            self.views = source if source.views_status == "compared" else None
            if source.views_problem is not None:
                self._find("view_differs", source.views_problem)
            yield from self._run()
        except source.failures as exc:
            raise source.failure(exc) from None
        finally:
            source.close()

    def _run(self) -> Iterator[Finding]:
        self._total = 2 * self.rows.last_notification()
        yield from self._check_views_position()
        if self.only is None:
            discovered = self._starting(MatchStarted.TYPE)
            matches: Iterable[tuple[str, str | None]] = ((s, None) for s in discovered)
        else:
            matches = [(match_stream(m).hex, m) for m in self.only]
        for stream, match_id in matches:
            self._match(stream, match_id)
            yield from self._flush()
        if self.only is None:
            for stream in self._starting(TableOpened.TYPE):
                self._table(stream)
                yield from self._flush()
        yield from self._head()
        if self.only is None:
            self._strays()
            self._view_counts()
            yield from self._flush()
        if self.progress is not None:
            self.progress(self._total, self._total)

    def _starting(self, kind: str) -> Iterator[str]:
        """The streams whose first row is stored under the topic of ``kind``, in commit order
        (a first row stored under another topic leaves its stream to the stray-row check)."""
        return self.rows.starting(topic_of(kind))

    def _flush(self) -> Iterator[Finding]:
        pending, self._pending = self._pending, []
        return iter(pending)

    def _find(self, code: str, message: str, **where: Any) -> None:
        assert code in CODES, code
        self._pending.append(Finding(code, message, **where))

    def _advance(self, rows: int) -> None:
        self._done += rows
        if self.progress is not None and (self._done & 1023) < rows:
            self.progress(self._done, self._total)

    # --- rows ---------------------------------------------------------------------------------

    def _stream(self, stream: str) -> Iterator[tuple[int, int, str, Any]]:
        return self.rows.stream(stream)

    def _rows(
        self,
        raw: Iterable[tuple[int, int, str, Any]],
        previous: str,
        stream: str,
        place: Callable[[int], dict[str, Any]],
    ) -> Iterator[_Row]:
        """Check each raw row of one stream (version, topic, link) and read its event.

        Yields a :class:`_Row` per row (``event`` None when it does not read). Each link is
        checked against the *stored* digest of the row before, so one edited row gives one
        finding, not one per row after it.
        """
        expected = 1
        read = self._canonical.read
        for rowid, version, topic, state in raw:
            self._advance(1)
            if version != expected:
                self._find(
                    "row_missing",
                    f"versions {expected} to {version - 1} are missing"
                    if version > expected + 1
                    else f"version {expected} is missing",
                    **{"stream": stream, **place(version), "version": expected},
                )
            expected = version + 1
            fast = read(topic, state, previous)
            if fast is not None:
                event, computed, digest = fast
                if computed != digest:
                    self._find(
                        "chain_broken",
                        f"the {event.TYPE} row's digest is not its link in the chain",
                        expected=computed,
                        found=digest,
                        **{"stream": stream, "version": version, **place(version)},
                    )
                previous = digest
                yield _Row(rowid, version, None, digest, event, state)
                continue
            try:
                text = state.decode("utf-8") if isinstance(state, bytes) else str(state)
                data = decode_json(text)
                kind = data["type"]
                digest = data["digest"]
                wanted = topic_of(kind)
            except (MjledgerError, UnicodeDecodeError, KeyError, TypeError) as exc:
                where = {"stream": stream, "version": version, **place(version)}
                self._find("row_unreadable", f"the row cannot be read: {_why(exc)}", **where)
                yield _Row(rowid, version, {}, previous, None)
                continue
            if topic != wanted:
                self._find(
                    "topic_mismatch",
                    f"a {kind} row stored under another topic",
                    expected=wanted,
                    found=topic,
                    **{"stream": stream, "version": version, **place(version)},
                )
            computed = link(previous, data)
            if computed != digest:
                self._find(
                    "chain_broken",
                    f"the {kind} row's digest is not its link in the chain",
                    expected=computed,
                    found=digest,
                    **{"stream": stream, "version": version, **place(version)},
                )
            previous = digest if isinstance(digest, str) else computed
            try:
                event = _event_of(kind, data)
            except Exception as exc:  # a damaged row can fail anywhere in structuring
                self._find(
                    "row_unreadable",
                    f"the {kind} row is not an event: {_why(exc)}",
                    **{"stream": stream, "version": version, **place(version)},
                )
                event = None
            yield _Row(rowid, version, data, previous, event)

    # --- a match ------------------------------------------------------------------------------

    def _match(self, stream: str, match_id: str | None) -> None:
        rows = self._rows(self._stream(stream), GENESIS, stream, lambda v: {"match": match_id})
        first = next(rows, None)
        if first is None:
            raise StoreError(f"no match {match_id!r} in {self.summary.store}", code="no_match")
        started = first.event
        if not isinstance(started, MatchStarted) or first.version != 1:
            self._find(
                "row_misplaced",
                "a match stream must start with match_started",
                stream=stream,
                version=first.version,
                match=match_id,
            )
            for _ in rows:
                pass
            return
        match_id = started.match
        self.summary.matches += 1
        started = with_rules(started)
        self._view_match(match_id, first.rowid, stream, started)
        fixes = _Corrections(self, match_id or "")
        view = self._view_rows(match_id, fixes)
        state = start(started, 1)
        previous = first.digest
        fixes.anchor(previous)
        line = 1  # the export line of the last event so far
        number = 1
        held: _Row | None = None  # a hand_closed of a later hand (this one's is missing)
        lost = False  # a hand neither replays nor has a hand_closed: the rotation is unknown
        unfinished = False
        while True:
            hand = list(self._hand_rows(match_id, number, previous, line))
            closing, held = (held, None) if held is not None else (next(rows, None), None)
            closed = closing.event if closing is not None else None
            if closing is not None and not isinstance(closed, HandClosed):
                if closed is not None:
                    self._find(
                        "row_misplaced",
                        "after match_started a match stream holds hand_closed rows only",
                        match=match_id,
                        stream=stream,
                        version=closing.version,
                    )
                closed = None
            if closed is not None and closed.number == number + 1:
                # This hand's hand_closed is missing; the row is the next hand's. (Only one
                # ahead: a number from further off is this hand's closing, and wrong.)
                held, closing, closed = closing, None, None
            if not hand:
                if closing is None and held is None:
                    break
                self._find(
                    "hand_missing",
                    f"the match stream closes hand {number}, but its stream is empty"
                    if closing is not None
                    else f"hand {number} is missing (a later hand is closed)",
                    match=match_id,
                    hand=number,
                    stream=_hand_hex(match_id, number),
                    version=1,
                    line=line + 1,
                )
                if closing is not None:
                    self._check_signature(closing, match_id, number, stream, line)
                    previous = closing.digest
                    fixes.anchor(previous)
                if closed is not None:
                    state = _after(state, closed)
                    line += closed.events
                else:
                    lost = True
                view.skip(number)
                number += 1
                continue
            self.summary.hands += 1
            replayed: HandState | None = None
            if unfinished:
                self._find(
                    "hand_extra",
                    f"hand {number} is stored after hand {number - 1}, which is unfinished",
                    match=match_id,
                    hand=number,
                    stream=_hand_hex(match_id, number),
                    version=1,
                    line=line + 1,
                )
                lost = True
            elif not lost:
                state, replayed = self._replay(state, hand, match_id, number, line)
            end = line + len(hand)
            if closing is not None:
                self._check_signature(closing, match_id, number, stream, end)
                self._check_closing(closing, replayed, state, hand, match_id, number, stream, end)
            elif replayed is not None and replayed.ended:
                self._find(
                    "closing_missing",
                    f"hand {number} ended at line {end} but the match has no hand_closed for it",
                    match=match_id,
                    hand=number,
                    stream=stream,
                    line=end,
                )
            if replayed is None:
                if closed is not None:
                    state, lost = _after(state, closed), False
                elif closing is None:
                    lost = True
                view.skip(number)
            else:
                self._check_view_hand(view, match_id, number, replayed, end)
                if not replayed.ended and closing is not None:
                    # Closed in the store, unfinished by its events (a cut hand): go on from
                    # the rotation its hand_closed states, as for a hand that does not replay.
                    if closed is not None:
                        state = _after(state, closed)
                    else:
                        lost = True
                else:
                    unfinished = not replayed.ended
            line = end
            previous = closing.digest if closing is not None else hand[-1].digest
            if closing is not None:
                fixes.anchor(previous)
            number += 1
        for extra in rows:
            self._find(
                "row_misplaced",
                "a match stream row after its last hand",
                match=match_id,
                stream=stream,
                version=extra.version,
            )
        view.finish(number)
        fixes.audit(previous)

    def _hand_rows(self, match_id: str | None, number: int, previous: str, line: int) -> Any:
        stream = _hand_hex(match_id, number)
        raw = self._stream(stream)
        return self._rows(
            raw, previous, stream, lambda v: {"match": match_id, "hand": number, "line": line + v}
        )

    def _replay(
        self,
        state: MatchState,
        hand: list[_Row],
        match_id: str | None,
        number: int,
        line: int,
    ) -> tuple[MatchState, HandState | None]:
        """The match after the hand and the hand as replayed (None when it does not replay)."""
        first = hand[0]
        stream = _hand_hex(match_id, number)

        def where(row: _Row) -> dict[str, Any]:
            version = row.version
            return {
                "match": match_id,
                "hand": number,
                "stream": stream,
                "version": version,
                "line": line + version,
            }

        if not isinstance(first.event, HandStarted) or first.version != 1:
            if first.event is not None:
                self._find("row_misplaced", "a hand starts with hand_started", **where(first))
            return state, None
        try:
            given = first.event.dealer if number == 1 else None
            state = open_hand(state, HandStarted(dealer=given), line + 1)
        except RuleError as exc:
            self._find("replay_refused", exc.problem, **where(first))
            return state, None
        assert state.hand is not None
        self._check_context(first, state, where(first))
        opened = state
        fold = MatchFold(state)  # the hand folded in place: evolve without a copy per event
        for i, row in enumerate(hand[1:], 1):
            if row.event is None:
                return fold.state, None  # already a finding; the hand cannot be replayed
            try:
                fold.feed(row.event, line + row.version)
            except RuleError as exc:
                self._find("replay_refused", exc.problem, **where(row))
                # The match as it stood before the refused event (a refused fold is not to
                # be read): the events before it again, through the pure fold.
                for before in hand[1:i]:
                    opened = evolve(opened, before.event, line + before.version)
                return opened, None
        state = fold.state
        replayed = state.hand
        assert replayed is not None
        net = replayed.net()
        if sum(net.values()) != 0:
            self._find(
                "not_zero_sum",
                f"hand {number} settles to {sum(net.values())}",
                found=net,
                **where(hand[-1]),
            )
        return state, replayed

    def _check_context(self, first: _Row, state: MatchState, where: dict[str, Any]) -> None:
        assert state.hand is not None
        expected = self._context(state, state.hand)
        found = {k: v for k, v in first.data.items() if k not in META_KEYS}
        for code, fields in (
            ("rotation_differs", _ROTATION_FIELDS),
            ("context_differs", ("number", *_TABLE_FIELDS)),
        ):
            wrong = [f for f in fields if expected.get(f) != found.get(f)]
            if wrong:
                self._find(
                    code,
                    f"hand_started: {', '.join(wrong)} not as the match gives",
                    expected={f: expected.get(f) for f in wrong},
                    found={f: found.get(f) for f in wrong},
                    **where,
                )

    def _context(self, state: MatchState, hand: HandState) -> dict[str, Any]:
        """The compared fields of ``stored_form(stand_alone_start(state, hand))``: the table's
        (match, ruleset, players, rules: unstructured once per match, the rules through
        ``rules_to_json``) and the hand's own (plain strings and integers, None where the
        stored form leaves a field out)."""
        table = (state.match_id, state.ruleset, state.players, state.rules)
        kept = self._table_context
        if kept is None or any(a is not b for a, b in zip(kept[0], table, strict=True)):
            full = stored_form(stand_alone_start(state, hand))
            kept = self._table_context = (table, {f: full.get(f) for f in _TABLE_FIELDS})
        round_winds = find_ruleset(state.ruleset).round_winds
        return {
            **kept[1],
            "dealer": hand.dealer,
            "dealer_streak": hand.dealer_streak,
            "round_wind": hand.round_wind if round_winds else None,
            "number": hand.number,
        }

    def _check_closing(
        self,
        closing: _Row,
        replayed: HandState | None,
        state: MatchState,
        hand: list[_Row],
        match_id: str | None,
        number: int,
        stream: str,
        end: int,
    ) -> None:
        where = {
            "match": match_id,
            "hand": number,
            "stream": stream,
            "version": closing.version,
            "line": end,
        }
        found = {k: v for k, v in closing.data.items() if k not in META_KEYS}
        last = hand[-1]
        fingerprint = {
            "type": HandClosed.TYPE,
            "number": number,
            "events": len(hand),
            "hand_digest": last.digest,
        }
        wrong = [f for f in _HAND_FIELDS if fingerprint[f] != found.get(f)]
        if wrong:
            self._find(
                "closing_differs",
                f"hand_closed does not fit hand {number}'s stream ({', '.join(wrong)})",
                expected={f: fingerprint[f] for f in wrong},
                found={f: found.get(f) for f in wrong},
                **where,
            )
        if replayed is None:
            return
        if not replayed.ended:
            self._find(
                "replay_differs",
                f"hand_closed for hand {number}, which replays as unfinished",
                expected={"outcome": "unfinished"},
                found={"outcome": found.get("outcome")},
                **where,
            )
            return
        expected = stored_form(closing_of(replayed, state, 0, ""))
        wrong = [
            f
            for f in {*expected, *found}
            if f not in _HAND_FIELDS and expected.get(f) != found.get(f)
        ]
        if wrong:
            wrong.sort()
            self._find(
                "replay_differs",
                f"hand_closed's {', '.join(wrong)} not as the replay gives",
                expected={f: expected.get(f) for f in wrong},
                found={f: found.get(f) for f in wrong},
                **where,
            )

    def _check_signature(
        self, closing: _Row, match_id: str | None, number: int, stream: str, line: int | None
    ) -> None:
        signature = closing.data.get("signature")
        if signature is not None and closing.data.get("type") == HandClosed.TYPE:
            self.summary.signed_hands += 1
        if self.verifier is None:
            return
        where = {
            "match": match_id,
            "hand": number,
            "stream": stream,
            "version": closing.version,
            "line": line,
        }
        kind = closing.data.get("type", "row")
        if signature is None:
            self._find("unsigned_hand", f"hand {number}'s {kind} is not signed", **where)
        elif not isinstance(signature, str) or not self.verifier.verify(
            signature, hand_message(closing.digest)
        ):
            self._find(
                "signature_invalid",
                f"hand {number}'s {kind} signature does not verify",
                **where,
            )

    # --- tables, strays, head -----------------------------------------------------------------

    def _table(self, stream: str) -> None:
        self.summary.tables += 1
        for row in self._rows(self._stream(stream), GENESIS, stream, lambda v: {}):
            if row.event is None:
                continue
            event = row.event
            if (row.version == 1) != isinstance(event, TableOpened):
                self._find(
                    "row_misplaced",
                    "a table stream starts with table_opened, and has one only",
                    stream=stream,
                    version=row.version,
                )
            if isinstance(event, MatchOpened) and not self.rows.has_stream(
                match_stream(event.match).hex
            ):
                self._find(
                    "match_missing",
                    f"the table opened match {event.match!r}, which the store does not hold",
                    match=event.match,
                    stream=stream,
                    version=row.version,
                )

    def _strays(self) -> None:
        for stream, count, version, topic in self.rows.strays():
            self._find(
                "stray_rows",
                f"{count} row(s) of a stream no match or table leads to (first: {topic})",
                stream=stream,
                version=version,
            )

    def _head(self) -> Iterator[Finding]:
        rows = 0
        digest = HEAD_GENESIS
        every = self.rows.all_rows()
        while True:  # a block at a time, for the progress bar (not a generator per row)
            count, _last, digest = fold_head(islice(every, 4096), digest)
            rows += count
            self._advance(count)
            if count < 4096:
                break
        self.summary.rows = rows
        self.summary.head = digest
        stored = self.rows.stored_head()
        if stored is None:
            if rows:
                self._find("head_missing", "the store has rows but no head row (ledger_head)")
            return self._flush()
        if (stored[0], stored[2]) != (rows, digest):
            gap = stored[0] - rows
            why = (
                f"{gap} row(s) fewer than the head covers: rows removed (a truncated tail?)"
                if gap > 0
                else f"{-gap} row(s) more than the head covers: rows added behind the ledger"
                if gap < 0
                else "rows changed since the head was written"
            )
            self._find(
                "head_mismatch",
                f"the store head does not cover the rows stored: {why}",
                expected={"rows": stored[0], "digest": stored[2]},
                found={"rows": rows, "digest": digest},
            )
        signature = stored[3]
        self.summary.head_signed = signature is not None
        if self.verifier is not None:
            if signature is None:
                self._find("unsigned_head", "the store head is not signed")
            elif not self.verifier.verify(signature, head_message(stored[0], stored[2])):
                self._find("signature_invalid", "the store head's signature does not verify")
        return self._flush()

    # --- read models --------------------------------------------------------------------------

    def _check_views_position(self) -> Iterator[Finding]:
        if self.views is None:
            return self._flush()
        latest = self.rows.last_notification()
        position = self.views.view_position()
        if position > latest:
            self._find(
                "view_differs",
                "the read models have applied rows beyond the store's last one: rows were "
                "removed from the store",
                expected=latest,
                found=position,
            )
        elif position < latest:
            self._find(
                "view_behind",
                "the read models have not applied every stored row (mjledger project catches "
                "them up); they are compared as they are",
                expected=latest,
                found=position,
            )
        return self._flush()

    def _view_match(
        self, match_id: str | None, seq: int, stream: str, started: MatchStarted
    ) -> None:
        if self.views is None:
            return
        row = self.views.view_match(match_id)
        expected = [
            seq,
            stream,
            started.ruleset,
            list(started.players),
            rules_to_json(started.rules or default_rules(started.ruleset)),
        ]
        found = None if row is None else [*row[:3], _loads(row[3]), _loads(row[4])]
        if found != expected:
            self._find(
                "view_differs",
                "the match's read-model row (view_matches) is not the store's",
                match=match_id,
                expected=expected,
                found=found,
            )

    def _view_rows(self, match_id: str | None, fixes: _Corrections) -> _MatchView:
        return _MatchView(self, match_id, fixes)

    def _check_view_hand(
        self, view: _MatchView, match_id: str | None, number: int, hand: HandState, end: int
    ) -> None:
        settled = close_hand(hand)
        expected = {
            "ruleset": settled.ruleset,
            "dealer": settled.dealer,
            "dealer_streak": settled.dealer_streak,
            "round_wind": settled.round_wind,
            "outcome": settled.outcome,
            "winners": list(settled.winners),
            "next_dealer": settled.next_dealer,
            "net": settled.net(),
        }
        view.compare(number, expected, end)

    def _view_counts(self) -> None:
        if self.views is None:
            return
        hands = self.summary.hands
        expected = {
            "view_matches": self.summary.matches,
            "view_hands": hands,
            # a corrected hand's stream starts with a hand_started too
            "view_hand_ids": hands + self._corrected_streams,
            "view_hand_net": 4 * hands,
        }
        for table, count in expected.items():
            found = self.views.view_count(table)
            if found != count:
                self._find(
                    "view_differs",
                    f"{table} holds {found} rows where the store gives {count}",
                    expected=count,
                    found=found,
                )


class _Corrections:
    """A match's corrections stream (``corrections/{match}``) and each corrected hand's stream.

    The rows are read once before the match's hands, to know what the read models must show
    for a corrected or voided hand, and audited after them: the first row chains from one of
    the match stream's digests (the latest when the first correction was made), each later row
    from the one before; a corrected hand's stream starts from the digest its ``hand_corrected``
    row chains from, which records its length and last digest; the corrected hand replays to
    the row's outcome, winners and net; ``original_net`` is the net in force before it.
    """

    def __init__(self, auditor: Auditor, match_id: str) -> None:
        self.auditor = auditor
        self.match = match_id
        self.stream = corrections_stream(match_id).hex
        self.rows: list[dict[str, Any]] = []
        for state in auditor.rows.states(self.stream):
            try:
                self.rows.append(json.loads(state))
            except ValueError:
                self.rows.append({})
        self.anchored: str | None = None
        self._first = self.rows[0] if self.rows else None

    def anchor(self, digest: str) -> None:
        """Offer one of the match stream's digests as where the corrections chain starts."""
        first = self._first
        if (
            first is not None
            and self.anchored is None
            and link(digest, first) == first.get("digest")
        ):
            self.anchored = digest

    def in_force(self, number: int, expected: dict[str, Any]) -> dict[str, Any]:
        """What the read models show for hand ``number``: the latest correction applied."""
        for row in reversed(self.rows):
            if row.get("number") != number:
                continue
            if row.get("type") == HandVoided.TYPE:
                return {**expected, "net": dict.fromkeys(expected["net"], 0)}
            if row.get("type") == HandCorrected.TYPE:
                return {
                    **expected,
                    "outcome": row.get("outcome"),
                    "winners": row.get("winners"),
                    "net": row.get("net"),
                }
        return expected

    def audit(self, latest: str) -> None:
        if not self.rows:
            return
        auditor = self.auditor
        previous = self.anchored if self.anchored is not None else latest
        in_force: dict[int, dict[str, int]] = {}
        stream = self.stream
        raw = auditor._stream(stream)
        for row in auditor._rows(raw, previous, stream, lambda v: {"match": self.match}):
            where = {"match": self.match, "stream": stream, "version": row.version}
            event = row.event
            if isinstance(event, (HandCorrected, HandVoided)):
                where["hand"] = event.number
                auditor._check_signature(row, self.match, event.number, stream, None)
                before = in_force.get(event.number)
                if before is None:
                    before = self._recorded_net(event.number)
                if before is not None and event.original_net != before:
                    auditor._find(
                        "replay_differs",
                        f"{event.TYPE}: original_net is not the net in force before it",
                        expected=before,
                        found=event.original_net,
                        **where,
                    )
                if isinstance(event, HandVoided):
                    in_force[event.number] = dict.fromkeys(event.original_net, 0)
                else:
                    in_force[event.number] = event.net
                    self._corrected_hand(event, row.version, previous, where)
            elif event is not None:
                auditor._find(
                    "row_misplaced", "a corrections stream holds corrections only", **where
                )
            previous = row.digest

    def _recorded_net(self, number: int) -> dict[str, int] | None:
        """The net hand ``number`` was closed with (its hand_closed row)."""
        found = self.auditor.rows.state_at(match_stream(self.match).hex, number + 1)
        try:
            net = json.loads(found)["net"] if found is not None else None
        except (ValueError, KeyError):
            return None
        return net if isinstance(net, dict) else None

    def _corrected_hand(
        self, event: HandCorrected, version: int, previous: str, where: dict[str, Any]
    ) -> None:
        auditor = self.auditor
        if event.correction != version:
            auditor._find(
                "closing_differs",
                "hand_corrected: correction is not its place in the corrections stream",
                expected=version,
                found=event.correction,
                **where,
            )
        stream = correction_stream(self.match, event.number, event.correction).hex
        rows = list(
            auditor._rows(
                auditor._stream(stream),
                previous,
                stream,
                lambda v: {"match": self.match, "hand": event.number},
            )
        )
        if not rows:
            auditor._find("hand_missing", "the corrected hand's stream is empty", **where)
            return
        auditor._corrected_streams += 1
        found = {"events": event.events, "hand_digest": event.hand_digest}
        fingerprint = {"events": len(rows), "hand_digest": rows[-1].digest}
        if found != fingerprint:
            auditor._find(
                "closing_differs",
                "hand_corrected does not fit its corrected hand's stream",
                expected=fingerprint,
                found=found,
                **where,
            )
        first = rows[0].event
        if not isinstance(first, HandStarted):
            auditor._find("row_misplaced", "a corrected hand starts with hand_started", **where)
            return
        try:
            state = start(first, 1)
            for row in rows[1:]:
                if row.event is None:
                    return
                state = evolve(state, row.event, row.version)
        except RuleError as exc:
            auditor._find("replay_refused", f"corrected hand: {exc}", **where)
            return
        assert state.hand is not None
        hand = close_hand(state.hand)
        replayed = {"outcome": hand.outcome, "winners": list(hand.winners), "net": hand.net()}
        stored = {"outcome": event.outcome, "winners": list(event.winners), "net": event.net}
        if replayed != stored:
            auditor._find(
                "replay_differs",
                "hand_corrected is not what its corrected hand replays to",
                expected=replayed,
                found=stored,
                **where,
            )


class _MatchView:
    """The read-model rows of one match, read in hand order alongside the hands."""

    def __init__(self, auditor: Auditor, match_id: str | None, fixes: _Corrections) -> None:
        self.auditor = auditor
        self.match = match_id
        self.fixes = fixes
        views = auditor.views
        if views is None:
            self.hands: Iterator[Any] = iter(())
            self.nets: Iterator[Any] = iter(())
        else:
            self.hands = views.view_hands(match_id)
            self.nets = views.view_nets(match_id)
        self._reported: tuple[int, str] | None = None
        self._hand: Any = next(self.hands, None)
        self._net: Any = next(self.nets, None)

    def _take(self, number: int) -> tuple[Any, list[Any]]:
        """The view rows of hand ``number`` (rows of earlier hands left over: extra)."""
        while self._hand is not None and self._hand[0] < number:
            self._extra(self._hand[0], "view_hands")
            self._hand = next(self.hands, None)
        hand = None
        if self._hand is not None and self._hand[0] == number:
            hand, self._hand = self._hand, next(self.hands, None)
        nets = []
        while self._net is not None and self._net[0] <= number:
            if self._net[0] < number:
                self._extra(self._net[0], "view_hand_net")
            else:
                nets.append(self._net)
            self._net = next(self.nets, None)
        return hand, nets

    def _extra(self, number: int, table: str) -> None:
        if self._reported == (number, table):
            return
        self._reported = (number, table)
        self.auditor._find(
            "view_differs",
            f"{table} has a row for hand {number}, which the store does not settle",
            match=self.match,
            hand=number,
            expected=None,
            found=number,
        )

    def skip(self, number: int) -> None:
        if self.auditor.views is not None:
            self._take(number)

    def compare(self, number: int, expected: dict[str, Any], line: int) -> None:
        if self.auditor.views is None:
            return
        expected = self.fixes.in_force(number, expected)
        hand, nets = self._take(number)
        found: dict[str, Any] | None = None
        if hand is not None:
            found = {
                "ruleset": hand[1],
                "dealer": hand[2],
                "dealer_streak": hand[3],
                "round_wind": hand[4],
                "outcome": hand[5],
                "winners": _loads(hand[6]),
                "next_dealer": hand[7],
                "net": {player: amount for _, player, _, amount in nets},
            }
            if any(ruleset != expected["ruleset"] for _, _, ruleset, _ in nets):
                found["net_ruleset"] = sorted({r for _, _, r, _ in nets})
        if found != expected:
            wrong = (
                sorted(k for k in {*expected, *found} if expected.get(k) != found.get(k))
                if found is not None
                else None
            )
            self.auditor._find(
                "view_differs",
                f"the history row of hand {number} is not the replay's"
                + (f" ({', '.join(wrong)})" if wrong else " (missing)"),
                match=self.match,
                hand=number,
                line=line,
                expected={k: expected.get(k) for k in wrong} if wrong else expected,
                found={k: found.get(k) for k in wrong} if wrong and found else found,
            )

    def finish(self, number: int) -> None:
        if self.auditor.views is None:
            return
        while self._hand is not None:
            self._extra(self._hand[0], "view_hands")
            self._hand = next(self.hands, None)
        while self._net is not None:
            self._extra(self._net[0], "view_hand_net")
            self._net = next(self.nets, None)


def _loads(text: Any) -> Any:
    try:
        return json.loads(text)
    except (TypeError, ValueError):
        return text


def _why(exc: BaseException) -> str:
    if isinstance(exc, KeyError):
        return f"no {exc.args[0]!r}"
    while isinstance(exc, BaseExceptionGroup) and exc.exceptions:  # cattrs' detailed errors
        exc = exc.exceptions[0]
    return str(exc) or type(exc).__name__


def _event_of(kind: str, data: dict[str, Any]) -> Any:
    """The event of a stored row (upcast to its class's version), as the ledger reads it."""
    cls = event_class(kind)
    fields = {k: v for k, v in data.items() if k not in META_KEYS and k != "type"}
    version = fields.pop("class_version", 1)
    upcast(cls, fields, version)
    with ids_as_stored():  # ids recorded before they were bounded are kept
        return STORE_CONVERTER.structure(fields, cls)


@lru_cache(maxsize=16)
def _hand_hex(match_id: str | None, number: int) -> str:
    """A hand's stream id (each is asked for more than once: reading, replaying, findings)."""
    return hand_stream(match_id or "", number).hex


def _after(state: MatchState, closed: HandClosed) -> MatchState:
    """The rotation a hand_closed states, to go on with a hand that could not be replayed."""
    return attrs.evolve(
        state,
        first_dealer=state.first_dealer if closed.number > 1 else closed.dealer,
        next_dealer=closed.next_dealer,
        next_streak=closed.next_streak,
        wind_index=WINDS.index(closed.next_round_wind),
        hands_started=closed.number,
        over=closed.match_over,
        hand=None,
    )
