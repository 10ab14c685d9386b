"""The console script's ``replay --json`` ends its process at once (mjledger._replay_json
``exit_now``): the same status, output and exit functions as the interpreter's own ending,
which it falls back on for anything unusual."""

from __future__ import annotations

import subprocess
import sys

import pytest

from mjledger import _replay_json

# Ends like a command: output written and not flushed, an exit function, then the status,
# either by exit_now (argv[1] == "now") or by the interpreter (sys.exit).
_ENDING = """
import atexit, sys, threading, time
from mjledger._gc import one_command_process
from mjledger._replay_json import exit_now
how, status, extra = sys.argv[1], sys.argv[2], sys.argv[3]
one_command_process()
atexit.register(lambda: print("exit function ran", file=sys.stderr))
sys.stdout.write("unflushed output")
if extra == "thread":  # the interpreter waits for it, and so does exit_now's fallback
    threading.Thread(target=lambda: (time.sleep(0.2), print(" thread done"))).start()
if extra == "teardown":  # an object the interpreter's teardown frees: its __del__ says so
    class Probe:
        def __del__(self):
            sys.stderr.write(" torn down")
    probe = Probe()
if extra == "closed reader":
    import os
    os.close(1)  # the flush fails: the interpreter reports it
code = None if status == "none" else int(status) if status.lstrip("-").isdigit() else status
if how == "now":
    exit_now(SystemExit(code))
sys.exit(code)
"""


def _ended(how: str, status: str, extra: str = "") -> tuple[bytes, bytes, int]:
    done = subprocess.run(
        [sys.executable, "-c", _ENDING, how, status, extra], capture_output=True, check=False
    )
    return done.stdout, done.stderr, done.returncode


@pytest.mark.parametrize("status", ["0", "2", "141", "none", "300", "-1", "a message"])
@pytest.mark.parametrize("extra", ["", "thread", "closed reader"])
def test_exit_now_ends_as_the_interpreter_does(status: str, extra: str) -> None:
    assert _ended("now", status, extra) == _ended("interpreter", status, extra)


def test_exit_now_ends_a_one_command_process_only() -> None:
    """In a process that goes on after the command (a test's), it raises ``done`` as
    ``sys.exit`` would."""
    done = SystemExit(2)
    with pytest.raises(SystemExit) as raised:
        _replay_json.exit_now(done)
    assert raised.value is done


def test_exit_now_skips_the_teardown_and_nothing_else() -> None:
    """What it leaves out is the teardown of the objects alone (an object's ``__del__``
    still running as the process ends): the guard of the test above can fail."""
    now, interpreter = _ended("now", "0", "teardown"), _ended("interpreter", "0", "teardown")
    assert interpreter[1].endswith(b" torn down")
    assert now == (interpreter[0], interpreter[1].removesuffix(b" torn down"), 0)
