"""The sim backend's pins (hub/io/pins.py, ``SimPins``) keep no history of their own:
a hub driving them for hours holds no more than at start."""

from __future__ import annotations

from hub.core.events import ButtonChanged, MarkerChanged
from hub.io.pins import FingerClock, SimPins, SlotInputs
from tablesim.virtual import FakeClock

BUTTONS, MARKERS = [5, 6, 13], [17, 27, 22]


def test_each_press_and_marker_reaches_the_inputs_and_no_pin_keeps_its_past(mock_factory):
    posted = []
    inputs = SlotInputs(mock_factory, BUTTONS, MARKERS, FakeClock(), posted.append)
    sim = SimPins(mock_factory, BUTTONS, MARKERS)
    try:
        for _ in range(200):
            sim.button(2, True)
            sim.button(2, False)
            sim.marker(3, True)
            sim.marker(3, False)
        sim.marker(1, True)
        assert [type(e) for e in posted[:4]] == [
            ButtonChanged,
            ButtonChanged,
            MarkerChanged,
            MarkerChanged,
        ]
        assert len(posted) == 801
        assert sim.marker_present(1) and not sim.marker_present(3)
        assert inputs.read_markers() == (True, False, False)
        pins = [mock_factory.pin(p) for p in BUTTONS + MARKERS]
        # At most its first state and the pull-up (MockPin alone would keep 401 here).
        assert max(len(pin.states) for pin in pins) <= 2
    finally:
        inputs.close()


def test_a_button_driven_as_of_a_time_is_stamped_then(mock_factory):
    clock = FakeClock()
    finger = FingerClock(clock)
    posted = []
    inputs = SlotInputs(mock_factory, BUTTONS, MARKERS, finger, posted.append)
    sim = SimPins(mock_factory, BUTTONS, MARKERS, clock=finger)
    try:
        pressed_at = sim.now()
        sim.button(1, True, at=pressed_at)
        clock.advance(5.0)  # the release's timer ran very late
        sim.button(1, False, at=pressed_at + 0.05)
        sim.marker(2, True)  # not driven as of a time: stamped now
        assert [(type(e).__name__, e.at) for e in posted] == [
            ("ButtonChanged", pressed_at),
            ("ButtonChanged", pressed_at + 0.05),
            ("MarkerChanged", clock.now()),
        ]
        assert finger.now() == clock.now() and finger.virtual
    finally:
        inputs.close()
