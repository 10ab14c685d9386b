"""Verify on read: check the digest chain of every stream a ``Ledger(verify=True)`` reads.

The ledger otherwise trusts its rows: an edited row is read and settled as edited. With
verification on, each stream read is checked against the raw rows first (every link, every
topic, no gap) — a hand's first row from its match's digest at the hand's start — and a broken
stream raises :class:`ChainError` instead of being settled. Streams verified once are only
checked again from where they were verified up to.
"""

from __future__ import annotations

import json
import threading
from typing import Any
from uuid import UUID

from eventsourcing.persistence import AggregateRecorder

from mjledger.errors import StoreError
from mjledger.store.correction_log import correction_stream, corrections_stream
from mjledger.store.integrity import link, topic_of
from mjledger.store.records import GENESIS
from mjledger.store.streams import hand_stream, match_stream


class ChainError(StoreError):
    """A stream read with verification on fails its digest chain: it is not settled."""


class ChainVerifier:
    """Checks streams against their raw rows and remembers how far each was checked."""

    def __init__(self, recorder: AggregateRecorder) -> None:
        self._recorder = recorder
        self._verified: dict[UUID, tuple[int, str]] = {}
        self._lock = threading.Lock()

    def check_rows(self, stream: UUID, version: int | None = None) -> None:
        """Raise :class:`ChainError` unless ``stream`` is intact up to ``version`` (or its last
        row): run before its events are folded, so a damaged row is never folded at all."""
        self._walk(stream, version)

    def check(self, stream: UUID, version: int, digest: str) -> None:
        """Raise :class:`ChainError` unless ``stream`` is intact up to ``version`` and its
        digest there is ``digest`` (the one of the record about to be settled)."""
        found = self._walk(stream, version)
        if found != digest:
            raise ChainError(
                f"stream {stream.hex} changed while it was read (digest {found} at version "
                f"{version}, read {digest}): read it again"
            )

    def _start_of(self, stream: UUID, kind: str, data: dict[str, Any]) -> str:
        """The digest a stream's first row chains from (docs/store.md, "The digest chain" and
        "Corrections")."""
        if kind == "hand_started" and data.get("match") is not None:
            match, number = data["match"], data["number"]
            if stream == hand_stream(match, number):  # a hand: its match at the hand's start
                return self._walk(match_stream(match), number)
            # a corrected hand: where its hand_corrected row chains from
            corrections = corrections_stream(match)
            count = len(self._recorder.select_events(corrections))
            for k in range(1, count + 1):
                if correction_stream(match, number, k) == stream:
                    return self._walk(corrections, k - 1) if k > 1 else self._anchor(match)
        if kind in ("hand_corrected", "hand_voided"):  # a corrections stream's first row
            return self._anchor(data["match"])
        return GENESIS

    def _anchor(self, match: str) -> str:
        """The match stream digest a match's corrections stream starts from (the match's latest
        when the first correction was made): the one its first row links to."""
        first = self._recorder.select_events(corrections_stream(match), limit=1)
        if not first:
            return GENESIS
        data = json.loads(first[0].state)
        stream = match_stream(match)
        rows = self._recorder.select_events(stream)
        self._walk(stream, len(rows))  # the match stream itself is intact
        for row in rows:
            digest = json.loads(row.state)["digest"]
            if link(digest, data) == data.get("digest"):
                return str(digest)
        return GENESIS

    def _walk(self, stream: UUID, upto: int | None) -> str:
        """Check ``stream`` up to version ``upto`` (None: its last row); its digest there."""
        with self._lock:
            done = self._verified.get(stream)
        if done is not None and done[0] == upto:
            return done[1]
        start, previous = (
            done if done is not None and (upto is None or done[0] < upto) else (0, GENESIS)
        )
        rows = self._recorder.select_events(stream, gt=start, lte=upto)
        if upto is None:
            upto = rows[-1].originator_version if rows else start
        expected = start + 1
        for row in rows:
            where = f"stream {stream.hex} version {row.originator_version}"
            if row.originator_version != expected:
                raise ChainError(f"{where}: version {expected} is missing; run mjledger audit")
            try:
                data: dict[str, Any] = json.loads(row.state)
                stored = data["digest"]
                kind = data["type"]
                if expected == 1:
                    previous = self._start_of(stream, kind, data)
                wanted = topic_of(kind)
            except (ValueError, KeyError, TypeError) as exc:
                raise ChainError(f"{where} cannot be read ({exc}); run mjledger audit") from None
            if row.topic != wanted:
                raise ChainError(f"{where}: topic {row.topic!r} is not {wanted!r}")
            if link(previous, data) != stored:
                raise ChainError(
                    f"{where} ({kind}): the digest chain is broken; refusing to settle from "
                    "it (run mjledger audit)"
                )
            previous = stored
            expected += 1
        if expected != upto + 1:
            raise ChainError(f"stream {stream.hex} has no version {expected}; run mjledger audit")
        if expected == 1 and upto == 0:
            return GENESIS
        if done is None or done[0] < upto:
            with self._lock:
                self._verified[stream] = (upto, previous)
        return previous
