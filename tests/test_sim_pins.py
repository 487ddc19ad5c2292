"""The sim backend's pins (hub/io/pins.py): driven as a finger and a magnet would."""

from __future__ import annotations

from gpiozero.pins.mock import MockFactory

from hub.clock import FakeClock
from hub.core.events import ButtonChanged, Event, MarkerChanged
from hub.io.pins import SimPins, SlotInputs

BUTTONS, MARKERS = [5, 6], [13, 19]


def test_presses_reach_the_loop_and_the_mock_pins_keep_no_history() -> None:
    factory = MockFactory()
    posted: list[Event] = []
    inputs = SlotInputs(factory, BUTTONS, MARKERS, FakeClock(), posted.append)
    sim = SimPins(factory, BUTTONS, MARKERS)
    try:
        for _ in range(500):
            sim.button(1, True)
            sim.button(1, False)
            sim.marker(2, True)
            sim.marker(2, False)
        assert len(posted) == 2000
        assert posted[:2] == [ButtonChanged(1, True, posted[0].at),
                              ButtonChanged(1, False, posted[1].at)]
        assert posted[2:4] == [MarkerChanged(2, True, posted[2].at),
                               MarkerChanged(2, False, posted[3].at)]
        # gpiozero's MockPin would otherwise keep all 2,000 changes for days of play
        assert [len(factory.pin(p).states) for p in (BUTTONS[0], MARKERS[1])] == [1, 1]
        assert sim.marker_present(2) is False
    finally:
        inputs.close()
