"""tablesim.motions: gestures as pin edges with human timing, bounce and flicker."""

import random

import pytest

from hub.core.state import Timings
from tablesim import Hold, LongHold, MarkerOff, MarkerOn, Tap
from tablesim.motions import BUTTON, HOLD_LIMITS, LONG_HOLD_LIMITS, MARKER, TAP_LIMITS, Hand, Pace

CLEAN = Pace(bounce=0.0, flicker=0.0)
ROUGH = Pace(bounce=1.0, flicker=0.0)


def press_time(edges):
    """Seconds from the first press edge to the first release edge."""
    t, pressed_at = 0.0, None
    for e in edges:
        t += e.wait_s
        if e.part == BUTTON and e.level and pressed_at is None:
            pressed_at = t
        if e.part == BUTTON and not e.level and pressed_at is not None:
            return t - pressed_at
    raise AssertionError("no release")


def bursts(edges):
    """Split edges into bursts: a new burst starts after a gap of 5 ms or more."""
    groups = []
    for e in edges:
        if not groups or e.wait_s >= 0.005:
            groups.append([])
        groups[-1].append(e)
    return groups


@pytest.mark.parametrize(
    ("gesture", "low", "high"),
    [(Tap(3), 0.08, 0.6), (Hold(3), 1.2, 3.0), (LongHold(3), 4.2, 5.0)],
)
def test_presses_last_as_long_as_a_person_takes(gesture, low, high):
    hand = Hand(random.Random(1), CLEAN)
    times = [press_time(hand.edges(gesture)) for _ in range(300)]
    assert low <= min(times) and max(times) <= high
    assert max(times) - min(times) > (high - low) / 2  # jittered, not fixed


def test_clean_press_is_two_edges_after_a_pause():
    edges = Hand(random.Random(2), CLEAN).edges(Tap(5))
    assert [(e.part, e.slot, e.level) for e in edges] == [(BUTTON, 5, True), (BUTTON, 5, False)]
    assert 0.6 <= edges[0].wait_s <= 1.6


def test_bounce_bursts_are_short_and_settle_on_the_intended_level():
    hand = Hand(random.Random(3), ROUGH)
    for gesture in [Tap(1), Hold(2), LongHold(3)] * 30:
        edges = hand.edges(gesture)
        down, up = bursts(edges)
        for burst, level in ((down, True), (up, False)):
            assert 3 <= len(burst) <= 7 and burst[-1].level is level
            assert sum(e.wait_s for e in burst[1:]) < 0.03  # inside the hub's bounce window
            assert [e.level for e in burst] == [level, not level] * (len(burst) // 2) + [level]


def test_marker_placements_may_wobble_and_end_placed():
    hand = Hand(random.Random(4), ROUGH)
    edges = hand.edges(MarkerOn(6))
    assert all(e.part == MARKER and e.slot == 6 for e in edges)
    assert edges[-1].level is True and len(edges) >= 3
    assert hand.markers == {6}
    assert hand.edges(MarkerOff(6))[-1].level is False and hand.markers == set()


def test_flicker_brushes_a_sensor_for_less_than_the_marker_window_and_restores_it():
    hand = Hand(random.Random(5), Pace(bounce=0.0, flicker=1.0))
    hand.markers.add(2)
    for _ in range(200):
        edges = hand.edges(Tap(4))
        brush, rest = edges[:2], edges[2:]
        assert [e.part for e in brush] == [MARKER, MARKER]
        slot = brush[0].slot
        assert brush[1].slot == slot and brush[0].level is not (slot in hand.markers)
        assert brush[1].level is (slot in hand.markers)
        assert brush[1].wait_s < 0.08
        assert [(e.part, e.slot) for e in rest] == [(BUTTON, 4), (BUTTON, 4)]


def test_speed_shortens_pauses_but_presses_stay_in_their_windows():
    hand = Hand(random.Random(6), Pace(bounce=0.0, flicker=0.0, speed=10))
    for _ in range(100):
        tap, hold, long_hold = (hand.edges(g) for g in (Tap(1), Hold(1), LongHold(1)))
        assert tap[0].wait_s <= 0.16
        # Ten times faster would be too short: each press is held to its window's edge.
        assert press_time(tap) == pytest.approx(0.08)
        assert press_time(hold) == pytest.approx(1.2)
        assert press_time(long_hold) == pytest.approx(4.2)
    slow = Hand(random.Random(7), Pace(bounce=0.0, flicker=0.0, speed=0.25))
    assert press_time(slow.edges(Tap(1))) <= 0.9 + 1e-9
    assert press_time(slow.edges(Hold(1))) <= 3.5 + 1e-9


def test_same_seed_same_motions():
    gestures = [Tap(1), Hold(2), MarkerOn(3), LongHold(3)]
    first = [Hand(random.Random(8)).edges(g) for g in gestures]
    again = [Hand(random.Random(8)).edges(g) for g in gestures]
    assert first == again


def test_the_hands_windows_sit_inside_the_cores_thresholds() -> None:
    # Issue 24, item 3: one home for the hold lengths (the core's Timings); a hold is
    # never long enough to undo on the centre or to go out on a slot.
    assert Timings.centre_long_hold == Timings.long_hold
    assert TAP_LIMITS[1] < Timings.tap_max < HOLD_LIMITS[0]
    assert HOLD_LIMITS[1] < Timings.long_hold < LONG_HOLD_LIMITS[0]
    slow = Hand(random.Random(3), Pace(bounce=0.0, flicker=0.0, speed=0.1))
    assert max(press_time(slow.edges(Hold(0))) for _ in range(50)) < Timings.centre_long_hold
