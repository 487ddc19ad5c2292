"""Issue 24, item 10: ``triples`` has no Mexican Train.

Seed 004 (Triples Games) names only the players' trains and "public trains": "Any
player can add dominoes to public trains, except during their first turn. A train that
is not marked is 'private'"; the words "Mexican Train" appear only in its title. So a
triples game has no Mexican slot, the centre never stands for one, and the simulator's
oracle plays without one (``docs/rules.md``).
"""

from __future__ import annotations

import pytest

from hub.core import snapshot
from hub.core.effects import PressRefused
from hub.core.events import CENTRE
from hub.io.lights import MEXICAN, render
from scorer.profiles import PROFILES, rules_view
from scorer.setup import SetupError, check_setup
from tablesim import GameConfig
from tablesim.soak_plans import Plan
from tests.helpers import CoreDriver
from web.errors import words

PLAYERS = ["Ann", "Bob", "Cid", "Dee"]


def test_the_profiles_say_which_games_have_a_mexican_train() -> None:
    assert {rules: p.mexican_train for rules, p in PROFILES.items()} == {
        "aces": True,
        "mexicantrainfun": True,
        "consensus": True,
        "triples": False,
    }
    served = {p["id"]: p["mexican_train"] for p in rules_view()["profiles"]}  # type: ignore[attr-defined]
    assert served == {"aces": True, "mexicantrainfun": True, "consensus": True, "triples": False}


def test_a_triples_game_gets_no_mexican_slot_by_default() -> None:
    setup = check_setup({"players": PLAYERS, "rules": "triples"})
    assert setup.mexican_slot is None
    assert (
        check_setup({"players": PLAYERS, "rules": "triples", "mexican_slot": None}).mexican_slot
        is None
    )
    # The other profiles keep theirs: the lowest free slot.
    assert check_setup({"players": PLAYERS, "rules": "consensus"}).mexican_slot == 5


def test_a_mexican_slot_asked_for_under_triples_is_refused_plainly() -> None:
    with pytest.raises(SetupError) as refused:
        check_setup({"players": PLAYERS, "rules": "triples", "mexican_slot": 6})
    assert refused.value.field == "mexican_slot"
    message = str(refused.value)
    assert message == "mexican_slot: the triples rules have no Mexican Train"
    assert (refused.value.code, refused.value.params) == ("no_mexican", {"rules": "triples"})
    assert words("en", refused.value.code, refused.value.params) == (
        "The triples rules have no Mexican Train: leave its place empty."
    )
    assert words("es", refused.value.code, refused.value.params) == (
        "Las reglas triples no tienen Tren Mexicano: deja libre su lugar."
    )


def started(mexican_slot: int | None = None) -> CoreDriver:
    hub = CoreDriver()
    hub.start(PLAYERS, rules="triples", first=1, mexican_slot=mexican_slot)
    for slot in (1, 2, 3, 4):  # the first turns
        hub.tap(slot)
    return hub


def test_a_stored_triples_game_naming_a_mexican_slot_shows_none() -> None:
    hub = started(mexican_slot=8)  # stored before the decision: slot 8 is just empty
    snap = snapshot(hub.table, "sim")
    game = snap["game"]
    assert isinstance(game, dict) and game["mexican_slot"] is None
    assert snap["mexican_at"] is None
    slots = snap["slots"]
    assert isinstance(slots, list)
    assert [s["owner"] for s in slots] == ["Ann", "Bob", "Cid", "Dee", None, None, None, None]
    assert not any(s["public"] for s in slots)
    # The ring: no slot in the Mexican Train's green.
    ring = render(snap, 24)
    assert all(pixel[:3] != MEXICAN for pixel in ring)


def test_no_slot_and_not_the_centre_is_a_mexican_train_in_triples() -> None:
    hub = started(mexican_slot=8)
    effects = hub.tap(8)  # nobody's train, and not a Mexican one
    assert [e.slot for e in effects if isinstance(e, PressRefused)] == [8]
    effects = hub.hold(CENTRE)  # no double can go on a Mexican Train that is not there
    assert [e.slot for e in effects if isinstance(e, PressRefused)] == [CENTRE]
    assert hub.table.turn == 1 and hub.table.doubles == ()
    # A double of Ann's cannot be satisfied at the centre either.
    hub.hold(1)
    effects = hub.tap(CENTRE)
    assert [e.slot for e in effects if isinstance(e, PressRefused)] == [CENTRE]
    assert hub.table.doubles[0].slot == 1 and hub.table.turn == 1


def test_the_centre_keeps_its_undo_in_triples() -> None:
    hub = started()
    assert hub.table.turn == 1
    hub.press(CENTRE, hub.table.timings.centre_long_hold + 0.5)
    assert hub.table.turn == 4 and "turn_back" in hub.sounds()


def test_the_oracle_has_no_mexican_train_in_triples() -> None:
    config = GameConfig.for_players("triples", 4)
    assert config.mexican_slot is None and config.mexican is None
    assert config.open_trains(1, {3}) == [1, 3]
    assert config.public_others(1, {1, 3}) == [3]
    with pytest.raises(ValueError, match="no Mexican Train"):
        GameConfig.for_players("triples", 4, mexican_slot=6)
    # The soak's plans seat triples games without one; the others keep theirs.
    for seed in range(20):
        plan_config = Plan(seed, "triples", 4, seed).game()[0]
        assert plan_config.mexican_slot is None
    assert any(Plan(seed, "consensus", 4, seed).game()[0].mexican_slot for seed in range(20))


def test_a_whole_simulated_triples_round_never_shows_a_mexican_train() -> None:
    from tablesim import FirstLegal
    from tablesim.round import Round

    config = GameConfig.for_players("triples", 4, seed=3)
    bots = {s: FirstLegal() for s in config.seats}
    import random

    rnd = Round(config, 1, random.Random(3), bots)
    rnd.begin()
    for _ in range(200):
        if rnd.over:
            break
        rnd.play_turn()
    steps = list(rnd.drain())
    assert steps
    assert all(truth.public <= set(config.seats) for _, truth in steps)
    assert 0 not in rnd.table.trains and set(rnd.table.trains) == set(config.seats)
