"""The wait tables read back (shipped, or from the user's cache) are the builder's, exactly."""

from __future__ import annotations

import marshal
from pathlib import Path
from unittest.mock import patch

import pytest
from hypothesis import assume, given, settings
from hypothesis import strategies as st

from mjledger.tiles import decompose, prebuilt, tables
from mjledger.tiles.decompose import Shapes

pytestmark = pytest.mark.unit


@pytest.fixture(scope="module")
def built() -> object:
    return tables.plain_tables(*tables.built())


def test_the_tables_in_use_are_the_builders(built: object) -> None:
    """Whatever this process read (the package's file, the cache, or a fresh build)."""
    assert tables.plain_tables(*tables.stored()) == built


def test_tables_written_and_read_back_equal_the_builders(built: object, tmp_path: Path) -> None:
    path = tmp_path / "cache" / "wait_tables.bin"
    assert prebuilt.save(built, path)
    parts = range(len(built))  # type: ignore[arg-type]
    assert [prebuilt.loads(path.read_bytes(), part) for part in parts] == built


def test_the_cache_directory_is_the_users(monkeypatch: pytest.MonkeyPatch, tmp_path: Path) -> None:
    name = f"wait_tables-{prebuilt.digest()[:16].decode()}.bin"
    monkeypatch.setenv("XDG_CACHE_HOME", str(tmp_path))
    assert prebuilt.cache_file() == str(tmp_path / "mjledger" / name)
    monkeypatch.delenv("XDG_CACHE_HOME")
    assert prebuilt.cache_file() == str(Path.home() / ".cache" / "mjledger" / name)


def test_the_digest_is_hashlibs_sha256_of_the_builder() -> None:
    """Python's own SHA-256 (read without loading OpenSSL) names the same builder hashlib's
    does: a file written before is still found, and one of another builder still refused."""
    import hashlib
    import marshal

    source = (Path(prebuilt.__file__).parent / "tables.py").read_bytes()
    expected = hashlib.sha256(source + b"marshal %d" % marshal.version).hexdigest().encode()
    assert prebuilt.digest() == expected


def test_a_file_from_another_builder_or_cut_short_is_ignored(built: object) -> None:
    data = prebuilt.dumps(built)
    for part in range(len(built)):  # type: ignore[arg-type]
        assert prebuilt.loads(data.replace(prebuilt.digest(), b"0" * 64, 1), part) is None
        assert prebuilt.loads(data[:-1], len(built) - 1) is None  # type: ignore[arg-type]
        assert prebuilt.loads(data[: data.index(b"\n", 90)], part) is None
        assert prebuilt.loads(b"", part) is None
    assert prebuilt.loads(data, len(built)) is None  # type: ignore[arg-type]


def test_each_part_is_read_alone(built: object, tmp_path: Path) -> None:
    """A log of wins reads the splits only; the wait information waits for a wait; each
    part is read without those after it."""
    data = prebuilt.dumps(built)
    sizes_end = data.index(b"\n", len(prebuilt.dumps([])) - 1)
    end = sizes_end + 1
    for part, value in enumerate(built):  # type: ignore[arg-type]
        end += len(marshal.dumps(value))
        assert prebuilt.loads(data[:end], part) == value
        if part + 1 < len(built):  # type: ignore[arg-type]
            assert prebuilt.loads(data[:end], part + 1) is None


def test_where_nothing_can_be_written_the_tables_stay_in_memory(tmp_path: Path) -> None:
    blocked = tmp_path / "a file"
    blocked.write_text("not a directory")
    assert not prebuilt.save([{"any": 1}], blocked / "mjledger" / "wait_tables.bin")
    assert list(tmp_path.iterdir()) == [blocked]


def test_the_parts_hold_the_whole_tables_each_key_once(built: list[object]) -> None:
    """Split by key size, the parts are the builder's tables: every key in the part of its
    size, none left out."""
    (suited, honours), info = tables.built()
    parts = tables.plain_tables((suited, honours), info)
    sized_splits = parts[3 : 3 + 15]
    sized_info = parts[3 + 15 :]
    assert sum(len(sets) for sets, _ in sized_splits) == len(suited.sets)
    assert sum(len(pair) for _, pair in sized_splits) == len(suited.pair)
    assert sum(map(len, sized_info)) == len(info[0])
    for size, part in enumerate(sized_info):
        assert all(sum(key) == size for key in part)


def test_the_packed_splits_are_the_builders_splits_in_order() -> None:
    """Each split is kept packed in one int (issue 25, eighth round): read back, every key's
    splits are the builder's, set for set and in its order, with each pair's rank."""
    (suited, honours), _ = tables.built()
    for splits, (ranks, chows) in ((suited, (9, True)), (honours, (7, False))):
        table = tables._build(ranks, chows)
        assert splits.sets.keys() == table.sets.keys()
        assert splits.pair.keys() == table.pair.keys()
        for key, found in table.sets.items():
            assert [_unpacked(split) for split in splits.sets[key]] == list(found)
        for key, entries in table.pair.items():
            read = [tables.pair_split(entry) for entry in splits.pair[key]]
            assert [(rank, _unpacked(split)) for rank, split in read] == list(entries)


def _unpacked(split: int) -> tuple[tuple[bool, int], ...]:
    return tuple((bool(code % 2), code // 2) for code in tables.set_codes(split))


def _waits(reader: tables.WaitTables, counts: list[int], melds: int, shapes: Shapes) -> int:
    with patch.object(decompose, "WAIT_TABLES", reader):
        return decompose.waits_from_counts(counts, melds, shapes)


@settings(max_examples=300, deadline=None)
@given(
    st.lists(st.integers(0, 33), min_size=1, max_size=14),
    st.integers(0, 4),
    st.sampled_from([decompose.SICHUAN, decompose.HONGKONG]),
)
def test_waits_read_a_size_at_a_time_are_the_whole_tables(
    tiles: list[int], melds: int, shapes: Shapes
) -> None:
    """A reader that has read only the sizes of the hands it was asked about (as a process
    starts) answers every hand as the whole tables do."""
    counts = [tiles.count(slot) for slot in range(34)]
    assume(max(counts) <= 4)
    whole = tables.WaitTables()
    whole.whole = tables.wait_info()
    fresh = tables.WaitTables()
    assert _waits(fresh, counts, melds, shapes) == _waits(whole, counts, melds, shapes)
    assert fresh.whole is None or fresh.whole == whole.whole


def test_a_reader_is_whole_once_every_size_was_read() -> None:
    reader = tables.WaitTables()
    for size in range(15):
        assert reader.whole is None
        reader.for_keys([size, *[0] * 33])
    assert reader.whole is not None
    assert reader.whole == tables.wait_info()


def test_a_reader_asked_often_reads_every_size() -> None:
    """Past a few hundred hands the reader is whole, whatever sizes the hands had."""
    reader = tables.WaitTables()
    for _ in range(256):
        reader.for_keys([0] * 34)
    assert reader.whole == tables.wait_info()
