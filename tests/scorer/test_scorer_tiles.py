"""Tests for scorer.tiles: sets, notation, pip counting, hand checks."""

from __future__ import annotations

import pytest
from hypothesis import given
from hypothesis import strategies as st

from scorer.tiles import (
    MAX_SET,
    MIN_SET,
    Tile,
    TileError,
    canonical,
    hand_points,
    hands_points,
    max_hand_points,
    parse_tile,
    set_size,
    set_tiles,
    tile_points,
)

set_maxes = st.integers(MIN_SET, MAX_SET)
double_blanks = st.sampled_from((0, 25, 50))


@pytest.mark.parametrize(("set_max", "size"), [(6, 28), (9, 55), (12, 91), (15, 136), (18, 190)])
def test_set_sizes(set_max: int, size: int) -> None:
    assert set_size(set_max) == size
    assert len(set_tiles(set_max)) == size
    assert len(set(set_tiles(set_max))) == size


@pytest.mark.parametrize("set_max", [5, 19, 0, -1])
def test_unsupported_sets_are_refused(set_max: int) -> None:
    with pytest.raises(TileError, match="double-6 to double-18"):
        set_size(set_max)


@pytest.mark.parametrize(
    ("text", "form"),
    [("6-5", "6-5"), ("5-6", "6-5"), ("0-0", "0-0"), ("0-12", "12-0"), (" 3 - 4 ", "4-3")],
)
def test_canonical_form_is_high_low(text: str, form: str) -> None:
    assert canonical(text, 12) == form


@pytest.mark.parametrize(
    ("text", "message"),
    [
        ("6-", "'' is not a number"),
        ("a-b", "'a' is not a number"),
        ("6", "two numbers joined by '-'"),
        ("6-5-4", "two numbers joined by '-'"),
        ("-1-2", "two numbers joined by '-'"),
        ("", "two numbers joined by '-'"),
        ("13-2", "not in a double-12 set"),
        ("2-13", "not in a double-12 set"),
    ],
)
def test_malformed_tiles_are_refused_with_a_clear_message(text: str, message: str) -> None:
    with pytest.raises(ValueError, match=message):
        parse_tile(text, 12)


def test_a_tile_is_equal_whichever_way_it_is_written() -> None:
    assert parse_tile("5-6") == parse_tile("6-5") == Tile(6, 5)


@pytest.mark.parametrize("worth", [0, 25, 50])
def test_double_blank_worth_the_option(worth: int) -> None:
    assert tile_points(Tile(0, 0), worth) == worth
    assert hand_points(["0-0", "6-5"], 12, worth) == worth + 11


def test_other_tiles_are_worth_their_pips_whatever_the_option() -> None:
    assert tile_points(Tile(5, 0), 50) == 5


def test_bad_double_blank_option_is_refused() -> None:
    with pytest.raises(TileError, match="0, 25 or 50"):
        tile_points(Tile(0, 0), 10)


def test_duplicate_in_one_hand_names_tile_and_player() -> None:
    with pytest.raises(TileError, match="tile 6-5 appears twice in Ann's hand"):
        hand_points(["6-5", "5-6"], 12, player="Ann")


def test_duplicate_across_hands_names_both_players() -> None:
    with pytest.raises(TileError, match="tile 6-5 is in both Ann's and Bo's hand"):
        hands_points({"Ann": ["6-5"], "Bo": ["1-1", "5-6"]}, 12)


def test_out_of_set_tile_names_the_player() -> None:
    with pytest.raises(TileError, match="not in a double-9 set.*in Bo's hand"):
        hands_points({"Ann": ["6-5"], "Bo": ["10-1"]}, 9)


def test_the_engine_cannot_be_in_a_hand() -> None:
    with pytest.raises(TileError, match="12-12 in Ann's hand is this round's engine"):
        hands_points({"Ann": ["12-12"]}, 12, engine=12)


def test_hands_points_counts_each_hand() -> None:
    assert hands_points({"Ann": [], "Bo": ["0-0", "12-11"]}, 12, 25) == {"Ann": 0, "Bo": 48}


def test_text_instead_of_a_list_is_refused() -> None:
    with pytest.raises(TileError, match="must be a list of tiles"):
        hand_points("6-5", 12, player="Ann")


def test_max_hand_points_is_the_set_without_the_engine() -> None:
    # Double-12: each number appears 14 times, 14 * 78 = 1092 pips.
    assert max_hand_points(12, 12) == 1092 - 24
    assert max_hand_points(12, 5, 50) == 1092 + 50 - 10
    assert max_hand_points(12, 0, 50) == 1092  # the 0-0 is the engine


@given(set_maxes, double_blanks, st.data())
def test_hand_points_is_the_pip_sum_with_the_option(
    set_max: int, worth: int, data: st.DataObject
) -> None:
    hand = data.draw(st.lists(st.sampled_from(set_tiles(set_max)), unique=True))
    spelled = [f"{t.low}-{t.high}" if data.draw(st.booleans()) else str(t) for t in hand]
    expected = sum(t.high + t.low for t in hand) + (worth if Tile(0, 0) in hand else 0)
    assert hand_points(spelled, set_max, worth) == expected


@given(set_maxes, st.data())
def test_any_hand_with_a_duplicate_is_refused(set_max: int, data: st.DataObject) -> None:
    hand = data.draw(st.lists(st.sampled_from(set_tiles(set_max)), min_size=1, unique=True))
    twice = data.draw(st.sampled_from(hand))
    hand.insert(data.draw(st.integers(0, len(hand))), twice)
    with pytest.raises(TileError, match=f"tile {twice} appears twice"):
        hand_points([str(t) for t in hand], set_max)


@given(set_maxes, st.data())
def test_any_tile_held_by_two_players_is_refused(set_max: int, data: st.DataObject) -> None:
    tiles = data.draw(st.lists(st.sampled_from(set_tiles(set_max)), min_size=1, unique=True))
    shared = data.draw(st.sampled_from(tiles))
    hands = {"Ann": [str(t) for t in tiles], "Bo": [str(shared)]}
    with pytest.raises(TileError, match=f"tile {shared} is in both Ann's and Bo's hand"):
        hands_points(hands, set_max)


@given(set_maxes, st.data())
def test_any_hand_with_an_out_of_set_tile_is_refused(set_max: int, data: st.DataObject) -> None:
    hand = data.draw(st.lists(st.sampled_from(set_tiles(set_max)), unique=True))
    high = data.draw(st.integers(set_max + 1, 99))
    low = data.draw(st.integers(0, high))
    hand.insert(data.draw(st.integers(0, len(hand))), Tile(high, low))
    with pytest.raises(TileError, match=f"not in a double-{set_max} set"):
        hand_points([str(t) for t in hand], set_max)
