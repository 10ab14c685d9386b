"""The fast path (msgspec batches, streaming folds, orjson output) against the strict path
(the codec's json decoder and cattrs, the whole-log replay, json.dumps): identical events,
identical output bytes, identical errors — message, line and event type — on legal, mutated
and damaged logs, however the bytes arrive."""

from __future__ import annotations

import itertools
import json
from collections.abc import Callable
from functools import partial
from typing import Any, ClassVar
from unittest import mock

import attrs
import pytest
from hypothesis import example, given
from hypothesis import strategies as st

from mjledger import _checks as check
from mjledger.errors import LogError
from mjledger.fold.replay import replay_events
from mjledger.fold.stream import dumps_indented, replay_json_parts
from mjledger.log import reader
from mjledger.log.codec import parse_log, read_log_bytes
from mjledger.log.events import MatchStarted
from mjledger.log.fast import FastDecoder, fast_decoder
from mjledger.log.reader import iter_log, parse_events, read_events
from tests.helpers import Line, jsonl
from tests.strategies import corrupted_log_texts, legal_log_text
from tests.variant_strategies import variant_logs


def outcome(func: Callable[[], Any]) -> Any:
    """The value, or the error as everything a user sees of it."""
    try:
        return func()
    except LogError as exc:
        return (type(exc).__name__, str(exc), exc.line, exc.event_type)


def strict_output(data: bytes) -> Any:
    def run() -> bytes:
        result = replay_events(read_log_bytes(data)).to_json()
        return json.dumps(result, ensure_ascii=False, indent=2).encode("utf-8")

    return outcome(run)


def fast_output(data: bytes, size: int = 1 << 20) -> Any:
    chunks = [data[i : i + size] for i in range(0, len(data), size)]
    return outcome(lambda: b"".join(replay_json_parts(iter_log(chunks))))


@given(legal_log_text(max_hands=4), st.integers(1, 64))
def test_legal_logs_same_events_and_same_output_bytes(text: str, size: int) -> None:
    data = text.encode("utf-8")
    assert outcome(lambda: parse_events(text)) == outcome(lambda: parse_log(text))
    assert fast_output(data, size) == strict_output(data)


@given(variant_logs(max_hands=3), st.integers(1, 64))
def test_variant_logs_same_output_bytes(lines: list[Line], size: int) -> None:
    """Variants and table stakes too (the stakes after the totals, as Replay.to_json has them)."""
    data = jsonl(*lines).encode("utf-8")
    assert fast_output(data, size) == strict_output(data)


@given(legal_log_text(max_hands=3))
def test_the_fast_path_decides_legal_logs(text: str) -> None:
    """Not a fall back in disguise: every line without a backslash is decided in C, house
    rules included (decoded as JSON, then read by the codec's own function)."""
    lines = [line.encode("utf-8") for line in text.split("\n") if line]
    decided = fast_decoder().decode_batch(lines)
    if b"\\" not in b"".join(lines):
        assert decided is not None
        assert all(event is not None for event in decided)


@given(corrupted_log_texts(), st.integers(1, 200))
@example('{"type": "hand_started", "dealer": "a", "dealer": "b"}\n', 7)
def test_mutated_logs_same_events_or_same_error(text: str, size: int) -> None:
    data = text.encode("utf-8", "surrogatepass")
    assert outcome(lambda: parse_events(text)) == outcome(lambda: parse_log(text))
    assert fast_output(data, size) == strict_output(data)


@given(st.one_of(corrupted_log_texts(), legal_log_text(max_hands=3)), st.integers(1, 200))
@example("\ufeff" + '{"type": "match_started", "ruleset": "sichuan", "players": ["é", "b"]}', 2)
def test_text_read_a_block_at_a_time_same_events_or_same_error(text: str, size: int) -> None:
    """``parse_events`` (what recording reads a text with) feeds the text to the reader a block
    at a time: any block size reads as the strict codec does, ASCII or not, BOM or not."""
    with mock.patch.object(reader, "BLOCK", size):
        assert outcome(lambda: parse_events(text)) == outcome(lambda: parse_log(text))


@given(legal_log_text(max_hands=2), st.data())
def test_damaged_bytes_same_error(text: str, data: st.DataObject) -> None:
    raw = bytearray(text.encode("utf-8"))
    for _ in range(data.draw(st.integers(1, 3))):
        i = data.draw(st.integers(0, len(raw) - 1))
        raw[i] = data.draw(st.sampled_from(b'\x80\xff\xc3\x00{}":,\\\n\r 0'))
    damaged = bytes(raw)
    assert outcome(lambda: read_events(damaged)) == outcome(lambda: read_log_bytes(damaged))
    assert fast_output(damaged, data.draw(st.integers(1, 100))) == strict_output(damaged)


def test_a_repeated_key_is_left_to_the_strict_codec() -> None:
    line = b'{"type": "discarded", "player": "a", "player": "b"}'
    assert fast_decoder().decode_batch([line]) is None
    err = outcome(lambda: read_events(b'{"type": "match_started"}\n' + line))
    assert err == outcome(lambda: read_log_bytes(b'{"type": "match_started"}\n' + line))


def test_a_refused_event_waits_for_a_later_refused_line() -> None:
    """As when the whole log is parsed first: a broken line further down is the error."""
    log = (
        b'{"type": "match_started", "ruleset": "sichuan", "players": ["a", "b", "c", "d"]}\n'
        b'{"type": "discarded", "player": "a"}\n'
        b"{not json\n"
        b"\xff\n"
    )
    assert fast_output(log, 5) == strict_output(log)
    assert fast_output(log[:-2], 5) == strict_output(log[:-2])
    assert "line 4" in fast_output(log)[1]


SCALARS = st.none() | st.booleans() | st.integers() | st.text()
JSON_VALUES = st.recursive(
    SCALARS,
    lambda inner: st.lists(inner, max_size=4) | st.dictionaries(st.text(), inner, max_size=4),
    max_leaves=12,
)


@pytest.mark.parametrize("long", [False, True])  # msgspec's and orjson's
@given(value=JSON_VALUES)
@example(value={"big": 10**30, "": [], "x": {}, "s": '\x7f\u2028\x00"\\é\ud7ff'})
@example(value=[2**63, -(2**63) - 1, 2**64, {"": {"": []}}])
@example(value={2: 1, None: [], True: {-(2**70): (1, 2)}})  # keys json turns into text
def test_indented_output_is_json_dumps(long: bool, value: Any) -> None:
    """Either encoder (a short part's, a batch's) writes ``json.dumps``'s bytes."""
    want = json.dumps(value, ensure_ascii=False, indent=2).encode()
    assert dumps_indented(value, long=long) == want


@pytest.mark.parametrize("long", [False, True])
def test_a_lone_surrogate_is_refused_as_json_refuses_it(long: bool) -> None:
    """Neither encoder's own refusal shows: ``json``'s does, as it would alone."""
    with pytest.raises(UnicodeEncodeError) as alone:
        json.dumps(["a", "\ud800"], ensure_ascii=False, indent=2).encode("utf-8")
    with pytest.raises(UnicodeEncodeError) as ours:
        dumps_indented(["a", "\ud800"], long=long)
    assert str(ours.value) == str(alone.value)


@given(legal_log_text(max_hands=1), st.integers(1, 4), st.sampled_from(["\n", "\r\n"]))
def test_a_byte_order_mark_and_crlf_in_any_chunks(text: str, size: int, newline: str) -> None:
    data = b"\xef\xbb\xbf" + text.replace("\n", newline).encode("utf-8")
    assert fast_output(data, size) == strict_output(data)
    assert fast_output(data[:2] + data[3:], size) == strict_output(data[:2] + data[3:])


# One legal line of each event type, and values near each field's edge: the fast path's wire
# types enforce most validators themselves (mjledger.log.fast._enforcing), so each must refuse
# exactly what the validator refuses.
EVENT_LINES = {
    "match_started": {"ruleset": "sichuan", "players": ["a", "b", "c", "d"], "match": "m"},
    "hand_started": {"dealer": "a"},
    "void_suit_chosen": {"player": "a", "suit": "m"},
    "discarded": {"player": "a", "tile": "5m"},
    "kong_declared": {"player": "a", "kind": "exposed", "from": "b", "tile": "7z"},
    "won_on_discard": {"player": "a", "from": "b", "fan": 2, "tiles": "123m", "liable": "c"},
    "self_drawn": {"player": "a", "fan": 0, "winning_tile": "1z", "first_turn": False},
    "false_win": {"player": "a"},
    "wall_exhausted": {"remaining": {"a": {"ready": True, "best_fan": 1}}},
}
EDGES = (
    ["", " ", "a", "5m", "0m", "8z", "7z", "5M", "5m ", "55m", "123m", "123", "m", "z1",
     "1234567899m11z", "123m4", "5m5", "11z ", "east", "exposed", "chow", "sichuan",
     0, 1, -1, 2, 13, 10**12, 2**64,
     True, False, None, 1.5, [], {}, ["a"], {"ready": False}, {"flower_pig": True},
     {"tiles": "11m", "melds": [{"kind": "pung", "tiles": "555p"}]}]
)  # fmt: skip
EDGE_VALUES = st.sampled_from(EDGES) | st.text("0123456789mpsz ", max_size=6)
HEAD = '{"type": "match_started", "ruleset": "sichuan", "players": ["a", "b", "c", "d"]}\n'


def test_every_field_at_every_edge_same_event_or_same_error() -> None:
    for kind, line in EVENT_LINES.items():
        for name in line:
            for value in EDGES:
                text = HEAD + json.dumps({"type": kind, **line, name: value}) + "\n"
                assert outcome(partial(parse_events, text)) == outcome(partial(parse_log, text))


@given(st.sampled_from(sorted(EVENT_LINES)), st.data())
def test_each_field_at_its_edges_same_event_or_same_error(kind: str, data: st.DataObject) -> None:
    fields = dict(EVENT_LINES[kind])
    others = ["fan", "limit", "suit", "tile", "tiles", "melds", "number", "round_wind"]
    fields[data.draw(st.sampled_from(sorted(fields)))] = data.draw(EDGE_VALUES)
    if data.draw(st.booleans()):
        fields[data.draw(st.sampled_from(sorted({*fields, *others})))] = data.draw(EDGE_VALUES)
    if kind == "wall_exhausted" and data.draw(st.booleans()):
        fields["remaining"] = {"a": data.draw(EDGE_VALUES)}
    text = HEAD + json.dumps({"type": kind, **fields}) + "\n"
    assert outcome(lambda: parse_events(text)) == outcome(lambda: parse_log(text))


HOUSE_RULES = (
    None, {}, [], "base", 1, {"base": 2}, {"base": True}, {"base": 2.0}, {"base": 10**30},
    {"base": 0}, {"nope": 1}, {"fan_cap": 3, "base": 2}, {"kong_money_passing": "refund"},
    {"table": "spicy", "min_fan": 0}, {"fan_limit": 13}, {"discard_pays": "half"},
    {"discard_pays": "half", "points_per_unit": 2}, {"stakes_leftover": "lowest_seat"},
    {"base": {"base": 1}}, {"seven_pairs": True}, {"base": 2**64}, {"base": -1},
    {"blood_flow": True}, {"kong_money_passing": "yes"}, {"limit": 13}, {"min_fan": 3},
    {"self_draw_bonus": "fan"},
)  # fmt: skip
TABLES = (
    {"ruleset": "sichuan"},
    {"ruleset": "hongkong"},
    {"ruleset": "nope"},
    {"ruleset": None},
    {},
)


def test_house_rules_at_their_edges_same_event_or_same_error() -> None:
    """A line's ``rules`` are read here as the strict codec reads them (its own function, by
    the line's rule set): the same house-rules object, or the strict codec's error; a line
    both accept is decided here, not left to it."""
    players = {"players": ["a", "b", "c", "d"]}
    decided = 0
    for rules, table, stakes in itertools.product(HOUSE_RULES, TABLES, (False, True)):
        staked = {"stakes": dict.fromkeys("abcd", 100)} if stakes else {}
        lines = (
            {"type": "match_started", **players, **table, "rules": rules, **staked},
            {"type": "hand_started", "dealer": "a", **players, **table, "rules": rules},
        )
        for line in lines:
            text = json.dumps(line) + "\n"
            strict = outcome(partial(parse_log, text))
            assert outcome(partial(parse_events, text)) == strict
            if isinstance(strict, list):  # accepted: decided here, as the same event
                assert fast_decoder().decode_batch([text.encode()]) == [strict[0][1]]
                decided += 1
    assert decided > 20


def test_house_rules_are_decided_by_the_fast_path() -> None:
    line = b'{"type": "match_started", "ruleset": "sichuan", "players": ["a", "b", "c", "d"], '
    decided = fast_decoder().decode_batch([line + b'"rules": {"base": 2, "blood_flow": true}}'])
    assert decided is not None
    event = decided[0]
    assert isinstance(event, MatchStarted)
    assert event.rules is not None
    assert (event.rules.base, event.rules.blood_flow) == (2, True)


def test_a_field_only_the_strict_codec_types_leaves_the_line_to_it() -> None:
    """Present or absent, such a field is not decided here: absent, a required one would be
    missing, and one with a default takes it."""

    @attrs.frozen
    class Odd:
        TYPE: ClassVar[str] = "odd"
        needed: frozenset[int]
        player: str = attrs.field(validator=check.non_empty)
        extra: frozenset[int] = frozenset()

    decoder = FastDecoder([Odd])
    assert decoder.decode_batch([b'{"type": "odd", "player": "a"}']) == [None]
    assert decoder.decode_batch([b'{"type": "odd", "needed": [1], "player": "a"}']) == [None]

    @attrs.frozen
    class Lenient:
        TYPE: ClassVar[str] = "lenient"
        player: str = attrs.field(validator=check.non_empty)
        extra: frozenset[int] = frozenset()

    decoder = FastDecoder([Lenient])
    assert decoder.decode_batch([b'{"type": "lenient", "player": "a"}']) == [Lenient("a")]
    assert decoder.decode_batch([b'{"type": "lenient", "player": "a", "extra": []}']) == [None]
    # refused in C: the batch is the strict codec's (it words the error)
    assert decoder.decode_batch([b'{"type": "lenient", "player": ""}']) is None


def test_reading_a_whole_log_leaves_the_collector_as_the_caller_set_it() -> None:
    """The process-wide collector is the caller's (the command line pauses it, the library
    does not)."""
    import gc

    text = '{"type": "match_started", "ruleset": "sichuan", "players": ["a", "b", "c", "d"]}\n'
    seen: list[bool] = []

    def watched(chunks: Any, encoded: bool = False) -> Any:
        for item in iter_log(chunks, encoded):
            seen.append(gc.isenabled())
            yield item

    was = gc.isenabled()
    try:
        for enabled in (True, False):
            (gc.enable if enabled else gc.disable)()
            with mock.patch.object(reader, "iter_log", watched):
                assert parse_events(text) == read_events(text.encode()) == parse_log(text)
            assert gc.isenabled() is enabled
            bad = text + "{"
            for read in (partial(parse_events, bad), partial(read_events, bad.encode())):
                try:
                    read()
                except LogError:
                    pass
                else:
                    raise AssertionError("a refused log was read")
                assert gc.isenabled() is enabled
    finally:
        (gc.enable if was else gc.disable)()
    assert seen == [True, True, False, False]
