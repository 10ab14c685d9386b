"""``mjledger replay --json LOG``, the command scripts run most, run without click.

Importing click and parsing a command line with it was about a tenth of the instructions of
``replay --json`` of a whole Hong Kong match. This module is the command's one body
(:func:`replay_json`, which click's ``replay`` runs too) and its output's spool, free of
click; :func:`run` takes the command line ``replay --json LOG`` (or ``replay LOG --json``) as
the console script is given it, and runs that body as click's group would: the same output,
the same refusal (``--json``'s document on standard output, one line on standard error,
status 2), the same statuses of a reader gone, an interrupt or an internal error
(:mod:`mjledger.cli.exits`). Anything else, or a ``LOG`` that cannot be opened (click says
why, in its usage error), goes to click as before: nothing has been written by then.
``tests/cli/test_replay_json_direct.py`` holds the two to the same bytes and statuses.
"""

from __future__ import annotations

import atexit
import io
import os
import sys
from collections.abc import Callable, Iterable, Iterator, Sequence
from contextlib import contextmanager
from typing import IO, TYPE_CHECKING, BinaryIO, Final, NoReturn

from mjledger._command_table import DEBUG_ENV
from mjledger._gc import command_imported, command_paused, is_one_command_process
from mjledger.errors import MjledgerError

if TYPE_CHECKING:
    from mjledger.log.events import Event

# Output held in memory before it goes to a temporary file: a short log's output needs no
# file (nor the tempfile module at start-up), a long one is never held whole.
SPOOL_IN_MEMORY: Final = 1 << 22


def run(args: Sequence[str]) -> bool:
    """Run ``mjledger ARGS`` here if it is ``replay --json LOG`` and LOG opens (the process
    then exits with the command's status); False, having done nothing, for click to run."""
    name = _log_name(args)
    if name is None or os.name == "nt" or _completing() or _debugging():
        return False
    log = _opened(name)
    if log is None:
        return False
    # What the command runs, imported while the collector is paused for the start-up
    # (mjledger._gc); then the collector is back on for the command. msgspec's core is
    # all of msgspec the command uses: its package's other modules are left unimported.
    from mjledger._lazy import core_alone

    core_alone()
    import mjledger.fold.stream
    import mjledger.log.reader  # noqa: F401

    command_imported()
    try:
        try:
            replay_json(log)
            sys.stdout.flush()  # a broken pipe shows here, not in the interpreter's last flush
        except MjledgerError as exc:
            from mjledger.cli.exits import refuse

            refuse(exc, as_json=True)
        except BaseException as exc:
            from mjledger.cli.exits import ended

            ended(exc, debug=False)
    except SystemExit as done:
        exit_now(done)
    exit_now(SystemExit(0))  # as the group ends a command that returned


def exit_now(done: SystemExit) -> NoReturn:
    """End the process with ``done``'s status, as the interpreter ends it but for tearing
    down its objects: in a one-command process (the console script) the exit functions run
    (the kept code saved), standard output and error are flushed, and the process ends
    there. The interpreter's teardown frees every object one by one for nothing, about 2 %
    of a short ``replay --json``. Anything unusual is left to the interpreter as before
    (``done`` raised): a status other than 0-255, a thread still running, a flush that fails
    (the interpreter then reports it, as it always has), or a process that goes on after the
    command (a test calling :func:`run`)."""
    status = 0 if done.code is None else done.code
    run_exit_functions = getattr(atexit, "_run_exitfuncs", None)
    if (
        not is_one_command_process()
        or type(status) is not int
        or not 0 <= status <= 255
        or run_exit_functions is None
        or _threads_running()
    ):
        raise done
    run_exit_functions()  # as the interpreter runs them (an error in one is printed, not raised)
    try:
        sys.stdout.flush()
        sys.stderr.flush()
    except BaseException:
        raise done from None  # written again, and reported, by the interpreter's own flush
    os._exit(status)


def _threads_running() -> bool:
    """Whether a thread other than this one, not a daemon, is still running (the interpreter
    would wait for it)."""
    threading = sys.modules.get("threading")
    if threading is None:
        return False
    current = threading.current_thread()
    return any(t is not current and t.is_alive() and not t.daemon for t in threading.enumerate())


def _log_name(args: Sequence[str]) -> str | None:
    """LOG of ``replay --json LOG`` or ``replay LOG --json``; None for any other line (an
    option, ``--``, a second argument: click's to read)."""
    if len(args) != 3 or args[0] != "replay":
        return None
    rest = [a for a in args[1:] if a != "--json"]
    if len(rest) != 1:
        return None
    name = rest[0]
    return name if name == "-" or not name.startswith("-") else None


def _completing() -> bool:
    """Whether click's shell completion was asked for (``_PROG_COMPLETE`` set)."""
    return any(key.startswith("_") and key.endswith("_COMPLETE") for key in os.environ)


def _debugging() -> bool:
    """Whether an internal error's traceback was asked for: click's run then shows it, with
    the frames it has always shown."""
    return os.environ.get(DEBUG_ENV, "") not in ("", "0")


def _opened(name: str) -> BinaryIO | None:
    """LOG opened as ``click.File("rb")`` opens it (``-``: standard input's bytes), or None."""
    if name == "-":
        stdin: BinaryIO | None = getattr(sys.stdin, "buffer", None)
        return stdin
    try:
        return open(name, "rb")
    except OSError:
        return None


def replay_json(log: BinaryIO) -> None:
    """``replay --json``: the log read as it is folded, its output written only once the
    whole log was accepted (a refused log prints nothing of its replay)."""
    with log, command_paused():
        from mjledger.fold.stream import replay_json_parts

        with phases() as step:
            spool = spooled(replay_json_parts(events_of(log, step)))
        with spool:
            copy_out(spool)


def events_of(
    log: BinaryIO, step: Callable[[str, int | None, int | None], None]
) -> Iterator[tuple[int, Event]]:
    """The numbered events of ``log``, read as they are asked for, the progress ``step``
    told of them."""
    from mjledger.log.reader import iter_log_file

    step("replaying", None, None)  # the log is read as it is folded
    events = iter_log_file(log)
    if step is not quiet:  # a progress bar: the line reached, every few events
        events = counted(events, lambda line: step("replaying", line, None))
    return events


def counted(
    events: Iterator[tuple[int, Event]], step: Callable[[int], None], every: int = 2000
) -> Iterator[tuple[int, Event]]:
    """``events`` as they are, reporting the line reached every ``every`` events."""
    for n, (line, event) in enumerate(events, 1):
        if n % every == 0:
            step(line)
        yield line, event


def quiet(_label: str, _done: int | None, _total: int | None) -> None:
    """The progress :func:`phases` shows where standard error is not a terminal: none (a
    command may then skip counting what it would report)."""


@contextmanager
def phases() -> Iterator[Callable[[str, int | None, int | None], None]]:
    """A labelled progress bar on standard error (on a terminal only): ``step(label, done,
    total)`` names the phase under way and how far it is."""
    if not sys.stderr.isatty():
        yield quiet
        return
    from rich.progress import Progress

    from mjledger.cli.render import TerminalConsole

    with Progress(console=TerminalConsole(stderr=True), transient=True) as bar:
        task = bar.add_task("", total=None)

        def step(label: str, done: int | None, total: int | None) -> None:
            bar.update(task, description=label, completed=done or 0, total=total)

        yield step


def spooled(parts: Iterable[bytes], end: bytes = b"\n") -> IO[bytes]:
    """``parts`` held until all of them were made, to be copied to standard output only then:
    a refused log (an error raised part way) prints nothing, yet the output is never held in
    memory whole (beyond :data:`SPOOL_IN_MEMORY` bytes it is written to a temporary file)."""
    from mjledger._spool import temporary_problem, temporary_space

    spool: IO[bytes] = io.BytesIO()
    try:
        for part in parts:  # the parts are made here: only the writes are the spool's
            if isinstance(spool, io.BytesIO) and spool.tell() + len(part) > SPOOL_IN_MEMORY:
                spool = to_temporary_file(spool)
            try:
                spool.write(part)
            except OSError as exc:
                raise temporary_problem(exc) from None
        with temporary_space():
            spool.write(end)
            spool.flush()
    except BaseException:
        spool.close()
        raise
    spool.seek(0)
    return spool


def to_temporary_file(held: io.BytesIO) -> IO[bytes]:
    """What ``held`` holds, moved to a temporary file (``held`` closed), to be written on."""
    import tempfile

    from mjledger._spool import temporary_space

    with temporary_space(), held:
        spool = tempfile.TemporaryFile()  # noqa: SIM115 - the caller copies it out and closes it
        try:
            spool.write(held.getvalue())
        except BaseException:
            spool.close()
            raise
    return spool


def copy_out(spool: IO[bytes], block: int = 1 << 16) -> None:
    """The spool on standard output, a block at a time (as ``shutil.copyfileobj`` copies)."""
    sys.stdout.flush()
    out = sys.stdout.buffer
    while data := spool.read(block):
        out.write(data)
    out.flush()
