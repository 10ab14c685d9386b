"""How the command line opens the store and its read models, whatever state they are in.

Reading commands open the store read-only (it may sit in a directory that cannot be written);
every database error becomes one line naming the file (exit status 2); the read models are
derived data, so a views file that cannot be read is rebuilt from the store, and one that
cannot be written is replaced by read models computed in memory for this run.
"""

from __future__ import annotations

import difflib
import os
import sys
from collections.abc import Callable, Iterable, Iterator
from contextlib import AbstractContextManager, contextmanager
from pathlib import Path
from typing import Any, TypeVar, cast

import click
from attrs import frozen

from mjledger._text import MAX_MESSAGE, one_line
from mjledger.errors import StoreError
from mjledger.store.application import Ledger
from mjledger.store.files import (
    DB_ERRORS,
    check_store,
    database_problem,
    remove_database,
    retry_while_locked,
    views_problem,
    writable_directory,
)
from mjledger.store.location import PostgresStore, SqliteStore, redact, store_location
from mjledger.store.streams import hand_stream, match_stream
from mjledger.store.views import views_path

T = TypeVar("T")


def note(text: str) -> None:
    """A remark on standard error that does not change the outcome (or the exit status): one
    line, whatever ids it quotes."""
    click.echo(f"mjledger: {one_line(text, MAX_MESSAGE)}", err=True)


def _views_db(path: Path) -> str | None:
    """None (the file beside the store) when it can be written, else an in-memory database."""
    views = views_path(path)
    writable = os.access(views, os.W_OK) if views.exists() else writable_directory(views)
    if writable:
        return None
    note(f"cannot write the read models beside {path}; computed them in memory for this run")
    return ":memory:"


def _verify_requested() -> bool:
    """Whether the command runs under ``mjledger --verify``."""
    context = click.get_current_context(silent=True)
    obj = context.find_root().obj if context is not None else None
    return bool(obj and obj.get("verify"))


@contextmanager
def open_ledger(
    store: str | Path | None,
    *,
    writing: bool = False,
    create: bool | None = None,
    signing_key: Path | None = None,
) -> Iterator[Ledger]:
    """The ledger on ``store`` (a path or a ``postgresql://`` URL), checked first: a reading
    command needs a store that is there (and opens a SQLite file read-only); a writing one may
    create it (unless ``create=False``), but never in memory and never over a file that is not
    a store. On PostgreSQL a reader may be let create the schema (``create=True``: ``project``
    makes a store's tables, as deployment.md says). ``mjledger --verify`` opens it with
    ``verify=True``; ``signing_key`` signs what a writer records (else
    ``$MJLEDGER_SIGNING_KEY``)."""
    location = store_location(store)
    verify = _verify_requested()
    if isinstance(location, SqliteStore):
        path = location.path
        check_store(path, writing=writing, create=create if writing else None)
        views = _views_db(path)

        def opener() -> Ledger:
            return Ledger(
                location,
                read_only=not writing,
                views=views,
                signing_key=signing_key,
                verify=verify,
            )

    else:
        path = None
        if create is False or not (writing or create):  # must be there: never created
            assert isinstance(location, PostgresStore)
            from mjledger.store.postgres import require_store  # psycopg only when asked

            require_store(location)

        def opener() -> Ledger:
            return Ledger(location, signing_key=signing_key, verify=verify)

    def problem(exc: BaseException) -> StoreError:
        if path is not None:
            return database_problem(path, exc, writing=writing)
        return StoreError(
            f"cannot use the store {location}: {redact(str(exc))}", code="store_unavailable"
        )

    try:
        ledger = retry_while_locked(opener)
    except DB_ERRORS as exc:
        raise problem(exc) from None
    try:
        yield ledger
    except DB_ERRORS as exc:
        raise problem(exc) from None
    finally:
        ledger.close()


def open_existing_for_writing(store: str | Path | None) -> AbstractContextManager[Ledger]:
    """A store that must be there, opened for writing (corrections, voids)."""
    return open_ledger(store, writing=True, create=False)


def read_views(ledger: Ledger, read: Callable[[Any], T]) -> T:
    """``read(ledger.views)``; a views file that cannot be read is rebuilt from the store
    first (the user is told), since the views hold nothing the store does not."""
    try:
        result = read(ledger.views)
    except DB_ERRORS:
        if ledger.path is None or ledger.views_db is not None:
            raise  # views in the store's own database, or in memory: nothing to rebuild here
        problem = views_problem(views_path(ledger.path))
        if problem is None:
            raise  # the views read well: the trouble is in the store
        rebuild_views_file(ledger, problem)
        result = read(ledger.views)
    for match, problem in ledger.views.damage():
        note(f"left out match {match!r}: {problem}" if match else f"left out: {problem}")
    return result


def rebuild_views_file(ledger: Ledger, problem: str) -> None:
    """Delete a damaged views file and build it again from the store; where it cannot be
    deleted (a read-only or immutable directory), compute the views in memory for this run."""
    assert ledger.path is not None
    views = views_path(ledger.path)
    ledger.drop_views()
    try:
        remove_database(views)
    except OSError as exc:
        note(
            f"the read models in {views} could not be read ({problem}) nor rebuilt there "
            f"({exc.strerror or exc}); computed them in memory for this run"
        )
        ledger.views_db = ":memory:"
        return
    note(f"the read models in {views} could not be read ({problem}); rebuilding them")


def stderr_is_terminal() -> bool:
    return sys.stderr.isatty()


# --- finding matches ------------------------------------------------------------------------


def resolve_match(ledger: Ledger, given: str) -> str:
    """The match ``given`` names: its id, or a prefix of exactly one id. "No match" suggests
    the ids that come close (a typo in a long id is the usual cause)."""
    if ledger.has_match(given):
        return given
    known = ledger.matches()
    found = [m for m in known if m.startswith(given)] if given else []
    if len(found) == 1:
        return found[0]
    if len(found) > 1:
        listed = ", ".join(found[:5]) + (f" and {len(found) - 5} more" if len(found) > 5 else "")
        raise StoreError(
            f"{given!r} is the start of several matches: {listed}", code="bad_parameter"
        )
    near = difflib.get_close_matches(given, known, n=3, cutoff=0.6)
    hint = f"; did you mean {' or '.join(map(repr, near))}?" if near else ""
    raise StoreError(f"no match {given!r} in {ledger.location}{hint}", code="no_match")


@frozen
class MatchSummary:
    """One line of ``mjledger matches``."""

    match: str
    ruleset: str
    players: tuple[str, ...]
    hands: int
    state: str  # "over", "in_play" (a hand is being played) or "between_hands"
    last_recorded: str | None

    def to_json(self) -> dict[str, object]:
        return {
            "match": self.match,
            "ruleset": self.ruleset,
            "players": list(self.players),
            "hands": self.hands,
            "state": self.state,
            "last_recorded": self.last_recorded,
        }


def _last_recorded(ledger: Ledger, streams: Iterable[Any]) -> str | None:
    times = []
    for stream in streams:
        rows = ledger.recorder.select_events(stream, desc=True, limit=1)
        if rows:
            times.append(cast(Any, ledger.mapper.to_domain_event(rows[0])).recorded_at)
    return max(times) if times else None


def match_summaries(ledger: Ledger) -> Iterator[MatchSummary | StoreError]:
    """Every match in the store, in the order they were started; a match whose stored events
    cannot be read comes as the error instead, so the others are still listed."""
    for match in ledger.matches():
        try:
            record = ledger.match(match)
            hands = ledger.hands_in(match)
            if record.state.over:
                state = "over"
            elif hands > len(record.closed):
                state = "in_play"
            else:
                state = "between_hands"
            streams = [match_stream(match)] + ([hand_stream(match, hands)] if hands else [])
            yield MatchSummary(
                match,
                record.started.ruleset,
                record.started.players,
                hands,
                state,
                _last_recorded(ledger, streams),
            )
        except StoreError as exc:
            yield StoreError(f"match {match!r}: {exc}", code=exc.code)
