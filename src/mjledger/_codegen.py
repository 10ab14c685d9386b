"""The one place generated code is compiled: the fold's copies and constructors
(:mod:`mjledger._replace`), the fast decoders' builders (:mod:`mjledger.log.fast`) and the
store's stored forms (:mod:`mjledger.store.records`) each write a function's source and hand
it here.

As attrs' ``_make.py`` and cattrs' ``gen`` do, the source is compiled under a file name of its
own and registered with :mod:`linecache`, so a traceback through generated code shows its
lines and :func:`inspect.getsource` finds it. In the console script the compiled code is kept
between runs (:mod:`mjledger._codecache`).
"""

from __future__ import annotations

import itertools
import linecache
import sys
from collections.abc import Callable
from typing import Any, Final

from mjledger._codecache import future_flags, installed

_SERIAL = itertools.count(1)
# The future statements of this module, which ``compile`` here inherits (and so a kept
# compilation must be made with: mjledger._codecache).
_FLAGS: Final = future_flags(sys._getframe().f_code)


def compile_function(name: str, source: str, scope: dict[str, Any], *, what: str) -> Any:
    """The function ``name`` that ``source`` defines, run in ``scope`` (its globals), compiled
    as ``<mjledger generated {what} #n>``: ``what`` says what it is for (a class's name and
    the kind of code), ``n`` keeps each compiled source apart."""
    filename = f"<mjledger generated {what} #{next(_SERIAL)}>"
    cache = installed()
    code = (
        compile(source, filename, "exec")
        if cache is None
        else cache.compile(source, filename, _FLAGS)
    )
    exec(code, scope)
    linecache.cache[filename] = (len(source), None, source.splitlines(keepends=True), filename)
    function: Callable[..., Any] = scope[name]
    return function
