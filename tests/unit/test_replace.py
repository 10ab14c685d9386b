"""The fold's fast copy (``_replace.replacer``) is ``attrs.evolve`` without its overhead: equal
results for any changes, and the same refusal of a name that is not a field; its fast
constructor (``_replace.constructor``) builds what the class's ``__init__`` builds."""

from __future__ import annotations

from typing import Any

import attrs
import pytest
from hypothesis import given
from hypothesis import strategies as st

from mjledger._replace import constructor, replacer
from mjledger.fold.match import MatchState
from mjledger.rules.protocol import WinContext
from mjledger.rules.state import HandState, KongPayment, OpenWins, Transfer

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


@given(
    st.sampled_from([Transfer, WinContext, OpenWins, KongPayment, HandState]),
    st.data(),
)
def test_construct_equals_the_attrs_init(cls: type, data: st.DataObject) -> None:
    """``constructor(cls)`` takes ``cls``'s parameters, defaults included, and builds an equal
    value (the hand fold's values, made without attrs' ``__init__``)."""
    fields = attrs.fields(cls)
    required = {f.name for f in fields if f.default is attrs.NOTHING}
    given_names = data.draw(st.lists(st.sampled_from([f.name for f in fields]), unique=True))
    values = st.integers() | st.text(max_size=3) | st.none() | st.booleans()
    kwargs = {name: data.draw(values) for name in {*required, *given_names}}
    made = constructor(cls)(**kwargs)
    assert type(made) is cls
    assert made == cls(**kwargs)


def test_construct_takes_positional_arguments() -> None:
    make = constructor(Transfer)
    assert make("ana", "bo", 3, "self_drawn") == Transfer("ana", "bo", 3, "self_drawn")
    with pytest.raises(TypeError):
        make("ana", "bo", 3)
