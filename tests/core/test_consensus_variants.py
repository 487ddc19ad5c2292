"""Issue 24, item 10: the consensus seed's "Doubled doubles" and "Continuous draw" as
switches (seed 003, "Double variations"; ``docs/rules.md``)."""

from __future__ import annotations

import pytest

from hub.core import snapshot
from hub.core.effects import LogEntry, PressRefused
from hub.core.events import UndoRequested
from hub.voice.phrases import Phrase, choose
from scorer.profiles import OPTIONS, PROFILES, rules_view
from scorer.setup import SetupError, check_setup
from tests.helpers import CoreDriver

PLAYERS = ["Ann", "Bob", "Cid", "Dee"]
CONTINUOUS = (("continuous_draw", True),)
DOUBLED = (("doubled_doubles", True),)


def started(options=(), players=PLAYERS) -> CoreDriver:
    hub = CoreDriver()
    hub.start(players, rules="consensus", first=1, mexican_slot=8, options=options)
    for slot in range(1, len(players) + 1):  # the first turns
        hub.tap(slot)
    assert hub.table.game.phase == "play" and hub.table.turn == 1
    return hub


def refusals(effects) -> list[int]:
    return [e.slot for e in effects if isinstance(e, PressRefused)]


def reminders(effects) -> list[str]:
    return [e.what.why for e in effects if isinstance(e, LogEntry) and e.kind == "reminder"]


# -- the switches --------------------------------------------------------------------


def test_both_variants_are_consensus_options_served_with_their_words() -> None:
    served = rules_view()["options"]
    assert isinstance(served, dict)
    for key in ("continuous_draw", "doubled_doubles"):
        assert key in PROFILES["consensus"].options
        assert all(key not in p.options for r, p in PROFILES.items() if r != "consensus")
        assert served[key]["values"] == [False, True] and served[key]["default"] is False
        assert served[key]["label"] == OPTIONS[key].label
    assert PROFILES["consensus"].played({"continuous_draw": True}).continuous_draw
    assert PROFILES["consensus"].played({"doubled_doubles": True}).doubled_doubles
    assert not PROFILES["consensus"].continuous_draw and not PROFILES["consensus"].doubled_doubles


@pytest.mark.parametrize(
    ("options", "field"),
    [
        ({"doubled_doubles": True, "chickenfoot": True}, "options.doubled_doubles"),
        ({"doubled_doubles": True, "cover_optional": True}, "options.doubled_doubles"),
        ({"doubled_doubles": True, "any_train_cover": True}, "options.doubled_doubles"),
        ({"doubled_doubles": True, "continuous_draw": True}, "options.doubled_doubles"),
        ({"continuous_draw": True, "chickenfoot": True}, "options.continuous_draw"),
        ({"continuous_draw": True, "cover_optional": True}, "options.continuous_draw"),
        ({"continuous_draw": True, "any_train_cover": True}, "options.continuous_draw"),
    ],
)
def test_the_combinations_that_are_refused(options: dict[str, bool], field: str) -> None:
    with pytest.raises(SetupError) as refused:
        check_setup({"players": PLAYERS, "rules": "consensus", "options": options})
    assert refused.value.field == field


@pytest.mark.parametrize("key", ["continuous_draw", "doubled_doubles"])
def test_each_goes_with_the_others_and_only_under_consensus(key: str) -> None:
    for other in ("fast_game", "last_tile_call", "blanks", "partnerships"):
        setup = check_setup(
            {"players": PLAYERS, "rules": "consensus", "options": {key: True, other: True}}
        )
        assert dict(setup.options) == {key: True, other: True}
    for rules in ("aces", "mexicantrainfun", "triples"):
        with pytest.raises(SetupError) as refused:
            check_setup({"players": PLAYERS, "rules": rules, "options": {key: True}})
        assert refused.value.field == f"options.{key}"


# -- continuous draw -----------------------------------------------------------------


def round_the_table(options=CONTINUOUS) -> CoreDriver:
    """Ann lays a double on the Mexican Train and cannot cover it; nobody else can."""
    hub = started(options, PLAYERS[:3])
    hub.hold(8)
    hub.marker(1, True)  # Ann cannot cover after drawing: marker down
    hub.marker(2, True)  # Bob neither
    hub.marker(3, True)  # Cid neither: the double is Ann's again
    assert hub.table.turn == 1 and hub.table.doubles[0].responsible == 1
    return hub


def test_continuous_draw_refuses_the_doublers_pass_when_the_double_comes_back() -> None:
    hub = round_the_table()
    effects = hub.tap(1)  # Ann's pass (her marker is down): not accepted
    assert refusals(effects) == [1] and "nope" in hub.sounds()
    assert reminders(effects) == ["continuous draw: keep drawing until you can cover the double"]
    assert hub.table.turn == 1 and hub.table.doubles[0].slot == 8
    effects = hub.tap(8)  # she drew until she could: the cover ends it
    assert hub.table.doubles == () and hub.table.turn == 2 and refusals(effects) == []


def test_without_continuous_draw_the_doubler_passes_again() -> None:
    hub = round_the_table(options=())
    assert refusals(hub.tap(1)) == []
    assert hub.table.turn == 2 and hub.table.doubles[0].responsible == 2


def test_continuous_draw_refuses_the_doublers_marker_too() -> None:
    hub = started(CONTINUOUS, PLAYERS[:2])
    hub.hold(1)  # Ann's double on her own train
    hub.marker(1, True)  # she cannot cover: marker down
    hub.marker(2, True)  # Bob neither: back to Ann
    assert hub.table.turn == 1 and hub.table.doubles[0].went_round
    hub.marker(1, False)  # she lifts it ...
    before = len(hub.effects)
    hub.marker(1, True)  # ... and puts it down again: not a failure she may make now
    effects = hub.effects[before:]
    assert refusals(effects) == [1] and reminders(effects)
    assert hub.table.turn == 1 and hub.table.doubles[0].slot == 1
    assert hub.public == {1, 2, 8}  # the sensor is the truth
    hub.tap(1)  # the cover, on her own train
    assert hub.table.doubles == () and hub.table.turn == 2


def test_continuous_draw_binds_only_the_doubler_on_the_doubles_return() -> None:
    hub = started(CONTINUOUS, PLAYERS[:3])
    hub.hold(8)
    effects = hub.tap(1)  # Ann's first chance: an ordinary failure (reminded: no marker)
    assert refusals(effects) == [] and hub.table.turn == 2
    effects = hub.tap(2)  # Bob fails: reminded, passes
    assert refusals(effects) == [] and hub.table.turn == 3


def test_continuous_draw_still_closes_a_dead_double() -> None:
    hub = round_the_table()
    hub.hold(8)  # the last of its number: nobody can cover it, Ann plays on
    assert hub.table.doubles == () and hub.table.turn == 1


def test_the_voice_says_keep_drawing() -> None:
    hub = round_the_table()
    effects = hub.tap(1)
    said = choose(effects, hub.table, "all")
    assert Phrase("say.reminder.draw", (("name", "Ann"),)) in said


# -- doubled doubles -----------------------------------------------------------------


def test_doubled_doubles_the_doubler_covers_the_first_the_next_player_the_second() -> None:
    hub = started(DOUBLED)
    hub.hold(1)  # Ann's double on her own train ...
    hub.hold(8)  # ... and another on the Mexican Train, in the same turn
    assert hub.table.turn == 1
    assert [(d.slot, d.queued) for d in hub.table.doubles] == [(1, False), (8, True)]
    snap = snapshot(hub.table, "sim")
    assert snap["double"] == {
        "slot": 1,
        "covers_left": 1,
        "responsible": 1,
        "waiting": False,
        "queued": False,
    }
    assert [(d["slot"], d["queued"]) for d in snap["doubles"]] == [(1, False), (8, True)]  # type: ignore[index, union-attr]
    hub.tap(1)  # she covers only the first
    assert hub.table.turn == 2
    assert [(d.slot, d.responsible, d.queued) for d in hub.table.doubles] == [(8, 2, False)]
    assert refusals(hub.tap(3)) == [3]  # no other play until every double is covered
    hub.tap(8)  # Bob covers the second
    assert hub.table.doubles == () and hub.table.turn == 3


def test_doubled_doubles_three_in_order_one_a_turn() -> None:
    hub = started(DOUBLED)
    hub.marker(3, True)  # Cid's train is public (his marker from an earlier turn)
    hub.hold(1)
    hub.hold(8)
    hub.hold(3)
    assert [d.slot for d in hub.table.doubles] == [1, 8, 3]
    assert "chicken" in hub.sounds() and hub.sounds().count("chicken") == 3
    hub.tap(1)
    assert (hub.table.turn, hub.table.doubles[0].slot, hub.table.doubles[0].responsible) == (
        2,
        8,
        2,
    )
    hub.tap(8)
    assert (hub.table.turn, hub.table.doubles[0].slot, hub.table.doubles[0].responsible) == (
        3,
        3,
        3,
    )
    hub.tap(3)
    assert hub.table.doubles == () and hub.table.turn == 4


def test_doubled_doubles_a_doubler_who_cannot_cover_passes_the_first_on() -> None:
    hub = started(DOUBLED)
    hub.hold(1)
    hub.hold(8)
    hub.marker(1, True)  # Ann cannot cover her first double
    assert hub.table.turn == 2
    assert [(d.slot, d.responsible, d.queued) for d in hub.table.doubles][0] == (1, 2, False)
    hub.tap(1)  # Bob covers it: Cid is responsible for the second
    assert hub.table.turn == 3 and hub.table.doubles[0].slot == 8
    assert hub.table.doubles[0].responsible == 3
    hub.tap(8)
    assert hub.table.doubles == () and hub.table.turn == 4


def test_without_doubled_doubles_a_second_double_is_refused() -> None:
    hub = started()
    hub.hold(1)
    assert refusals(hub.hold(8)) == [8]
    assert [d.slot for d in hub.table.doubles] == [1]


def test_doubled_doubles_only_the_doubler_in_their_turn_and_not_onto_a_waiting_double() -> None:
    hub = started(DOUBLED)
    hub.hold(1)
    hub.hold(8)
    assert refusals(hub.hold(8)) == [8]  # a double cannot go onto a double
    assert refusals(hub.hold(2)) == [2]  # Bob's private train
    hub.tap(1)
    assert refusals(hub.hold(3)) == [3]  # Bob must cover; he laid no double this turn
    assert len(hub.table.doubles) == 1


def test_doubled_doubles_undo_takes_back_each_step() -> None:
    hub = started(DOUBLED)
    hub.hold(1)
    hub.hold(8)
    hub.tap(1)
    shapes = []
    for _ in range(3):
        shapes.append((hub.table.turn, [(d.slot, d.queued) for d in hub.table.doubles]))
        hub.send(UndoRequested(hub.now, "scorekeeper"))
    shapes.append((hub.table.turn, [(d.slot, d.queued) for d in hub.table.doubles]))
    assert shapes == [
        (2, [(8, False)]),
        (1, [(1, False), (8, True)]),
        (1, [(1, False)]),
        (1, []),
    ]


def test_doubled_doubles_a_dead_first_double_leaves_the_second_to_the_player() -> None:
    hub = started(DOUBLED)
    hub.hold(1)
    hub.hold(8)
    hub.hold(1)  # the first is the last of its number: closed without a cover
    assert hub.table.turn == 1
    assert [(d.slot, d.responsible, d.queued) for d in hub.table.doubles] == [(8, 1, False)]
    hub.tap(8)
    assert hub.table.doubles == () and hub.table.turn == 2


def test_the_voice_and_the_ring_read_the_double_being_covered() -> None:
    from hub.io.lights import BREATHE, render

    hub = started(DOUBLED)
    hub.hold(1)
    effects = hub.hold(8)
    assert choose(effects, hub.table, "turns") == [Phrase("say.double", (("name", "Ann"),))]
    hub.tap(1)
    snap = snapshot(hub.table, "sim")
    ring = render(snap, 24)
    assert any(p[3] == BREATHE for p in ring)


def test_a_double_set_by_hand_replaces_the_whole_queue() -> None:
    from hub.core.events import DoubleFixed

    hub = started(DOUBLED)
    hub.hold(1)
    hub.hold(8)
    hub.send(DoubleFixed(8, hub.now, covers_left=1, responsible=2))
    assert [(d.slot, d.responsible, d.queued) for d in hub.table.doubles] == [(8, 2, False)]
    assert hub.table.turn == 2
    hub.send(UndoRequested(hub.now, "scorekeeper"))  # the fix is a table action
    assert [(d.slot, d.queued) for d in hub.table.doubles] == [(1, False), (8, True)]


@pytest.mark.parametrize("options", [(), DOUBLED, CONTINUOUS])
def test_a_doublers_tap_then_marker_on_a_double_that_went_round(options) -> None:
    # Found by the doubled_doubles soak: the double came back to its player, on their
    # own train; they tap (read as the cover), then put their marker down.
    hub = started(options, PLAYERS[:2])
    hub.hold(1)  # Ann's double on her own train
    hub.marker(1, True)  # she cannot cover: marker down
    hub.marker(2, True)  # Bob neither: back to Ann
    hub.marker(1, False)  # she lifts her marker ...
    hub.tap(1)  # ... taps her own slot: the hub reads it as the cover ...
    assert hub.table.doubles == () and hub.table.turn == 2
    hub.marker(1, True)  # ... and puts the marker down
    if options == CONTINUOUS:
        # She had to draw until she could cover: the tap was the cover.
        assert hub.table.doubles == () and hub.table.turn == 2
    else:
        # The marker says the tap was a pass: the double is open, Bob's to cover.
        assert [(d.slot, d.responsible) for d in hub.table.doubles] == [(1, 2)]
        assert hub.table.turn == 2 and hub.logs("pass")
