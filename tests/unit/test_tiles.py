"""Tiles and melds: the compact notation both ways (log-format.md, "Tiles (optional)")."""

from __future__ import annotations

import pytest
from hypothesis import given
from hypothesis import strategies as st

from mjledger.errors import MjledgerError, TileError
from mjledger.tiles import TILES, Meld, Tile, format_tiles, parse_tiles

tiles_st = st.lists(st.sampled_from(TILES), min_size=1, max_size=14)


def test_parse_groups_share_their_suit_letter() -> None:
    # log-format.md: "a group shares its suit letter ("123m55p")"
    assert parse_tiles("123m55p") == (
        Tile("m", 1),
        Tile("m", 2),
        Tile("m", 3),
        Tile("p", 5),
        Tile("p", 5),
    )


def test_honours_are_1z_to_7z_east_to_red() -> None:
    # log-format.md: "1z–7z east, south, west, north, white, green, red"
    assert [t.rank for t in parse_tiles("1234567z")] == [1, 2, 3, 4, 5, 6, 7]
    assert all(t.is_honour for t in parse_tiles("1234567z"))


def test_parse_keeps_written_order_and_allows_spaces() -> None:
    assert [str(t) for t in parse_tiles("5m 1p  9s")] == ["5m", "1p", "9s"]


def test_format_sorts_and_groups_by_suit() -> None:
    assert format_tiles(parse_tiles("11z5p123m4p")) == "123m45p11z"


@given(tiles_st)
def test_format_then_parse_gives_the_sorted_tiles(tiles: list[Tile]) -> None:
    assert parse_tiles(format_tiles(tiles)) == tuple(sorted(tiles))


@given(st.sampled_from(TILES))
def test_tile_text_and_repr_rebuild_the_tile(tile: Tile) -> None:
    assert Tile.parse(str(tile)) == tile
    assert eval(repr(tile)) == tile  # the repr is the expression that rebuilds it


@given(st.sampled_from(TILES))
def test_index_is_the_count_vector_slot(tile: Tile) -> None:
    assert Tile.from_index(tile.index) == tile
    assert TILES[tile.index] == tile


def test_tiles_sort_in_count_vector_order() -> None:
    assert sorted(TILES) == list(TILES)


@given(st.sampled_from(TILES), st.sampled_from(TILES))
def test_tiles_compare_as_their_suit_and_rank(a: Tile, b: Tile) -> None:
    """Ordering by the slot is ordering by (suit, rank), for new values as for the 34."""
    fresh_a, fresh_b = Tile(a.suit, a.rank), Tile(b.suit, b.rank)
    key_a, key_b = (a.suit, a.rank), (b.suit, b.rank)
    assert (fresh_a < fresh_b, fresh_a <= fresh_b) == (key_a < key_b, key_a <= key_b)
    assert (fresh_a > fresh_b, fresh_a >= fresh_b) == (key_a > key_b, key_a >= key_b)
    assert (fresh_a == b) == (key_a == key_b)
    if key_a == key_b:
        assert hash(fresh_a) == hash(b)
    assert fresh_a.index == a.index


@given(tiles_st)
def test_parsing_hands_out_the_34_tiles(tiles: list[Tile]) -> None:
    parsed = parse_tiles("".join(map(str, tiles)))
    assert parsed == tuple(Tile(t.suit, t.rank) for t in tiles)
    assert all(tile is TILES[tile.index] for tile in parsed)
    assert all(Tile.parse(str(tile)) is TILES[tile.index] for tile in tiles)


def test_tiles_do_not_order_against_other_values() -> None:
    with pytest.raises(TypeError):
        assert TILES[0] < ("m", 2)  # type: ignore[operator]


@pytest.mark.parametrize(
    ("text", "quoted"),
    [
        ("0m", "0m"),
        ("8z", "8z"),
        ("123", "123"),
        ("12x", "x"),
        ("", ""),
        ("5m?", "?"),
    ],
)
def test_bad_notation_is_a_tile_error_naming_the_text(text: str, quoted: str) -> None:
    with pytest.raises(TileError) as raised:
        parse_tiles(text)
    assert repr(text) in str(raised.value)
    assert quoted in str(raised.value)
    assert isinstance(raised.value, MjledgerError)


def test_tile_parse_wants_exactly_one_tile() -> None:
    with pytest.raises(TileError, match="expected one tile"):
        Tile.parse("55m")


@pytest.mark.parametrize(
    ("kind", "text", "concealed"),
    [
        ("chow", "345s", False),
        ("pung", "555p", False),
        ("kong", "1111s", False),
        ("kong", "2222m", True),
        ("pung", "777z", False),
    ],
)
def test_meld_repr_rebuilds_it(kind: str, text: str, concealed: bool) -> None:
    meld = Meld.parse(kind, text, concealed=concealed)
    assert eval(repr(meld)) == meld
    assert str(meld) == text


def test_chow_tiles_are_kept_sorted() -> None:
    assert Meld.parse("chow", "534s") == Meld.parse("chow", "345s")


@pytest.mark.parametrize(
    ("kind", "text", "message"),
    [
        ("chow", "135m", "consecutive"),
        ("chow", "123z", "consecutive"),
        ("chow", "12m3p", "consecutive"),
        ("chow", "1234m", "consecutive"),
        ("pung", "556p", "identical"),
        ("pung", "5555p", "identical"),
        ("kong", "555p", "identical"),
        ("triple", "555p", "unknown meld kind"),
    ],
)
def test_malformed_melds_are_refused(kind: str, text: str, message: str) -> None:
    with pytest.raises(TileError, match=message):
        Meld.parse(kind, text)


def test_only_a_kong_can_be_concealed() -> None:
    with pytest.raises(TileError, match="only a kong"):
        Meld.parse("pung", "555p", concealed=True)


@given(
    st.lists(
        st.one_of(
            st.text(alphabet="0123456789", min_size=1, max_size=5).map(
                lambda d: d + "mpsz"[len(d) % 4]
            ),
            st.text(alphabet="0123456789mpszx \t", max_size=4),
        ),
        max_size=6,
    ).map("".join)
)
def test_a_well_formed_text_reads_as_group_by_group_reading_reads_it(text: str) -> None:
    # parse_tiles reads a text of well-formed groups a group at a time; any other text, and
    # every error, is the group-by-group reading's.
    from mjledger.tiles import notation

    try:
        expected: tuple[Tile, ...] | str = notation._read(text)
    except TileError as error:
        expected = str(error)
    try:
        found: tuple[Tile, ...] | str = notation._parsed.__wrapped__(text)
    except TileError as error:
        found = str(error)
    assert found == expected
