"""Tests for scorer.deal: the deal tables of docs/rules.md."""

from __future__ import annotations

import pytest

from scorer.deal import (
    PROFILE_IDS,
    Deal,
    DealError,
    deal,
    default_set,
    player_range,
    tiles_each,
)
from scorer.tiles import set_size


def test_galt_example_three_players_double_12() -> None:
    # The consensus seed: "the players hold 45 tiles, leaving 46 tiles in the boneyard".
    assert deal("consensus", 3) == Deal(15, 46)
    assert deal("consensus", 3, 12) == (15, 46)


def test_five_players_aces() -> None:
    assert deal("aces", 5) == Deal(12, 31)


# (profile, fewest, most, tiles each, default set)
ROWS = [
    ("consensus", 2, 4, 15, 12),
    ("consensus", 5, 6, 12, 12),
    ("consensus", 7, 8, 11, 12),
    ("aces", 2, 4, 15, 12),
    ("aces", 5, 6, 12, 12),
    ("aces", 7, 8, 10, 12),
    ("mexicantrainfun", 2, 3, 8, 9),
    ("mexicantrainfun", 4, 6, 12, 12),
    ("mexicantrainfun", 7, 8, 10, 12),
    ("mexicantrainfun", 9, 12, 11, 15),
    ("mexicantrainfun", 13, 14, 11, 18),
    ("triples", 2, 4, 15, 12),
    ("triples", 5, 6, 12, 12),
    ("triples", 7, 8, 11, 12),
]
CASES = [
    (profile, players, each, set_max)
    for profile, fewest, most, each, set_max in ROWS
    for players in range(fewest, most + 1)
]


@pytest.mark.parametrize(("profile", "players", "each", "set_max"), CASES)
def test_every_row_of_the_tables(profile: str, players: int, each: int, set_max: int) -> None:
    assert tiles_each(profile, players) == each
    assert default_set(profile, players) == set_max
    assert deal(profile, players) == Deal(each, set_size(set_max) - players * each)


@pytest.mark.parametrize(
    ("profile", "players"),
    [
        ("consensus", 1),
        ("consensus", 9),
        ("aces", 9),
        ("triples", 9),
        ("mexicantrainfun", 15),
        ("mexicantrainfun", 1),
        ("aces", 0),
    ],
)
def test_unsupported_player_counts_are_refused(profile: str, players: int) -> None:
    fewest, most = player_range(profile)
    with pytest.raises(DealError, match=f"{profile} rules are for {fewest} to {most} players"):
        deal(profile, players)


def test_unknown_profile_is_refused() -> None:
    with pytest.raises(DealError, match="unknown profile; choose one of aces"):
        deal("chickenfoot", 4)


def test_a_set_too_small_for_the_deal_is_refused() -> None:
    with pytest.raises(DealError, match="2 players × 15 tiles need more than the 28 tiles"):
        deal("aces", 2, 6)


# Issue 24, item 10: the consensus deal follows the set (seed 003's table).
@pytest.mark.parametrize(
    ("players", "set_max", "each"),
    [(2, 6, 9), (3, 6, 8), (4, 6, 6), (2, 9, 15), (3, 9, 13), (4, 9, 10), (5, 9, 9), (6, 9, 7)],
)
def test_the_consensus_deal_follows_the_set(players: int, set_max: int, each: int) -> None:
    assert deal("consensus", players, set_max) == Deal(each, set_size(set_max) - players * each)
    assert tiles_each("consensus", players, set_max) == each


def test_the_illustrations_six_players_on_double_nine_are_dealt() -> None:
    # seed 003's Illustration: six trains started around a double-nine engine.
    assert deal("consensus", 6, 9) == Deal(7, 55 - 42)
    assert deal("consensus", 6, 12) == Deal(12, 91 - 72)  # Galt's double-12 figure


def test_a_consensus_set_the_seed_gives_no_deal_for_is_refused() -> None:
    with pytest.raises(DealError, match="8 players: no deal for a double-9 set"):
        deal("consensus", 8, 9)
    with pytest.raises(DealError, match="5 players: no deal for a double-6 set"):
        deal("consensus", 5, 6)


def test_a_chosen_set_overrides_the_default() -> None:
    assert deal("mexicantrainfun", 3, 12) == Deal(8, 91 - 24)


def test_unsupported_set_is_refused() -> None:
    with pytest.raises(DealError, match="double-6 to double-18"):
        deal("consensus", 4, 20)


def test_profile_ids() -> None:
    assert PROFILE_IDS == ("aces", "mexicantrainfun", "consensus", "triples")
