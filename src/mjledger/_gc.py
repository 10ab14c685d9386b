"""Pausing the cyclic garbage collector around work that makes no reference cycles.

The folds build frozen values and plain lists, never cycles. While a fold holds many of them
(every hand of a store in ``replay_all``, say), each collection walks them all again for
nothing: pausing the collector for the call is the difference between a quarter and a third of
the speed of merely reading the rows. Reference counting still frees everything on time; only
cycles made elsewhere meanwhile (another thread) wait for the collector's return.
"""

from __future__ import annotations

import gc
from collections.abc import Iterator
from contextlib import contextmanager


@contextmanager
def gc_paused() -> Iterator[None]:
    """The collector off for the block, back on after it if it was on before."""
    was_enabled = gc.isenabled()
    gc.disable()
    try:
        yield
    finally:
        if was_enabled:
            gc.enable()


def one_command_process() -> None:
    """The collector off while a one-command process imports what it runs; what that made
    (modules, classes, the generated methods of attrs classes: objects that live as long as
    the process) then frozen out of the collector's reach, and the collector back on.

    Imports make tens of thousands of long-lived objects and almost no garbage, and every
    collection they set off walks all of them again (about 4% of a one-hand replay). Frozen
    (``gc.freeze``), they are never walked again by a later collection either, while garbage
    the command itself makes is collected as before (a long-running ``serve`` included).
    """
    gc.disable()


def command_imported() -> None:
    """The end of :func:`one_command_process`'s start-up: the objects made so far frozen, and
    the collector on again."""
    gc.freeze()
    gc.enable()
