"""The ASGI application: Litestar routes for the table in :mod:`.api` (and the desk), behind
a gate that does what must come before routing.

The gate keeps the raw path (so ``%2F`` stays inside its segment), authenticates every
``/v1`` request before the route is looked up (401 comes before 404, as the spec orders the
checks), and adds the headers every response carries.
"""

from __future__ import annotations

import asyncio
import logging
import os
from collections.abc import Awaitable, Callable, MutableMapping
from typing import Any, Final, cast

from litestar import Litestar, Request, Response, route
from litestar.exceptions import HTTPException, MethodNotAllowedException, NotFoundException

from mjledger.errors import MjledgerError
from mjledger.http import api
from mjledger.http.access import Access, Token
from mjledger.http.problems import PROBLEM_TYPE, Problem, problem_of
from mjledger.http.service import Call, Options, Service, in_thread, json_bytes
from mjledger.store.application import Ledger
from mjledger.store.location import StoreLocation, store_location
from mjledger.store.signing import load_verifier

Scope = MutableMapping[str, Any]
ASGI = Callable[[Scope, Any, Any], Awaitable[None]]
TOKEN_KEY: Final = "mjledger.token"
SERVICE_KEY: Final = "mjledger.service"
log = logging.getLogger("mjledger.http")


def _headers(scope: Scope) -> dict[str, str]:
    return {k.decode("latin-1").lower(): v.decode("latin-1") for k, v in scope["headers"]}


def _problem_response(problem: Problem, instance: str) -> Response[bytes]:
    return Response(
        content=json_bytes(problem.body(instance)),
        status_code=problem.status,
        media_type=PROBLEM_TYPE,
        headers=problem.headers,
    )


def _instance(request: Request[Any, Any, Any]) -> str:
    scope = cast(Scope, request.scope)
    return str(scope.get("mjledger.raw_path", scope["path"]))


def handle_problem(request: Request[Any, Any, Any], exc: Exception) -> Response[bytes]:
    """Every refusal as an RFC 9457 problem (a bug as ``internal_error``, saying nothing)."""
    if isinstance(exc, Problem):
        problem = exc
    elif isinstance(exc, MethodNotAllowedException):
        problem = Problem("method_not_allowed", "this path does not take that method")
        allow = (exc.headers or {}).get("allow", "")
        problem.headers["allow"] = ", ".join(m for m in allow.split(", ") if m != "OPTIONS")
    elif isinstance(exc, NotFoundException):
        problem = Problem("not_found", "no such path")
    elif isinstance(exc, MjledgerError):
        problem = problem_of(exc)
    elif isinstance(exc, HTTPException) and exc.status_code < 500:
        problem = Problem("bad_parameter", "the request could not be read", parameter="request")
    else:
        log.error("internal error", exc_info=exc)
        problem = Problem("internal_error", "an internal error: this is a bug")
    if _instance(request).startswith("/desk"):
        from mjledger.http.desk import desk_problem

        return desk_problem(request, problem)
    return _problem_response(problem, _instance(request))


def _handler(entry: api.Route) -> Callable[..., Awaitable[Response[bytes]]]:
    async def handle(request: Request[Any, Any, Any]) -> Response[bytes]:
        scope = cast(Scope, request.scope)
        call = Call(
            scope[SERVICE_KEY],
            scope.get(TOKEN_KEY),
            {k: str(v) for k, v in request.path_params.items()},
            _headers(scope),
            request.receive,
        )
        call.params["_query"] = api.parse_query(scope.get("query_string", b""))
        if entry.role != "none":
            call.role(entry.role)
            call.scope()
        call.decode()
        if entry.exists is not None:
            await in_thread(lambda: api.check_exists(call, entry.exists))
        answer = await entry.run(call)
        content = answer.body if isinstance(answer.body, bytes) else json_bytes(answer.body)
        return Response(
            content=content,
            status_code=answer.status,
            media_type=answer.media,
            headers=answer.headers,
        )

    handle.__name__ = f"{entry.method.lower()}_{entry.path.strip('/').replace('/', '_')}"
    return handle


def _litestar_path(path: str) -> str:
    return path.replace("}", ":str}")


class Gate:
    """What comes before routing: the raw path, authentication of ``/v1``, common headers."""

    def __init__(self, app: ASGI, service: Service) -> None:
        self.app = app
        self.service = service

    async def __call__(self, scope: Scope, receive: Any, send: Any) -> None:
        if scope["type"] != "http":
            await self.app(scope, receive, send)
            return
        raw = scope.get("raw_path")
        path = raw.decode("latin-1").split("?", 1)[0] if raw else scope["path"]
        scope["mjledger.raw_path"] = path
        scope["path"] = path
        scope[SERVICE_KEY] = self.service
        send = self._with_headers(path, send)
        if path.startswith("/v1") and path != "/v1/openapi.json":
            problem = await self._authenticate(scope)
            if problem is not None:
                await _send_problem(send, problem, path)
                return
        await self.app(scope, receive, send)

    async def _authenticate(self, scope: Scope) -> Problem | None:
        header = _headers(scope).get("authorization")
        realm = 'Bearer realm="mjledger"'
        scheme, _, secret = (header or "").partition(" ")
        if header is None or scheme.lower() != "bearer":
            problem = Problem("unauthorized", "a bearer token is needed (Authorization: Bearer)")
            problem.headers["www-authenticate"] = realm
            return problem
        try:
            token: Token | None = await in_thread(
                lambda: self.service.access.authenticate(secret.strip())
            )
        except Problem as exc:
            return exc
        if token is None:
            problem = Problem("unauthorized", "the token is malformed, unknown or revoked")
            problem.headers["www-authenticate"] = realm + ', error="invalid_token"'
            return problem
        scope[TOKEN_KEY] = token
        return None

    def _with_headers(self, path: str, send: Any) -> Any:
        extra: list[tuple[bytes, bytes]] = []
        if path.startswith("/v1") or path in ("/healthz", "/readyz"):
            extra.append((b"cache-control", b"no-store"))

        async def sending(message: MutableMapping[str, Any]) -> None:
            if message["type"] == "http.response.start" and extra:
                headers = [
                    h for h in message.get("headers", []) if h[0].lower() != b"cache-control"
                ]
                message["headers"] = headers + extra
            await send(message)

        return sending


async def _send_problem(send: Any, problem: Problem, instance: str) -> None:
    body = json_bytes(problem.body(instance))
    headers = [
        (b"content-type", PROBLEM_TYPE.encode()),
        (b"content-length", str(len(body)).encode()),
    ]
    headers += [(k.encode(), v.encode()) for k, v in problem.headers.items()]
    await send({"type": "http.response.start", "status": problem.status, "headers": headers})
    await send({"type": "http.response.body", "body": body})


def open_service(store: str | os.PathLike[str] | StoreLocation | None, options: Options) -> Service:
    """The ledger and the tokens' tables of ``store`` (the tables added if missing)."""
    location = store_location(store)
    verifier = load_verifier(options.public_key) if options.public_key else None
    ledger = Ledger(location, signing_key=options.signing_key)
    try:
        access = Access(location)
    except BaseException:
        ledger.close()
        raise
    return Service(ledger, access, options, verifier)


def _closer(service: Service) -> Callable[[], Awaitable[None]]:
    async def close() -> None:
        await asyncio.to_thread(service.close)

    return close


def create_app(store: str | os.PathLike[str] | StoreLocation | None = None, **options: Any) -> ASGI:
    """The service as an ASGI application over ``store`` (``serve``'s options by their long
    names: ``public_url``, ``max_log_bytes``, ``body_timeout``, ``public_key``,
    ``signing_key``, ``proxy_headers``)."""
    from mjledger.http import desk, openapi

    chosen = Options(**options)
    service = open_service(store, chosen)
    handlers: list[Any] = [
        route(_litestar_path(entry.path), http_method=[cast(Any, entry.method)])(_handler(entry))
        for entry in api.ROUTES
    ]
    handlers.append(openapi.handler())
    handlers.extend(desk.handlers())
    app = Litestar(
        handlers,
        openapi_config=None,
        request_max_body_size=None,
        exception_handlers={Exception: handle_problem},
        on_shutdown=[_closer(service)],
        logging_config=None,
    )
    return Gate(cast(ASGI, app), service)
