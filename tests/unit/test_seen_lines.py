"""The fast decoder's events kept by line (``FastDecoder._seen``): a line seen before is given
the event decoded for it then. Reading a log with every line already seen, with some seen and
some damaged, or with the kept lines forgotten part way gives the strict codec's events, the
same replay output bytes and the same error (line and message) as reading it afresh (issue
25)."""

from __future__ import annotations

import json
from functools import partial
from typing import Any
from unittest import mock

from hypothesis import given
from hypothesis import strategies as st

from mjledger.log import fast
from mjledger.log.codec import read_log_bytes
from mjledger.log.fast import FastDecoder
from mjledger.log.reader import read_events
from tests.strategies import corrupted_log_texts, legal_log_text
from tests.unit.test_fast_path import fast_output, outcome, strict_output
from tests.unit.test_quick_fold_tiles import damaged_tile_logs


def afresh() -> Any:
    """The module's decoder replaced by one that has seen no line."""
    return mock.patch.object(fast, "_DECODER", FastDecoder())


@given(legal_log_text(max_hands=3), corrupted_log_texts())
def test_lines_seen_before_give_the_same_events_output_and_errors(legal: str, damaged: str) -> None:
    for text in (legal, damaged):
        data = text.encode("utf-8")
        with afresh():
            events = outcome(partial(read_log_bytes, data))
            first = fast_output(data)
            assert outcome(partial(read_events, data)) == events
            assert fast_output(data) == first == strict_output(data)


@given(legal_log_text(max_hands=3), corrupted_log_texts())
def test_a_damaged_log_after_a_legal_one(legal: str, damaged: str) -> None:
    """The legal log's lines are kept; the damaged log's refused lines are never given one."""
    with afresh():
        fast_output(legal.encode("utf-8"))
        data = damaged.encode("utf-8")
        assert fast_output(data) == strict_output(data)


@given(damaged_tile_logs(), st.integers(1, 64))
def test_kept_lines_forgotten_part_way(data: bytes, kept: int) -> None:
    with afresh(), mock.patch.object(fast, "SEEN_LINES", kept):
        assert fast_output(data) == strict_output(data)
        assert fast_output(data) == strict_output(data)


def test_a_line_seen_again_gives_an_equal_event_and_a_mutable_one_is_not_kept() -> None:
    decoder = FastDecoder()
    discard = json.dumps({"type": "discarded", "player": "ana", "tile": "7m"}).encode()
    wall = json.dumps({"type": "wall_exhausted", "remaining": {"ana": {"ready": False}}}).encode()
    first = decoder.decode_batch([discard, wall])
    again = decoder.decode_batch([discard, wall])
    assert first is not None
    assert again is not None
    assert first == again
    assert again[0] is first[0]  # the discard's event, kept
    assert wall not in decoder._seen  # it holds a dict: never shared


def test_a_line_naming_a_rule_set_or_house_rules_is_never_kept() -> None:
    """They are read against the registry of rule sets, which a plug-in can change."""
    decoder = FastDecoder()
    started = json.dumps(
        {"type": "match_started", "ruleset": "sichuan", "players": ["a", "b", "c", "d"]}
    ).encode()
    alone = json.dumps({"type": "hand_started", "ruleset": "sichuan"}).encode()
    plain = json.dumps({"type": "hand_started"}).encode()
    decided = decoder.decode_batch([started, alone, plain])
    assert decided is not None
    assert started not in decoder._seen
    assert alone not in decoder._seen
    assert plain in decoder._seen
