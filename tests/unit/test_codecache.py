"""The kept generated code (mjledger/_codecache): what it gives back is what ``compile`` makes
of the same source, read back from its file, under another hash salt, and in a process of
its own; a file it cannot trust is ignored."""

from __future__ import annotations

import json
import os
import re
import subprocess
import sys
import tempfile
import types
import warnings
from pathlib import Path
from typing import Any

import attrs
import pytest
from attr import _make
from hypothesis import given, settings
from hypothesis import strategies as st

from mjledger import _codecache
from mjledger._codecache import CodeCache, future_flags, salt_span

FLAGS = future_flags(_make._compile_and_eval.__code__)

names = st.from_regex(r"[a-z][a-z0-9_]{0,8}", fullmatch=True).filter(
    lambda n: n not in {"self", "def", "if", "in", "is", "or", "and", "not", "for", "as"}
)


def attrs_sources(fields: list[str], **options: Any) -> list[tuple[str, str]]:
    """The (source, file name) pairs attrs compiles to make a class of ``fields``."""
    seen: list[tuple[str, str]] = []
    original = _make._compile_and_eval

    def recording(script: str, globs: Any, locs: Any = None, filename: str = "") -> None:
        seen.append((script, filename))
        original(script, globs, locs, filename)

    _make._compile_and_eval = recording  # type: ignore[assignment]
    try:
        attrs.define(type("Made", (), {f: attrs.field(default=0) for f in fields}), **options)
    finally:
        _make._compile_and_eval = original
    return seen


def fresh(source: str, filename: str) -> types.CodeType:
    code: types.CodeType = compile(source, filename, "exec", FLAGS, dont_inherit=True)
    return code


def resalted(source: str, salt: int) -> str:
    found = salt_span(source)
    assert found is not None
    return source[: found[0]] + str(salt) + source[found[1] :]


def same_shape(salt: int, draw: int) -> int:
    """Another salt as long as ``salt`` is written (of either sign), from ``draw``."""
    length = len(str(salt))
    negative = draw % 2 == 1 and length > 1
    digits = length - 1 if negative else length
    low = 10 ** (digits - 1) if digits > 1 else 0
    magnitude = low + (draw // 2) % (10**digits - low)
    return -magnitude if negative else magnitude


@settings(max_examples=40, deadline=None)
@given(
    st.lists(names, min_size=1, max_size=6, unique=True),
    st.fixed_dictionaries(
        {"frozen": st.booleans(), "order": st.booleans(), "slots": st.booleans()},
        optional={"unsafe_hash": st.booleans(), "eq": st.booleans()},
    ),
    st.integers(-(2**63), 2**63 - 1),
    st.integers(0, 2**64),
)
def test_kept_code_is_what_compile_makes(
    fields: list[str], options: dict[str, Any], any_salt: int, draw: int
) -> None:
    options = {**options, "order": options["order"] and options.get("eq", True)}
    sources = attrs_sources(fields, **options)
    assert sources
    with tempfile.TemporaryDirectory() as directory:
        path = os.path.join(directory, "code.bin")
        first = CodeCache(path)
        for source, filename in sources:
            code = first.compile(source, filename, FLAGS)
            assert _codecache._same(code, fresh(source, filename))
        assert first.save()
        again = CodeCache(path)  # a later process: every source found in the file
        for source, filename in sources:
            kept = again.compile(source, filename, FLAGS)
            assert _codecache._same(kept, fresh(source, filename))
            found = salt_span(source)
            if found is not None:  # the same class under another PYTHONHASHSEED
                salt = int(source[found[0] : found[1]])
                other = resalted(source, same_shape(salt, draw))
                assert _codecache._same(
                    again.compile(other, filename, FLAGS), fresh(other, filename)
                )
        assert not again.added  # nothing compiled anew: the kept code served every salt
        for source, filename in sources:  # any salt at all: kept or compiled, the same
            if salt_span(source) is not None:
                other = resalted(source, any_salt)
                assert _codecache._same(
                    again.compile(other, filename, FLAGS), fresh(other, filename)
                )


def test_hash_methods_carry_a_salt_and_it_is_swapped() -> None:
    """The guard of the property above can fail: attrs' ``__hash__`` holds a salt, and a kept
    code object returned without its salt swapped is not what compile makes."""
    (source, filename), *_ = attrs_sources(["a", "b"], frozen=True)
    found = salt_span(source)
    assert found is not None
    cache = CodeCache(os.devnull)
    cache.compile(source, filename, FLAGS)
    other = resalted(source, 12345)
    kept = cache.compile(other, filename, FLAGS)
    assert _codecache._same(kept, fresh(other, filename))
    salt = int(source[found[0] : found[1]])
    unswapped = _codecache._salted(kept, 12345, salt)
    assert not _codecache._same(unswapped, fresh(other, filename))


def test_a_file_it_cannot_trust_is_ignored(tmp_path: Path) -> None:
    (source, filename), *_ = attrs_sources(["a"], frozen=True)
    path = tmp_path / "code.bin"
    cache = CodeCache(str(path))
    cache.compile(source, filename, FLAGS)
    assert cache.save()
    data = path.read_bytes()
    assert CodeCache(str(path)).entries
    for spoiled in (
        data[:-5],
        data.replace(_codecache.magic(), b"\0\0\r\n", 1),
        b"garbage",
        b"",
        data[: data.index(b"\n") + 1] + b"x" + data[data.index(b"\n") + 2 :],
    ):
        path.write_bytes(spoiled)
        assert CodeCache(str(path)).entries == {}
        code = CodeCache(str(path)).compile(source, filename, FLAGS)
        assert _codecache._same(code, fresh(source, filename))


def test_an_unwritable_cache_keeps_nothing_and_still_compiles(tmp_path: Path) -> None:
    blocked = tmp_path / "file"
    blocked.write_text("not a directory")
    cache = CodeCache(str(blocked / "mjledger" / "code.bin"))
    (source, filename), *_ = attrs_sources(["a"])
    assert _codecache._same(cache.compile(source, filename, FLAGS), fresh(source, filename))
    assert not cache.save()


PROBE = """
import builtins, json, sys
original = builtins.compile
from mjledger import _codecache
cache = _codecache.install(sys.argv[1])
import attr
from attr import _make
from mjledger.log import events
patterns = [k for k in cache.used if k[1] == _codecache._pattern_file()]
code = [k for k in cache.used if k not in patterns]
kinds = sorted({k[1].split()[-1] for k in code})
print(json.dumps({
    "restored": builtins.compile is original,
    "used": len(code),
    "patterns": len(patterns),
    "added": cache.added,
    "kinds": kinds,
    "hash": repr(events.HandStarted.__hash__.__code__.co_consts),
}))
"""


def test_a_process_reads_back_what_another_kept(tmp_path: Path) -> None:
    """Two processes under different hash seeds: the second compiles nothing of attrs' own
    classes or mjledger's events, ``compile`` is itself again after attrs' import, and the
    kept code's salt is the second process's own."""
    path = str(tmp_path / "code.bin")

    def run(seed: str) -> dict[str, Any]:
        env = {**os.environ, "PYTHONHASHSEED": seed}
        out = subprocess.run(
            [sys.executable, "-c", PROBE, path], capture_output=True, text=True, env=env
        )
        assert out.returncode == 0, out.stderr
        found: dict[str, Any] = json.loads(out.stdout)
        return found

    first = run("1")
    assert first["restored"]
    assert first["added"]
    assert first["patterns"] == 0  # the patterns it compiled are kept as it ends
    second = run("1")
    assert second["restored"]
    assert not second["added"]
    assert second["used"] == first["used"] > 20
    assert second["patterns"] >= 9  # platform's, as attrs imports it, and mjledger's
    assert "attr._make.Attribute>" in second["kinds"]  # attrs' own classes' too
    assert "mjledger.log.events.HandStarted>" in second["kinds"]
    other = run("2")  # another seed: salts of other lengths compiled, the rest read back
    assert other["restored"]
    assert other["used"] == first["used"]
    assert run("2")["hash"] == other["hash"] != first["hash"]  # each seed's own salt


@pytest.mark.parametrize("seed", ["3", "4"])
def test_the_console_script_keeps_its_code_and_answers_the_same(seed: str, tmp_path: Path) -> None:
    """``replay --json`` of a simulated tile log through the console script, with an empty
    code cache and then with the kept one: the same bytes."""
    from mjledger.sim.run import simulate

    (match,) = simulate("hongkong", hands=4, seed=int(seed))
    log = tmp_path / "log.jsonl"
    log.write_text(match.text(), encoding="utf-8")
    env = {**os.environ, "XDG_CACHE_HOME": str(tmp_path / "cache"), "PYTHONHASHSEED": seed}
    outputs = [
        subprocess.run(
            [sys.executable, "-m", "mjledger", "replay", "--json", str(log)],
            capture_output=True,
            env=env,
            check=True,
        ).stdout
        for _ in range(2)
    ]
    assert outputs[0] == outputs[1]
    kept = tmp_path / "cache" / "mjledger" / f"code-{sys.implementation.cache_tag}-replay.bin"
    assert kept.exists()  # a file of the command's own
    plain = subprocess.run(
        [
            sys.executable,
            "-c",
            "from mjledger.cli import main; main()",
            "replay",
            "--json",
            str(log),
        ],
        capture_output=True,
        env=env,
        check=True,
    ).stdout
    assert outputs[0] == plain  # click's command, no cache installed


def test_the_future_statements_keep_entries_apart() -> None:
    """The same source under other inherited flags (``from __future__ import annotations``,
    as ``mjledger._codegen`` has and a caller without it has not) is other code."""
    import __future__

    source, filename = "def f(x: int) -> None:\n    pass\n", "<generated f>"
    cache = CodeCache(os.devnull)
    for flags in (__future__.annotations.compiler_flag, 0, __future__.annotations.compiler_flag):
        code = cache.compile(source, filename, flags)
        assert _codecache._same(code, compile(source, filename, "exec", flags, dont_inherit=True))


def test_a_word_that_names_no_command_names_no_file(tmp_path: Path) -> None:
    """Only a command of the table names a cache file: any other word of the command line
    (a path, say) is never made part of a file name."""
    env = {**os.environ, "XDG_CACHE_HOME": str(tmp_path / "cache")}
    out = subprocess.run(
        [sys.executable, "-m", "mjledger", "../../escaped", "--json"], capture_output=True, env=env
    )
    assert out.returncode == 2  # click: no such command
    made = sorted(p.relative_to(tmp_path).as_posix() for p in tmp_path.rglob("*") if p.is_file())
    assert made in ([], [f"cache/mjledger/code-{sys.implementation.cache_tag}.bin"])


# --- compiled patterns ----------------------------------------------------------------------

_ATOMS = st.sampled_from(
    ["a", "b", "ab", ".", r"\d", r"\w", r"\s", r"\b", "[a-c]", "[^b]", "[a-]", r"\.", "é", "^", "$"]
)


def _regexes() -> st.SearchStrategy[str]:
    """Random well-formed regular expressions: groups (named, not capturing, lookahead),
    alternation, quantifiers (lazy too), back references to a named group."""

    def grow(inner: st.SearchStrategy[str]) -> st.SearchStrategy[str]:
        return st.one_of(
            st.tuples(inner, inner).map("".join),
            st.tuples(inner, inner).map("|".join),
            inner.map(lambda r: f"({r})"),
            inner.map(lambda r: f"(?:{r})"),
            inner.map(lambda r: f"(?={r})"),
            st.tuples(names, inner).map(lambda p: f"(?P<{p[0]}>{p[1]})(?P={p[0]})"),
            st.tuples(inner, st.sampled_from(["*", "+", "?", "*?", "{1,3}", "{2}"])).map(
                lambda p: f"(?:{p[0]}){p[1]}"
            ),
        )

    return st.recursive(_ATOMS, grow, max_leaves=8)


_FLAGS = st.sets(st.sampled_from([re.IGNORECASE, re.MULTILINE, re.DOTALL, re.VERBOSE])).map(
    lambda chosen: sum(int(flag) for flag in chosen)
)


def _same_pattern(kept: re.Pattern[Any] | None, made: re.Pattern[Any]) -> None:
    assert kept is not None
    assert kept == made  # the flags, the pattern and the compiled program
    assert (kept.pattern, kept.flags, kept.groups) == (made.pattern, made.flags, made.groups)
    assert kept.groupindex == made.groupindex


@settings(max_examples=200, deadline=None)
@given(_regexes() | st.text("ab()[]|*+?{}^$.\\-PxN<>=:", max_size=12), _FLAGS, st.booleans())
def test_a_kept_pattern_is_what_re_compiles(pattern: str, flags: int, as_bytes: bool) -> None:
    """A pattern kept (the program re's parser and compiler make, with its flags and groups)
    and given back is equal to re's own and matches as it does; a pattern re refuses is
    refused as ever, for nothing of it is kept."""
    source: str | bytes = pattern.encode() if as_bytes and pattern.isascii() else pattern
    try:
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            made = re.compile(source, flags)
    except re.error:
        return
    cache = CodeCache(os.devnull)
    cache.keep_patterns([((type(source), source, flags), made)])
    kept = cache.pattern(source, flags)
    if kept is None:  # it warned: left to re
        with warnings.catch_warnings(record=True) as warned:
            warnings.simplefilter("always")
            re._compiler.compile(source, flags)  # type: ignore[attr-defined]
        assert warned
        return
    _same_pattern(kept, made)
    for text in ("", "a", "ab", "abba", "b.a1 é", "aab\nba", "ABAB"):
        subject: str | bytes = text.encode() if isinstance(source, bytes) else text
        if isinstance(source, bytes) and not text.isascii():
            continue
        assert kept.findall(subject) == made.findall(subject)
        assert repr(kept.fullmatch(subject)) == repr(made.fullmatch(subject))


def test_patterns_kept_are_read_back_and_the_odd_ones_left_to_re(tmp_path: Path) -> None:
    """Kept patterns come back from the file; one that warns as it compiles (a nested set),
    one of an unordinary flag (re.LOCALE) and a spoiled entry are re's to compile."""
    path = str(tmp_path / "code.bin")
    cache = CodeCache(path)
    # re's cache holds its flags as ints
    plain = [(r"(?P<kind>[mps])(\d)+", 0), (rb"^\w+\Z", int(re.A)), ("a.b", int(re.S | re.I))]
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        odd = [("[[a]", 0), (rb"\w+", int(re.LOCALE))]
        made = {(p, f): re.compile(p, f) for p, f in [*plain, *odd]}
    cache.keep_patterns(((type(p), p, f), m) for (p, f), m in made.items())
    assert cache.save()
    again = CodeCache(path)
    for p, f in plain:
        _same_pattern(again.pattern(p, f), made[p, f])
    for p, f in odd:
        assert again.pattern(p, f) is None
    key = (plain[0][0], _codecache._pattern_file(), plain[0][1])
    again.entries[key] = (None, b"not a program")
    assert again.pattern(*plain[0]) is None


def test_re_asks_the_kept_patterns_first() -> None:
    """Installed in ``re``, a kept pattern is given to ``re.compile`` without re's compiler
    running; anything else re compiles (and holds) as ever; uninstalled, re's cache is a plain
    dict again, holding what it held."""
    cache = CodeCache(os.devnull)
    source = f"kept-{os.getpid()}-(x+)"
    cache.keep_patterns([((str, source, 0), re.compile(source))])
    re.purge()
    kept = _codecache.KeptPatterns.install(cache)
    assert kept is not None
    try:
        from unittest import mock

        with mock.patch.object(re._compiler, "compile", side_effect=AssertionError):  # type: ignore[attr-defined]
            found = re.compile(source)
        assert found.fullmatch(f"kept-{os.getpid()}-xx")
        other = re.compile(f"other-{os.getpid()}")
        assert re.compile(f"other-{os.getpid()}") is other
    finally:
        kept.uninstall()
    name = "_cache2" if "_cache2" in vars(re) else "_cache"
    assert type(getattr(re, name)) is dict
    assert re.compile(source) is found
