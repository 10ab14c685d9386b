"""The append-only sequence the match fold keeps its closed hands in: immutable to its
readers, O(1) to extend, and a fork from an older state never shows another's items."""

from __future__ import annotations

from hypothesis import given
from hypothesis import strategies as st

from mjledger._growing import Growing


@given(st.lists(st.tuples(st.integers(0, 30), st.integers())))
def test_growing_behaves_like_tuples_whatever_the_forks(steps: list[tuple[int, int]]) -> None:
    versions: list[Growing[int]] = [Growing()]
    expected: list[tuple[int, ...]] = [()]
    for pick, item in steps:
        at = pick % len(versions)  # extend the newest or an older version (a fork)
        versions.append(versions[at].appended(item))
        expected.append((*expected[at], item))
    for version, want in zip(versions, expected, strict=True):
        assert tuple(version) == want
        assert len(version) == len(want)
        assert version == want
        if want:
            assert version[-1] == want[-1]
            assert version[0] == want[0]
            assert version[1:] == want[1:]


def test_appending_to_the_newest_shares_storage() -> None:
    a: Growing[int] = Growing()
    for i in range(1000):
        a = a.appended(i)
    b = a.appended(1000)
    assert b._items is a._items  # no copy
    assert len(a) == 1000
    assert list(a)[-1] == 999
