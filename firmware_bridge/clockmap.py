"""Maps the microcontroller's microsecond clock onto the hub's monotonic seconds.

Each frame carrying an MCU timestamp ``t`` and read by the hub at ``rx`` gives a
sample ``rx - t``: the true offset plus that frame's USB and scheduling delay. The
smallest recent sample is the best estimate (the delay is never negative), so an edge
maps to ``t + min(samples)``: never later than it was read, and a press's length is
the microcontroller's own measure of it, whatever the USB latency was.
"""

from __future__ import annotations

from collections import deque

WRAP = 1 << 32
WINDOW = 64  # samples (heartbeats come 5 a second: about 13 s, drift stays sub-ms)


class ClockMap:
    """Unwraps the 32-bit µs timestamps and maps them to hub seconds."""

    def __init__(self) -> None:
        self._raw: int | None = None
        self._us = 0
        self._samples: deque[float] = deque(maxlen=WINDOW)
        self._offset: float | None = None

    def reset(self) -> None:
        """Forget everything (the microcontroller rebooted or was replaced)."""
        self.__init__()  # type: ignore[misc]

    def unwrap(self, raw: int) -> float:
        """Seconds on the microcontroller's clock for the 32-bit timestamp ``raw``."""
        if self._raw is None:
            self._us = raw
        else:
            delta = (raw - self._raw) % WRAP
            if delta >= WRAP // 2:  # a little backwards: an older frame
                delta -= WRAP
            self._us += delta
        self._raw = raw
        return self._us / 1_000_000

    def sample(self, raw: int, rx: float) -> float:
        """Take a timestamp read at hub time ``rx``; return it in hub seconds."""
        mcu = self.unwrap(raw)
        sample = rx - mcu
        full = len(self._samples) == self._samples.maxlen
        evicted = self._samples[0] if full else None
        self._samples.append(sample)
        if self._offset is None or evicted == self._offset:
            self._offset = min(self._samples)
        else:
            self._offset = min(self._offset, sample)
        return mcu + self._offset

    @property
    def offset(self) -> float | None:
        """The current estimate of hub time minus MCU time, or None before any sample."""
        return self._offset
