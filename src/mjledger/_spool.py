"""Temporary files of the command line: standard input spooled to be read twice, and the one
message a temporary file that cannot be made or written gives."""

from __future__ import annotations

from collections.abc import Iterator
from contextlib import contextmanager
from typing import BinaryIO

from mjledger.errors import MjledgerError


def temporary_problem(exc: OSError) -> MjledgerError:
    """A temporary file that cannot be made or written (a full or missing temporary
    directory): one line naming the directory, not an internal error."""
    import tempfile

    return MjledgerError(
        f"cannot write a temporary file in {tempfile.gettempdir()}: {exc.strerror or exc} "
        "(free some space there, or set $TMPDIR)",
        code="bad_parameter",
    )


@contextmanager
def temporary_space() -> Iterator[None]:
    """:func:`temporary_problem` for every error of the block (only temporary files in it)."""
    try:
        yield
    except OSError as exc:
        raise temporary_problem(exc) from None


@contextmanager
def seekable(stream: BinaryIO) -> Iterator[BinaryIO]:
    """The input as a file that can be read twice: a regular file as it is; standard input or
    a pipe copied to a temporary file first, a block at a time (never held in memory)."""
    import shutil
    import tempfile

    with stream:
        try:
            stream.seek(0)
        except (OSError, ValueError):
            with temporary_space():
                spool = tempfile.TemporaryFile()  # noqa: SIM115 - closed below
                try:
                    shutil.copyfileobj(stream, spool, 1 << 20)
                    spool.seek(0)
                except BaseException:
                    spool.close()
                    raise
            with spool:
                yield spool
            return
        yield stream
