"""tablesim's oracle against the real rule data (``scorer/profiles.py``), field by field.

The simulator keeps its own copy of the profiles on purpose (it is the independent
"truth" the soak checks the hub against), so nothing stops the two from drifting but
this test: every field of the oracle is compared with the real data, and every field
of the real profiles is either compared or named here as one the tile-level game does
not need. A new field on either side fails until someone decides which it is.
"""

from __future__ import annotations

import dataclasses
from collections.abc import Callable

import pytest

from scorer.profiles import HUB_PLAYERS, OPTIONS, PROFILES, SETS, Profile, Rows
from tablesim import GameConfig
from tablesim import profiles as oracle
from tablesim import tiles as oracle_tiles

SEATED = range(HUB_PLAYERS[0], HUB_PLAYERS[1] + 1)


def _by_count(rows: Rows) -> dict[int, int]:
    """Rows as {player count: value}, within the counts the hub seats."""
    return {n: value for low, high, value in rows for n in range(low, high + 1) if n in SEATED}


Compare = Callable[[oracle.OracleProfile, Profile], bool]


def _variants(real: Profile) -> set[str]:
    """The variations (options that change how the table plays) a profile offers."""
    return {name for name in real.options if OPTIONS[name].overrides}


# Each oracle field, and how it must agree with the real profile.
ORACLE_FIELDS: dict[str, Compare] = {
    "name": lambda sim, real: sim.name == real.id,
    "starter": lambda sim, real: sim.starter == real.starter,
    "first_turn": lambda sim, real: sim.first_turn == real.first_turn,
    "after_double": lambda sim, real: sim.after_double == real.after_double,
    "out_waits_first_turns": lambda sim, real: (
        sim.out_waits_first_turns == real.out_waits_first_turns
    ),
    "chickenfoot_allowed": lambda sim, real: sim.chickenfoot_allowed == real.chickenfoot_allowed,
    "partnerships_allowed": lambda sim, real: sim.partnerships_allowed == real.partnerships_allowed,
    "tiles_each": lambda sim, real: _by_count(sim.tiles_each) == _by_count(real.tiles_each),
    "default_set": lambda sim, real: _by_count(sim.default_set) == _by_count(real.default_set),
    # The oracle's bots play the Mexican Train in a first turn only where the hub lets
    # them; the hub may allow more than the oracle's strict reading (consensus: the
    # seed's first turn starts one's own train, but some tables open the Mexican too).
    "mexican_in_first_turn": lambda sim, real: (
        real.mexican_in_first_turn or not sim.mexican_in_first_turn
    ),
    "mexican_double_one_cover": lambda sim, real: (
        sim.mexican_double_one_cover == real.mexican_double_one_cover
    ),
    "privatising_double_free": lambda sim, real: (
        sim.privatising_double_free == real.privatising_double_free
    ),
    "last_tile_reminder": lambda sim, real: sim.last_tile_reminder == real.last_tile_reminder,
    "engine_chosen": lambda sim, real: sim.engine_chosen == real.engine_chosen,
    "blanks_allowed": lambda sim, real: sim.blanks_allowed == real.blanks_allowed,
    "last_tile_call_allowed": lambda sim, real: (
        sim.last_tile_call_allowed == ("last_tile_call" in real.options)
    ),
    "small_set_deals": lambda sim, real: (
        {s: _by_count(rows) for s, rows in sim.small_set_deals}
        == {s: _by_count(rows) for s, rows in real.tiles_by_set}
    ),
    "string_double_waits": lambda sim, real: (
        sim.string_double_waits == real.double_waits_in_first_turn
    ),
    "variants": lambda sim, real: set(sim.variants) == _variants(real),
    "has_mexican": lambda sim, real: sim.has_mexican == real.mexican_train,
    "continuous_draw": lambda sim, real: sim.continuous_draw == real.continuous_draw,
    "doubled_doubles": lambda sim, real: sim.doubled_doubles == real.doubled_doubles,
}

# The real profile's fields and the oracle field each is compared through; None: the
# tile-level game does not need it (the reason beside it).
REAL_FIELDS: dict[str, str | None] = {
    "id": "name",
    "name": None,  # the display name on the page
    "starter": "starter",
    "first_turn": "first_turn",
    "public_in_first_turn": None,  # what the hub refuses; the bots never try it
    "after_double": "after_double",
    "fail_reminder": None,  # a reminder sound, not a rule of play
    "out_waits_first_turns": "out_waits_first_turns",
    "double_waits_in_first_turn": "string_double_waits",
    "options": "chickenfoot_allowed",  # and partnerships_allowed, blanks_allowed
    "tiles_each": "tiles_each",
    "default_set": "default_set",
    "players": None,  # the hub's seats, compared in test_the_oracle_seats_the_hubs_players
    "mexican_in_first_turn": "mexican_in_first_turn",
    "doubler_must_mark": None,  # part of the oracle's after_double "answer"
    "mexican_double_one_cover": "mexican_double_one_cover",
    "privatising_double_free": "privatising_double_free",
    "last_tile_reminder": "last_tile_reminder",
    "engine_chosen": "engine_chosen",
    "tiles_by_set": "small_set_deals",
    "open_series": "engine_chosen",  # the table names each engine: the series may go on
    "mexican_train": "has_mexican",
    "continuous_draw": "continuous_draw",
    "doubled_doubles": "doubled_doubles",
}


def test_both_sides_have_the_same_profiles_in_the_same_order() -> None:
    assert list(oracle.PROFILES) == list(PROFILES)


def test_every_oracle_field_is_compared() -> None:
    assert [f.name for f in dataclasses.fields(oracle.OracleProfile)] == list(ORACLE_FIELDS)


def test_every_real_field_is_compared_or_named_as_not_needed() -> None:
    assert [f.name for f in dataclasses.fields(Profile)] == list(REAL_FIELDS)
    assert {f for f in REAL_FIELDS.values() if f is not None} <= set(ORACLE_FIELDS)


@pytest.mark.parametrize("rules", list(PROFILES))
@pytest.mark.parametrize("field", list(ORACLE_FIELDS))
def test_field_by_field(rules: str, field: str) -> None:
    sim, real = oracle.PROFILES[rules], PROFILES[rules]
    assert ORACLE_FIELDS[field](sim, real), (rules, field, getattr(sim, field))


@pytest.mark.parametrize("rules", list(PROFILES))
def test_the_oracle_deals_and_picks_the_set_as_the_real_tables(rules: str) -> None:
    sim, real = oracle.PROFILES[rules], PROFILES[rules]
    for players in SEATED:
        assert sim.hand_size(players) == _by_count(real.tiles_each)[players]
        assert sim.set_for(players) == _by_count(real.default_set)[players]


def test_the_oracle_seats_the_hubs_players() -> None:
    for rules, profile in PROFILES.items():
        fewest, most = profile.players
        GameConfig.for_players(rules, fewest)
        GameConfig.for_players(rules, most)
        for outside in (fewest - 1, most + 1):
            with pytest.raises(ValueError):
                GameConfig.for_players(rules, outside)


def test_options() -> None:
    # The oracle's game options are GameConfig's fields after the set-up ones.
    setup = {"rules", "seats", "seed", "mexican_slot", "first", "set_max", "rounds", "tiles_each"}
    sim_options = [f.name for f in dataclasses.fields(GameConfig) if f.name not in setup]
    # The variations (options that change how the table plays) are one field, variants.
    variations = [key for key, option in OPTIONS.items() if option.overrides]
    assert sim_options == [key for key in OPTIONS if key not in variations] + ["variants"]
    assert set(variations) == set(oracle.VARIANTS)
    for key, option in OPTIONS.items():
        if key not in variations:
            assert GameConfig.__dataclass_fields__[key].default == option.default
    assert oracle_tiles.DOUBLE_BLANK_VALUES == OPTIONS["double_blank"].values


@pytest.mark.parametrize("rules", list(PROFILES))
@pytest.mark.parametrize("key", ["chickenfoot", "partnerships", "blanks", "last_tile_call"])
def test_the_oracle_offers_an_option_where_the_profile_does(rules: str, key: str) -> None:
    needs = OPTIONS[key].players
    for players in SEATED:
        offered = key in PROFILES[rules].options and (needs is None or players in needs)
        if offered:
            GameConfig.for_players(rules, players, **{key: True})
        else:
            with pytest.raises(ValueError, match=key):
                GameConfig.for_players(rules, players, **{key: True})


@pytest.mark.parametrize("rules", list(PROFILES))
@pytest.mark.parametrize("key", sorted(oracle.VARIANTS))
def test_the_oracle_offers_a_variation_where_the_profile_does(rules: str, key: str) -> None:
    if key in PROFILES[rules].options:
        assert GameConfig.for_players(rules, 4, variants=(key,)).profile != oracle.PROFILES[rules]
    else:
        with pytest.raises(ValueError, match=key):
            GameConfig.for_players(rules, 4, variants=(key,))


def test_double_blank_values() -> None:
    for value in range(-1, 60):
        if value in OPTIONS["double_blank"].values:
            GameConfig.for_players("consensus", 3, double_blank=value)
        else:
            with pytest.raises(ValueError, match="double_blank"):
                GameConfig.for_players("consensus", 3, double_blank=value)


def test_the_oracles_sets_span_the_real_ones() -> None:
    assert (oracle_tiles.MIN_SET, oracle_tiles.MAX_SET) == (SETS[0], SETS[-1])


def _as_config(game: dict[str, object]) -> dict[str, object]:
    """Options as GameConfig's fields: the variations switched on go in ``variants``."""
    fields = {k: v for k, v in game.items() if k not in oracle.VARIANTS}
    return {**fields, "variants": tuple(k for k, v in game.items() if k in oracle.VARIANTS and v)}


def test_what_an_option_requires_of_the_others() -> None:
    for key, option in OPTIONS.items():
        for other, allowed in option.requires:
            for value in OPTIONS[other].values:
                game = _as_config({key: option.values[-1], other: value})
                if value in allowed:
                    GameConfig.for_players("consensus", 4, **game)
                else:
                    with pytest.raises(ValueError):
                        GameConfig.for_players("consensus", 4, **game)


def test_the_oracles_variations_play_as_the_real_ones() -> None:
    # Issue 24, item 10: each consensus variation changes the same rules on both sides.
    same = {"string_double_waits": "double_waits_in_first_turn"}
    for name, changes in oracle.VARIANTS.items():
        real = dict(OPTIONS[name].overrides)
        for field, value in changes.items():
            assert real[same.get(field, field)] == value, (name, field)
        assert {same.get(f, f) for f in changes} <= set(real), name
