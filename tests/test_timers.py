"""The timer thread of held sim presses: calls in time order, failures isolated."""

from __future__ import annotations

import threading

from hub.timers import InlineTimers, Timers
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


def test_the_inline_fake_sleeps_then_calls():
    slept: list[float] = []
    ran: list[int] = []
    InlineTimers(slept.append).call_later(1.5, lambda: ran.append(1))
    assert slept == [1.5] and ran == [1]


def test_held_presses_ending_together_do_not_queue_on_the_timer_thread(live_hub):
    # The journal's writer is held up (a slow disk): each press's answer waits for it,
    # but on no thread, so the timer thread goes on releasing the other presses.
    service = live_hub.web_service()
    gate = threading.Event()
    live_hub.writer.submit(gate.wait)
    try:
        # the first answer is due before the others are released
        answers = [service.sim_press_later(slot, hold) for slot, hold in ((1, 0.01), (2, 0.2),
                                                                          (3, 0.3))]
        assert eventually(lambda: not any(b.raw for b in live_hub.loop.table.buttons[:3]), 3)
        assert not any(answer.done() for answer in answers)
    finally:
        gate.set()
    snapshots = [answer.result(5) for answer in answers]
    assert all(s["backend"] == "sim" for s in snapshots)
    assert live_hub.journal.journal.load()  # written before the answers
