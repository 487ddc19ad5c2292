"""Things to do later, on one thread that runs only while something is due.

A simulated press held for a while (``POST /api/sim/slots/<n>/press`` with
``hold_ms``) used to sleep on its request's worker thread; its release is scheduled
here instead, so any number of held presses costs one thread, none of the web's.
"""

from __future__ import annotations

import logging
import sched
import threading
import time
from collections.abc import Callable

log = logging.getLogger("hub.runtime.timers")

LINGER_S = 2.0  # the thread waits this long for more work before it ends


class TimedCall:
    """A call :meth:`Timers.call_later` has scheduled; :meth:`cancel` takes it back."""

    def __init__(
        self,
        fn: Callable[[], None],
        timers: Timers | None = None,
        event: sched.Event | None = None,
    ) -> None:
        self.fn = fn
        self._timers = timers
        self._event = event

    @property
    def pending(self) -> bool:
        """Neither made nor cancelled yet."""
        return self._timers is not None and self._timers.holds(self._event)

    def cancel(self) -> None:
        """Do not make the call; nothing happens once it was made (or cancelled)."""
        if self._timers is not None and self._event is not None:
            self._timers.drop(self._event)


class Timers:
    """Run callables at monotonic times, in order, on one thread: the standard
    library's :class:`sched.scheduler`, run by a thread that starts on demand and ends
    once nothing has been due for :data:`LINGER_S` (a burst of presses starts it once).
    Each failure is logged, never stops the rest."""

    def __init__(self, now: Callable[[], float] = time.monotonic) -> None:
        self._now = now
        self._sched = sched.scheduler(now)
        self._cv = threading.Condition()
        self._running = False

    def call_later(self, delay_s: float, fn: Callable[[], None]) -> TimedCall:
        """Run ``fn()`` in ``delay_s`` seconds (0: as soon as the thread gets to it)."""
        with self._cv:
            event = self._sched.enter(delay_s, 0, self._call, (fn,))
            self._cv.notify()
            if not self._running:
                self._running = True
                threading.Thread(target=self._run, name="hub-timers", daemon=True).start()
        return TimedCall(fn, self, event)

    def drop(self, event: sched.Event) -> None:
        """Cancel the call scheduled as ``event`` (:meth:`TimedCall.cancel`), from any thread."""
        with self._cv:
            try:
                self._sched.cancel(event)
            except ValueError:  # made already, or cancelled
                return
            self._cv.notify()

    def holds(self, event: sched.Event | None) -> bool:
        """Whether ``event`` is still scheduled."""
        return event is not None and event in self._sched.queue

    def waiting(self) -> int:
        """How many calls are scheduled, neither made nor cancelled."""
        return len(self._sched.queue)

    @staticmethod
    def _call(fn: Callable[[], None]) -> None:
        try:
            fn()
        except Exception:
            log.exception("a timed call failed")

    def _run(self) -> None:
        while True:
            self._sched.run(blocking=False)  # every call due now, on this thread
            with self._cv:
                queue = self._sched.queue
                if queue:
                    self._cv.wait(max(0.0, queue[0].time - self._now()))
                    continue
                self._cv.wait(LINGER_S)
                if self._sched.empty():
                    self._running = False
                    return
