"""The sim backend's pins (hub/io/pins.py, ``SimPins``) keep no history of their own:
a hub driving them for hours holds no more than at start."""

from __future__ import annotations

from hub.core.events import ButtonChanged, MarkerChanged
from hub.io.pins import SimPins, SlotInputs
from hub.runtime.clock import FakeClock

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
