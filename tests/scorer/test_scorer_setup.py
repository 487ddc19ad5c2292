"""Tests for scorer.setup: the one check of a new game (docs/rules.md, "A new game")."""

from __future__ import annotations

from typing import Any

import pytest

from scorer.setup import GameSetup, SetupError, check_setup

PLAYERS = ["Ann", "Bo", "Cy"]


def refusal(body: dict[str, Any]) -> SetupError:
    """The refusal of ``body`` under the tournament rules (the profile with every option)."""
    with pytest.raises(SetupError) as caught:
        check_setup({"players": PLAYERS, "rules": "consensus"} | body)
    return caught.value


def test_the_defaults_are_filled_in() -> None:
    setup = check_setup({"players": ["Ann", "Bo"], "rules": "mexicantrainfun"})
    assert setup == GameSetup(("Ann", "Bo"), "mexicantrainfun", (1, 2), 3, None, 9, 10, ())
    assert setup.engines == tuple(range(9, -1, -1))
    setup = check_setup({"players": PLAYERS, "seats": [1, 3, 5], "first": 3, "rounds": 3})
    # No rules named: the hub's default, the family's standard rules.
    assert (setup.rules, setup.mexican_slot, setup.set_max, setup.engines) == (
        "aces",
        2,
        12,
        (12, 11, 10),
    )


def test_the_default_rules_come_from_the_caller() -> None:
    assert check_setup({"players": PLAYERS}, "triples").rules == "triples"


def test_names_are_trimmed() -> None:
    assert check_setup({"players": [" Ann ", "Bo"]}).players == ("Ann", "Bo")


def test_eight_players_leave_no_mexican_slot_and_null_asks_for_none() -> None:
    eight = [f"P{n}" for n in range(8)]
    assert check_setup({"players": eight}).mexican_slot is None
    assert check_setup({"players": PLAYERS, "mexican_slot": None}).mexican_slot is None


# The disagreements the two former validators had, as decided in docs/rules.md.
def test_names_that_differ_only_in_case_are_the_same_player() -> None:
    error = refusal({"players": ["Ann", "ann"]})
    assert error.field == "players"
    assert str(error) == "players: 'Ann' and 'ann' are the same name"
    assert refusal({"players": ["Ann", " Ann"]}).field == "players"
    assert refusal({"players": ["Mexican", "Bo"]}).field == "players"
    assert refusal({"players": ["MEXICAN", "Bo"]}).field == "players"


@pytest.mark.parametrize("set_max", [7, 8, 10, 11, 13, 14, 16, 17])
def test_a_set_that_is_not_made_is_refused(set_max: int) -> None:
    error = refusal({"set": set_max})
    assert error.field == "set"
    assert str(error) == f"set: {set_max} is not a domino set (6, 9, 12, 15, 18)"


@pytest.mark.parametrize("set_max", [6, 9, 12, 15, 18])
def test_every_made_set_is_accepted_even_when_small_for_the_deal(set_max: int) -> None:
    setup = check_setup({"players": PLAYERS, "set": set_max})
    assert (setup.set_max, setup.rounds) == (set_max, set_max + 1)


@pytest.mark.parametrize("rules", ["aces", "triples"])
def test_chickenfoot_only_where_the_profile_offers_it(rules: str) -> None:
    error = refusal({"rules": rules, "options": {"chickenfoot": True}})
    assert error.field == "options.chickenfoot"
    assert str(error) == (
        f"options.chickenfoot: not part of the {rules} rules (they offer: double_blank)"
    )
    off = check_setup({"players": PLAYERS, "rules": rules, "options": {"chickenfoot": False}})
    assert off.options == (("chickenfoot", False),)


def test_chickenfoot_where_offered() -> None:
    for rules in ("mexicantrainfun", "consensus"):
        setup = check_setup({"players": PLAYERS, "rules": rules, "options": {"chickenfoot": True}})
        assert setup.options == (("chickenfoot", True),)


def test_more_than_eight_players_are_refused_whatever_the_deal_table() -> None:
    error = refusal({"players": [f"P{n}" for n in range(9)], "rules": "mexicantrainfun"})
    assert (error.field, str(error)) == ("players", "players: the hub seats 2 to 8 players, got 9")


BAD: list[tuple[dict[str, Any], str | None, str]] = [
    ({"rules": "chickenfoot"}, "rules", "'chickenfoot' is not one of aces"),
    ({"rules": "Consensus"}, "rules", "is not one of"),
    ({"players": ["Ann"]}, "players", "2 to 8 players, got 1"),
    ({"players": ["Ann", "Ann"]}, "players", "same name"),
    ({"players": ["Ann", " "]}, "players", "is not a name"),
    ({"players": ["Ann", 7]}, "players", "is not a name"),
    ({"players": ["A" * 25, "Bo"]}, "players", "longer than 24 characters"),
    ({"players": "Ann"}, "players", "expected a list of names"),
    ({"seats": [1, 2]}, "seats", "expected 3 slot numbers"),
    ({"seats": [1, 2, 9]}, "seats", "9 is not a slot"),
    ({"seats": [1, None, 3]}, "seats", "None is not a slot"),
    ({"seats": [1, 2, True]}, "seats", "True is not a slot"),
    ({"seats": [1, 2, 2]}, "seats", "two players on the same slot"),
    ({"seats": [1, 2, 3], "mexican_slot": 3}, "mexican_slot", "slot 3 is a player's seat"),
    ({"mexican_slot": 0}, "mexican_slot", "0 is not a slot"),
    ({"mexican_slot": "4"}, "mexican_slot", "expected a whole number"),
    ({"seats": [1, 2, 3], "first": 5}, "first", "slot 5 has no player"),
    ({"set": 5}, "set", "5 is not a domino set"),
    ({"set": 12.0}, "set", "expected a whole number"),
    ({"set": True}, "set", "expected a whole number"),
    ({"rounds": 14}, "rounds", "14 is not between 1 and 13"),
    ({"rounds": 0}, "rounds", "0 is not between 1 and 13"),
    ({"set": 6, "rounds": 8}, "rounds", "8 is not between 1 and 7"),
    ({"options": []}, "options", "expected an object"),
    ({"options": {"double_blank": 10}}, "options.double_blank", "10 is not one of 0, 25, 50"),
    ({"options": {"double_blank": False}}, "options.double_blank", "False is not one of"),
    ({"options": {"chickenfoot": 1}}, "options.chickenfoot", "1 is not one of false, true"),
    ({"options": {"chickenfoot": "yes"}}, "options.chickenfoot", "'yes' is not one of"),
    ({"options": {"bullet": True}}, "options.bullet", "unknown option"),
    ({"options": {"partnerships": True}}, "options.partnerships", "needs 4, 6 or 8 players, not 3"),
    (
        {
            "players": ["A", "B", "C", "D"],
            "rules": "mexicantrainfun",
            "options": {"partnerships": True},
        },
        "options.partnerships",
        "not part of the",
    ),
    ({"colour": "red"}, "colour", "unknown field"),
]


@pytest.mark.parametrize(("body", "field", "message"), BAD)
def test_bad_setups_name_the_field(body: dict[str, Any], field: str, message: str) -> None:
    error = refusal(body)
    assert error.field == field
    assert str(error).startswith(f"{field}: ")
    assert message in str(error)


@pytest.mark.parametrize("body", [None, [], "players", 3])
def test_a_body_that_is_not_an_object(body: object) -> None:
    with pytest.raises(SetupError, match="body: expected a JSON object") as caught:
        check_setup(body)
    assert caught.value.field is None


def test_blanks_score_the_double_blank_50() -> None:
    body = {
        "players": PLAYERS,
        "rules": "consensus",
        "options": {"blanks": True, "double_blank": 25},
    }
    with pytest.raises(SetupError) as caught:
        check_setup(body)
    assert caught.value.field == "options.blanks"
    assert str(caught.value) == "options.blanks: with blanks on, double_blank must be 0 or 50"
    for worth in (0, 50):
        body["options"] = {"blanks": True, "double_blank": worth}
        assert dict(check_setup(body).options) == {"blanks": True, "double_blank": worth}
    assert refusal({"rules": "aces", "options": {"blanks": True}}).field == "options.blanks"


def test_partnerships_with_four_six_or_eight() -> None:
    for count in (4, 6, 8):
        players = [f"P{n}" for n in range(count)]
        body = {"players": players, "rules": "consensus", "options": {"partnerships": True}}
        assert check_setup(body).options == (("partnerships", True),)


def test_first_needs_no_seats_every_game_is_seated() -> None:
    setup = check_setup({"players": PLAYERS, "first": 2, "options": None})
    assert (setup.seats, setup.first, setup.options) == ((1, 2, 3), 2, ())


def test_an_aces_series_is_not_capped_at_the_sets_engines() -> None:
    # Issue 24, item 10: aces plays "a progression of games"; the table names each engine.
    body = {"players": ["Ann", "Bob"], "rules": "aces", "rounds": 20}
    setup = check_setup(body)
    assert setup.rounds == 20
    assert setup.engines[:14] == (12, 11, 10, 9, 8, 7, 6, 5, 4, 3, 2, 1, 0, 12)
    with pytest.raises(SetupError, match="rounds: 100 is not between 1 and 99"):
        check_setup({**body, "rounds": 100})
    with pytest.raises(SetupError, match="rounds: 14 is not between 1 and 13"):
        check_setup({**body, "rules": "consensus", "rounds": 14})
