"""``mjledger serve`` and ``mjledger token``: the HTTP service's command line.

Both import the web framework only when they run (``mjledger.http`` is loaded inside the
command), so the start-up of every other command stays as it was.
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import TYPE_CHECKING, Any

import click

from mjledger.cli.commands import command, group
from mjledger.cli.shell import key_option, open_ledger, print_json, refusals, store_option
from mjledger.errors import MjledgerError

if TYPE_CHECKING:
    import socket


def _public_url(url: str | None, host: str, port: int) -> str:
    """``--public-url``, checked: http(s), no path but ``/``, no query, fragment or user."""
    if url is None:
        shown = f"[{host}]" if ":" in host else host
        return f"http://{shown}:{port}"
    try:
        from urllib.parse import urlsplit

        parts = urlsplit(url)
        parts.port  # noqa: B018 - a bad port raises here
    except ValueError:
        raise MjledgerError(f"--public-url {url!r} is not a URL", code="bad_parameter") from None
    if (
        parts.scheme not in ("http", "https")
        or not parts.hostname
        or parts.path not in ("", "/")
        or parts.query
        or parts.fragment
        or parts.username is not None
        or parts.password is not None
    ):
        raise MjledgerError(
            f"--public-url {url!r} must be http(s)://HOST[:PORT] with no path, query, "
            "fragment or user info",
            code="bad_parameter",
        )
    return url.rstrip("/")


def _bind(host: str, port: int) -> socket.socket:
    import socket

    family = socket.AF_INET6 if ":" in host else socket.AF_INET
    sock = socket.socket(family, socket.SOCK_STREAM)
    sock.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
    try:
        sock.bind((host, port))
    except OSError as exc:
        sock.close()
        raise MjledgerError(
            f"cannot listen on {host}:{port}: {exc.strerror}", code="bad_parameter"
        ) from None
    sock.set_inheritable(True)
    return sock


@command("serve")
@store_option
@click.option("--host", default="127.0.0.1", show_default=True, help="Where to listen.")
@click.option("--port", type=click.IntRange(0, 65535), default=8080, show_default=True)
@click.option("--public-url", default=None, help="The URL browsers reach the desk at.")
@click.option(
    "--max-log-bytes",
    type=click.IntRange(min=1),
    default=64 * 1024 * 1024,
    show_default=True,
    help="The largest body of POST /v1/logs and /v1/replay.",
)
@click.option(
    "--body-timeout",
    type=click.FloatRange(min=0, min_open=True),
    default=30.0,
    show_default=True,
    help="Seconds a request body may take to arrive.",
)
@key_option("--public-key", "Audits also verify signatures with this public key.")
@key_option("--signing-key", "Sign what is written (else $MJLEDGER_SIGNING_KEY).")
@click.option(
    "--proxy-headers", is_flag=True, help="Trust X-Forwarded-Proto/-For from 127.0.0.1 only."
)
@refusals
def serve_command(
    store: str | None,
    host: str,
    port: int,
    public_url: str | None,
    max_log_bytes: int,
    body_timeout: float,
    public_key: Path | None,
    signing_key: Path | None,
    proxy_headers: bool,
) -> None:
    """Serve the HTTP API under /v1 and the desk under /desk (http-api.md)."""
    import uvicorn

    from mjledger.http.app import create_app

    url = _public_url(public_url, host, port)
    with open_ledger(store, writing=True):  # a store the command line would refuse: status 2
        pass
    sock = _bind(host, port)
    app = create_app(
        store,
        public_url=url,
        max_log_bytes=max_log_bytes,
        body_timeout=body_timeout,
        public_key=str(public_key) if public_key else None,
        signing_key=str(signing_key) if signing_key else None,
        proxy_headers=proxy_headers,
    )
    config = uvicorn.Config(
        app,
        proxy_headers=proxy_headers,
        forwarded_allow_ips="127.0.0.1",
        timeout_graceful_shutdown=10,
        log_level="warning",
        access_log=False,
        lifespan="on",
    )
    server = _Server(config, f"http://{host}:{sock.getsockname()[1]}", app)
    server.run(sockets=[sock])


class _Server:
    """uvicorn's server, saying once on standard error that it accepts connections."""

    def __init__(self, config: Any, where: str, app: Any) -> None:
        import uvicorn

        class Announcing(uvicorn.Server):
            async def startup(self, sockets: Any = None) -> None:
                await super().startup(sockets)
                if not self.should_exit:
                    store = app.service.ledger.location
                    click.echo(f"mjledger serve: listening on {where} (store {store})", err=True)

            def handle_exit(self, sig: int, frame: Any) -> None:
                # A stop asked for is the end of serving, exit status 0: uvicorn would raise
                # the signal again once shut down (130 for SIGINT, death by SIGTERM).
                super().handle_exit(sig, frame)
                self._captured_signals.clear()

        self.server = Announcing(config)

    def run(self, sockets: list[socket.socket]) -> None:
        self.server.run(sockets=sockets)


@group("token")
def token_group() -> None:
    """Bearer tokens for the HTTP service: create, list, revoke (stored hashed)."""


@token_group.command("create")
@click.option("--role", type=click.Choice(["backend", "staff", "auditor"]), required=True)
@click.option("--scope", default=None, help="backend only: the match id prefix it may touch.")
@click.option("--name", default=None, help="Who holds it (a correction's `by`); default: its id.")
@store_option
@click.option("--json", "as_json", is_flag=True, help="Print the token's row as JSON.")
@refusals
def token_create(
    role: str, scope: str | None, name: str | None, store: str | None, as_json: bool
) -> None:
    """Create a token: printed once on standard output, kept only as its SHA-256."""
    from mjledger.http.access import check_scope
    from mjledger.http.ids import id_problem

    check_scope(role, scope)
    if name is not None and id_problem(name) is not None:
        raise MjledgerError(f"--name {name!r}: {id_problem(name)}", code="bad_parameter")
    with _access(store) as access:
        token, secret = access.create(role, scope, name)
    if as_json:
        click.echo(json.dumps({**_created(token.to_json()), "token": secret}, ensure_ascii=False))
    else:
        click.echo(secret)
    click.echo("mjledger: the token is shown once; the store keeps only its hash", err=True)


def _created(row: dict[str, Any]) -> dict[str, Any]:
    return {k: row[k] for k in ("id", "name", "role", "scope", "created_at")}


@token_group.command("list")
@store_option
@click.option("--json", "as_json", is_flag=True, help="Print JSON.")
@refusals
def token_list(store: str | None, as_json: bool) -> None:
    """Every token's id, name, role, scope, creation, last use and revocation."""
    with _access(store) as access:
        tokens = access.tokens()
    if as_json:
        print_json([t.to_json() for t in tokens])
        return
    for t in tokens:
        state = f"revoked {t.revoked_at}" if t.revoked_at else f"last used {t.last_used_at or '-'}"
        scope = f" scope {t.scope}" if t.scope else ""
        click.echo(f"{t.id}  {t.name}  {t.role}{scope}  created {t.created_at}  {state}")


@token_group.command("revoke")
@click.argument("token_id", metavar="ID")
@store_option
@refusals
def token_revoke(token_id: str, store: str | None) -> None:
    """Revoke a token at its next request, in every process, and end its desk sessions."""
    with _access(store) as access:
        token = access.revoke(token_id)
    click.echo(f"revoked: {token.id} ({token.name})")


class _access:  # noqa: N801 - used as a context manager, like open()
    """The store's tokens (the store created, and its tables added, if missing)."""

    def __init__(self, store: str | None) -> None:
        self.store = store

    def __enter__(self) -> Any:
        from mjledger.http.access import Access

        with open_ledger(self.store, writing=True) as ledger:
            location = ledger.location
        self.access = Access(location)
        return self.access

    def __exit__(self, *exc: object) -> None:
        self.access.close()


__all__ = ["serve_command", "token_group"]
