"""The chains pass: each stream's rows in version order, every link checked, each row read.

Rows as the ledger seals them are read in one step, their links hashed over their own bytes
(:mod:`mjledger.store.canonical_rows`); any other row is read strictly, the general way, so a
damaged row gives the same findings either way. Each link is checked against the *stored*
digest of the row before, so one edited row gives one finding, not one per row after it.
A table stream is only a chain with its rows in place, so its pass is here too.
"""

from __future__ import annotations

import binascii
import hashlib
import re
from collections.abc import Callable, Iterable, Iterator
from typing import Any, Final

import msgspec

from mjledger._checks import ids_as_stored
from mjledger.errors import MjledgerError
from mjledger.log.codec import decode_json, upcast
from mjledger.store.audit.run import Run
from mjledger.store.canonical_rows import SEEN, closed_before, sealed_tail
from mjledger.store.events import MatchOpened, TableOpened
from mjledger.store.head import head_of_row
from mjledger.store.integrity import META_KEYS, event_class, head_step, link, topic_of
from mjledger.store.records import GENESIS, STORE_CONVERTER
from mjledger.store.streams import match_stream

# Where a row of a stream is, for its findings: (version) -> match, hand, export line.
Place = Callable[[int], dict[str, Any]]

_sha256: Final = hashlib.sha256
_hexlify: Final = binascii.hexlify  # a digest's hex digits as bytes, as hexdigest spells them


class Row(msgspec.Struct, gc=False):
    """A checked row: its position, its digest, its event if it reads, and its data
    (metadata and all). A row :mod:`mjledger.store.canonical_rows` read is decoded into its
    event only, and into its keys when a check first asks (by msgspec: the row is canonical
    JSON, which it decodes exactly as the strict decoder does); its digest is kept as the
    bytes its row stores, and given as a string when a check asks. (A struct, built in C:
    one a row. Not tracked by the collector: a row refers to no row, so it is in no cycle.)"""

    rowid: int
    version: int
    decoded: dict[str, Any] | None
    stored_digest: str | bytes
    event: Any
    state: Any = None
    tail: re.Match[bytes] | None = None  # a row read in one step: its metadata tail

    @property
    def data(self) -> dict[str, Any]:
        if self.decoded is None:
            self.decoded = msgspec.json.decode(self.state)  # a row read in one step
        return self.decoded

    @property
    def text(self) -> bytes | None:
        """A row read in one step: its canonical text, the bytes its link was hashed over
        (decoded, its object less the metadata keys); None for any other row."""
        tail = self.tail
        return None if tail is None else closed_before(self.state, tail.start())

    @property
    def signature(self) -> str | None:
        """A row read in one step: the signature in its metadata tail (what its object's
        ``"signature"`` key holds), or None where it has none."""
        signature = None if self.tail is None else self.tail.group(2)
        return None if signature is None else signature.decode("ascii")

    @property
    def digest(self) -> str:
        digest = self.stored_digest
        return digest.decode("ascii") if isinstance(digest, bytes) else digest


def read_chain(
    run: Run,
    raw: Iterable[tuple[int, int, str, Any]],
    previous: str,
    stream: str,
    place: Place,
) -> Iterator[Row]:
    """Check each raw row of one stream (version, topic, link) and read its event, a row at a
    time as they are asked for (a match stream's, read hand by hand).

    Yields a :class:`Row` per row (``event`` None when it does not read).
    """
    expected = 1
    link = previous.encode("utf-8")
    for one in raw:
        rows, link, expected = _read(run, (one,), link, stream, place, expected)
        yield rows[0]


def read_stream(
    run: Run,
    raw: Iterable[tuple[int, int, str, Any]],
    previous: str,
    stream: str,
    place: Place,
) -> list[Row]:
    """:func:`read_chain` of every row of a stream at once (a hand's: its replay needs them
    all), read in one loop."""
    return _read(run, raw, previous.encode("utf-8"), stream, place, 1)[0]


def _read(
    run: Run,
    raw: Iterable[tuple[int, int, str, Any]],
    previous: bytes,
    stream: str,
    place: Place,
    expected: int,
) -> tuple[list[Row], bytes, int]:
    """The rows of ``raw`` (a stream's from version ``expected`` on, chained onto
    ``previous``, a digest in UTF-8), each checked and read; the digest after the last and
    the version expected next. Each row is folded into the store head as it is read
    (:class:`~mjledger.store.audit.run.HeadSoFar`, its state held here for the loop). A
    sealed row is read in one step, written out here (a call and a tuple a row cost a sixth
    of the loop): its text cut at its tail, its event kept for that text or read from it
    (:mod:`~mjledger.store.canonical_rows`), its link the SHA-256 of the previous digest and
    the text, kept as bytes along the chain; any other row strictly (:func:`_read_strictly`)."""
    rows: list[Row] = []
    append = rows.append
    readers, read_event = run.canonical.readers, run.canonical.event
    head = run.head
    folding, digest, last, folded = head.open, head.digest, head.last, head.rows
    try:
        for rowid, version, topic, state in raw:
            if folding:  # HeadSoFar's fold: in commit order, while the head's formula takes it
                if rowid > last:
                    try:
                        step = head_step if type(state) is bytes else head_of_row
                        digest = step(digest, stream, version, topic, state)
                    except Exception:  # the head pass's to meet, as it meets every row
                        folding = False
                    else:
                        last = rowid
                        folded += 1
                else:
                    folding = False
            if version != expected:
                _missing(run, stream, place, expected, version)
            expected = version + 1
            reader = readers.get(topic)
            if reader is not None and type(state) is bytes and (tail := sealed_tail(state)):
                body = closed_before(state, tail.start())
                event = reader[SEEN].get(body)
                if event is None:
                    event = read_event(topic, body, reader)
                if event is not None:
                    stored = tail.group(1)
                    computed = _hexlify(_sha256(previous + body).digest())
                    if computed != stored:
                        _broken(run, stream, place, version, event, computed, stored)
                    previous = stored
                    append(Row(rowid, version, None, stored, event, state, tail))
                    continue
            where = {"stream": stream, "version": version, **place(version)}
            row = _read_strictly(run, rowid, version, topic, state, previous.decode("utf-8"), where)
            previous = row.digest.encode("utf-8")
            append(row)
    finally:
        head.open, head.digest, head.last, head.rows = folding, digest, last, folded
    run.advance(len(rows))
    return rows, previous, expected


def _missing(run: Run, stream: str, place: Place, expected: int, version: int) -> None:
    """The versions before ``version`` from ``expected`` on are not in the stream."""
    run.find(
        "row_missing",
        f"versions {expected} to {version - 1} are missing"
        if version > expected + 1
        else f"version {expected} is missing",
        **{"stream": stream, **place(version), "version": expected},
    )


def _broken(
    run: Run, stream: str, place: Place, version: int, event: Any, computed: bytes, stored: bytes
) -> None:
    """A sealed row whose stored digest is not the link its canonical text gives."""
    run.find(
        "chain_broken",
        f"the {event.TYPE} row's digest is not its link in the chain",
        expected=computed.decode("ascii"),
        found=stored.decode("ascii"),
        **{"stream": stream, "version": version, **place(version)},
    )


def _read_strictly(
    run: Run,
    rowid: int,
    version: int,
    topic: str,
    state: Any,
    previous: str,
    where: dict[str, Any],
) -> Row:
    """A row the one-step reader declines, read the general way (its digest: the stored one,
    or the computed link where the stored one is not a string)."""
    try:
        text = state.decode("utf-8") if isinstance(state, bytes) else str(state)
        data = decode_json(text)
        kind = data["type"]
        digest = data["digest"]
        wanted = topic_of(kind)
    except (MjledgerError, UnicodeDecodeError, KeyError, TypeError) as exc:
        run.find("row_unreadable", f"the row cannot be read: {why(exc)}", **where)
        return Row(rowid, version, {}, previous, None)
    if topic != wanted:
        run.find(
            "topic_mismatch",
            f"a {kind} row stored under another topic",
            expected=wanted,
            found=topic,
            **where,
        )
    computed = link(previous, data)
    if computed != digest:
        run.find(
            "chain_broken",
            f"the {kind} row's digest is not its link in the chain",
            expected=computed,
            found=digest,
            **where,
        )
    try:
        event = event_of(kind, data)
    except Exception as exc:  # a damaged row can fail anywhere in structuring
        run.find("row_unreadable", f"the {kind} row is not an event: {why(exc)}", **where)
        event = None
    return Row(rowid, version, data, digest if isinstance(digest, str) else computed, event)


def audit_table(run: Run, stream: str) -> None:
    """A table stream: its chain, table_opened first and once, every match it opened held."""
    run.summary.tables += 1
    for row in read_chain(run, run.rows.stream(stream), GENESIS, stream, lambda v: {}):
        if row.event is None:
            continue
        event = row.event
        if (row.version == 1) != isinstance(event, TableOpened):
            run.find(
                "row_misplaced",
                "a table stream starts with table_opened, and has one only",
                stream=stream,
                version=row.version,
            )
        if isinstance(event, MatchOpened) and not run.rows.has_stream(
            match_stream(event.match).hex
        ):
            run.find(
                "match_missing",
                f"the table opened match {event.match!r}, which the store does not hold",
                match=event.match,
                stream=stream,
                version=row.version,
            )


def why(exc: BaseException) -> str:
    if isinstance(exc, KeyError):
        return f"no {exc.args[0]!r}"
    while isinstance(exc, BaseExceptionGroup) and exc.exceptions:  # cattrs' detailed errors
        exc = exc.exceptions[0]
    return str(exc) or type(exc).__name__


def event_of(kind: str, data: dict[str, Any]) -> Any:
    """The event of a stored row (upcast to its class's version), as the ledger reads it."""
    cls = event_class(kind)
    fields = {k: v for k, v in data.items() if k not in META_KEYS and k != "type"}
    version = fields.pop("class_version", 1)
    upcast(cls, fields, version)
    with ids_as_stored():  # ids recorded before they were bounded are kept
        return STORE_CONVERTER.structure(fields, cls)
