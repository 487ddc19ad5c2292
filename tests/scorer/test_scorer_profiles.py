"""Tests for scorer.profiles: the one home of the rule data is consistent with itself."""

from __future__ import annotations

import dataclasses

import pytest

from scorer.profiles import HUB_PLAYERS, OPTIONS, PROFILE_IDS, PROFILES, SETS, Profile, Rows


def _covered(rows: Rows) -> list[int]:
    return [n for fewest, most, _ in rows for n in range(fewest, most + 1)]


def test_the_four_profiles_in_their_order() -> None:
    assert PROFILE_IDS == ("aces", "mexicantrainfun", "consensus", "triples")
    assert all(PROFILES[key].id == key for key in PROFILES)


@pytest.mark.parametrize("rules", PROFILE_IDS)
def test_deal_rows_run_without_gaps_over_every_seatable_count(rules: str) -> None:
    profile = PROFILES[rules]
    for rows in (profile.tiles_each, profile.default_set):
        covered = _covered(rows)
        assert covered == list(range(covered[0], covered[-1] + 1))
        assert set(range(HUB_PLAYERS[0], HUB_PLAYERS[1] + 1)) <= set(covered)
    assert {value for _, _, value in profile.default_set} <= set(SETS)


@pytest.mark.parametrize("rules", PROFILE_IDS)
def test_a_profile_offers_only_known_options(rules: str) -> None:
    assert set(PROFILES[rules].options) <= set(OPTIONS)
    assert "double_blank" in PROFILES[rules].options


def test_option_defaults_are_off() -> None:
    assert {key: option.default for key, option in OPTIONS.items()} == {
        "chickenfoot": False,
        "partnerships": False,
        "double_blank": 0,
        "blanks": False,
        "last_tile_call": False,
        "fast_game": False,
        "cover_optional": False,
        "any_train_cover": False,
        "continuous_draw": False,
        "doubled_doubles": False,
    }


def test_chickenfoot_and_partnerships_follow_the_options() -> None:
    assert [p.chickenfoot_allowed for p in PROFILES.values()] == [False, True, True, False]
    assert [p.partnerships_allowed for p in PROFILES.values()] == [False, False, True, False]
    assert PROFILES["consensus"].covers({"chickenfoot": True}) == 3
    assert PROFILES["aces"].covers({"chickenfoot": True}) == 1


def test_blanks_and_the_one_answer_on_the_mexican_train() -> None:
    assert [p.blanks_allowed for p in PROFILES.values()] == [False, False, True, False]
    mtf = PROFILES["mexicantrainfun"]
    assert mtf.covers({"chickenfoot": True}, on_mexican=True) == 1
    assert mtf.covers({"chickenfoot": True}) == 3
    assert PROFILES["consensus"].covers({"chickenfoot": True}, on_mexican=True) == 3


def test_each_variation_changes_real_fields_of_the_profiles_that_offer_it() -> None:
    # Issue 24, item 10: the consensus variations are switches with one home.
    fields = {f.name for f in dataclasses.fields(Profile)}
    for option in OPTIONS.values():
        assert {key for key, _ in option.overrides} <= fields, option.id
    consensus = PROFILES["consensus"]
    assert consensus.played({"cover_optional": True}).after_double == "again"
    assert consensus.played({"any_train_cover": True}).after_double == "satisfy"
    fast = consensus.played({"fast_game": True})
    assert (fast.first_turn, fast.mexican_in_first_turn) == ("string", False)
    assert fast.double_waits_in_first_turn
    assert consensus.played({}) is consensus
    assert PROFILES["aces"].played({"cover_optional": True}) is PROFILES["aces"]  # not offered
