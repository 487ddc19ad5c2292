"""tablesim.dealer: the two ways to deal and who starts; the seating GameConfig knows."""

from __future__ import annotations

import random

from tablesim import GameConfig
from tablesim.dealer import deal_set_aside, deal_whole_set, starter
from tablesim.tiles import is_double, set_size


def test_a_set_aside_engine_is_in_nobody_s_hand():
    config = GameConfig.for_players("consensus", 4)
    dealt = deal_set_aside(config, 9, random.Random(1))
    tiles = [t for hand in dealt.table.hands.values() for t in hand] + dealt.table.boneyard
    assert (9, 9) not in tiles and len(tiles) == set_size(12) - 1
    assert (dealt.engine, dealt.found_by) == (9, None)


def test_the_whole_set_dealt_makes_the_highest_double_held_the_engine():
    config = GameConfig.for_players("aces", 3)
    dealt = deal_whole_set(config, random.Random(5))
    held = [t for hand in dealt.table.hands.values() for t in hand if is_double(t)]
    assert dealt.found_by in config.seats
    assert all(t[0] < dealt.engine for t in held)


def test_who_starts_by_profile():
    rotate = GameConfig("consensus", (2, 4, 6), first=4)
    assert [starter(rotate, n, None, random.Random(0)) for n in (1, 2, 3)] == [
        (None, 4),
        (None, 6),
        (None, 2),
    ]
    holder = GameConfig("aces", (1, 2, 3))
    assert starter(holder, 2, 3, random.Random(0)) == (3, None)
    assert starter(GameConfig("aces", (1, 2, 3), first=2), 1, 3, random.Random(0)) == (None, 2)


def test_seats_partners_and_the_trains_open_to_a_player():
    config = GameConfig("consensus", (1, 3, 5, 7), partnerships=True)
    assert [config.next_seat(s) for s in config.seats] == [3, 5, 7, 1]
    assert config.partner(3) == 7
    assert config.open_trains(3, {1, 7}) == [3, 7, 1, config.mexican]
    assert config.public_others(3, {3, 5}) == [5, config.mexican]
    assert GameConfig("consensus", (1, 2)).partner(1) is None
