"""The timer thread of held sim presses: calls in time order, failures isolated."""

from __future__ import annotations

import threading

from hub.core.events import ButtonChanged
from hub.http.adapter import HubWebService
from hub.runtime.timers import LINGER_S, Timers
from tests.doubles import InlineTimers
from tests.helpers import eventually


def test_calls_run_in_time_order_and_a_failure_stops_none():
    timers = Timers()
    ran: list[str] = []
    done = threading.Event()

    def fail() -> None:
        raise RuntimeError("boom")

    def late() -> None:
        ran.append("late")
        done.set()

    timers.call_later(0.05, late)
    timers.call_later(0.0, fail)
    timers.call_later(0.01, lambda: ran.append("soon"))
    assert done.wait(10)
    assert ran == ["soon", "late"]


def test_a_cancelled_call_is_not_made_and_the_others_are():
    timers = Timers()
    ran: list[str] = []
    done = threading.Event()
    # Due long after the kept one, so it is cancelled before it could run however slow
    # this thread is (at 20 ms it ran first on a loaded machine).
    dropped = timers.call_later(60.0, lambda: ran.append("dropped"))
    timers.call_later(0.05, lambda: (ran.append("kept"), done.set()))
    dropped.cancel()
    dropped.cancel()  # twice: still one cancel
    assert timers.waiting() == 1
    assert done.wait(10)
    assert ran == ["kept"]
    assert timers.waiting() == 0


def test_cancelling_after_the_call_was_made_changes_nothing():
    timers = Timers()
    done = threading.Event()
    call = timers.call_later(0.0, done.set)
    assert done.wait(10)
    call.cancel()
    assert timers.waiting() == 0
    later = threading.Event()
    timers.call_later(0.0, later.set)  # the count of cancelled calls did not drift
    assert later.wait(10) and timers.waiting() == 0


def test_cancelled_calls_do_not_pile_up_in_the_queue():
    # A busy table's give-up timers, each cancelled microseconds after it was armed.
    timers = Timers()
    keep = timers.call_later(60.0, lambda: None)
    assert keep.pending
    for _ in range(1000):
        timers.call_later(5.0, lambda: None).cancel()
        assert len(timers._sched.queue) == 1  # a cancelled call leaves the queue at once
    assert timers.waiting() == 1
    keep.cancel()
    assert not keep.pending
    assert timers._sched.empty() and timers.waiting() == 0
    assert eventually(lambda: not timers._running, 3 * LINGER_S)  # nothing left: it ends


def test_the_inline_fake_sleeps_then_calls():
    slept: list[float] = []
    ran: list[int] = []
    call = InlineTimers(slept.append).call_later(1.5, lambda: ran.append(1))
    assert slept == [1.5] and ran == [1]
    call.cancel()  # made already: nothing to take back
    assert not call.pending


def test_held_presses_ending_together_do_not_queue_on_the_timer_thread(live_hub):
    # The journal's writer is held up (a slow disk): each press's answer waits for it,
    # but on no thread, so the timer thread goes on releasing the other presses.
    service = live_hub.web_service()
    gate = threading.Event()
    live_hub.writer.submit(gate.wait)
    try:
        # the first answer is due before the others are released
        answers = [
            service.sim_press_later(slot, hold) for slot, hold in ((1, 0.01), (2, 0.2), (3, 0.3))
        ]
        assert eventually(lambda: not any(b.raw for b in live_hub.loop.table.buttons[:3]), 3)
        assert not any(answer.done() for answer in answers)
    finally:
        gate.set()
    snapshots = [answer.result(5) for answer in answers]
    assert all(s["backend"] == "sim" for s in snapshots)
    assert live_hub.journal_file.load()  # written before the answers


def test_an_answered_press_leaves_no_give_up_timer_behind(live_hub):
    service = live_hub.web_service()
    answers = [service.sim_press_later(slot, 0.0) for slot in (1, 2, 3)]
    assert all(answer.result(5)["backend"] == "sim" for answer in answers)
    # the 5 s give-ups were cancelled by the answers, well before they were due
    assert eventually(lambda: service._timers.waiting() == 0, 1)


class LateTimers:
    """A timer thread on a machine so busy that every call runs ``late_s`` late."""

    def __init__(self, late_s: float) -> None:
        self._timers = Timers()
        self._late_s = late_s

    def call_later(self, delay_s: float, fn):  # type: ignore[no-untyped-def]
        return self._timers.call_later(delay_s + self._late_s, fn)

    def waiting(self) -> int:
        return self._timers.waiting()


def test_a_late_timer_does_not_turn_a_simulated_tap_into_a_hold(live_hub, monkeypatch):
    edges: list[ButtonChanged] = []

    def record(event):  # type: ignore[no-untyped-def]
        if isinstance(event, ButtonChanged):
            edges.append(event)
        return False  # seen on its way to the table, not taken from it

    monkeypatch.setattr(live_hub.loop, "divert", record)
    late_s = live_hub.loop.table.timings.tap_max + 0.2  # a tap read then would be a hold
    service = HubWebService(live_hub.web_parts(), timers=LateTimers(late_s))
    service.sim_press_later(2, 0.05).result(10)
    press, release = edges
    assert (press.slot, press.pressed, release.slot, release.pressed) == (2, True, 2, False)
    # stamped when the finger meant it: the tap is 50 ms long, not 1.25 s
    assert abs((release.at - press.at) - 0.05) < 1e-9
