"""Reading a log as a stream: numbered events out of chunks of bytes, in constant memory.

The result is exactly :func:`mjledger.log.codec.read_log_bytes`'s, error for error: a line
that is not UTF-8 anywhere in the log is the error, before any other; then the first line the
codec refuses; an empty log is an error of line 1. Streaming keeps that order by reading on
after the first refused line, only to look for invalid UTF-8 further down (the caller that
folds does the same for a refused event: see :func:`mjledger.fold.replay.replay_events`).

Lines are decoded in batches by :mod:`mjledger.log.fast`, which falls back to the strict codec
wherever it cannot decide.
"""

from __future__ import annotations

from collections.abc import Iterable, Iterator, Sequence
from itertools import chain
from typing import BinaryIO, Final

from mjledger.errors import FormatError
from mjledger.log.codec import parse_log
from mjledger.log.events import Event
from mjledger.log.fast import BATCH_LINES, decode_numbered

BLOCK: Final = 1 << 20
_BOM: Final = b"\xef\xbb\xbf"


def _checked_blocks(chunks: Iterable[bytes], encoded: bool = False) -> Iterator[tuple[int, bytes]]:
    """Blocks of whole lines (each ending in ``\\n`` but the last), each checked to be UTF-8,
    with the number of its first line. ``encoded``: the chunks are a text's encoding, UTF-8
    by construction, and are not decoded again to be checked."""
    first = 1
    # The tail of a line still open: kept as pieces and joined once its newline arrives, so a
    # long line read in small chunks costs linear time, not a copy of the tail per chunk.
    pending: list[bytes] = []
    started = False
    for chunk in chunks:
        if not started:
            data = b"".join([*pending, chunk]) if pending else chunk
            if len(data) < len(_BOM) and _BOM.startswith(data):
                pending = [data]
                continue
            started = True
            if data.startswith(_BOM):
                data = data[len(_BOM) :]
            pending = []
            chunk = data
        if b"\n" not in chunk:
            pending.append(chunk)
            continue
        data = b"".join([*pending, chunk]) if pending else chunk
        end = data.rfind(b"\n") + 1
        block, tail = data[:end], data[end:]
        pending = [tail] if tail else []
        if not encoded:
            _check_utf8(block, first)
        yield first, block
        first += block.count(b"\n")
    rest = b"".join(pending)
    if rest:
        if not started and rest.startswith(_BOM):
            rest = rest[len(_BOM) :]
        if not encoded:
            _check_utf8(rest, first)
        yield first, rest


def _check_utf8(block: bytes, first: int) -> None:
    try:
        block.decode("utf-8")
    except UnicodeDecodeError as exc:
        line = first + block.count(b"\n", 0, exc.start)
        raise FormatError("the line is not valid UTF-8", line=line, code="bad_json") from None


def _numbered_lines(first: int, block: bytes) -> tuple[Sequence[int], list[bytes]]:
    """Non-blank lines as the strict codec sees them (split on ``\\n`` only, one trailing
    ``\\r`` removed, blank meaning what ``str.strip`` says), and their numbers."""
    pieces = block.split(b"\n")
    if pieces[-1] == b"":
        pieces.pop()
    if b"\r" not in block and block.count(b"\n{") + block.startswith(b"{") == len(pieces):
        # Every line opens an object, as every line a writer of the contract writes does: no
        # line needs looking at on its own.
        return range(first, first + len(pieces)), pieces
    numbered = [
        (number, raw[:-1] if raw[-1:] == b"\r" else raw)
        for number, raw in enumerate(pieces, first)
        if raw[:1] == b"{" or raw.decode("utf-8").strip()
    ]
    return [number for number, _ in numbered], [line for _, line in numbered]


def iter_log(chunks: Iterable[bytes], encoded: bool = False) -> Iterator[tuple[int, Event]]:
    """Numbered events of a log given as chunks of bytes (any sizes), as they are read
    (``encoded``: the chunks are a text's encoding, see :func:`_checked_blocks`)."""
    # A batch's events are handed on by ``chain`` in C, not through a generator's frame each.
    return chain.from_iterable(_batches(_checked_blocks(chunks, encoded)))


def _batches(blocks: Iterator[tuple[int, bytes]]) -> Iterator[Iterable[tuple[int, Event]]]:
    """The numbered events of the blocks' lines, a batch at a time."""
    seen = False
    try:
        numbers: list[int] = []
        lines: list[bytes] = []
        for first, block in blocks:
            more_numbers, more_lines = _numbered_lines(first, block)
            numbers += more_numbers
            lines += more_lines
            whole = len(lines) - len(lines) % BATCH_LINES
            for start in range(0, whole, BATCH_LINES):
                end = start + BATCH_LINES
                yield _guarded(decode_numbered(numbers[start:end], lines[start:end]), blocks)
                seen = True
            del numbers[:whole], lines[:whole]
        if lines:
            yield _guarded(decode_numbered(numbers, lines), blocks)
            seen = True
    except FormatError:
        _drain(blocks)
        raise
    if not seen:
        raise FormatError("the log is empty", line=1)


def _guarded(
    events: Iterable[tuple[int, Event]], blocks: Iterator[tuple[int, bytes]]
) -> Iterable[tuple[int, Event]]:
    """A batch's events; where some are read by the strict codec as they are taken (which
    may refuse one), the rest of the log is checked before its error goes on (:func:`_drain`)."""
    if isinstance(events, zip):  # decided: nothing is refused as they are taken
        return events
    return _drained_on_error(events, blocks)


def _drained_on_error(
    events: Iterable[tuple[int, Event]], blocks: Iterator[tuple[int, bytes]]
) -> Iterator[tuple[int, Event]]:
    try:
        yield from events
    except FormatError:
        _drain(blocks)
        raise


def _drain(blocks: Iterator[tuple[int, bytes]]) -> None:
    """Invalid UTF-8 further down is the log's error, as in the codec: the blocks left are
    read (each checked) before a refused line's error goes on."""
    for _ in blocks:
        pass


def iter_log_file(stream: BinaryIO, block: int = BLOCK) -> Iterator[tuple[int, Event]]:
    """Numbered events of a log read from a binary stream, one block at a time."""
    return iter_log(iter(lambda: stream.read(block), b""))


def read_events(data: bytes) -> list[tuple[int, Event]]:
    """:func:`mjledger.log.codec.read_log_bytes`, fast: the same events or the same error."""
    return list(iter_log((data,)))


def parse_events(text: str) -> list[tuple[int, Event]]:
    """:func:`mjledger.log.codec.parse_log`, fast: the same events or the same error."""
    return list(iter_text(text))


def iter_text(text: str) -> Iterator[tuple[int, Event]]:
    """The numbered events of a log given as text, as they are decoded (the log's errors in
    :func:`mjledger.log.codec.parse_log`'s order)."""
    # Fed a block at a time, so no more than a block of the log is copied, split or decoded
    # at once besides the text (and, unless it is ASCII, its bytes).
    # A text that encodes is valid UTF-8 as encoded: its bytes are not decoded again.
    if text.isascii():
        chunks = (text[i : i + BLOCK].encode("ascii") for i in range(0, len(text), BLOCK))
        return iter_log(chunks, encoded=True)
    try:  # a leading BOM goes with the bytes, which ignore one as parse_log does
        data = text.encode("utf-8")
    except UnicodeEncodeError:  # a lone surrogate in the text itself: only the codec reads it
        return iter(parse_log(text))
    return iter_log((data[i : i + BLOCK] for i in range(0, len(data), BLOCK)), encoded=True)


__all__ = ["iter_log", "iter_log_file", "iter_text", "parse_events", "read_events"]
