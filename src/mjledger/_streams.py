"""Standard output when its reader has gone (``mjledger … | head -1``): a process that stops
writing then must not be told so once more by the interpreter's last flush."""

from __future__ import annotations

import os
import sys


def silence_stdout() -> None:
    """Point standard output at /dev/null, so the interpreter's last flush finds no broken
    pipe to complain about."""
    try:
        devnull = os.open(os.devnull, os.O_WRONLY)
        os.dup2(devnull, sys.stdout.fileno())
    except (OSError, ValueError, AttributeError):  # not a real file (a test runner's capture)
        pass
