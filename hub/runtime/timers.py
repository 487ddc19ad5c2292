"""Things to do later, on one thread that runs only while something is due.

A simulated press held for a while (``POST /api/sim/slots/<n>/press`` with
``hold_ms``) used to sleep on its request's worker thread; its release is scheduled
here instead, so any number of held presses costs one thread, none of the web's.
"""

from __future__ import annotations

import heapq
import itertools
import logging
import threading
import time
from collections.abc import Callable

log = logging.getLogger("hub.runtime.timers")


class TimedCall:
    """A call :meth:`Timers.call_later` has scheduled; :meth:`cancel` takes it back."""

    def __init__(self, fn: Callable[[], None], timers: Timers | None = None) -> None:
        self.fn = fn
        self.pending = timers is not None  # neither made nor cancelled yet
        self._timers = timers

    def cancel(self) -> None:
        """Do not make the call; nothing happens once it was made (or cancelled)."""
        if self._timers is not None:
            self._timers.drop(self)


class Timers:
    """Run callables at monotonic times, in order, on one thread (started on demand,
    gone once nothing is left to do). Each failure is logged, never stops the rest.

    A cancelled call stays in the heap, marked, until it comes up or until the
    cancelled outnumber the live ones, when the heap is rebuilt without them: a cancel
    costs O(1) amortised, and the heap never holds more dead calls than live ones.
    """

    def __init__(self, now: Callable[[], float] = time.monotonic) -> None:
        self._now = now
        self._due: list[tuple[float, int, TimedCall]] = []
        self._cancelled = 0  # calls in ``_due`` no longer pending
        self._order = itertools.count()
        self._cv = threading.Condition()
        self._running = False

    def call_later(self, delay_s: float, fn: Callable[[], None]) -> TimedCall:
        """Run ``fn()`` in ``delay_s`` seconds (0: as soon as the thread gets to it)."""
        call = TimedCall(fn, self)
        with self._cv:
            heapq.heappush(self._due, (self._now() + delay_s, next(self._order), call))
            self._cv.notify()
            if not self._running:
                self._running = True
                threading.Thread(target=self._run, name="hub-timers", daemon=True).start()
        return call

    def drop(self, call: TimedCall) -> None:
        """Cancel ``call`` (:meth:`TimedCall.cancel`), from any thread."""
        with self._cv:
            if not call.pending:
                return
            call.pending = False
            self._cancelled += 1
            if 2 * self._cancelled > len(self._due):
                self._due = [entry for entry in self._due if entry[2].pending]
                heapq.heapify(self._due)
                self._cancelled = 0
            self._cv.notify()  # the thread need not wait for a call that is gone

    def waiting(self) -> int:
        """How many calls are scheduled, neither made nor cancelled."""
        with self._cv:
            return len(self._due) - self._cancelled

    def _run(self) -> None:
        while True:
            with self._cv:
                call = self._next_due()
                if call is None:
                    self._running = False
                    return
            try:
                call.fn()
            except Exception:
                log.exception("a timed call failed")

    def _next_due(self) -> TimedCall | None:
        """Wait (holding the condition) for the next live call to be due, and take it;
        None once nothing is left."""
        while self._due:
            when, _, call = self._due[0]
            if not call.pending:  # cancelled: drop it without waiting for its time
                heapq.heappop(self._due)
                self._cancelled -= 1
                continue
            wait = when - self._now()
            if wait <= 0:
                heapq.heappop(self._due)
                call.pending = False
                return call
            self._cv.wait(wait)
        return None
