"""The timer thread of held sim presses: calls in time order, failures isolated."""

from __future__ import annotations

import threading

from hub.timers import InlineTimers, Timers


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
