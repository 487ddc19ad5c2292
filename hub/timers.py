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

log = logging.getLogger("hub.timers")


class Timers:
    """Run callables at monotonic times, in order, on one thread (started on demand,
    gone once nothing is left to do). Each failure is logged, never stops the rest."""

    def __init__(self, now: Callable[[], float] = time.monotonic) -> None:
        self._now = now
        self._due: list[tuple[float, int, Callable[[], None]]] = []
        self._order = itertools.count()
        self._cv = threading.Condition()
        self._running = False

    def call_later(self, delay_s: float, fn: Callable[[], None]) -> None:
        """Run ``fn()`` in ``delay_s`` seconds (0: as soon as the thread gets to it)."""
        with self._cv:
            heapq.heappush(self._due, (self._now() + delay_s, next(self._order), fn))
            self._cv.notify()
            if not self._running:
                self._running = True
                threading.Thread(target=self._run, name="hub-timers", daemon=True).start()

    def _run(self) -> None:
        while True:
            with self._cv:
                while True:
                    if not self._due:
                        self._running = False
                        return
                    wait = self._due[0][0] - self._now()
                    if wait <= 0:
                        fn = heapq.heappop(self._due)[2]
                        break
                    self._cv.wait(wait)
            try:
                fn()
            except Exception:
                log.exception("a timed call failed")


class InlineTimers:
    """The fake of :class:`Timers`: waits with ``sleep`` (a virtual clock's advance)
    and runs the call at once, on the caller's thread."""

    def __init__(self, sleep: Callable[[float], None]) -> None:
        self._sleep = sleep

    def call_later(self, delay_s: float, fn: Callable[[], None]) -> None:
        """Sleep ``delay_s``, then run ``fn()``."""
        self._sleep(delay_s)
        fn()
