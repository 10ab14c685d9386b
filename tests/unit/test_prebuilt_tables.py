"""The wait tables read back (shipped, or from the user's cache) are the builder's, exactly."""

from __future__ import annotations

import marshal
from pathlib import Path

import pytest

from mjledger.tiles import prebuilt, tables

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
    assert tuple(prebuilt.loads(path.read_bytes(), part) for part in (0, 1)) == built


def test_the_cache_directory_is_the_users(monkeypatch: pytest.MonkeyPatch, tmp_path: Path) -> None:
    name = f"wait_tables-{prebuilt.digest()[:16].decode()}.bin"
    monkeypatch.setenv("XDG_CACHE_HOME", str(tmp_path))
    assert prebuilt.cache_file() == tmp_path / "mjledger" / name
    monkeypatch.delenv("XDG_CACHE_HOME")
    assert prebuilt.cache_file() == Path.home() / ".cache" / "mjledger" / name


def test_a_file_from_another_builder_or_cut_short_is_ignored(built: object) -> None:
    data = prebuilt.dumps(built)
    for part in (0, 1):
        assert prebuilt.loads(data.replace(prebuilt.digest(), b"0" * 64, 1), part) is None
        assert prebuilt.loads(data[:-1], 1) is None
        assert prebuilt.loads(data[: data.index(b"\n", 90)], part) is None
        assert prebuilt.loads(b"", part) is None
    assert prebuilt.loads(data, 2) is None


def test_each_part_is_read_alone(built: object, tmp_path: Path) -> None:
    """A log of wins reads the splits only; the wait information waits for a wait."""
    data = prebuilt.dumps(built)
    splits, _ = built  # type: ignore[misc]
    sizes_end = data.index(b"\n", len(prebuilt.dumps([])) - 1)
    splits_end = sizes_end + 1 + len(marshal.dumps(splits))
    assert prebuilt.loads(data[:splits_end], 0) == splits
    assert prebuilt.loads(data[:splits_end], 1) is None


def test_where_nothing_can_be_written_the_tables_stay_in_memory(tmp_path: Path) -> None:
    blocked = tmp_path / "a file"
    blocked.write_text("not a directory")
    assert not prebuilt.save([{"any": 1}], blocked / "mjledger" / "wait_tables.bin")
    assert list(tmp_path.iterdir()) == [blocked]
