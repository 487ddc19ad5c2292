"""A refused press is the core's own effect, ``PressRefused(slot)``, beside the ``nope``
sound: each refusing rule says which slot, and nothing else says it."""

from __future__ import annotations

from hub.core.effects import PlaySound, PressRefused
from hub.core.events import CENTRE, UndoRequested
from hub.core.state import Timings
from tests.helpers import CoreDriver

PLAYERS = ["Ann", "Bob", "Cid"]


def refused(effects) -> list[int]:
    """The slots of the refusals among ``effects``."""
    return [e.slot for e in effects if isinstance(e, PressRefused)]


def nopes(effects) -> int:
    return sum(1 for e in effects if isinstance(e, PlaySound) and e.name == "nope")


def playing(rules="consensus", mexican_slot=8):
    hub = CoreDriver()
    hub.start(PLAYERS, rules=rules, mexican_slot=mexican_slot, first=1)
    return hub


def test_a_tap_on_someone_elses_private_train():
    hub = playing()
    for slot in (1, 2, 3):
        hub.tap(slot)
    effects = hub.tap(2)  # Ann's turn, Bob's private train
    assert refused(effects) == [2] and nopes(effects) == 1 and hub.table.turn == 1


def test_a_tap_off_the_open_double():
    hub = playing()
    for slot in (1, 2, 3):
        hub.tap(slot)
    hub.hold(1)  # Ann's double on her own train: it must be covered there
    effects = hub.tap(8)  # the Mexican Train: not while the double is open
    assert refused(effects) == [8] and hub.table.doubles[0].slot == 1


def test_a_hold_where_no_double_may_go():
    hub = playing()
    for slot in (1, 2, 3):
        hub.tap(slot)
    effects = hub.hold(3)  # Cid's private train
    assert refused(effects) == [3] and hub.table.doubles == ()


def test_a_long_hold_off_ones_own_slot():
    hub = playing()
    effects = hub.long_hold(2)  # Ann's turn: Bob cannot go out now
    assert refused(effects) == [2] and hub.table.game.phase == "first-turn"


def test_an_engine_tap_off_a_seat_and_a_hold_before_the_engine():
    hub = CoreDriver()
    hub.start(PLAYERS, rules="mexicantrainfun", mexican_slot=8)
    assert hub.table.turn is None
    assert refused(hub.tap(8)) == [8]  # the Mexican slot seats nobody
    assert refused(hub.hold(2)) == [2]  # only a tap places the engine
    assert hub.table.turn is None and refused(hub.tap(2)) == []


def test_the_centre_standing_for_the_mexican_train_is_refused_as_that_train():
    hub = playing(rules="aces")  # not the Mexican Train in the first turns
    effects = hub.tap(CENTRE)
    assert refused(effects) == [8] and hub.table.turn == 1


def test_the_centre_is_refused_as_itself_where_there_is_no_mexican_train():
    hub = playing(rules="triples", mexican_slot=None)
    for slot in (1, 2, 3):
        hub.tap(slot)
    effects = hub.tap(CENTRE)  # triples has no Mexican Train: the centre is no train
    assert refused(effects) == [CENTRE] and nopes(effects) == 1 and hub.table.turn == 1


def test_the_centres_undo_with_nothing_to_undo_but_not_a_phones():
    hub = playing()
    # The centre's long hold: undo, at the round's start.
    effects = hub.press(CENTRE, Timings.centre_long_hold + 0.5)
    assert refused(effects) == [CENTRE] and nopes(effects) == 1
    effects = hub.send(UndoRequested(hub.now, "scorekeeper"))
    assert refused(effects) == [] and nopes(effects) == 1  # no press to flash


def test_a_legal_press_is_not_refused():
    hub = playing()
    effects = hub.tap(1)
    assert refused(effects) == [] and nopes(effects) == 0 and hub.table.turn == 2


def test_every_nope_of_a_press_comes_with_its_refusal():
    hub = playing()
    for slot in (1, 2, 3, 2, 3, 1, 8, 1, 5):  # a few of them refused
        hub.tap(slot)
        hub.hold(5)
    assert nopes(hub.effects) == len(refused(hub.effects)) > 0
