"""What a player's hand does at the hub for each gesture: pin edges with human timing.

A gesture becomes a list of :class:`Edge` s: wait so long, then drive a slot's
button (pressed or not) or marker sensor (a marker on it or not). Timings are
jittered like a person's (taps 80-600 ms, holds 1.2-3 s, long holds 4.2-5 s, a
pause before each gesture); some presses and releases bounce (a burst of edges
within a few milliseconds, as a worn contact does); now and then a marker brushes a
sensor for less than the hub's 80 ms window, or a placement wobbles. None of that
may change what the hub reads.

Pure: the caller does the waiting, on a real or a virtual clock; randomness comes
only from the ``random.Random`` given.
"""

from __future__ import annotations

import random
from dataclasses import dataclass, field

from hub.core.state import Timings
from scorer.profiles import SLOTS
from tablesim.actions import Gesture, Hold, LastTile, LongHold, MarkerOff, MarkerOn, Tap

BUTTON = "button"
MARKER = "marker"

# Where each press must land, whatever the speed: inside the hub's default windows
# (the core's Timings, their one home: tap < 1 s, hold 1-4 s, long hold fires at 4 s,
# on the slots and the centre alike) with a margin for the jitter; holds run as long
# as a person's (to 3.5 s).
TAP_LIMITS = (0.08, Timings.tap_max - 0.1)
HOLD_LIMITS = (Timings.tap_max + 0.2, Timings.long_hold - 0.5)
LONG_HOLD_LIMITS = (Timings.long_hold + 0.2, Timings.long_hold + 2.0)
# A last-tile call: the second tap follows the first within the hub's 0.6 s, counting
# the bot table's 0.15 s settle after the first.
CALL_PAUSE_S = (0.02, 0.1)
CALL_TAP_S = (0.08, 0.2)
FLICKER_S = (0.005, 0.05)  # a brush shorter than the hub's 80 ms marker window
BOUNCE_GAP_S = (0.0002, 0.002)  # between the edges of a bounce burst (under 30 ms in all)


@dataclass(frozen=True)
class Edge:
    """Wait ``wait_s`` seconds, then drive slot ``slot``'s ``part`` (``button`` or
    ``marker``) to ``level`` (True: pressed, or a marker present)."""

    wait_s: float
    part: str
    slot: int
    level: bool


@dataclass(frozen=True)
class Pace:
    """How fast and how cleanly the table plays (ranges in seconds, at speed 1).

    ``speed`` divides every duration; presses stay inside the windows the hub
    classifies them by (so at speed 10 a hold still lasts at least 1.2 s).
    ``bounce``: the chance that a press, a release or a marker placement bounces;
    ``flicker``: the chance of a marker brushing a sensor before a gesture.
    """

    tap: tuple[float, float] = (0.08, 0.6)
    hold: tuple[float, float] = (1.2, 3.0)
    long_hold: tuple[float, float] = (4.2, 5.0)
    pause: tuple[float, float] = (0.6, 1.6)
    bounce: float = 0.25
    flicker: float = 0.05
    speed: float = 1.0


@dataclass
class Hand:
    """Every player's hand at one table: turns gestures into edges.

    It remembers which sensors have a marker on them, so a flicker returns each
    sensor to the level it had.
    """

    rng: random.Random
    pace: Pace = field(default_factory=Pace)
    markers: set[int] = field(default_factory=set)

    def edges(self, gesture: Gesture) -> list[Edge]:
        """The edges that make ``gesture``: maybe a flicker first, then the gesture.

        Slot 0 is the hub's centre button; a last-tile call is a quick second tap.
        """
        if isinstance(gesture, LastTile):
            pause = self.rng.uniform(*CALL_PAUSE_S)
            return self._press(gesture.slot, self.rng.uniform(*CALL_TAP_S), pause)
        out = self._flicker() if self.rng.random() < self.pace.flicker else []
        pause = self._scaled(self.pace.pause)
        if isinstance(gesture, Tap | Hold | LongHold):
            return out + self._press(gesture.slot, self._duration(gesture), pause)
        present = isinstance(gesture, MarkerOn)
        if present:
            self.markers.add(gesture.slot)
        else:
            assert isinstance(gesture, MarkerOff)
            self.markers.discard(gesture.slot)
        return out + self._level(MARKER, gesture.slot, present, pause)

    def _duration(self, gesture: Tap | Hold | LongHold) -> float:
        if isinstance(gesture, Tap):
            return self._scaled(self.pace.tap, TAP_LIMITS)
        if isinstance(gesture, Hold):
            return self._scaled(self.pace.hold, HOLD_LIMITS)
        return self._scaled(self.pace.long_hold, LONG_HOLD_LIMITS)

    def _scaled(
        self, span: tuple[float, float], limits: tuple[float, float] | None = None
    ) -> float:
        low, high = (x / self.pace.speed for x in span)
        if limits is not None:
            low, high = (min(max(x, limits[0]), limits[1]) for x in (low, high))
        return self.rng.uniform(low, high)

    def _press(self, slot: int, duration: float, pause: float) -> list[Edge]:
        """Press after ``pause``, release ``duration`` after the first contact."""
        down = self._level(BUTTON, slot, True, pause)
        bouncing = sum(e.wait_s for e in down[1:])
        return down + self._level(BUTTON, slot, False, duration - bouncing)

    def _level(self, part: str, slot: int, level: bool, wait_s: float) -> list[Edge]:
        """One clean edge to ``level``, or a bounce burst that settles on it."""
        edges = [Edge(wait_s, part, slot, level)]
        if self.rng.random() < self.pace.bounce:
            for i in range(2 * self.rng.randint(1, 3)):  # 2, 4 or 6 more edges
                bounced = level if i % 2 else not level
                edges.append(Edge(self.rng.uniform(*BOUNCE_GAP_S), part, slot, bounced))
        return edges

    def _flicker(self) -> list[Edge]:
        """A marker brushes a sensor (or a placed one is nudged) for under 80 ms."""
        slot = self.rng.choice(SLOTS)
        level = slot in self.markers
        brush = self.rng.uniform(*FLICKER_S)
        return [
            Edge(self._scaled(self.pace.pause), MARKER, slot, not level),
            Edge(brush, MARKER, slot, level),
        ]
