"""`mjledger record` reads its log a block at a time, twice if it must, never whole: a regular
file in place, standard input through a temporary file; the results are those of the text."""

from __future__ import annotations

import io
import json
from pathlib import Path

from mjledger.store.application import Ledger
from mjledger.store.importer import check_log, check_log_stream
from tests.cli.test_cli_store import mj_process, stored_rows
from tests.store_logs import sichuan_match


class Reads(io.BytesIO):
    """A file that remembers the largest read asked of it and how often it went back."""

    largest = 0
    rewinds = 0

    def read(self, size: int | None = -1) -> bytes:
        data = super().read(size)
        self.largest = max(self.largest, len(data))
        return data

    def seek(self, offset: int, whence: int = 0) -> int:
        self.rewinds += 1
        return super().seek(offset, whence)


def test_a_checked_stream_is_the_checked_text_read_a_block_at_a_time() -> None:
    text = sichuan_match(100, seed=3, match_id=None)
    assert len(text.encode()) > 10 * 4096
    stream = Reads(text.encode())
    from_stream, from_text = check_log_stream(stream, 4096), check_log(text)
    assert stream.largest <= 4096
    assert (from_stream.match, from_stream.hands, from_stream.events) == (
        from_text.match,
        from_text.hands,
        from_text.events,
    )
    for ours, theirs in zip(from_stream.batches(), from_text.batches(), strict=True):
        assert [r.event for r in ours[0]] == [r.event for r in theirs[0]]
        assert ours[1] == theirs[1]


def test_a_partly_stored_match_is_compared_by_reading_the_file_again(tmp_path: Path) -> None:
    text = sichuan_match(30, seed=5)
    lines = text.splitlines(keepends=True)
    cut = next(i for i, line in enumerate(lines) if i > len(lines) // 2 and "hand_started" in line)
    with Ledger(tmp_path / "s.sqlite") as ledger:
        assert ledger.record_log("".join(lines[:cut])).status == "recorded"
        stream = Reads(text.encode())
        result = ledger.record_checked(check_log_stream(stream))
        assert result.status == "resumed"
        assert stream.rewinds >= 2  # checked once, read again to compare and record
    with Ledger(tmp_path / "t.sqlite") as fresh:
        fresh.record_log(text)
    assert stored_rows(tmp_path / "s.sqlite") == stored_rows(tmp_path / "t.sqlite")


def test_a_piped_log_records_as_the_file_does(tmp_path: Path) -> None:
    text = sichuan_match(60, seed=7, match_id=None)
    (tmp_path / "log.jsonl").write_text(text, encoding="utf-8")
    piped = mj_process("record", "-", "--json", "--store", "a.sqlite", cwd=tmp_path, stdin=text)
    named = mj_process("record", "log.jsonl", "--json", "--store", "b.sqlite", cwd=tmp_path)
    assert piped.returncode == named.returncode == 0, (piped.stderr, named.stderr)
    a, b = json.loads(piped.stdout), json.loads(named.stdout)
    assert {k: v for k, v in a.items() if k != "store"} == {
        k: v for k, v in b.items() if k != "store"
    }
    assert a["status"] == "recorded"
    assert stored_rows(tmp_path / "a.sqlite") == stored_rows(tmp_path / "b.sqlite")


def test_a_piped_log_that_is_not_utf_8_is_refused_naming_its_line(tmp_path: Path) -> None:
    lines = sichuan_match(3, seed=1).splitlines(keepends=True)
    bad = next(i for i, line in enumerate(lines) if i > 2 and "hand_started" in line)
    lines[bad] = lines[bad].replace("hand_started", "hand_st\udcffarted")
    data = "".join(lines).encode("utf-8", "surrogateescape")
    done = mj_process("record", "-", "--store", "s.sqlite", cwd=tmp_path, stdin=None, raw=data)
    assert done.returncode == 2
    assert done.stdout == b""
    assert f"line {bad + 1}".encode() in done.stderr
    assert b"UTF-8" in done.stderr
    assert not (tmp_path / "s.sqlite").exists()
