"""Who may use the service: bearer tokens and desk sessions, rows of their own in the store.

``api_tokens`` and ``desk_sessions`` sit in the store's database (the SQLite file, or the
PostgreSQL store's schema) beside the events but outside them: no digest chain, no store
head, no audit covers them, so adding, using or revoking a token changes nothing an auditor
re-derives. A store gains both tables the first time ``serve`` or ``token`` opens it;
nothing else is written then.

Only SHA-256 digests of the secrets are kept. A token is 256 random bits, so one fast hash,
looked up by value, is as strong as a slow password hash would be, and costs a request nothing.
This module imports no web framework: ``mjledger token`` uses it without starting one.
"""

from __future__ import annotations

import base64
import hashlib
import hmac
import secrets
import sqlite3
from collections.abc import Iterator, Sequence
from contextlib import contextmanager
from datetime import UTC, datetime, timedelta
from typing import Any, Final

from attrs import frozen

from mjledger.errors import StoreConnectionError, StoreError
from mjledger.store.location import PostgresStore, SqliteStore, StoreLocation

ROLES: Final = ("backend", "staff", "auditor")
TOKEN_PREFIX: Final = "mjl_"
SCOPE_ENDS: Final = (":", ".", "_", "-", "~")
# last_used_at and last_seen_at are written at most once a minute: reads cost no write.
TOUCH_EVERY: Final = timedelta(minutes=1)
SESSION_IDLE: Final = timedelta(minutes=30)
SESSION_LIFE: Final = timedelta(hours=12)

_TABLES: Final = (
    "CREATE TABLE IF NOT EXISTS {p}api_tokens ("
    " token_hash TEXT PRIMARY KEY, id TEXT NOT NULL UNIQUE, name TEXT NOT NULL,"
    " role TEXT NOT NULL, scope TEXT, created_at TEXT NOT NULL, last_used_at TEXT,"
    " revoked_at TEXT)",
    "CREATE TABLE IF NOT EXISTS {p}desk_sessions ("
    " id_hash TEXT PRIMARY KEY, token_id TEXT NOT NULL, created_at TEXT NOT NULL,"
    " last_seen_at TEXT NOT NULL)",
)
_TOKEN_COLUMNS: Final = "id, name, role, scope, created_at, last_used_at, revoked_at"


def now_text(moment: datetime | None = None) -> str:
    """A moment as the store writes it: UTC, ISO 8601, to the second."""
    return (moment or datetime.now(UTC)).strftime("%Y-%m-%dT%H:%M:%SZ")


def _parse(text: str) -> datetime:
    return datetime.strptime(text, "%Y-%m-%dT%H:%M:%SZ").replace(tzinfo=UTC)


def digest(secret: str) -> str:
    """SHA-256 of a secret's UTF-8 bytes, 64 hex digits: all the store keeps of it."""
    return hashlib.sha256(secret.encode("utf-8", "surrogatepass")).hexdigest()


def new_secret() -> str:
    """32 bytes from the operating system's CSPRNG as 43 base64url characters."""
    return base64.urlsafe_b64encode(secrets.token_bytes(32)).rstrip(b"=").decode()


def csrf_for(session_secret: str) -> str:
    """A session's CSRF token: HMAC-SHA-256 keyed by the session id over ``mjledger-csrf``,
    so every process computes it and it changes with the session."""
    mac = hmac.new(session_secret.encode(), b"mjledger-csrf", hashlib.sha256).digest()
    return base64.urlsafe_b64encode(mac).rstrip(b"=").decode()


def well_formed(token: str) -> bool:
    """``mjl_`` and 43 base64url characters."""
    body = token[len(TOKEN_PREFIX) :]
    return (
        token.startswith(TOKEN_PREFIX)
        and len(body) == 43
        and all(c.isascii() and (c.isalnum() or c in "-_") for c in body)
    )


@frozen
class Token:
    """A token as ``token list`` shows it (never the secret or its hash)."""

    id: str
    name: str
    role: str
    scope: str | None
    created_at: str
    last_used_at: str | None
    revoked_at: str | None

    def to_json(self) -> dict[str, Any]:
        return {
            "id": self.id,
            "name": self.name,
            "role": self.role,
            "scope": self.scope,
            "created_at": self.created_at,
            "last_used_at": self.last_used_at,
            "revoked_at": self.revoked_at,
        }

    def may_reach(self, match_id: str) -> bool:
        """A scoped token reaches the matches whose id starts with its prefix (code points)."""
        return self.scope is None or match_id.startswith(self.scope)


class Access:
    """The tokens and sessions of one store, on SQLite or PostgreSQL alike."""

    def __init__(self, location: StoreLocation) -> None:
        self.location = location
        self._pool: Any = None
        if isinstance(location, PostgresStore):
            self._prefix = f'"{location.schema}".'
        else:
            self._prefix = ""
        self.ensure_tables()

    # --- connections ----------------------------------------------------------------------

    @contextmanager
    def _cursor(self) -> Iterator[Any]:
        """A cursor in one transaction, committed when the block ends without error."""
        if isinstance(self.location, SqliteStore):
            yield from self._sqlite_cursor(self.location)
        else:
            yield from self._postgres_cursor(self.location)

    def _sqlite_cursor(self, store: SqliteStore) -> Iterator[Any]:
        try:
            db = sqlite3.connect(store.path, timeout=30, isolation_level=None)
        except sqlite3.Error as exc:
            raise StoreConnectionError(f"cannot open the store {store}: {exc}") from None
        try:
            db.execute("BEGIN IMMEDIATE")
            yield _Sqlite(db)
            db.execute("COMMIT")
        except sqlite3.Error as exc:
            db.rollback()
            raise StoreConnectionError(f"the store {store} failed: {exc}") from None
        except BaseException:
            db.rollback()
            raise
        finally:
            db.close()

    def _postgres_cursor(self, store: PostgresStore) -> Iterator[Any]:
        import psycopg
        from psycopg_pool import ConnectionPool

        if self._pool is None:
            self._pool = ConnectionPool(
                kwargs=store.conninfo(), min_size=1, max_size=4, open=True, timeout=store.timeout
            )
        try:
            with self._pool.connection() as conn, conn.cursor() as cur:
                yield _Postgres(cur)
        except (psycopg.Error, OSError) as exc:
            raise StoreConnectionError(
                f"the store {store} failed: {store.scrub(str(exc))}"
            ) from None

    def ensure_tables(self) -> None:
        with self._cursor() as db:
            for statement in _TABLES:
                db.run(statement.format(p=self._prefix))

    def close(self) -> None:
        if self._pool is not None:
            self._pool.close()
            self._pool = None

    # --- tokens ---------------------------------------------------------------------------

    def create(
        self, role: str, scope: str | None = None, name: str | None = None
    ) -> tuple[Token, str]:
        """A new token: its row, and the secret (shown once, kept nowhere)."""
        if role not in ROLES:
            raise StoreError(
                f"a token's role is one of {', '.join(ROLES)}, not {role!r}", code="bad_parameter"
            )
        secret = TOKEN_PREFIX + new_secret()
        hashed = digest(secret)
        token = Token(hashed[:12], name or hashed[:12], role, scope, now_text(), None, None)
        with self._cursor() as db:
            db.run(
                f"INSERT INTO {self._prefix}api_tokens (token_hash, id, name, role, scope, "
                "created_at) VALUES (?, ?, ?, ?, ?, ?)",
                (hashed, token.id, token.name, role, scope, token.created_at),
            )
        return token, secret

    def tokens(self) -> list[Token]:
        with self._cursor() as db:
            rows = db.rows(
                f"SELECT {_TOKEN_COLUMNS} FROM {self._prefix}api_tokens ORDER BY created_at, id"
            )
        return [Token(*row) for row in rows]

    def revoke(self, token_id: str) -> Token:
        """Revoke a token and end its desk sessions; refused for an unknown id."""
        with self._cursor() as db:
            found = db.rows(
                f"SELECT {_TOKEN_COLUMNS} FROM {self._prefix}api_tokens WHERE id = ?", (token_id,)
            )
            if not found:
                raise StoreError(f"no token {token_id!r} in {self.location}", code="bad_parameter")
            if found[0][6] is None:
                db.run(
                    f"UPDATE {self._prefix}api_tokens SET revoked_at = ? WHERE id = ?",
                    (now_text(), token_id),
                )
            db.run(f"DELETE FROM {self._prefix}desk_sessions WHERE token_id = ?", (token_id,))
        return self.tokens_by_id()[token_id]

    def tokens_by_id(self) -> dict[str, Token]:
        return {t.id: t for t in self.tokens()}

    def authenticate(self, secret: str) -> Token | None:
        """The live token whose secret this is (its last use noted), else None."""
        if not well_formed(secret):
            return None
        hashed = digest(secret)
        with self._cursor() as db:
            rows = db.rows(
                f"SELECT token_hash, {_TOKEN_COLUMNS} FROM {self._prefix}api_tokens "
                "WHERE token_hash = ?",
                (hashed,),
            )
            if not rows or not hmac.compare_digest(rows[0][0], hashed):
                return None
            token = Token(*rows[0][1:])
            if token.revoked_at is not None:
                return None
            if _due(token.last_used_at):
                db.run(
                    f"UPDATE {self._prefix}api_tokens SET last_used_at = ? WHERE token_hash = ?",
                    (now_text(), hashed),
                )
        return token

    # --- desk sessions --------------------------------------------------------------------

    def open_session(self, token: Token, ending: str | None = None) -> str:
        """A new session for ``token`` (``ending``, the session the request carried, ends)."""
        secret = new_secret()
        moment = now_text()
        with self._cursor() as db:
            if ending:
                db.run(
                    f"DELETE FROM {self._prefix}desk_sessions WHERE id_hash = ?", (digest(ending),)
                )
            db.run(
                f"INSERT INTO {self._prefix}desk_sessions (id_hash, token_id, created_at, "
                "last_seen_at) VALUES (?, ?, ?, ?)",
                (digest(secret), token.id, moment, moment),
            )
        return secret

    def session(self, secret: str) -> Token | None:
        """The live token behind a live session, else None (an ended session is as none)."""
        hashed = digest(secret)
        with self._cursor() as db:
            rows = db.rows(
                f"SELECT s.created_at, s.last_seen_at, {_columns('t')} "
                f"FROM {self._prefix}desk_sessions s JOIN {self._prefix}api_tokens t "
                "ON t.id = s.token_id WHERE s.id_hash = ?",
                (hashed,),
            )
            if not rows:
                return None
            created, seen, *token_row = rows[0]
            token = Token(*token_row)
            now = datetime.now(UTC)
            ended = (
                token.revoked_at is not None
                or now - _parse(seen) > SESSION_IDLE
                or now - _parse(created) > SESSION_LIFE
            )
            if ended:
                db.run(f"DELETE FROM {self._prefix}desk_sessions WHERE id_hash = ?", (hashed,))
                return None
            if _due(seen):
                db.run(
                    f"UPDATE {self._prefix}desk_sessions SET last_seen_at = ? WHERE id_hash = ?",
                    (now_text(now), hashed),
                )
        return token

    def end_session(self, secret: str) -> None:
        with self._cursor() as db:
            db.run(f"DELETE FROM {self._prefix}desk_sessions WHERE id_hash = ?", (digest(secret),))


def _columns(alias: str) -> str:
    return ", ".join(f"{alias}.{c.strip()}" for c in _TOKEN_COLUMNS.split(","))


def _due(last: str | None) -> bool:
    """Whether a last-use column is to be written now (never written, or a minute old)."""
    return last is None or datetime.now(UTC) - _parse(last) >= TOUCH_EVERY


def check_scope(role: str, scope: str | None) -> None:
    """``--scope`` is for backend tokens only, a legal id ending in one of ``: . _ - ~``."""
    from mjledger.http.ids import id_problem

    if scope is None:
        return
    if role != "backend":
        raise StoreError(f"--scope is for backend tokens only, not {role}", code="bad_parameter")
    problem = id_problem(scope)
    if problem is not None:
        raise StoreError(f"--scope {scope!r}: {problem}", code="bad_parameter")
    if not scope.endswith(SCOPE_ENDS):
        raise StoreError(
            f"--scope {scope!r} must end in one of {' '.join(SCOPE_ENDS)}", code="bad_parameter"
        )


class _Sqlite:
    def __init__(self, db: sqlite3.Connection) -> None:
        self.db = db

    def run(self, statement: str, params: Sequence[Any] = ()) -> None:
        self.db.execute(statement, params)

    def rows(self, statement: str, params: Sequence[Any] = ()) -> list[tuple[Any, ...]]:
        return self.db.execute(statement, params).fetchall()


class _Postgres:
    def __init__(self, cur: Any) -> None:
        self.cur = cur

    def run(self, statement: str, params: Sequence[Any] = ()) -> None:
        self.cur.execute(statement.replace("?", "%s"), params)

    def rows(self, statement: str, params: Sequence[Any] = ()) -> list[tuple[Any, ...]]:
        self.cur.execute(statement.replace("?", "%s"), params)
        return list(self.cur.fetchall())
