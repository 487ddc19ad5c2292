"""Debounce and gesture classification, on timestamps alone."""

from __future__ import annotations

from hub.core import next_deadline
from hub.core.events import ButtonChanged, ClockTicked, MarkerChanged
from tests.helpers import CoreDriver


def gestures(hub):
    return [e.kind for e in hub.logs() if e.kind in ("tap", "hold", "long-hold", "marker")]


def burst(hub, slot, levels, step=0.002):
    for level in levels:
        hub.send(ButtonChanged(slot, level, hub.now))
        hub.now += step


def test_five_edge_bounce_burst_is_one_tap():
    hub = CoreDriver()
    burst(hub, 1, [True, False, True, False, True])  # contact bounce on the press
    hub.now += 0.15
    burst(hub, 1, [False, True, False])  # and on the release
    hub.advance(0.5)
    assert gestures(hub) == ["tap"]


def test_burst_that_ends_released_is_still_one_tap():
    hub = CoreDriver()
    burst(hub, 1, [True, False, True, False, True, False])
    hub.advance(0.5)
    assert gestures(hub) == ["tap"]


def test_tap_is_classified_on_the_release_edge_without_waiting():
    hub = CoreDriver()
    hub.send(ButtonChanged(1, True, hub.now))
    effects = hub.send(ButtonChanged(1, False, hub.now + 0.1))
    assert [e.kind for e in effects if hasattr(e, "kind")] == ["tap"]


def test_hold_and_long_hold_thresholds():
    hub = CoreDriver()
    hub.press(1, 0.99)
    hub.press(1, 1.0)
    hub.press(1, 2.99)
    hub.press(1, 3.99)  # an ordinary hold never reaches the long hold (4 s)
    assert gestures(hub) == ["tap", "hold", "hold", "hold"]


def test_long_hold_fires_while_held_and_release_is_consumed():
    hub = CoreDriver()
    hub.send(ButtonChanged(1, True, hub.now))
    assert next_deadline(hub.table) is not None
    hub.advance(3.9)
    assert gestures(hub) == []
    hub.advance(0.2)
    assert gestures(hub) == ["long-hold"]
    hub.now += 2
    hub.send(ButtonChanged(1, False, hub.now))
    hub.advance(0.5)
    assert gestures(hub) == ["long-hold"]


def test_marker_flicker_of_30ms_changes_nothing():
    hub = CoreDriver()
    hub.send(MarkerChanged(2, True, hub.now))
    hub.now += 0.03
    hub.send(MarkerChanged(2, False, hub.now))
    hub.advance(1.0)
    assert hub.public == set() and gestures(hub) == []
    assert "choo" not in hub.sounds()


def test_marker_placement_of_200ms_makes_the_train_public():
    hub = CoreDriver()
    hub.send(MarkerChanged(2, True, hub.now))
    hub.advance(0.079)
    assert hub.public == set()
    hub.advance(0.121)
    assert hub.public == {2} and hub.sounds() == ["choo"]


def test_marker_window_follows_config():
    from hub.core import new_table
    from hub.core.state import Timings

    hub = CoreDriver(new_table(Timings(flicker=0.02)))
    hub.send(MarkerChanged(2, True, hub.now))
    hub.advance(0.03)
    assert hub.public == {2}


def test_late_tick_fires_deadlines_at_their_own_time():
    hub = CoreDriver()
    hub.send(MarkerChanged(3, True, hub.now))
    hub.send(ClockTicked(hub.now + 10))
    assert [e.at for e in hub.logs("marker")] == [hub.now + 0.08]


def test_a_press_whose_end_nobody_saw_makes_no_gesture():
    from hub.core.events import CENTRE, ButtonLost

    hub = CoreDriver()
    hub.start(["Ann", "Bob"], first=1)
    for slot in (1, CENTRE):
        hub.send(ButtonChanged(slot, True, hub.now))
        hub.advance(0.3)
        hub.send(ButtonLost(slot, hub.now))
        hub.advance(5.0)  # long past the long hold: nothing fires
    assert gestures(hub) == []
    assert hub.table.turn == 1
    assert next_deadline(hub.table) is None
    # The button works as before afterwards.
    hub.send(ButtonChanged(1, True, hub.now))
    hub.send(ButtonChanged(1, False, hub.now + 0.1))
    assert gestures(hub) == ["tap"]
    hub.send(ButtonLost(2, hub.now + 0.2))  # not held: nothing to forget
    assert hub.table.buttons[1].pressed is False
