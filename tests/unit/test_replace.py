"""The fold's fast copy (``_replace.replacer``) is ``attrs.evolve`` without its overhead: equal
results for any changes, and the same refusal of a name that is not a field."""

from __future__ import annotations

from typing import Any

import attrs
import pytest
from hypothesis import given
from hypothesis import strategies as st

from mjledger._replace import replacer
from mjledger.fold.match import MatchState
from mjledger.rules.state import HandState

SEATS = ("ana", "bo", "cy", "di")
HAND = HandState(ruleset="sichuan", rules=None, players=SEATS, number=1, dealer="ana")
MATCH = MatchState(ruleset="hongkong", players=SEATS, rules=None)
SAMPLES: dict[type, Any] = {HandState: HAND, MatchState: MATCH}

names = st.text(alphabet="abcdefghijklmnopqrstuvwxyz_", min_size=1, max_size=16)


@given(
    cls=st.sampled_from([HandState, MatchState]),
    data=st.data(),
)
def test_replace_equals_attrs_evolve(cls: type, data: st.DataObject) -> None:
    fields = [f.name for f in attrs.fields(cls)]
    chosen = data.draw(st.lists(st.sampled_from(fields), unique=True))
    changes = {name: data.draw(st.integers() | st.text() | st.none()) for name in chosen}
    obj = SAMPLES[cls]
    assert replacer(cls)(obj, **changes) == attrs.evolve(obj, **changes)


@given(cls=st.sampled_from([HandState, MatchState]), name=names)
def test_replace_refuses_what_attrs_evolve_refuses(cls: type, name: str) -> None:
    obj = SAMPLES[cls]
    try:
        expected = attrs.evolve(obj, **{name: 1})
    except TypeError:
        with pytest.raises(TypeError):
            replacer(cls)(obj, **{name: 1})
    else:
        assert replacer(cls)(obj, **{name: 1}) == expected


def test_a_misspelt_field_is_refused() -> None:
    with pytest.raises(TypeError, match="winnners"):
        replacer(HandState)(HAND, winnners=("ana",))
