"""Generated code is compiled in one place and its source registered with linecache, so
tracebacks through it show its lines and ``inspect.getsource`` finds it."""

from __future__ import annotations

import inspect
import traceback

import pytest

from mjledger._codegen import compile_function
from mjledger._replace import replacer
from mjledger.fold.hand import HandState
from mjledger.log.events import Discarded, KongDeclared
from mjledger.log.fast import ObjectDecoder
from mjledger.store.records import stored_form_of


def test_a_traceback_through_generated_code_shows_its_line() -> None:
    source = "def half(x):\n    return 1 // x\n"
    half = compile_function("half", source, {}, what="a test")
    with pytest.raises(ZeroDivisionError) as raised:
        half(0)
    shown = "".join(traceback.format_tb(raised.tb))
    assert "<mjledger generated a test #" in shown
    assert "return 1 // x" in shown
    assert inspect.getsource(half) == source


def test_each_compiled_source_has_a_file_of_its_own() -> None:
    one = compile_function("f", "def f():\n    return 1\n", {}, what="same")
    two = compile_function("f", "def f():\n    return 2\n", {}, what="same")
    assert one.__code__.co_filename != two.__code__.co_filename
    assert (one(), two()) == (1, 2)
    assert "return 2" in inspect.getsource(two)


def test_the_three_generators_compile_through_it() -> None:
    """The fold's copies, the fast decoder's builders and the stored forms."""
    form = stored_form_of(KongDeclared)
    assert "stored form of KongDeclared" in form.__code__.co_filename
    assert "def form(e):" in inspect.getsource(form)
    assert form(KongDeclared(player="bo", kind="exposed", from_="cy")) == {
        "type": "kong_declared",
        "player": "bo",
        "kind": "exposed",
        "from": "cy",
    }
    copy = replacer(HandState)
    assert "replace of HandState" in copy.__code__.co_filename
    decoded = ObjectDecoder(Discarded)(b'{"type":"discarded","player":"bo","tile":"5m"}')
    assert decoded == (Discarded(player="bo", tile="5m"), ())
    build = ObjectDecoder(Discarded)._build
    assert "build of Discarded" in build.__code__.co_filename
    assert "def build(s):" in inspect.getsource(build)
