"""The clock port's adapter (:class:`hub.io.clock.Clock`): monotonic time for events, wall
time for the log. And its fake."""

from __future__ import annotations

import threading
import time
from datetime import UTC, datetime


class SystemClock:
    """The real clock: ``time.monotonic`` for events, ``time.time`` for people."""

    virtual = False

    def now(self) -> float:
        """Monotonic seconds."""
        return time.monotonic()

    def wall(self, at: float | None = None) -> float:
        """Epoch seconds of monotonic time ``at`` (now when None)."""
        if at is None:
            return time.time()
        return time.time() - (time.monotonic() - at)

    def timeout_until(self, deadline: float | None) -> float | None:
        """Seconds to wait for ``deadline`` (None: wait for the next event)."""
        if deadline is None:
            return None
        return max(0.0, deadline - time.monotonic())


class FakeClock:
    """A clock that moves only when told to: tests and the soak run on it.

    The loop never waits on it (``timeout_until`` is None); whoever advances it
    drains the loop, which then fires the deadlines that came due.
    """

    virtual = True

    def __init__(self, start: float = 1000.0, epoch: float = 1_790_000_000.0) -> None:
        self._now = start
        self._epoch = epoch - start
        self._lock = threading.Lock()

    def now(self) -> float:
        """The current virtual time."""
        with self._lock:
            return self._now

    def advance(self, seconds: float) -> float:
        """Move time forward by ``seconds``; returns the new time."""
        with self._lock:
            self._now += seconds
            return self._now

    def wall(self, at: float | None = None) -> float:
        """Virtual epoch seconds."""
        return self._epoch + (self.now() if at is None else at)

    def timeout_until(self, deadline: float | None) -> float | None:
        """Never time out: virtual deadlines fire when the clock is advanced and drained."""
        return None


def iso(epoch: float) -> str:
    """ISO 8601 UTC with milliseconds, for logs and the API."""
    return datetime.fromtimestamp(epoch, UTC).isoformat(timespec="milliseconds")
