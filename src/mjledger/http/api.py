"""The ``/v1`` endpoints: one table of routes, each a small function over the library.

Every route names its role, what its path must name that exists, and its body; the table is
what the application registers and what the OpenAPI document describes (:mod:`.openapi`).
"""

from __future__ import annotations

from collections.abc import Awaitable, Callable
from typing import Any, Final

import attrs

from mjledger.cli.store import MatchSummary, match_summaries
from mjledger.errors import MjledgerError, StoreError
from mjledger.explain.i18n import LANGUAGES
from mjledger.fold.replay import replay_events
from mjledger.http import reads, writes
from mjledger.http.bodies import event_body, json_object
from mjledger.http.ids import encode_id, id_problem
from mjledger.http.problems import Problem, problem_of
from mjledger.http.request_checks import check_exists as check_exists
from mjledger.http.request_checks import one_value, page, query
from mjledger.http.request_checks import parse_query as parse_query
from mjledger.http.service import (
    CORRECTION_LIMIT,
    JSON_LIMIT,
    Call,
    close_quietly,
    in_thread,
)
from mjledger.log.codec import decode_line, event_to_json
from mjledger.log.events import MatchStarted
from mjledger.log.reader import iter_log_file
from mjledger.store.audit import Auditor, AuditReport, store_head
from mjledger.store.corrections import correction_log, export_with_corrections
from mjledger.store.importer import check_log_stream

JSON: Final = "application/json"
NDJSON: Final = "application/x-ndjson"
LOG_TYPES: Final = (NDJSON, "application/jsonl")


@attrs.frozen
class Answer:
    status: int
    body: bytes | Any
    media: str = JSON
    headers: dict[str, str] = attrs.field(factory=dict)


@attrs.frozen
class Route:
    """One endpoint: method, path, who may call it, what must exist, and the work."""

    method: str
    path: str
    role: str
    summary: str
    run: Callable[[Call], Awaitable[Answer]]
    exists: str | None = None  # "match", "hand" or "event": looked up before the body
    body: str | None = None  # "event", "correction" or "log"
    response: str = "object"  # the response schema's name (openapi.SCHEMAS)


def _path(*segments: str | int) -> str:
    return "/v1/matches/" + "/".join(
        encode_id(s) if isinstance(s, str) and i == 0 else str(s) for i, s in enumerate(segments)
    )


# --- reading -----------------------------------------------------------------------------------


def _json(status: int, data: Any, headers: dict[str, str] | None = None) -> Answer:
    return Answer(status, data, JSON, headers or {})


async def list_matches(call: Call) -> Answer:
    prefix = one_value(call, "prefix") or ""
    if prefix and id_problem(prefix) is not None:
        raise Problem("bad_parameter", f"?prefix: {id_problem(prefix)}", parameter="prefix")

    def work() -> dict[str, Any]:
        token = call.token
        found = [
            m
            for m in match_summaries(call.ledger)
            if isinstance(m, MatchSummary)
            and m.match.startswith(prefix)
            and (token is None or token.may_reach(m.match))
        ]
        listed = page(call, found, "/v1/matches", {"prefix": prefix} if prefix else {})
        listed["items"] = [
            {**m.to_json(), "totals": reads.match_output(call.ledger, m.match)["totals"]}
            for m in listed["items"]
        ]
        return listed

    return _json(200, await in_thread(work))


async def get_match(call: Call) -> Answer:
    return _json(200, await in_thread(lambda: reads.match_output(call.ledger, call.match)))


async def export_match(call: Call) -> Answer:
    flag = one_value(call, "with_corrections")
    if flag not in (None, "true", "false"):
        raise Problem(
            "bad_parameter", "?with_corrections is true or false", parameter="with_corrections"
        )

    def work() -> bytes:
        if flag == "true":
            return export_with_corrections(call.ledger, call.match).encode()
        return call.ledger.export(call.match).encode()

    return Answer(200, await in_thread(work), NDJSON)


async def history(call: Call) -> Answer:
    def work() -> dict[str, Any]:
        from mjledger.store.corrections import notes

        ledger = call.ledger
        ledger.views.catch_up()
        corrected = notes(ledger, call.match)
        entries = [
            {**e.to_json(), "corrections": corrected[e.number]}
            if e.number in corrected
            else e.to_json()
            for e in ledger.views.history(call.match)
        ]
        return page(call, entries, _path(call.match, "history"), {})

    return _json(200, await in_thread(work))


async def get_hand(call: Call) -> Answer:
    number = call.params["number"]
    return _json(200, await in_thread(lambda: reads.hand_body(call.ledger, call.match, number)))


async def get_event(call: Call) -> Answer:
    number, seq = call.params["number"], call.params["seq"]
    body = await in_thread(lambda: reads.recorded_events(call.ledger, call.match, number))
    return _json(200, body[seq - 1])


async def get_settlement(call: Call) -> Answer:
    number = call.params["number"]
    return _json(200, await in_thread(lambda: reads.settlement(call.ledger, call.match, number)))


async def get_explanation(call: Call) -> Answer:
    lang = one_value(call, "lang") or "en"
    if lang not in LANGUAGES:
        raise Problem("bad_parameter", f"?lang is one of {', '.join(LANGUAGES)}", parameter="lang")
    number = call.params["number"]
    return _json(
        200, await in_thread(lambda: reads.explanation(call.ledger, call.match, number, lang))
    )


async def list_corrections(call: Call) -> Answer:
    def work() -> dict[str, Any]:
        log = correction_log(call.ledger, call.match)
        entries = log.entries if log is not None else ()
        return {"items": [reads.correction_answer(call.ledger, call.match, e) for e in entries]}

    return _json(200, await in_thread(work))


async def scores(call: Call) -> Answer:
    def work() -> dict[str, Any]:
        views = call.ledger.views
        views.catch_up()
        token = call.token
        if token is None or token.scope is None:
            return {
                "players": {
                    ruleset: {p: {"total": t, "matches": m} for p, (t, m) in rows.items()}
                    for ruleset, rows in views.scores_by_player().items()
                }
            }
        players: dict[str, dict[str, dict[str, int]]] = {}
        for match, by_player in views.scores_by_match().items():
            if not token.may_reach(match):
                continue
            ruleset = call.ledger.match(match).started.ruleset
            for player, total in by_player.items():
                row = players.setdefault(ruleset, {}).setdefault(player, {"total": 0, "matches": 0})
                row["total"] += total
                row["matches"] += 1
        return {"players": players}

    return _json(200, await in_thread(work))


async def audit(call: Call) -> Answer:
    matches = query(call).get("match", [])
    for m in matches:
        if id_problem(m) is not None:
            raise Problem("bad_parameter", f"?match: {id_problem(m)}", parameter="match")

    def work() -> dict[str, Any]:
        for m in matches:
            if not call.ledger.has_match(m):
                raise Problem("no_match", f"no match {m!r}")
        auditor = Auditor(
            call.ledger.location, matches=matches or None, public_key=call.service.verifier
        )
        findings = tuple(auditor.run())
        return AuditReport(findings, auditor.summary).to_json()

    return _json(200, await in_thread(work))


async def audit_head(call: Call) -> Answer:
    def work() -> dict[str, Any]:
        return store_head(call.ledger.location).to_json()

    return _json(200, await in_thread(work))


# --- writing -----------------------------------------------------------------------------------


async def _event(call: Call, line: Callable[[], int] | None = None) -> Any:
    call.media(JSON)
    data = await call.body(JSON_LIMIT)
    at = await in_thread(line) if line is not None else None
    return event_body(data, at)


async def put_match(call: Call) -> Answer:
    event = await _event(call, lambda: 1)
    status, body = await in_thread(lambda: writes.put_match(call.ledger, call.match, event))
    return _json(status, body, {"location": _path(call.match)} if status == 201 else None)


async def put_hand(call: Call) -> Answer:
    number = call.params["number"]
    event = await _event(call)
    status, body = await in_thread(lambda: writes.put_hand(call.ledger, call.match, number, event))
    where = {"location": _path(call.match, "hands", number)} if status == 201 else None
    return _json(status, body, where)


async def put_event(call: Call) -> Answer:
    number, seq = call.params["number"], call.params["seq"]
    try:
        event = await _event(
            call, lambda: call.ledger.match(call.match).first_line(number) - 1 + seq
        )
    except Problem as problem:
        if problem.code in ("bad_json", "bad_format", "unknown_ruleset", "bad_house_rule"):
            hand = await in_thread(lambda: call.ledger.hand(call.match, number))
            problem.members.setdefault("position", hand.version)
        raise
    status, body = await in_thread(
        lambda: writes.put_event(call.ledger, call.match, number, seq, event)
    )
    where = (
        {"location": _path(call.match, "hands", number, "events", seq)} if status == 201 else None
    )
    return _json(status, body, where)


async def put_correction(call: Call) -> Answer:
    call.media(JSON)
    request = writes.CorrectionRequest.from_json(json_object(await call.body(CORRECTION_LIMIT)))
    assert call.token is not None
    by = call.token.name
    status, body = await in_thread(
        lambda: writes.put_correction(
            call.ledger, call.match, call.params["correction"], request, by
        )
    )
    return _json(status, body)


async def _spooled(call: Call, work: Callable[[Any], Answer]) -> Answer:
    """A log body spooled to disk (one of the process's 4 places), then ``work`` on it."""
    call.media(*LOG_TYPES)
    call.declared_size(call.service.options.max_log_bytes)
    if not call.service.take_spool():
        problem = Problem("busy", "already 4 logs are being received: retry in a second")
        problem.headers.update({"retry-after": "1", "connection": "close"})
        raise problem
    try:
        spool = await call.spool(call.service.options.max_log_bytes)
        try:
            return await in_thread(lambda: work(spool))
        finally:
            close_quietly(spool)
    finally:
        call.service.give_spool()


def _first_line_scope(call: Call, spool: Any) -> None:
    """A scoped token's log: its first line decoded first, its match in the prefix."""
    token = call.token
    if token is None or token.scope is None:
        return
    first = spool.readline(JSON_LIMIT * 16)
    spool.seek(0)
    try:
        event = decode_line(first.decode("utf-8").removeprefix("\ufeff"), 1)
    except UnicodeDecodeError:
        raise Problem("bad_json", "line 1: not valid UTF-8", line=1, event_type=None) from None
    except MjledgerError as exc:
        raise problem_of(exc) from None
    match = event.match if isinstance(event, MatchStarted) else None
    if match is None or not token.may_reach(match):
        raise Problem(
            "out_of_scope",
            "a scoped token records only matches in its prefix (a match_started naming one)",
        )


async def record_log(call: Call) -> Answer:
    def work(spool: Any) -> Answer:
        _first_line_scope(call, spool)
        try:
            checked = check_log_stream(spool)
            result = call.ledger.record_checked(checked)
        except MjledgerError as exc:
            raise _log_problem(exc) from None
        data = {
            "status": result.status,
            "match": result.match,
            "id_assigned": result.id_assigned,
            "hands": result.hands,
            "events": result.events,
        }
        return _json(200 if result.status == "unchanged" else 201, data)

    return await _spooled(call, work)


def _log_problem(exc: MjledgerError) -> Problem:
    """A refused log: a conflict with the stored match (``line`` that differs), a
    stand-alone hand (no match log), or its first bad line's own code."""
    text = str(exc)
    if isinstance(exc, StoreError) and "already recorded with" in text:
        marker = text.find(": line ")
        digits = text[marker + 7 :].split(" ", 1)[0] if marker >= 0 else ""
        return Problem("log_conflict", text, line=int(digits) if digits.isdigit() else None)
    if isinstance(exc, StoreError) and "stand-alone hand" in text:
        return Problem("wrong_event_type", text, line=1, event_type="hand_started")
    return problem_of(exc)


async def replay_log(call: Call) -> Answer:
    def work(spool: Any) -> Answer:
        # Read from the spool block by block as it is decoded, not into memory whole.
        return _json(200, replay_events(iter_log_file(spool)).to_json())

    return await _spooled(call, work)


async def healthz(call: Call) -> Answer:
    return _json(200, {"status": "ok"})


async def readyz(call: Call) -> Answer:
    def work() -> int:
        views = call.ledger.views
        views.catch_up()
        return views.position

    try:
        position = await in_thread(work)
    except Exception:
        raise Problem("not_ready", "the store or its read models are not ready") from None
    return _json(200, {"status": "ready", "read_position": position})


M = "/v1/matches/{match}"
H = M + "/hands/{number}"
ROUTES: Final = (
    Route("GET", "/healthz", "none", "Liveness: the process runs", healthz, response="health"),
    Route("GET", "/readyz", "none", "Readiness: the store answers", readyz, response="ready"),
    Route(
        "GET",
        "/v1/matches",
        "read",
        "The matches, in order of starting",
        list_matches,
        response="match_page",
    ),
    Route("PUT", M, "write", "Create the match", put_match, body="event", response="match"),
    Route("GET", M, "read", "The match's replay output", get_match, "match", response="match"),
    Route(
        "GET", M + "/export", "read", "The match as a log", export_match, "match", response="log"
    ),
    Route("GET", M + "/history", "read", "The match's history", history, "match", response="page"),
    Route("PUT", H, "write", "Start the hand", put_hand, "match", body="event", response="hand"),
    Route("GET", H, "read", "The hand", get_hand, "hand", response="hand"),
    Route(
        "PUT",
        H + "/events/{seq}",
        "write",
        "Append one event at seq",
        put_event,
        "hand",
        body="event",
        response="appended",
    ),
    Route(
        "GET",
        H + "/events/{seq}",
        "read",
        "The event stored at seq",
        get_event,
        "event",
        response="event",
    ),
    Route(
        "GET",
        H + "/settlement",
        "read",
        "The hand's settlement",
        get_settlement,
        "hand",
        response="settlement",
    ),
    Route(
        "GET",
        H + "/explanation",
        "read",
        "The hand explained step by step",
        get_explanation,
        "hand",
        response="explanation",
    ),
    Route(
        "GET",
        M + "/corrections",
        "read",
        "The corrections on record",
        list_corrections,
        "match",
        response="corrections",
    ),
    Route(
        "PUT",
        M + "/corrections/{correction}",
        "staff",
        "Correct or void a hand",
        put_correction,
        "match",
        body="correction",
        response="correction",
    ),
    Route(
        "POST",
        "/v1/logs",
        "write",
        "Record a whole match log",
        record_log,
        body="log",
        response="recorded",
    ),
    Route(
        "POST",
        "/v1/replay",
        "any",
        "Replay a log; nothing is stored",
        replay_log,
        body="log",
        response="replay",
    ),
    Route(
        "GET",
        "/v1/scores",
        "read",
        "Running scores per rule set and player",
        scores,
        response="scores",
    ),
    Route("GET", "/v1/audit", "audit", "The audit", audit, response="audit"),
    Route("GET", "/v1/audit/head", "audit", "The store head", audit_head, response="head"),
)


def event_json(event: Any) -> dict[str, Any]:
    return event_to_json(event)
