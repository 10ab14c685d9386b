"""Pausing the cyclic garbage collector around work that makes no reference cycles.

The folds build frozen values and plain lists, never cycles. While a fold holds many of them
(every hand of a store in ``replay_all``, say), each collection walks them all again for
nothing: pausing the collector for the call is the difference between a quarter and a third of
the speed of merely reading the rows. Reference counting still frees everything on time; only
cycles made elsewhere meanwhile (another thread) wait for the collector's return.
"""

from __future__ import annotations

import gc
from collections.abc import Callable, Iterator
from contextlib import AbstractContextManager, contextmanager


def gc_paused() -> AbstractContextManager[None]:
    """The collector off for the block, back on after it if it was on before."""
    return _paused(_nothing)


# Whether this process runs one command and ends (:func:`one_command_process`).
_one_command: list[bool] = [False]


def command_paused() -> AbstractContextManager[None]:
    """:func:`gc_paused` for a command's whole work; in a one-command process, what the work
    made frozen on the way out, as the imports were (:func:`command_imported`).

    The process ends with the command, so everything the work made lives until then anyway.
    Switched back on with it all young (a 3,000-hand tile log's hands, transfers and the wait
    tables: about 300k tracked objects), the collector walked all of it once more, and again
    as the interpreter shut down, to find no garbage: about a tenth of a ``replay --json`` of
    blood flow. Elsewhere (a test's runner calling the command in its own process) this is
    :func:`gc_paused`.
    """
    return _paused(gc.freeze if _one_command[0] else _nothing)


@contextmanager
def _paused(on_the_way_out: Callable[[], None]) -> Iterator[None]:
    was_enabled = gc.isenabled()
    gc.disable()
    try:
        yield
    finally:
        if was_enabled:
            on_the_way_out()
            gc.enable()


def _nothing() -> None:
    pass


def is_one_command_process() -> bool:
    """Whether :func:`one_command_process` said this process runs one command and ends."""
    return _one_command[0]


def one_command_process() -> None:
    """The collector off while a one-command process imports what it runs; what that made
    (modules, classes, the generated methods of attrs classes: objects that live as long as
    the process) then frozen out of the collector's reach, and the collector back on.

    Imports make tens of thousands of long-lived objects and almost no garbage, and every
    collection they set off walks all of them again (about 4% of a one-hand replay). Frozen
    (``gc.freeze``), they are never walked again by a later collection either, while garbage
    the command itself makes is collected as before (a long-running ``serve`` included).
    """
    _one_command[0] = True
    gc.disable()


def command_imported() -> None:
    """The end of :func:`one_command_process`'s start-up: the objects made so far frozen, and
    the collector on again."""
    gc.freeze()
    gc.enable()
