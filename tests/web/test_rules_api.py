"""``GET /api/rules`` (the rule data the new-game form is built from) and ``GET /api/deal``
(the form's deal helper, with errors naming the field)."""

from __future__ import annotations

import itertools
from typing import Any

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from scorer.profiles import PROFILES
from scorer.setup import SetupError, check_setup
from tests.fake_service import FakeHubService
from web import create_app


@pytest.fixture
def client():
    return create_app(FakeHubService(), {"TESTING": True}).test_client()


@pytest.mark.parametrize(
    "query, answer",
    [
        (
            "rules=consensus&players=4",
            {"set": 12, "default_set": 12, "rounds": 13, "tiles_each": 15, "boneyard": 31},
        ),
        ("rules=consensus&players=3", {"tiles_each": 15, "boneyard": 46}),  # the seed's example
        (
            "rules=consensus&players=3&set=9",
            {"set": 9, "default_set": 12, "rounds": 10, "tiles_each": 13, "boneyard": 16},
        ),
        # Issue 24, item 10: seed 003 deals 10 each to 4 players on double-9, 7 to 6.
        ("rules=consensus&players=4&set=9", {"tiles_each": 10, "boneyard": 15}),
        ("rules=consensus&players=6&set=9", {"tiles_each": 7, "boneyard": 13}),
        ("rules=mexicantrainfun&players=3", {"set": 9, "tiles_each": 8, "boneyard": 31}),
        ("rules=aces&players=8", {"set": 12, "tiles_each": 10, "boneyard": 11}),
        ("players=6", {"rules": "aces", "tiles_each": 12, "boneyard": 19}),  # the default
    ],
)
def test_deal(client, query, answer):
    response = client.get("/api/deal?" + query)
    assert response.status_code == 200
    body = response.get_json()
    assert {key: body[key] for key in answer} == answer


@pytest.mark.parametrize(
    "query, field",
    [
        ("", "players"),
        ("players=", "players"),
        ("players=two", "players"),
        ("players=-3", "players"),
        ("players=1", "players"),
        ("players=9", "players"),
        ("rules=chess&players=4", "rules"),
        ("rules=mexicantrainfun&players=9", "players"),
        ("players=4&set=7", "set"),
        ("players=8&set=9", "set"),
        ("rules=aces&players=4&set=9", "set"),
        ("players=8&set=6", "set"),
        ("players=4&set=x", "set"),
    ],
)
def test_bad_query_names_the_field(client, query, field):
    response = client.get("/api/deal?" + query)
    assert response.status_code == 400
    assert response.get_json()["field"] == field


# --- GET /api/rules -------------------------------------------------------------------


def served_rules() -> dict[str, Any]:
    """What a page gets from ``GET /api/rules`` (a fake hub: the data is the scorer's)."""
    app = create_app(FakeHubService(), {"TESTING": True})
    body: dict[str, Any] = app.test_client().get("/api/rules").get_json()
    return body


RULES = served_rules()


def test_rules_have_the_shape_of_the_contract() -> None:
    assert set(RULES) == {"default_rules", "slots", "name_length", "sets", "profiles", "options"}
    assert RULES["default_rules"] == "aces"  # the standard rules, recommended
    assert RULES["sets"] == [6, 9, 12, 15, 18]
    assert [p["id"] for p in RULES["profiles"]] == [
        "aces",
        "mexicantrainfun",
        "consensus",
        "triples",
    ]
    for profile in RULES["profiles"]:
        assert set(profile) == {
            "id",
            "name",
            "players",
            "starter",
            "mexican_train",
            "options",
            "tiles_each",
            "tiles_by_set",
            "default_set",
            "rounds",
        }
        assert profile["players"] == [2, 8]
        assert profile["mexican_train"] is (profile["id"] != "triples")
        assert profile["starter"] in ("rotate", "engine-holder", "engine-left")
        assert profile["rounds"] == {
            "default": None,
            "max": 99 if profile["id"] == "aces" else None,
        }
        assert set(profile["options"]) <= set(RULES["options"])
        for row in profile["tiles_each"]:
            assert set(row) == {"players", "tiles"}
        for set_max, rows in profile["tiles_by_set"].items():
            assert int(set_max) in RULES["sets"] and rows
            assert all(set(row) == {"players", "tiles"} for row in rows)
        for row in profile["default_set"]:
            assert set(row) == {"players", "set"} and row["set"] in RULES["sets"]
    assert RULES["options"] == {
        "chickenfoot": {
            "values": [False, True],
            "default": False,
            "label": RULES["options"]["chickenfoot"]["label"],
        },
        "partnerships": {
            "values": [False, True],
            "default": False,
            "label": RULES["options"]["partnerships"]["label"],
            "players": [4, 6, 8],
        },
        "double_blank": {
            "values": [0, 25, 50],
            "default": 0,
            "label": RULES["options"]["double_blank"]["label"],
        },
        "blanks": {
            "values": [False, True],
            "default": False,
            "label": RULES["options"]["blanks"]["label"],
            "requires": {"double_blank": [0, 50]},
        },
        "last_tile_call": {
            "values": [False, True],
            "default": False,
            "label": RULES["options"]["last_tile_call"]["label"],
        },
        # Issue 24, item 10: the consensus variations as switches.
        "fast_game": {
            "values": [False, True],
            "default": False,
            "label": RULES["options"]["fast_game"]["label"],
        },
        "cover_optional": {
            "values": [False, True],
            "default": False,
            "label": RULES["options"]["cover_optional"]["label"],
            "requires": {"chickenfoot": [False], "any_train_cover": [False]},
        },
        "any_train_cover": {
            "values": [False, True],
            "default": False,
            "label": RULES["options"]["any_train_cover"]["label"],
            "requires": {"chickenfoot": [False]},
        },
        "continuous_draw": {
            "values": [False, True],
            "default": False,
            "label": RULES["options"]["continuous_draw"]["label"],
            "requires": {
                "chickenfoot": [False],
                "cover_optional": [False],
                "any_train_cover": [False],
            },
        },
        "doubled_doubles": {
            "values": [False, True],
            "default": False,
            "label": RULES["options"]["doubled_doubles"]["label"],
            "requires": {
                "chickenfoot": [False],
                "cover_optional": [False],
                "any_train_cover": [False],
                "continuous_draw": [False],
            },
        },
    }
    assert all(option["label"] for option in RULES["options"].values())


def test_rules_serve_the_deal_tables_within_the_hubs_seats() -> None:
    fun = next(p for p in RULES["profiles"] if p["id"] == "mexicantrainfun")
    assert fun["tiles_each"] == [
        {"players": [2, 3], "tiles": 8},
        {"players": [4, 6], "tiles": 12},
        {"players": [7, 8], "tiles": 10},
    ]
    assert fun["default_set"] == [{"players": [2, 3], "set": 9}, {"players": [4, 8], "set": 12}]
    consensus = next(p for p in RULES["profiles"] if p["id"] == "consensus")
    assert consensus["name"] == "Tournament rules (Galt)"
    assert consensus["options"] == [
        "chickenfoot",
        "partnerships",
        "double_blank",
        "blanks",
        "last_tile_call",
        "fast_game",
        "cover_optional",
        "any_train_cover",
        "continuous_draw",
        "doubled_doubles",
    ]
    assert consensus["tiles_each"] == [
        {"players": [2, 4], "tiles": 15},
        {"players": [5, 6], "tiles": 12},
        {"players": [7, 8], "tiles": 11},
    ]


def test_the_hub_serves_its_configured_default_rules(make_hub: Any) -> None:
    hub = make_hub(hub={"default_rules": "triples"})
    client = create_app(hub.web_service(), {"TESTING": True}).test_client()
    response = client.get("/api/rules")
    assert response.status_code == 200
    assert response.get_json() == RULES | {"default_rules": "triples"}


def test_asking_again_with_the_etag_fetches_nothing() -> None:
    client = create_app(FakeHubService(), {"TESTING": True}).test_client()
    first = client.get("/api/rules")
    assert first.headers["Cache-Control"] == "no-cache" and first.headers["ETag"]
    again = client.get("/api/rules", headers={"If-None-Match": first.headers["ETag"]})
    assert (again.status_code, again.data) == (304, b"")


def _row(rows: list[dict[str, Any]], count: int, key: str) -> int:
    value: int = next(r[key] for r in rows if r["players"][0] <= count <= r["players"][1])
    return value


def _allowed_values(spec: dict[str, Any], offered: bool, count: int) -> list[Any]:
    """The values of an option the page can send: a profile that does not list the
    option, or a player count it does not suit, leaves it at its default."""
    if not offered or count not in spec.get("players", [count]):
        return [spec["default"]]
    values: list[Any] = spec["values"]
    return values


@st.composite
def page_choices(draw: st.DrawFn) -> dict[str, Any]:
    """A new-game body made only of choices ``GET /api/rules`` offers."""
    profile = draw(st.sampled_from(RULES["profiles"]))
    count = draw(st.integers(*profile["players"]))
    body: dict[str, Any] = {"players": [f"P{n}" for n in range(count)], "rules": profile["id"]}
    if draw(st.booleans()):
        body["set"] = draw(st.sampled_from(RULES["sets"]))
    set_max = body.get("set", _row(profile["default_set"], count, "set"))
    if draw(st.booleans()):
        body["rounds"] = draw(st.integers(1, set_max + 1))
    options = {}
    for key, spec in RULES["options"].items():
        if draw(st.booleans()):
            offered = key in profile["options"]
            options[key] = draw(st.sampled_from(_allowed_values(spec, offered, count)))
    for key, value in list(options.items()):  # what an option on requires of others
        for other, allowed in RULES["options"][key].get("requires", {}).items():
            if value != RULES["options"][key]["default"] and other in options:
                options[other] = draw(st.sampled_from(allowed))
    body["options"] = options
    return body


@given(page_choices())
def test_every_choice_the_page_can_make_is_accepted(body: dict[str, Any]) -> None:
    setup = check_setup(body, RULES["default_rules"])
    profile = next(p for p in RULES["profiles"] if p["id"] == body["rules"])
    count = len(body["players"])
    assert setup.set_max == body.get("set", _row(profile["default_set"], count, "set"))
    assert setup.rounds == body.get("rounds", setup.set_max + 1)  # rounds.default: null
    assert dict(setup.options) == body["options"]


def allowed_by_rules(body: dict[str, Any]) -> bool:
    """Whether ``body`` is within what ``GET /api/rules`` offers (the page's reading)."""
    profile = next((p for p in RULES["profiles"] if p["id"] == body["rules"]), None)
    if profile is None:
        return False
    count = len(body["players"])
    fewest, most = profile["players"]
    if not fewest <= count <= most:
        return False
    if "set" in body and body["set"] not in RULES["sets"]:
        return False
    set_max = body.get("set", _row(profile["default_set"], count, "set"))
    most_rounds = profile["rounds"]["max"] or set_max + 1
    if not 1 <= body.get("rounds", 1) <= most_rounds:
        return False
    for key, value in body["options"].items():
        spec = RULES["options"].get(key)
        if spec is None:
            return False
        allowed = _allowed_values(spec, key in profile["options"], count)
        if not any(type(value) is type(v) and value == v for v in allowed):
            return False
        for other, needed in spec.get("requires", {}).items():
            if value != spec["default"]:
                if body["options"].get(other, RULES["options"][other]["default"]) not in needed:
                    return False
    return True


OPTION_VALUES = st.one_of(st.booleans(), st.sampled_from([0, 1, 10, 25, 50]), st.just("yes"))
WIDE: dict[str, st.SearchStrategy[Any]] = {
    "rules": st.sampled_from([*PROFILES, "chess", "Consensus"]),
    "players": st.integers(0, 10).map(lambda count: [f"P{n}" for n in range(count)]),
    "set": st.integers(0, 20),
    "rounds": st.integers(-1, 20),
}


@st.composite
def free_options(draw: st.DrawFn) -> dict[str, Any]:
    """Options each drawn from its own values, whatever the profile, the player count
    or the other options say; now and then a wrong value or an unknown option."""
    options = {
        key: draw(st.sampled_from(spec["values"]))
        for key, spec in RULES["options"].items()
        if draw(st.booleans())
    }
    if draw(st.integers(0, 4)) == 0:
        key = draw(st.sampled_from([*RULES["options"], "bullet"]))
        options[key] = draw(OPTION_VALUES)
    return options


@st.composite
def any_choices(draw: st.DrawFn) -> dict[str, Any]:
    """A body the page could send, then its options drawn free or one of its fields
    drawn wide (another profile or none, player count, set, rounds), or both."""
    body = draw(page_choices())
    if draw(st.booleans()):
        body["options"] = draw(free_options())
    if draw(st.booleans()):
        field = draw(st.sampled_from(list(WIDE)))
        body[field] = draw(WIDE[field])
        if field == "set" and draw(st.booleans()):  # and the rounds at its edge
            body["rounds"] = body["set"] + draw(st.integers(0, 2))
    return body


@settings(max_examples=300)
@given(any_choices())
def test_the_check_accepts_what_the_rules_offer_and_nothing_else(body: dict[str, Any]) -> None:
    try:
        check_setup(body)
    except SetupError:
        accepted = False
    else:
        accepted = True
    assert accepted == allowed_by_rules(body)


def test_every_option_combination_is_accepted_exactly_when_the_rules_offer_it() -> None:
    # Every three options (what one requires of another is between two), each left
    # out, at each of its values or a wrong one, with every profile and player count
    # (all ten options at once would be 4^9 × 5 combinations: too many to try).
    for keys in itertools.combinations(RULES["options"], 3):
        states = [[None, *RULES["options"][key]["values"], "yes"] for key in keys]
        for combination in itertools.product(*states):
            options = {
                key: value
                for key, value in zip(keys, combination, strict=True)
                if value is not None
            }
            _check_combination(options)


def _check_combination(options: dict[str, Any]) -> None:
    for rules in PROFILES:
        for count in range(1, 10):
            body = {"players": [f"P{n}" for n in range(count)], "rules": rules, "options": options}
            try:
                check_setup(body)
            except SetupError:
                accepted = False
            else:
                accepted = True
            assert accepted == allowed_by_rules(body), body


def _accepted(body: dict[str, Any]) -> bool:
    try:
        check_setup(body)
    except SetupError:
        return False
    return True


def test_every_profile_count_set_and_rounds_edge_is_accepted_exactly_when_offered() -> None:
    bodies: list[dict[str, Any]] = []
    for rules in [*PROFILES, "chess", "Consensus", ""]:
        for count in range(0, 11):
            bodies.append({"rules": rules, "players": [f"P{n}" for n in range(count)]})
    for set_max in range(-1, 21):
        for rounds in (-1, 0, 1, set_max, set_max + 1, set_max + 2, None):
            body = {"rules": "consensus", "players": ["Ann", "Bo"], "set": set_max}
            bodies.append(body if rounds is None else body | {"rounds": rounds})
    for body in bodies:
        body["options"] = {}
        assert _accepted(body) == allowed_by_rules(body), body
