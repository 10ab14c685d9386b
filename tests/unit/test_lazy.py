"""msgspec's core imported alone (mjledger._lazy) and the names mjledger takes from it
(mjledger._msgspec): the same objects as msgspec's public ones, and a package that any other
importer still finds whole."""

from __future__ import annotations

import ast
import subprocess
import sys
from pathlib import Path

import msgspec
import msgspec.json
import pytest

from mjledger import _lazy, _msgspec
from mjledger.sim.run import simulate

EXAMPLES = Path(__file__).resolve().parents[2] / "examples"


def test_the_names_are_msgspecs_own() -> None:
    assert _msgspec.JSONDecoder is msgspec.json.Decoder
    assert _msgspec.JSONEncoder is msgspec.json.Encoder
    assert _msgspec.json_format is msgspec.json.format
    for name in ("UNSET", "UnsetType", "Meta", "DecodeError", "EncodeError", "ValidationError"):
        assert getattr(_msgspec, name) is getattr(msgspec, name)
    assert _msgspec.defstruct is msgspec.defstruct


@pytest.mark.parametrize("options", [{}, {"name": "key"}, {"default": None, "name": "k"}])
def test_a_field_is_msgspecs_field(options: dict[str, object]) -> None:
    ours, theirs = _msgspec.field(**options), msgspec.field(**options)  # type: ignore[arg-type]
    assert type(ours) is type(theirs)
    for attribute in ("default", "default_factory", "name"):
        assert getattr(ours, attribute) is getattr(theirs, attribute)


def test_nothing_deferred_that_is_imported_or_missing() -> None:
    assert _lazy.deferred("msgspec") is None  # imported already: left as it is
    assert _lazy.deferred("mjledger_no_such_module") is None
    assert "mjledger_no_such_module" not in sys.modules
    _lazy.core_alone()  # msgspec imported: nothing to do
    assert sys.modules["msgspec"] is msgspec


# Run in a fresh interpreter: msgspec's core alone, then what a later importer sees.
_ALONE_THEN_WHOLE = """
import sys
from mjledger._lazy import core_alone
core_alone()
alone = sorted(m for m in sys.modules if m.startswith(("msgspec", "typing_extensions")))
import msgspec
untouched = "msgspec.json" not in sys.modules
Point = msgspec.defstruct("Point", [("x", int)])  # a name it had not got: the rest runs
import typing_extensions
names = sorted(vars(msgspec))
print(repr((alone, untouched, names, msgspec.json.decode(b'{"x": 1}', type=Point).x,
            typing_extensions.__name__)))
"""

_WHOLE = "import msgspec\nprint(repr(sorted(vars(msgspec))))\n"


def _python(code: str) -> object:
    out = subprocess.run(
        [sys.executable, "-c", code], capture_output=True, text=True, check=True
    ).stdout
    return ast.literal_eval(out.strip().splitlines()[-1])


def test_the_core_alone_then_the_whole_package_when_asked() -> None:
    """After :func:`core_alone` only the core and its own helpers are loaded (no
    typing_extensions); asked for a name, the package runs the rest of itself and has what a
    plain ``import msgspec`` has; typing_extensions still imports."""
    alone, untouched, names, x, extensions = _python(_ALONE_THEN_WHOLE)  # type: ignore[misc]
    assert alone == ["msgspec", "msgspec._core", "msgspec._utils"]
    assert untouched
    assert names == _python(_WHOLE)
    assert (x, extensions) == (1, "typing_extensions")


def _console(args: list[str]) -> tuple[bytes, bytes, int]:
    done = subprocess.run([sys.executable, "-m", "mjledger", *args], capture_output=True)
    return done.stdout, done.stderr, done.returncode


@pytest.mark.parametrize("ruleset", ["sichuan", "hongkong"])
@pytest.mark.parametrize("spoil", ["", "cut", "garbage", "bad id"])
def test_replay_json_with_the_core_alone_as_with_the_whole_package(
    ruleset: str, spoil: str, tmp_path: Path
) -> None:
    """The console script's ``replay --json`` (msgspec's core alone) gives click's bytes and
    status (``--`` takes the line to click, which imports msgspec whole) on simulated tile
    logs, whole or spoiled."""
    (match,) = simulate(ruleset, hands=4, seed=7)
    data = match.text()
    if spoil == "cut":
        data = data[: len(data) * 2 // 3]
    elif spoil == "garbage":
        data += '{"type": "hand_started"\n'
    elif spoil == "bad id":
        data = data.replace('"players": ["', '"players": ["\\u0007', 1)
    log = tmp_path / "log.jsonl"
    log.write_text(data, encoding="utf-8")
    by_click = _console(["replay", "--json", "--", str(log)])
    assert _console(["replay", "--json", str(log)]) == by_click


# Run in a fresh interpreter: attrs imported as the console script imports it, its validators
# deferred; then what a plug-in using them sees, against a plain import of attrs.
_VALIDATORS_ASKED = """
import sys
from mjledger._lazy import deferred
deferred("attr.validators")
deferred("attrs.validators")
import attr, attrs
unrun = "instance_of" not in vars(attr.validators) and "instance_of" not in vars(attrs.validators)
@attrs.frozen
class Point:
    x: int = attrs.field(validator=attrs.validators.instance_of(int))
try:
    Point("1")
    refused = None
except TypeError as exc:
    refused = str(exc)
from attrs.validators import in_
print(repr((unrun, sorted(vars(attr.validators)), sorted(vars(attrs.validators)), refused,
            attrs.validators.in_ is in_ is attr.validators.in_)))
"""

_VALIDATORS_PLAIN = """
import attr, attrs
@attrs.frozen
class Point:
    x: int = attrs.field(validator=attrs.validators.instance_of(int))
try:
    Point("1")
    refused = None
except TypeError as exc:
    refused = str(exc)
print(repr((sorted(vars(attr.validators)), sorted(vars(attrs.validators)), refused)))
"""


def test_deferred_validators_run_when_asked_as_a_plain_import_has_them() -> None:
    unrun, ours, ours_re_exported, refused, same = _python(_VALIDATORS_ASKED)  # type: ignore[misc]
    assert unrun
    assert (ours, ours_re_exported, refused) == _python(_VALIDATORS_PLAIN)
    assert refused is not None
    assert same


_REPORT_UNRUN = (
    "import atexit, sys\n"
    "unrun = lambda: [m for m in ('attr.validators', 'attrs.validators')\n"
    "                 if m in sys.modules and 'instance_of' not in vars(sys.modules[m])]\n"
    "atexit.register(lambda: print(repr(unrun()), file=sys.stderr))\n"
    "sys.argv = ['mjledger', *sys.argv[1:]]\n"
    "from mjledger._console import run\n"
    "run('python -m mjledger')\n"
)


def test_replay_json_runs_no_validator_module_of_attrs(tmp_path: Path) -> None:
    """The console script's ``replay --json`` of a tile log never runs attrs' validators'
    modules (mjledger uses none of them): they stay deferred to its end."""
    (match,) = simulate("hongkong", hands=3, seed=2)
    log = tmp_path / "log.jsonl"
    log.write_text(match.text(), encoding="utf-8")
    done = subprocess.run(
        [sys.executable, "-c", _REPORT_UNRUN, "replay", "--json", str(log)],
        capture_output=True,
        text=True,
        check=True,
    )
    assert ast.literal_eval(done.stderr.strip().splitlines()[-1]) == [
        "attr.validators",
        "attrs.validators",
    ]
