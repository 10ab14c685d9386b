"""An immutable sequence that grows by one in constant time.

A stream's state is folded one stored event at a time, and each step returns a new frozen
state. A match's state lists every closed hand; copying that tuple at each hand made folding
(and so view catch-up) quadratic in the match's length. :class:`Growing` shares one list
between successive states: each state sees the first ``len`` items only, and appending to the
newest state extends the shared list in place. Appending to an older state (a fork: rare, e.g.
folding a stream twice from one snapshot) copies, so no state ever sees another's items.
"""

from __future__ import annotations

from collections.abc import Iterator, Sequence
from typing import Any, Generic, TypeVar, overload

T = TypeVar("T")


class Growing(Sequence[T], Generic[T]):
    __slots__ = ("_items", "_len")

    def __init__(self, items: Sequence[T] = ()) -> None:
        self._items: list[T] = list(items)
        self._len = len(self._items)

    def appended(self, item: T) -> Growing[T]:
        """This sequence with ``item`` at its end (this one is left as it was)."""
        new: Growing[T] = Growing.__new__(Growing)
        if self._len == len(self._items):
            new._items = self._items  # the newest view: extend the shared list in place
        else:
            new._items = self._items[: self._len]  # a fork: copy what this view sees
        new._items.append(item)
        new._len = self._len + 1
        return new

    def __len__(self) -> int:
        return self._len

    @overload
    def __getitem__(self, index: int) -> T: ...
    @overload
    def __getitem__(self, index: slice) -> Sequence[T]: ...
    def __getitem__(self, index: int | slice) -> T | Sequence[T]:
        if isinstance(index, slice):
            return tuple(self._items[: self._len][index])
        if index < 0:
            index += self._len
        if not 0 <= index < self._len:
            raise IndexError("index out of range")
        return self._items[index]

    def __iter__(self) -> Iterator[T]:
        items = self._items
        return (items[i] for i in range(self._len))

    def __eq__(self, other: object) -> bool:
        if isinstance(other, Growing):
            return self._len == other._len and all(a == b for a, b in zip(self, other, strict=True))
        if isinstance(other, (tuple, list)):
            return tuple(self) == tuple(other)
        return NotImplemented

    def __hash__(self) -> int:
        return hash(tuple(self))

    def __repr__(self) -> str:
        return f"Growing({list(self)!r})"

    def __reduce__(self) -> tuple[Any, ...]:
        return (Growing, (list(self),))
