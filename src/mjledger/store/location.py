"""Where a store lives, from one string: a file path (SQLite) or a ``postgresql://`` URL.

The same string works everywhere a store is named (``--store``, ``$MJLEDGER_STORE``,
``Ledger(...)``), so a deployment moves from a file to a server by changing configuration only.
A URL's options (``schema``, pool size, timeouts) ride in its query string, the way libpq's
own URLs carry them; each becomes one of eventsourcing's ``POSTGRES_*`` settings.

The password is kept out of every string this module produces: :func:`redact` is what errors
and logs print, and a :class:`PostgresStore` shows itself redacted.
"""

from __future__ import annotations

import getpass
import os
import re
from pathlib import Path
from typing import Any, Final
from urllib.parse import parse_qsl, unquote, urlsplit

from attrs import field, frozen

from mjledger.errors import StoreError
from mjledger.store.streams import DEFAULT_STORE, STORE_ENV

SCHEMES: Final = ("postgresql", "postgres")
_SCHEMA_NAME: Final = re.compile(r"[a-z_][a-z0-9_]{0,62}")
# up to the last "@" of the URL: a password may hold an unencoded "@" (masking more is safe)
_SECRET: Final = re.compile(r"(?i)(\bpostgres(?:ql)?://[^/\s:@]*:)\S*@")


@frozen
class SqliteStore:
    """An embedded store: one SQLite file (and its views file beside it)."""

    path: Path

    def __str__(self) -> str:
        return str(self.path)


@frozen
class PostgresStore:
    """A store in a PostgreSQL database: events, views and tracking in one schema.

    ``str()`` and ``repr()`` never show the password.
    """

    host: str
    port: int
    dbname: str
    user: str
    password: str = field(repr=False)
    schema: str = "public"
    pool_size: int = 5
    max_overflow: int = 10
    timeout: int = 30  # seconds to connect, and to wait for a free connection of the pool
    lock_timeout: int = 0  # seconds a write waits for the events table's lock (0: no limit)
    pre_ping: bool = False
    create: bool = True  # create the schema and tables when missing (needs CREATE rights)

    def __str__(self) -> str:
        return self.redacted()

    def redacted(self) -> str:
        """The URL with the password masked: what errors, logs and reports show."""
        host = self.host if "/" not in self.host else self.host.replace("/", "%2F")
        secret = ":***" if self.password else ""
        options = [f"schema={self.schema}"] if self.schema != "public" else []
        return f"postgresql://{self.user}{secret}@{host}:{self.port}/{self.dbname}" + (
            "?" + "&".join(options) if options else ""
        )

    def settings(self) -> dict[str, str]:
        """eventsourcing's settings: ``PERSISTENCE_MODULE`` and the ``POSTGRES_*`` keys."""
        return {
            "PERSISTENCE_MODULE": "eventsourcing.postgres",
            "POSTGRES_HOST": self.host,
            "POSTGRES_PORT": str(self.port),
            "POSTGRES_DBNAME": self.dbname,
            "POSTGRES_USER": self.user,
            "POSTGRES_PASSWORD": self.password,
            "POSTGRES_SCHEMA": self.schema,
            "POSTGRES_POOL_SIZE": str(self.pool_size),
            "POSTGRES_MAX_OVERFLOW": str(self.max_overflow),
            "POSTGRES_CONNECT_TIMEOUT": str(self.timeout),
            "POSTGRES_LOCK_TIMEOUT": str(self.lock_timeout),
            "POSTGRES_PRE_PING": "y" if self.pre_ping else "n",
            "CREATE_TABLE": "y" if self.create else "n",
        }

    def conninfo(self) -> dict[str, Any]:
        """libpq's connection parameters, for a direct connection (psycopg.connect(**…))."""
        return {
            "host": self.host,
            "port": self.port,
            "dbname": self.dbname,
            "user": self.user,
            "password": self.password,
        }

    def scrub(self, text: str) -> str:
        """``text`` with this store's password (and any URL's) masked."""
        if self.password:
            text = text.replace(self.password, "***")
        return redact(text)


StoreLocation = SqliteStore | PostgresStore


def redact(text: str) -> str:
    """Mask the password of every ``postgresql://user:password@`` in ``text``."""
    return _SECRET.sub(r"\1***@", text)


def is_url(text: str) -> bool:
    return text.split("://", 1)[0].lower() in SCHEMES and "://" in text


def store_location(store: str | os.PathLike[str] | StoreLocation | None = None) -> StoreLocation:
    """The store named by ``store``, else by ``$MJLEDGER_STORE``, else ``./mjledger.sqlite``."""
    if isinstance(store, SqliteStore | PostgresStore):
        return store
    text = os.fspath(store) if store is not None else os.environ.get(STORE_ENV) or DEFAULT_STORE
    if is_url(text):
        return parse_url(text)
    return SqliteStore(Path(text))


def _int(url: str, name: str, value: str, lowest: int) -> int:
    try:
        number = int(value)
    except ValueError:
        number = lowest - 1
    if number < lowest:
        raise _url_error(
            f"store URL {redact(url)}: {name} must be a whole number from {lowest}, not {value!r}"
        )
    return number


def _flag(url: str, name: str, value: str) -> bool:
    if value.lower() in ("1", "true", "yes", "on"):
        return True
    if value.lower() in ("0", "false", "no", "off"):
        return False
    raise _url_error(f"store URL {redact(url)}: {name} must be true or false, not {value!r}")


def _url_error(problem: str) -> StoreError:
    """A store URL that cannot name a store: the caller's to fix (``bad_parameter``)."""
    return StoreError(problem, code="bad_parameter")


def parse_url(url: str) -> PostgresStore:
    """A ``postgresql://user:password@host:port/dbname?schema=…&pool_size=…`` URL.

    Options: ``schema`` (default ``public``), ``pool_size`` (5), ``max_overflow`` (10),
    ``timeout`` (30 s: to connect, and to wait for a pooled connection), ``lock_timeout``
    (0: a writer waits for the events table's lock as long as it takes), ``pre_ping``
    (``true`` checks each pooled connection before use), ``create`` (``false``: the schema
    and tables were created by their owner; open them without ``CREATE`` rights), ``host`` (a
    socket directory, as in libpq). User and password are percent-decoded (``%40`` for
    ``@``). Without a password in the URL, ``$PGPASSWORD`` or ``~/.pgpass`` supplies it, as
    for ``psql``.
    """
    try:
        parts = urlsplit(url)
        port = parts.port or 5432
    except ValueError:
        raise _url_error(f"store URL {redact(url)}: not a valid URL") from None
    options = dict(parse_qsl(parts.query, keep_blank_values=True))
    host = unquote(parts.hostname or "") if parts.hostname else ""
    if "%" in (parts.netloc.rsplit("@", 1)[-1]):
        # a socket directory written percent-encoded in the host part (libpq's form)
        host = unquote(parts.netloc.rsplit("@", 1)[-1].rsplit(":", 1)[0])
    host = options.pop("host", host) or "localhost"
    dbname = unquote(parts.path.lstrip("/"))
    if not dbname:
        raise _url_error(f"store URL {redact(url)}: no database name (…/DBNAME)")
    schema = options.pop("schema", "public")
    if not _SCHEMA_NAME.fullmatch(schema):
        raise _url_error(
            f"store URL {redact(url)}: schema {schema!r} must be lower-case letters, digits "
            "and underscores, not starting with a digit"
        )
    store = PostgresStore(
        host=host,
        port=port,
        dbname=dbname,
        user=unquote(parts.username) if parts.username else getpass.getuser(),
        # libpq reads ~/.pgpass for an empty password, but not $PGPASSWORD: pass that on
        password=unquote(parts.password) if parts.password else os.environ.get("PGPASSWORD", ""),
        schema=schema,
        pool_size=_int(url, "pool_size", options.pop("pool_size", "5"), 1),
        max_overflow=_int(url, "max_overflow", options.pop("max_overflow", "10"), 0),
        timeout=_int(url, "timeout", options.pop("timeout", "30"), 1),
        lock_timeout=_int(url, "lock_timeout", options.pop("lock_timeout", "0"), 0),
        pre_ping=_flag(url, "pre_ping", options.pop("pre_ping", "false")),
        create=_flag(url, "create", options.pop("create", "true")),
    )
    if store.pool_size + store.max_overflow < 2:
        # A catch-up of the views reads the store while it holds its own transaction open.
        raise _url_error(f"store URL {redact(url)}: pool_size + max_overflow must be at least 2")
    if options:
        raise _url_error(
            f"store URL {redact(url)}: unknown option {sorted(options)[0]!r} (known: schema, "
            "pool_size, max_overflow, timeout, lock_timeout, pre_ping, create, host)"
        )
    return store
