"""tablesim.tiles: sets, pips, double-blank points, notation."""

from tablesim.tiles import (
    full_set,
    hand_points,
    is_double,
    other_end,
    set_size,
    tile,
    tile_name,
    tile_points,
)


def test_set_sizes():
    for n in range(6, 19):
        tiles = full_set(n)
        assert len(tiles) == len(set(tiles)) == set_size(n)
    assert set_size(12) == 91
    assert set_size(6) == 28
    assert set_size(18) == 190


def test_tile_is_high_end_first():
    assert tile(5, 6) == (6, 5) == tile(6, 5)
    assert tile_name((6, 5)) == "6-5"
    assert all(a >= b for a, b in full_set(9))


def test_other_end_and_doubles():
    assert other_end((6, 5), 5) == 6
    assert other_end((6, 5), 6) == 5
    assert other_end((4, 4), 4) == 4
    assert is_double((0, 0)) and not is_double((1, 0))


def test_points_with_double_blank_option():
    hand = [(6, 5), (0, 0), (3, 0)]
    assert hand_points(hand) == 14
    assert hand_points(hand, 25) == 39
    assert hand_points(hand, 50) == 64
    assert tile_points((0, 0), 50) == 50
    assert tile_points((12, 12), 50) == 24
