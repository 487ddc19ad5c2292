"""The clock port: what the loop, the pins and the log read time from (the adapter,
:class:`hub.runtime.clock.SystemClock`, is handed in by the composition root). Here,
below both the adapters and the runtime, so the pins' callbacks can stamp their edges."""

from __future__ import annotations

from typing import Protocol


class Clock(Protocol):
    """The clock port: what the loop, the pins and the log read time from."""

    virtual: bool

    def now(self) -> float:
        """Monotonic seconds (virtual on a fake clock)."""

    def wall(self, at: float | None = None) -> float:
        """Epoch seconds of monotonic time ``at`` (now when None)."""

    def timeout_until(self, deadline: float | None) -> float | None:
        """Seconds to wait for ``deadline``; None: wait for the next event."""
