"""Files the command line writes (``report --html``, ``simulate -o``): never over data.

An output option names a file to write, and a typo there must not cost a store: no output
replaces the store in use, its read models, a log the command reads, or any SQLite database
(not even with ``--force``); another file that exists is replaced only with ``--force`` (the
rule ``keygen`` follows for keys). A device such as ``/dev/stdout`` is written, not replaced.
A failed write says which file it was.
"""

from __future__ import annotations

import os
import stat
import tempfile
from collections.abc import Callable, Iterable
from pathlib import Path
from typing import Any, TypeVar

import click

from mjledger.errors import MjledgerError

F = TypeVar("F", bound=Callable[..., Any])
SIDE_FILES = ("-wal", "-shm", "-journal")

force_option = click.option(
    "--force", is_flag=True, help="Replace the output file if it exists (never a store or a log)."
)


def store_files(store: str | None) -> tuple[Path, ...]:
    """The files of the store a command uses: the SQLite file and its read models."""
    from mjledger.store.location import SqliteStore, store_location
    from mjledger.store.views import views_path

    location = store_location(store)
    if not isinstance(location, SqliteStore):
        return ()
    return (location.path, views_path(location.path))


def _is_sqlite(path: Path) -> bool:
    from mjledger.store.files import SQLITE_HEADER

    try:
        with path.open("rb") as f:
            return f.read(len(SQLITE_HEADER)) == SQLITE_HEADER
    except OSError:
        return False


def _same(path: Path, other: Path) -> bool:
    try:
        return os.path.samefile(path, other)
    except OSError:
        return False


def _database_beside(path: Path) -> Path | None:
    """The database a ``-wal``, ``-shm`` or ``-journal`` file belongs to, if it is one."""
    for suffix in SIDE_FILES:
        if path.name.endswith(suffix):
            owner = path.with_name(path.name.removesuffix(suffix))
            if _is_sqlite(owner):
                return owner
    return None


def check_output(path: Path, *, force: bool, keep: Iterable[Path] = ()) -> None:
    """Refuse to write ``path`` over data: a file in ``keep`` (the store in use, its read
    models, the logs read), a SQLite database or one of its side files; or over any other
    existing file without ``force``."""
    try:
        mode = path.stat().st_mode
    except OSError:
        return  # not there (or not reachable): the write itself says what is wrong
    for kept in keep:
        if _same(path, kept):
            raise MjledgerError(
                f"not writing over {path}: the command reads it", code="bad_parameter"
            )
    if _is_sqlite(path) or _database_beside(path) is not None:
        raise MjledgerError(
            f"not writing over {path}: it is a SQLite database", code="bad_parameter"
        )
    if stat.S_ISDIR(mode):
        raise MjledgerError(f"cannot write {path}: it is a directory", code="bad_parameter")
    if stat.S_ISREG(mode) and not force:
        raise MjledgerError(
            f"{path} exists already; give --force to replace it", code="bad_parameter"
        )


def write_output(path: Path, text: str, *, force: bool, keep: Iterable[Path] = ()) -> None:
    """Write ``text`` to ``path`` (UTF-8) once :func:`check_output` allows it; a file that is
    not there is created exclusively, so nothing made in between is replaced."""
    check_output(path, force=force, keep=keep)
    mode = "w" if path.exists() else "x"
    try:
        with path.open(mode, encoding="utf-8") as f:
            f.write(text)
    except FileExistsError:
        raise MjledgerError(
            f"{path} exists already; give --force to replace it", code="bad_parameter"
        ) from None
    except OSError as exc:
        raise MjledgerError(
            f"cannot write {path}: {exc.strerror or exc}", code="bad_parameter"
        ) from None


def write_output_pieces(
    path: Path, pieces: Iterable[str], *, force: bool, keep: Iterable[Path] = ()
) -> None:
    """Write the text ``pieces`` make up to ``path`` as :func:`write_output` writes a text,
    without holding it whole: into a new file beside ``path``, moved into place once the last
    piece is written, so that an error raised while the pieces are made leaves ``path`` as it
    was. A device, a link or a file of several links is written as before, the pieces joined."""
    check_output(path, force=force, keep=keep)
    try:
        was = path.lstat()
    except OSError:
        was = None
    if was is not None and not (stat.S_ISREG(was.st_mode) and was.st_nlink == 1):
        write_output(path, "".join(pieces), force=force, keep=keep)
        return
    try:
        fd, part = tempfile.mkstemp(dir=path.parent, prefix=f".{path.name}.", suffix=".part")
    except OSError as exc:
        raise MjledgerError(
            f"cannot write {path}: {exc.strerror or exc}", code="bad_parameter"
        ) from None
    try:
        with open(fd, "w", encoding="utf-8") as f:
            os.fchmod(fd, stat.S_IMODE(was.st_mode) if was is not None else _new_file_mode())
            for piece in pieces:
                f.write(piece)
        _move_into_place(part, path, replace=was is not None)
    except OSError as exc:
        raise MjledgerError(
            f"cannot write {path}: {exc.strerror or exc}", code="bad_parameter"
        ) from None
    finally:
        if os.path.lexists(part):
            os.unlink(part)


def _new_file_mode() -> int:
    """The mode ``open(path, "x")`` gives a new file: 0o666 less the process's umask."""
    umask = os.umask(0o022)
    os.umask(umask)
    return 0o666 & ~umask


def _move_into_place(part: str, path: Path, *, replace: bool) -> None:
    """``part`` becomes ``path``: over the file there with ``replace``, else only where no
    file has appeared in between (a hard link, made exclusively)."""
    if replace:
        os.replace(part, path)
        return
    try:
        os.link(part, path)
    except FileExistsError:
        raise MjledgerError(
            f"{path} exists already; give --force to replace it", code="bad_parameter"
        ) from None
    except OSError:  # a file system without hard links
        if path.exists():
            raise MjledgerError(
                f"{path} exists already; give --force to replace it", code="bad_parameter"
            ) from None
        os.replace(part, path)
