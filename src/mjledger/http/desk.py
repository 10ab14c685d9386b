"""The desk: server-rendered pages for support staff (and, read-only, auditors) under
``/desk`` (http-api.md, "The desk").

A login with a staff or auditor token opens a session kept in the store (any process serves
it); every form carries a CSRF token and every post must come from the public origin. Pages
are Jinja2 templates with autoescaping on, so whatever a log holds is shown as text; they
carry a strict Content-Security-Policy and no script at all.
"""

from __future__ import annotations

import hmac
from typing import Any, Final
from urllib.parse import parse_qs, urlencode

from litestar import Request, Response, get, post

from mjledger.cli.store import MatchSummary, match_summaries
from mjledger.http import reads, writes
from mjledger.http.access import Token, csrf_for, new_secret
from mjledger.http.desk_pages import (
    HERE,
    _cookie,
    _headers,
    _see,
    _service,
    _translator,
    language,
    page,
)
from mjledger.http.ids import decode_segment, encode_id, id_problem, positive
from mjledger.http.problems import Problem
from mjledger.http.service import Service, in_thread, origin_of
from mjledger.log.codec import dumps_event
from mjledger.store.audit import Auditor, AuditReport, store_head
from mjledger.store.corrections import correction_log

SESSION_COOKIE: Final = "mjledger_session"
LOGIN_COOKIE: Final = "mjledger_login"
FORM_LIMIT: Final = 1024 * 1024 + 4096
PAGES: Final = (
    ("GET", "/desk/login", "The login form"),
    ("POST", "/desk/login", "Log in with a staff or auditor token"),
    ("POST", "/desk/logout", "End the session"),
    ("GET", "/desk", "Find a match"),
    ("GET", "/desk/matches/{match}", "A match's hands with running scores"),
    ("GET", "/desk/matches/{match}/hands/{number}", "A hand explained, corrections side by side"),
    ("GET", "/desk/matches/{match}/hands/{number}/correct", "The correction and void forms"),
    ("POST", "/desk/matches/{match}/hands/{number}/correct", "Correct the hand"),
    ("POST", "/desk/matches/{match}/hands/{number}/void", "Void the hand"),
    ("GET", "/desk/audit", "The audit's summary"),
    ("GET", "/desk/static/desk.css", "The desk's stylesheet"),
    ("GET", "/desk/static/favicon.svg", "The desk's icon"),
)


async def _who(request: Request[Any, Any, Any]) -> tuple[Token, str] | None:
    secret = request.cookies.get(SESSION_COOKIE)
    if not secret:
        return None
    service = _service(request)
    token = await in_thread(lambda: service.access.session(secret))
    return None if token is None else (token, secret)


def _from_origin(request: Request[Any, Any, Any], service: Service) -> bool:
    """The post's ``Origin`` (else its ``Referer``'s origin) is the public URL's origin."""
    origin = request.headers.get("origin")
    if origin is None:
        referer = request.headers.get("referer")
        origin = origin_of(referer) if referer else None
    elif origin == "null":
        return False
    else:
        origin = origin_of(origin)
    return origin is not None and origin == service.options.origin


async def _form(request: Request[Any, Any, Any]) -> dict[str, str]:
    kind = request.headers.get("content-type", "").split(";")[0].strip().lower()
    if kind != "application/x-www-form-urlencoded":
        return {}
    data = b""
    async for chunk in request.stream():
        data += chunk
        if len(data) > FORM_LIMIT:
            raise Problem("too_large", "the form is over its limit", limit=FORM_LIMIT)
    try:
        fields = parse_qs(data.decode("ascii"), keep_blank_values=True, errors="strict")
    except (UnicodeDecodeError, ValueError):
        return {}
    return {k: v[0] for k, v in fields.items() if len(v) == 1}


def _csrf_refused(request: Request[Any, Any, Any], **context: Any) -> Response[bytes]:
    problem = {"code": "csrf_failed", "detail": _translator(language(request))("desk.refused.csrf")}
    return page(
        request,
        "login.html" if "who" not in context else "message.html",
        403,
        title="desk.title.refused",
        problem=problem,
        **context,
    )


def _path_match(raw: str) -> str:
    value = decode_segment(raw)
    problem = "not percent-encoded UTF-8" if value is None else id_problem(value)
    if problem is not None:
        raise Problem("bad_parameter", f"{{match}}: {problem}", parameter="match")
    assert value is not None
    return value


def _path_number(raw: str) -> int:
    number = positive(raw)
    if number is None:
        raise Problem("bad_parameter", "{number} is a positive integer", parameter="number")
    return number


# --- pages ---------------------------------------------------------------------------------


@get("/desk/static/desk.css", sync_to_thread=False)
def stylesheet() -> Response[bytes]:
    css = (HERE / "static" / "desk.css").read_bytes()
    return Response(content=css, media_type="text/css", headers=_headers())


@get("/desk/static/favicon.svg", sync_to_thread=False)
def icon() -> Response[bytes]:
    svg = (HERE / "static" / "favicon.svg").read_bytes()
    return Response(content=svg, media_type="image/svg+xml", headers=_headers())


@get("/desk/login")
async def login_form(request: Request[Any, Any, Any]) -> Response[bytes]:
    secret = new_secret()
    answer = page(request, "login.html", title="desk.title.login", csrf=csrf_for(secret))
    _cookie(answer, request, LOGIN_COOKIE, secret)
    return answer


@post("/desk/login", status_code=303)
async def login(request: Request[Any, Any, Any]) -> Response[Any]:
    service = _service(request)
    fields = await _form(request)
    cookie = request.cookies.get(LOGIN_COOKIE, "")
    given = fields.get("csrf_token", "")
    if not (
        _from_origin(request, service) and cookie and hmac.compare_digest(given, csrf_for(cookie))
    ):
        return _csrf_refused(request, csrf=given)
    token = await in_thread(lambda: service.access.authenticate(fields.get("token", "").strip()))
    if token is None or token.role not in ("staff", "auditor"):
        detail = _translator(language(request))("desk.refused.token")
        problem = {"code": "forbidden", "detail": detail}
        secret = new_secret()
        answer = page(
            request,
            "login.html",
            403,
            title="desk.title.login",
            csrf=csrf_for(secret),
            problem=problem,
        )
        _cookie(answer, request, LOGIN_COOKIE, secret)
        return answer
    ending = request.cookies.get(SESSION_COOKIE)
    session = await in_thread(lambda: service.access.open_session(token, ending))
    answer = _see("/desk")
    _cookie(answer, request, SESSION_COOKIE, session)
    _cookie(answer, request, LOGIN_COOKIE, "", clear=True)
    return answer


async def _posted(
    request: Request[Any, Any, Any],
) -> tuple[Token, str, dict[str, str]] | Response[Any]:
    """A desk post's session, origin and CSRF token checked: the session and the form, or
    the answer that refuses it (303 to the login form, 403)."""
    who = await _who(request)
    if who is None:
        return _see("/desk/login")
    token, secret = who
    fields = await _form(request)
    given = fields.get("csrf_token", "")
    if not _from_origin(request, _service(request)) or not hmac.compare_digest(
        given, csrf_for(secret)
    ):
        return _csrf_refused(request, who=token, csrf=csrf_for(secret))
    return token, secret, fields


@post("/desk/logout", status_code=303)
async def logout(request: Request[Any, Any, Any]) -> Response[Any]:
    checked = await _posted(request)
    if isinstance(checked, Response):
        return checked
    _, secret, _ = checked
    service = _service(request)
    await in_thread(lambda: service.access.end_session(secret))
    answer = _see("/desk/login")
    _cookie(answer, request, SESSION_COOKIE, "", clear=True)
    return answer


@get("/desk")
async def find(request: Request[Any, Any, Any]) -> Response[Any]:
    who = await _who(request)
    if who is None:
        return _see("/desk/login")
    token, secret = who
    q = request.query_params.get("q", "")
    start = positive(request.query_params.get("from", "0") or "0") or 0
    service = _service(request)

    def work() -> list[MatchSummary]:
        return [
            m
            for m in match_summaries(service.ledger)
            if isinstance(m, MatchSummary) and m.match.startswith(q)
        ]

    found = await in_thread(work)
    shown = found[start : start + 50]
    more = f"/desk?{urlencode({'q': q, 'from': start + 50})}" if start + 50 < len(found) else None
    return page(
        request,
        "matches.html",
        title="desk.title.find",
        who=token,
        csrf=csrf_for(secret),
        q=q,
        matches=shown,
        next=more,
    )


@get("/desk/matches/{match:str}")
async def match_page(request: Request[Any, Any, Any]) -> Response[Any]:
    match = request.path_params["match"]
    who = await _who(request)
    if who is None:
        return _see("/desk/login")
    token, secret = who
    match_id = _path_match(match)
    service = _service(request)
    output = await in_thread(lambda: _existing(service, match_id, reads.match_output))
    running = dict.fromkeys(output["players"], 0)
    rows = []
    for hand in output["hands"]:
        for p, v in hand["net"].items():
            running[p] += v
        rows.append({"hand": hand, "running": dict(running)})
    return page(
        request,
        "match.html",
        title="desk.title.match",
        title_args={"match": match_id},
        who=token,
        csrf=csrf_for(secret),
        match=output,
        rows=rows,
    )


def _existing(service: Service, match_id: str, read: Any, *args: Any) -> Any:
    if not service.ledger.has_match(match_id):
        raise Problem("no_match", f"no match {match_id!r}")
    if args and args[0] > service.ledger.hands_in(match_id):
        raise Problem("no_hand", f"match {match_id!r} has no hand {args[0]}")
    return read(service.ledger, match_id, *args)


@get("/desk/matches/{match:str}/hands/{number:str}")
async def hand_page(request: Request[Any, Any, Any]) -> Response[Any]:
    match, number = request.path_params["match"], request.path_params["number"]
    who = await _who(request)
    if who is None:
        return _see("/desk/login")
    token, secret = who
    match_id, n = _path_match(match), _path_number(number)
    lang = language(request)
    service = _service(request)
    hand = await in_thread(lambda: _existing(service, match_id, reads.hand_body, n))
    explanation = await in_thread(lambda: reads.explanation(service.ledger, match_id, n, lang))
    return page(
        request,
        "hand.html",
        title="desk.title.hand",
        title_args={"number": n, "match": match_id},
        who=token,
        csrf=csrf_for(secret),
        match_id=match_id,
        base=f"/desk/matches/{encode_id(match_id)}/hands/{n}",
        staff=token.role == "staff",
        corrections=hand.get("corrections", []),
        explanation=explanation,
    )


def _form_context(service: Service, match_id: str, n: int) -> dict[str, Any]:
    ledger = service.ledger
    record = _existing(service, match_id, lambda led, m, k: led.hand(m, k), n)
    log = correction_log(ledger, match_id)
    entries = log.entries if log is not None else ()
    return {
        "ended": record.state.ended,
        "log": "".join(dumps_event(e) + "\n" for e in ledger.hand_events(match_id, n)),
        "next_correction": len(entries) + 1,
        "current": [reads.correction_answer(ledger, match_id, e) for e in entries],
    }


def _staff_only(request: Request[Any, Any, Any], token: Token, secret: str) -> Response[Any]:
    """The desk's answer to a form of staff's opened by another role (auditors read only)."""
    return page(
        request,
        "message.html",
        403,
        title="desk.title.refused",
        who=token,
        csrf=csrf_for(secret),
        problem={
            "code": "forbidden",
            "detail": _translator(language(request))("desk.refused.staff"),
        },
    )


@get("/desk/matches/{match:str}/hands/{number:str}/correct")
async def correct_form(request: Request[Any, Any, Any]) -> Response[Any]:
    match, number = request.path_params["match"], request.path_params["number"]
    who = await _who(request)
    if who is None:
        return _see("/desk/login")
    token, secret = who
    if token.role != "staff":
        return _staff_only(request, token, secret)
    match_id, n = _path_match(match), _path_number(number)
    service = _service(request)
    context = await in_thread(lambda: _form_context(service, match_id, n))
    base = f"/desk/matches/{encode_id(match_id)}/hands/{n}"
    return page(
        request,
        "correct.html",
        title="desk.title.correct",
        title_args={"number": n, "match": match_id},
        who=token,
        csrf=csrf_for(secret),
        base=base,
        **context,
    )


async def _correction_post(
    request: Request[Any, Any, Any], match: str, number: str, action: str
) -> Response[Any]:
    checked = await _posted(request)
    if isinstance(checked, Response):
        return checked
    token, secret, fields = checked
    if token.role != "staff":
        return _staff_only(request, token, secret)
    match_id, n = _path_match(match), _path_number(number)
    base = f"/desk/matches/{encode_id(match_id)}/hands/{n}"
    service = _service(request)
    body: dict[str, Any] = {"action": action, "number": n, "reason": fields.get("reason", "")}
    if action == "correct":
        body["log"] = fields.get("log", "")
        body["keep_later_hands"] = fields.get("keep_later_hands") == "true"
    correction = positive(fields.get("correction", "")) or 0

    def work() -> None:
        request_ = writes.CorrectionRequest.from_json(body)
        writes.put_correction(service.ledger, match_id, correction, request_, token.name)

    try:
        await in_thread(work)
    except Problem as problem:
        context = await in_thread(lambda: _form_context(service, match_id, n))
        if action == "correct":
            context["log"] = body["log"]
        return page(
            request,
            "correct.html",
            problem.status,
            title="desk.title.correct",
            title_args={"number": n, "match": match_id},
            who=token,
            csrf=csrf_for(secret),
            base=base,
            problem={"code": problem.code, "detail": problem.detail},
            **context,
        )
    return _see(base)


@post("/desk/matches/{match:str}/hands/{number:str}/correct", status_code=303)
async def correct_post(request: Request[Any, Any, Any]) -> Response[Any]:
    match, number = request.path_params["match"], request.path_params["number"]
    return await _correction_post(request, match, number, "correct")


@post("/desk/matches/{match:str}/hands/{number:str}/void", status_code=303)
async def void_post(request: Request[Any, Any, Any]) -> Response[Any]:
    match, number = request.path_params["match"], request.path_params["number"]
    return await _correction_post(request, match, number, "void")


@get("/desk/audit")
async def audit_page(request: Request[Any, Any, Any]) -> Response[Any]:
    who = await _who(request)
    if who is None:
        return _see("/desk/login")
    token, secret = who
    service = _service(request)

    def work() -> tuple[dict[str, Any], dict[str, Any]]:
        auditor = Auditor(service.ledger.location)
        findings = tuple(auditor.run())
        report = AuditReport(findings, auditor.summary)
        head = store_head(service.ledger.location)
        summary = report.to_json()
        summary["findings"] = [str(f) for f in findings]
        return summary, {"head": head.digest, "rows": head.rows, "agrees": head.agrees}

    report, head = await in_thread(work)
    return page(
        request,
        "audit.html",
        title="desk.title.audit",
        who=token,
        csrf=csrf_for(secret),
        report=report,
        head=head,
    )


def desk_problem(request: Request[Any, Any, Any], problem: Problem) -> Response[bytes]:
    """A refusal on a desk page, as a page (in English when the refusal is of ``?lang``)."""
    try:
        lang = language(request)
    except Problem:
        lang = "en"
    return page(
        request,
        "message.html",
        problem.status,
        lang,
        title="desk.title.refused",
        problem={"code": problem.code, "detail": problem.detail},
    )


def handlers() -> list[Any]:
    return [
        stylesheet,
        icon,
        login_form,
        login,
        logout,
        find,
        match_page,
        hand_page,
        correct_form,
        correct_post,
        void_post,
        audit_page,
    ]
