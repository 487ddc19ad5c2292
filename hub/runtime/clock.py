"""The clock port's adapter (:class:`hub.io.clock.Clock`): monotonic time for events, wall
time for the log. (Its virtual stand-in, ``FakeClock``, is the simulator's:
``tablesim/virtual.py``.)"""

from __future__ import annotations

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


def iso(epoch: float) -> str:
    """ISO 8601 UTC with milliseconds, for logs and the API."""
    return datetime.fromtimestamp(epoch, UTC).isoformat(timespec="milliseconds")
