"""The service's state and the checks every request passes, in the spec's order.

:class:`Service` holds one :class:`Ledger` and one :class:`Access` for the process (both safe
to share between threads). :class:`Call` is one request as the handlers see it: who sent it,
its decoded path parameters, and its body read within its limits.
"""

from __future__ import annotations

import asyncio
import tempfile
import threading
from collections.abc import Callable
from contextlib import suppress
from typing import IO, Any, Final, TypeVar
from urllib.parse import urlsplit

import attrs
import orjson

from mjledger.errors import MjledgerError
from mjledger.http.access import Access, Token
from mjledger.http.ids import decode_segment, id_problem, positive
from mjledger.http.problems import Problem, problem_of
from mjledger.store.application import Ledger
from mjledger.store.signing import Verifier

T = TypeVar("T")

JSON_LIMIT: Final = 64 * 1024
CORRECTION_LIMIT: Final = 1024 * 1024
MAX_SPOOLS: Final = 4
SPOOL_BLOCK: Final = 1 << 16

# Which roles each kind of endpoint admits (http-api.md, "Requests and authentication").
ROLES: Final[dict[str, frozenset[str]]] = {
    "read": frozenset({"backend", "staff", "auditor"}),
    "any": frozenset({"backend", "staff", "auditor"}),
    "write": frozenset({"backend", "staff"}),
    "staff": frozenset({"staff"}),
    "audit": frozenset({"staff", "auditor"}),
}


@attrs.frozen
class Options:
    """``serve``'s options, by their long names."""

    public_url: str = "http://127.0.0.1:8080"
    max_log_bytes: int = 64 * 1024 * 1024
    body_timeout: float = 30.0
    public_key: str | None = None
    signing_key: str | None = None
    proxy_headers: bool = False

    @property
    def origin(self) -> str:
        """The public URL's origin, scheme and host lowered, a default port dropped."""
        return origin_of(self.public_url) or ""


def origin_of(url: str) -> str | None:
    try:
        parts = urlsplit(url)
        port = parts.port
    except ValueError:
        return None
    if parts.scheme.lower() not in ("http", "https") or not parts.hostname:
        return None
    scheme = parts.scheme.lower()
    default = {"http": 80, "https": 443}[scheme]
    host = parts.hostname.lower()
    if ":" in host:
        host = f"[{host}]"
    return f"{scheme}://{host}" + ("" if port in (None, default) else f":{port}")


class Service:
    """What every request of one process shares."""

    def __init__(
        self, ledger: Ledger, access: Access, options: Options, verifier: Verifier | None = None
    ) -> None:
        self.ledger = ledger
        self.access = access
        self.options = options
        # ``--public-key``, read once: a key that is not one is refused when serve starts,
        # not answered as every audit's error.
        self.verifier = verifier
        self._spools = 0
        self._spool_lock = threading.Lock()

    def take_spool(self) -> bool:
        """One of the process's 4 places to spool a log, or False when all are taken."""
        with self._spool_lock:
            if self._spools >= MAX_SPOOLS:
                return False
            self._spools += 1
            return True

    def give_spool(self) -> None:
        with self._spool_lock:
            self._spools -= 1

    def close(self) -> None:
        self.access.close()
        self.ledger.close()


async def in_thread(work: Callable[[], T]) -> T:
    """Run blocking store work off the event loop; a library refusal becomes its problem."""
    try:
        return await asyncio.to_thread(work)
    except Problem:
        raise
    except MjledgerError as exc:
        raise problem_of(exc) from None


def json_bytes(data: Any) -> bytes:
    """UTF-8 JSON, non-ASCII as itself."""
    return orjson.dumps(data)


@attrs.define
class Call:
    """One request to a ``/v1`` endpoint, checked in the spec's order step by step."""

    service: Service
    token: Token | None
    raw: dict[str, str]
    headers: dict[str, str]
    receive: Any
    params: dict[str, Any] = attrs.field(factory=dict)

    @property
    def ledger(self) -> Ledger:
        return self.service.ledger

    def role(self, kind: str) -> None:
        """403 ``forbidden`` when the token's role may not do this."""
        assert self.token is not None
        if self.token.role not in ROLES[kind]:
            raise Problem("forbidden", f"a {self.token.role} token may not do this")

    def scope(self) -> None:
        """403 ``out_of_scope`` for a scoped token naming a match outside its prefix."""
        raw = self.raw.get("match")
        if raw is None or self.token is None or self.token.scope is None:
            return
        decoded = decode_segment(raw)  # undecodable: judged on its raw text, refused later
        if not self.token.may_reach(raw if decoded is None else decoded):
            raise Problem(
                "out_of_scope",
                f"this token reaches only matches starting with {self.token.scope!r}",
            )

    def decode(self) -> None:
        """The path parameters, decoded and checked (400 ``bad_parameter``)."""
        for name, raw in self.raw.items():
            if name == "match":
                value = decode_segment(raw)
                problem = "not percent-encoded UTF-8" if value is None else id_problem(value)
                if problem is not None:
                    raise Problem("bad_parameter", f"{{match}}: {problem}", parameter="match")
                self.params[name] = value
            else:
                number = positive(raw)
                if number is None:
                    raise Problem(
                        "bad_parameter",
                        f"{{{name}}} is a positive decimal integer without leading zeros",
                        parameter=name,
                    )
                self.params[name] = number

    @property
    def match(self) -> str:
        return str(self.params["match"])

    def media(self, *accepted: str) -> None:
        """415 when the ``Content-Type`` is not one of ``accepted`` (charset utf-8 only)."""
        given = self.headers.get("content-type", "")
        kind, _, rest = given.partition(";")
        charset = None
        for part in rest.split(";"):
            key, _, value = part.strip().partition("=")
            if key.lower() == "charset":
                charset = value.strip().strip('"').lower()
        if kind.strip().lower() not in accepted or charset not in (None, "utf-8"):
            raise Problem(
                "unsupported_media_type",
                f"this endpoint takes {' or '.join(accepted)}, not {given or 'no Content-Type'!r}",
            )

    def declared_size(self, limit: int) -> None:
        """413 at once when ``Content-Length`` is over ``limit`` (none of the body read)."""
        length = self.headers.get("content-length")
        if length is not None and length.isdigit() and int(length) > limit:
            raise _too_large(limit)

    async def body(self, limit: int) -> bytes:
        """The whole body, within ``limit`` bytes and ``--body-timeout`` seconds."""
        self.declared_size(limit)
        chunks: list[bytes] = []
        size = 0
        async for chunk in self._chunks():
            size += len(chunk)
            if size > limit:
                raise _too_large(limit)
            chunks.append(chunk)
        return b"".join(chunks)

    async def spool(self, limit: int) -> IO[bytes]:
        """The body written to a temporary file on disk (503 when the disk refuses it)."""
        self.declared_size(limit)
        spool = tempfile.TemporaryFile()  # noqa: SIM115 - closed by the caller, or below
        size = 0
        try:
            async for chunk in self._chunks():
                size += len(chunk)
                if size > limit:
                    raise _too_large(limit)
                try:
                    spool.write(chunk)
                except OSError:
                    raise Problem(
                        "store_unavailable", "the log could not be spooled: retry later"
                    ) from None
            spool.seek(0)
        except BaseException:
            spool.close()
            raise
        return spool

    async def _chunks(self) -> Any:
        deadline = asyncio.get_running_loop().time() + self.service.options.body_timeout
        while True:
            left = deadline - asyncio.get_running_loop().time()
            try:
                message = await asyncio.wait_for(self.receive(), timeout=max(left, 0.001))
            except TimeoutError:
                problem = Problem(
                    "request_timeout",
                    f"the body did not arrive within {self.service.options.body_timeout:g} seconds",
                )
                problem.headers["connection"] = "close"
                raise problem from None
            if message["type"] == "http.disconnect":
                raise Problem("request_timeout", "the client went away before the body ended")
            chunk = message.get("body", b"")
            if chunk:
                yield chunk
            if not message.get("more_body", False):
                return


def _too_large(limit: int) -> Problem:
    problem = Problem("too_large", f"the body is over its limit of {limit} bytes", limit=limit)
    problem.headers["connection"] = "close"
    return problem


def close_quietly(stream: IO[bytes]) -> None:
    with suppress(OSError):
        stream.close()
