"""What the application's helpers need of a ledger, as protocols: the corrections
(:mod:`mjledger.store.corrections`) read streams and write rows through :class:`StoredLedger`,
the recording of a whole log (:mod:`mjledger.store.recording`) through :class:`LogTarget`, so
that they never import the application (:class:`mjledger.store.application.Ledger`) that
calls them.
"""

from __future__ import annotations

import uuid
from collections.abc import Callable, Iterable, Iterator, Sequence
from contextlib import AbstractContextManager
from typing import Any, Protocol

from mjledger.fold.hand import HandState
from mjledger.log.events import Event
from mjledger.store.projectors import HandRecord, MatchRecord
from mjledger.store.records import Recorded, TableRow


class RowsChecker(Protocol):
    """Verify on read (:class:`mjledger.store.verify.ChainVerifier`), as the corrections ask."""

    def check_rows(self, stream: uuid.UUID, version: int | None = None) -> None: ...


class StoredEvents(Protocol):
    """The application's event store, as the corrections read a stream from it."""

    def get(self, originator_id: uuid.UUID) -> Iterable[Any]: ...


class StoredLedger(Protocol):
    """A ledger as the corrections see it: its streams folded, its matches and hands, and one
    transaction of sealed rows."""

    @property
    def verifier(self) -> RowsChecker | None: ...

    @property
    def events(self) -> StoredEvents: ...

    def _get(self, stream: uuid.UUID, *, version: int | None = None, projector_func: Any) -> Any:
        """The stream folded by ``projector_func`` (checked first with ``verify=True``)."""

    def _save(self, records: Sequence[Recorded], exists: str | None = None) -> None:
        """The records in one transaction."""

    def match(self, match_id: str) -> MatchRecord: ...

    def hand(self, match_id: str, number: int, *, version: int | None = None) -> HandRecord: ...

    def hands_in(self, match_id: str) -> int: ...

    def hand_events(self, match_id: str, number: int) -> list[Event]: ...

    def settlement(self, match_id: str, number: int) -> HandState: ...

    def export_events(self, match_id: str, *, corrected: bool = True) -> Iterator[Event]: ...


class LogTarget(Protocol):
    """A ledger as a whole log is recorded into it: what is stored of a match, and the writer
    its transactions go through."""

    @property
    def recorder(self) -> Any: ...

    @property
    def mapper(self) -> Any: ...

    def has_match(self, match_id: str) -> bool: ...

    def hands_in(self, match_id: str) -> int: ...

    def _writer(self) -> AbstractContextManager[Callable[[Sequence[TableRow]], None]]:
        """Inserts one transaction of rows at a time; a lost race a ConcurrencyError."""
