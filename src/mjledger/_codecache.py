"""Generated code compiled once and kept, as bytecode is: the command line's start-up.

attrs writes each class's methods as source and compiles it when the class is made, at
import; mjledger's own generated functions (:mod:`mjledger._codegen`) are compiled the same
way. In a one-command process that was a quarter of a short command's instructions (about
140 M of ``replay --json`` of a Hong Kong match's 550 M), spent on the same sources every
run. Python keeps a module's bytecode in ``__pycache__``; attrs has no such cache. This one
keeps the code objects compiled from each source in the user's cache directory
(``$XDG_CACHE_HOME/mjledger``, else ``~/.cache/mjledger``), a file per command, read in one
``marshal.loads`` (each entry's code only when its source comes).

Why a kept code object is the one ``compile`` would make now: an entry is found only by the
whole source, the file name it is compiled under and the compiler flags (the future
statements of the module that compiles it, which ``compile`` would inherit); the file is used
only if the interpreter's bytecode magic number wrote it; anything unreadable is ignored and
compiled as before. One thing in attrs' sources changes from one process to the next: the
salt a class's ``__hash__`` mixes in, ``hash()`` of a name (so it follows ``PYTHONHASHSEED``).
It is taken out of the key (but for its length, which the code's column positions follow)
and put back into the kept code's constants; an entry is kept only if that swap was shown,
when it was compiled, to give exactly what compiling the source with other salts of that
length (of either sign) gives (:meth:`CodeCache.compile`). Nearly all salts are 18 to 20
characters long, so after a few runs nearly every start-up finds all it needs.

The regular expressions the process compiles are kept in the same file (:class:`KeptPatterns`):
the program re's parser and compiler make of a pattern, given back to ``_sre.compile`` when re
first asks its cache for that pattern in a later process.

Only the console script installs it (:func:`install`, from ``mjledger._console``); the
library, the tests and the service compile as attrs does. Where attrs has no
``_make._compile_and_eval`` of the expected form, nothing is changed.
"""

import __future__

import _sre  # type: ignore[import-not-found]  # re's engine, which compiles a program
import atexit
import contextlib
import marshal
import os
import re
import sys
import types
from collections.abc import Iterable, Iterator
from typing import Any, Final

# attrs' __hash__ starts its tuple with the class's salt: the next line holds one int literal.
_SALT_OPENING: Final = "hash((\n"
_HEAD: Final = b"mjledger generated code\n"
# The compiler flags a future statement sets, which ``compile`` inherits from its caller.
# (nested_scopes' flag is not one: it marks a nested function's code, and is no future now.)
_FUTURE_FLAGS: Final[int] = sum(
    getattr(__future__, name).compiler_flag
    for name in __future__.all_feature_names
    if name != "nested_scopes"
)
# Beyond this many entries a save keeps only what the process used (old sources fall away).
_MOST: Final = 4096

# (source, file name, flags) of code; (pattern, PATTERNS' file name, flags) of a pattern.
Key = tuple[str | bytes, str, int]
# The salt the code was compiled with (None: no salt), and the code as ``marshal`` writes it:
# read back only when its source comes (a command makes a fraction of the classes kept).
Entry = tuple[int | None, bytes]


def magic() -> bytes:
    """This interpreter's bytecode magic number (what a ``.pyc`` file is checked against)."""
    import _frozen_importlib_external

    number: bytes = _frozen_importlib_external.MAGIC_NUMBER
    return number


def cache_file(command: str = "") -> str:
    """The kept code's file in the user's cache directory, named after the interpreter and
    the command (``replay``: a file per command, so a start-up reads only the code its command
    makes, not every other command's too)."""
    root = os.environ.get("XDG_CACHE_HOME") or os.path.join(os.path.expanduser("~"), ".cache")
    name = f"code-{sys.implementation.cache_tag}{'-' if command else ''}{command}.bin"
    return os.path.join(root, "mjledger", name)


def future_flags(code: types.CodeType) -> int:
    """The future statements' flags of ``code``: those ``compile`` called from it inherits."""
    return code.co_flags & _FUTURE_FLAGS


class CodeCache:
    """Code objects by source, file name and flags, read from and saved to ``path``."""

    def __init__(self, path: str) -> None:
        self.path = path
        self.entries: dict[Key, Entry] = read(path)
        self.used: dict[Key, Entry] = {}
        self.added = False
        # re's cache of compiled patterns, where :func:`install` made it answer from here
        self.patterns: KeptPatterns | None = None

    def compile(self, source: str, filename: str, flags: int) -> types.CodeType:
        """What ``compile(source, filename, "exec", flags, dont_inherit=True)`` gives."""
        found = salt_span(source)
        salt = None if found is None else int(source[found[0] : found[1]])
        key_source = source if found is None else _without_salt(source, found)
        key = (key_source, filename, flags)
        entry = self.entries.get(key)
        if entry is not None:
            kept_salt, blob = entry
            try:
                kept = marshal.loads(blob)
            except (EOFError, ValueError, TypeError):
                kept = None
            if type(kept) is types.CodeType:
                self.used[key] = entry
                return kept if salt is None or kept_salt is None else _salted(kept, kept_salt, salt)
        code: types.CodeType = compile(source, filename, "exec", flags, dont_inherit=True)
        if found is None or _swap_holds(source, found, filename, flags, code):
            self.entries[key] = self.used[key] = (salt, marshal.dumps(code))
            self.added = True
        return code

    def pattern(self, pattern: str | bytes, flags: int) -> re.Pattern[Any] | None:
        """What ``re.compile(pattern, flags)`` gives, if it was kept; else None."""
        key = (pattern, _pattern_file(), flags)
        entry = self.entries.get(key)
        if entry is None:
            return None
        try:
            compiled: re.Pattern[Any] = _sre.compile(pattern, *marshal.loads(entry[1]))
        except Exception:  # a spoiled entry: re compiles it as ever
            return None
        self.used[key] = entry
        return compiled

    def keep_patterns(self, compiled: Iterable[tuple[Any, re.Pattern[Any]]]) -> None:
        """Keep the patterns of ``compiled`` (re's cache: ``(type, pattern, flags)`` and the
        compiled pattern) not kept yet, each only if the program re's parser and compiler
        make of it now rebuilds a pattern equal to the one re made (the flags, the pattern
        and the compiled program, as ``==`` compares them, and the group names), and only
        if making it warns of nothing (a pattern that warns is left to warn every time)."""
        for (kind, pattern, flags), made in compiled:
            if kind not in (str, bytes) or type(pattern) is not kind or type(flags) is not int:
                continue
            key = (pattern, _pattern_file(), flags)
            if key in self.entries or flags & ~_ORDINARY_FLAGS:
                continue
            program = _program(pattern, flags)
            if program is None:
                continue
            rebuilt = _sre.compile(pattern, *program)
            if rebuilt == made and rebuilt.groupindex == made.groupindex:
                self.entries[key] = self.used[key] = (None, marshal.dumps(program))
                self.added = True

    def save(self) -> bool:
        """Keep the entries in the file (written whole, or not at all) if any were added;
        False where it cannot be written (nothing is then kept)."""
        if self.patterns is not None:
            self.keep_patterns(self.patterns.compiled())
        if not self.added:
            return False
        kept = self.entries if len(self.entries) <= _MOST else self.used
        temporary = f"{self.path}.{os.getpid()}.tmp"
        try:
            os.makedirs(os.path.dirname(self.path), exist_ok=True)
            with open(temporary, "wb") as out:
                out.write(_HEAD + magic() + b"\n" + marshal.dumps(kept))
            os.replace(temporary, self.path)
        except (OSError, ValueError):
            with contextlib.suppress(OSError):
                os.unlink(temporary)
            return False
        self.added = False
        return True


def read(path: str) -> dict[Key, Entry]:
    """The entries kept at ``path``; none if it is absent, unreadable, cut short or written by
    another interpreter."""
    head = _HEAD + magic() + b"\n"
    try:
        with open(path, "rb") as file:
            data = file.read()
        if not data.startswith(head):
            return {}
        entries = marshal.loads(memoryview(data)[len(head) :])
    except (OSError, EOFError, ValueError, TypeError):
        return {}
    return entries if _well_formed(entries) else {}


def _well_formed(entries: Any) -> bool:
    return isinstance(entries, dict) and all(
        isinstance(key, tuple)
        and len(key) == 3
        and isinstance(entry, tuple)
        and len(entry) == 2
        and isinstance(entry[1], bytes)
        for key, entry in entries.items()
    )


def salt_span(source: str) -> tuple[int, int] | None:
    """Where the salt's literal is in attrs' source (after ``hash((`` and a line break, a
    line of spaces, the literal and a comma), or None."""
    opening = source.find(_SALT_OPENING)
    if opening < 0:
        return None
    start = opening + len(_SALT_OPENING)
    while source.startswith(" ", start):
        start += 1
    end = source.find(",\n", start)
    literal = source[start:end] if end > start else ""
    digits = literal[1:] if literal.startswith("-") else literal
    return (start, end) if digits.isascii() and digits.isdigit() else None


def _without_salt(source: str, found: tuple[int, int]) -> str:
    """The key's source: the salt's literal replaced by a mark (a NUL is never in a source)
    of its length, for the code's positions (columns) depend on it."""
    return f"{source[: found[0]]}\0salt {found[1] - found[0]}\0{source[found[1] :]}"


def _with_salt(source: str, found: tuple[int, int], salt: int) -> str:
    return source[: found[0]] + str(salt) + source[found[1] :]


def _salted(code: types.CodeType, old: int, new: int) -> types.CodeType:
    """``code`` with every int constant ``old`` (in nested code too) made ``new``."""
    consts = list(code.co_consts)
    changed = False
    for i, const in enumerate(consts):
        if type(const) is int and const == old:
            consts[i] = new
            changed = True
        elif type(const) is types.CodeType:
            salted = _salted(const, old, new)
            if salted is not const:
                consts[i] = salted
                changed = True
    return code.replace(co_consts=tuple(consts)) if changed else code


def _swap_holds(
    source: str, found: tuple[int, int], filename: str, flags: int, code: types.CodeType
) -> bool:
    """Whether putting another salt of the same length into ``code``'s constants gives what
    compiling the source with that salt gives, for one of the same sign and one of the other
    (so a kept entry can serve any salt its key admits)."""
    literal = source[found[0] : found[1]]
    salt = int(literal)
    others = [int(literal[:-1] + str((int(literal[-1]) + 1) % 10))]
    if literal.startswith("-"):
        others.append(int("1" + literal[1:]))
    elif len(literal) > 1:
        others.append(-int("1" * (len(literal) - 1)))
    for other in others:
        assert len(str(other)) == len(literal)
        compiled = compile(
            _with_salt(source, found, other), filename, "exec", flags, dont_inherit=True
        )
        if not _same(_salted(code, salt, other), compiled):
            return False
    return True


def _same(a: types.CodeType, b: types.CodeType) -> bool:
    """Code objects equal in what they run and where they say they are from."""
    if a != b or a.co_filename != b.co_filename or a.co_qualname != b.co_qualname:
        return False
    nested = [
        (x, y)
        for x, y in zip(a.co_consts, b.co_consts, strict=True)
        if isinstance(x, types.CodeType)
    ]
    return all(isinstance(y, types.CodeType) and _same(x, y) for x, y in nested)


# The process's cache, once :func:`install` made it.
_installed: list[CodeCache] = []


def installed() -> CodeCache | None:
    """The cache :func:`install` made in this process, if it did."""
    return _installed[0] if _installed else None


def install(path: str | None = None, command: str = "") -> CodeCache | None:
    """Compile attrs' and mjledger's generated code through a cache kept at ``path`` (default
    :func:`cache_file` of ``command``) for the rest of the process, saved as the process
    ends; None (and nothing changed) where attrs does not compile through
    ``_make._compile_and_eval``."""
    if _installed:
        return _installed[0]
    cache = CodeCache(cache_file(command) if path is None else path)
    cache.patterns = KeptPatterns.install(cache)
    if "attr" not in sys.modules:
        _import_attrs(cache)
    from attr import _make

    original = getattr(_make, "_compile_and_eval", None)
    code = getattr(original, "__code__", None)
    if code is None or code.co_varnames[:4] != ("script", "globs", "locs", "filename"):
        if cache.patterns is not None:
            cache.patterns.uninstall()
        return None
    flags = future_flags(code)

    def compile_and_eval(
        script: str,
        globs: dict[str, Any] | None,
        locs: Any = None,
        filename: str = "",
    ) -> None:
        eval(cache.compile(script, filename, flags), globs, locs)

    _make._compile_and_eval = compile_and_eval
    _installed.append(cache)
    atexit.register(cache.save)
    return cache


# Where attrs compiles: its ``_make._compile_and_eval``, found by its code's name and file.
_ATTRS_COMPILER: Final = ("_compile_and_eval", os.path.join("attr", "_make.py"))


def _import_attrs(cache: CodeCache) -> None:
    """``import attr`` with the methods of attrs' own classes (some thirty, made as attrs'
    modules are run, before :func:`install` can reach ``_make``) compiled through ``cache``.

    For that one import, ``compile`` is a function that gives exactly what it would: a call
    from attrs' compiler is answered by the cache, every other call goes to ``compile`` with
    the future statements its caller would have passed on (``dont_inherit`` then stated, as
    this function's own must not count); ``compile`` is itself again after the import.

    attrs' validators (``attr.validators``, and ``attrs.validators``, which re-exports them)
    are imported by the package but never used by mjledger: some twenty attrs classes made at
    import, a tenth of a short ``replay --json`` before mjledger's own modules. They are
    placed unrun (:func:`mjledger._lazy.deferred`), to run the first time anything asks them
    for a name (a plug-in's class with ``validator=attrs.validators.instance_of(...)``).
    """
    import builtins

    from mjledger._lazy import deferred

    original = builtins.compile

    def compile_(
        source: Any,
        filename: Any,
        mode: str,
        flags: int = 0,
        dont_inherit: bool = False,
        optimize: int = -1,
        **more: Any,
    ) -> Any:
        caller = sys._getframe(1).f_code
        if not dont_inherit:
            flags |= future_flags(caller)
        if (
            caller.co_name == _ATTRS_COMPILER[0]
            and caller.co_filename.endswith(os.sep + _ATTRS_COMPILER[1])
            and mode == "exec"
            and flags & ~_FUTURE_FLAGS == 0
            and optimize == -1
            and not more
            and type(source) is str
            and type(filename) is str
        ):
            return cache.compile(source, filename, flags)
        return original(source, filename, mode, flags, True, optimize, **more)

    deferred("attr.validators")
    deferred("attrs.validators")
    builtins.compile = compile_
    try:
        import attr  # noqa: F401 - its classes made, their methods compiled as above
    finally:
        builtins.compile = original


# --- compiled patterns ----------------------------------------------------------------------
# Compiling a regular expression is Python code (re's parser and compiler); the modules a
# short command imports compile some twenty at import (platform's, tokenize's, mjledger's),
# about 11 M instructions of a Hong Kong match's ``replay --json``. re hands the program it
# compiled to ``_sre.compile``; that program is kept here, with the pattern's flags and
# groups, and given back to ``_sre.compile`` in a later process when re first asks its cache
# of compiled patterns for that pattern (the cache's ``__missing__``: re itself is as it is).

# Flags whose patterns are kept: re.TEMPLATE warns and re.DEBUG prints as they compile, and a
# re.LOCALE pattern is left to re.
_ORDINARY_FLAGS: Final = int(
    re.IGNORECASE | re.MULTILINE | re.DOTALL | re.UNICODE | re.VERBOSE | re.ASCII
)


def _pattern_file() -> str:
    """The file name of a pattern's key: no code's, and naming the version of re's programs
    (``_sre.MAGIC``) they were compiled for."""
    return f"<re pattern, sre {_sre.MAGIC}>"


def _program(pattern: str | bytes, flags: int) -> tuple[Any, ...] | None:
    """What re's compiler (``re._compiler.compile``) passes ``_sre.compile`` after the
    pattern: its flags, program, group count, group names both ways; None where making it
    fails or warns."""
    import warnings

    try:
        _compiler, _parser = sys.modules["re._compiler"], sys.modules["re._parser"]
        with warnings.catch_warnings(record=True) as warned:
            warnings.simplefilter("always")
            parsed = _parser.parse(pattern, flags)
            code = _compiler._code(parsed, flags)
    except Exception:  # not kept: re compiles it as ever
        return None
    if warned:
        return None
    state = parsed.state
    names = dict(state.groupdict)
    index: list[str | None] = [None] * state.groups
    for name, number in names.items():
        index[number] = name
    # the program's opcodes are re's named int constants: as plain ints, marshal keeps them
    program = [int(word) for word in code]
    return (int(flags | state.flags), program, state.groups - 1, names, tuple(index))


class KeptPatterns(dict[Any, Any]):
    """re's first cache of compiled patterns (``re._cache``; ``re._cache2`` where there are
    two), answering a pattern it has not got from the kept entries, as re would store it."""

    def __init__(self, cache: CodeCache, name: str, items: dict[Any, Any]) -> None:
        super().__init__(items)
        self.cache = cache
        self.name = name
        self.limit = getattr(re, "_MAXCACHE2" if name == "_cache2" else "_MAXCACHE", 256)

    @classmethod
    def install(cls, cache: CodeCache) -> "KeptPatterns | None":
        """re's cache replaced by one answering from ``cache``; None, nothing changed, where
        re has no cache of the expected form."""
        name = "_cache2" if "_cache2" in vars(re) else "_cache"
        found = getattr(re, name, None)
        if type(found) is not dict:
            return None
        kept = cls(cache, name, found)
        setattr(re, name, kept)
        return kept

    def uninstall(self) -> None:
        if getattr(re, self.name, None) is self:
            setattr(re, self.name, dict(self))

    def __missing__(self, key: Any) -> re.Pattern[Any]:
        kind, pattern, flags = key
        if kind not in (str, bytes) or type(pattern) is not kind or type(flags) is not int:
            raise KeyError(key)
        if flags & ~_ORDINARY_FLAGS:
            raise KeyError(key)
        compiled = self.cache.pattern(pattern, flags)
        if compiled is None:
            raise KeyError(key)  # re compiles it, and stores it here
        if len(self) >= self.limit:  # as re drops its oldest
            with contextlib.suppress(StopIteration, RuntimeError, KeyError):
                del self[next(iter(self))]
        self[key] = compiled
        return compiled

    def compiled(self) -> Iterator[tuple[Any, re.Pattern[Any]]]:
        """Every pattern re compiled or was given in this process and still holds."""
        yield from self.items()
        if self.name == "_cache2":  # re's other cache holds those it dropped from this one
            yield from getattr(re, "_cache", {}).items()
