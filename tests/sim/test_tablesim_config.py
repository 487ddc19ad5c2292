"""tablesim.config and tablesim.profiles: defaults, deal sizes and validation."""

import pytest

from tablesim import PROFILES, GameConfig, Round
from tablesim.bots import FirstLegal
from tablesim.tiles import set_size


def deal(config, number=1):
    import random

    rnd = Round(config, number, random.Random(config.seed), {s: FirstLegal() for s in config.seats})
    return rnd


@pytest.mark.parametrize(
    ("rules", "players", "each", "set_max"),
    [
        ("consensus", 3, 15, 12),
        ("consensus", 6, 12, 12),
        ("consensus", 8, 11, 12),
        ("aces", 4, 15, 12),
        ("aces", 5, 12, 12),
        ("aces", 8, 10, 12),
        ("mexicantrainfun", 2, 8, 9),
        ("mexicantrainfun", 3, 8, 9),
        ("mexicantrainfun", 5, 12, 12),
        ("mexicantrainfun", 7, 10, 12),
        ("triples", 2, 15, 12),
        ("triples", 7, 11, 12),
    ],
)
def test_dealing_sizes(rules, players, each, set_max):
    config = GameConfig.for_players(rules, players, seed=3)
    assert config.set_max == set_max
    rnd = deal(config)
    dealt = [t for hand in rnd.table.hands.values() for t in hand] + rnd.table.boneyard
    assert len(set(dealt)) == len(dealt) == set_size(set_max) - 1
    assert (rnd.engine, rnd.engine) not in dealt
    if rules == "aces":
        # The whole set is dealt; the holder of the highest double placed it.
        assert rnd.engine == max(
            t[0]
            for t in [*dealt, (rnd.engine, rnd.engine)]
            if t[0] == t[1] and t not in rnd.table.boneyard
        )
        assert len(rnd.table.hands[rnd.found_by]) == each - 1
        return
    assert all(len(hand) == each for hand in rnd.table.hands.values())
    # The engine is set aside: hands + boneyard are the rest of the set.
    assert len(rnd.table.boneyard) == set_size(set_max) - 1 - players * each
    assert (set_max, set_max) not in dealt


def test_engine_counts_down_by_round():
    config = GameConfig.for_players("consensus", 4)
    assert [deal(config, r).engine for r in (1, 2, 13)] == [12, 11, 0]
    assert config.rounds == 13
    assert GameConfig.for_players("mexicantrainfun", 3).rounds == 10


def test_mexican_slot_defaults_to_the_lowest_free_slot():
    assert GameConfig("consensus", (2, 5, 1)).mexican_slot == 3
    assert GameConfig("consensus", (8, 1)).seats == (1, 8)
    assert GameConfig.for_players("consensus", 8).mexican_slot is None
    assert GameConfig("consensus", (1, 2), mexican_slot=7).mexican_slot == 7


@pytest.mark.parametrize(
    "kwargs",
    [
        {"rules": "dominoes", "seats": (1, 2)},
        {"rules": "consensus", "seats": (1,)},
        {"rules": "consensus", "seats": (1, 1)},
        {"rules": "consensus", "seats": (0, 1)},
        {"rules": "consensus", "seats": (1, 2), "mexican_slot": 2},
        {"rules": "consensus", "seats": (1, 2), "first": 3},
        {"rules": "consensus", "seats": (1, 2), "set_max": 5},
        {"rules": "consensus", "seats": (1, 2), "set_max": 19},
        {"rules": "consensus", "seats": (1, 2), "rounds": 14},
        {"rules": "consensus", "seats": (1, 2, 3, 4, 5), "set_max": 6},  # no deal for 5
        {"rules": "aces", "seats": (1, 2), "chickenfoot": True},
        {"rules": "triples", "seats": (1, 2, 3, 4), "partnerships": True},
        {"rules": "consensus", "seats": (1, 2, 3), "partnerships": True},
        {"rules": "consensus", "seats": (1, 2), "double_blank": 10},
    ],
)
def test_invalid_configs_raise(kwargs):
    with pytest.raises(ValueError):
        GameConfig(**kwargs)


def test_small_set_with_own_deal_size():
    config = GameConfig.for_players("consensus", 3, set_max=6, tiles_each=7)
    assert config.hand_size == 7 and config.rounds == 7


def test_profiles_follow_docs_rules_table():
    assert PROFILES["aces"].starter == "engine-left"
    assert PROFILES["consensus"].starter == "rotate"
    assert {p.after_double for p in PROFILES.values()} == {"again", "answer", "cover", "satisfy"}
    assert [p.first_turn for p in PROFILES.values()] == ["string", "single", "single", "string"]


def test_deal_and_default_set_agree_with_the_scorers_deal_helper():
    # Written apart from scorer/deal.py on purpose; both read docs/rules.md's rows.
    from scorer.deal import default_set, tiles_each

    for rules in PROFILES:
        for players in range(2, 9):
            config = GameConfig.for_players(rules, players)
            assert config.hand_size == tiles_each(rules, players), (rules, players)
            assert config.set_max == default_set(rules, players), (rules, players)
