"""Maps the microcontroller's microsecond clock onto the hub's monotonic seconds.

Each frame carrying an MCU timestamp ``t`` and read by the hub at ``rx`` gives a
sample ``rx - t``: the true offset plus that frame's USB and scheduling delay. The
smallest recent sample is the best estimate (the delay is never negative), so an edge
maps to ``t + min(samples)``: never later than it was read, and a press's length is
the microcontroller's own measure of it, whatever the USB latency was.

A timestamp that cannot be true is refused (:meth:`ClockMap.map` returns None) and
changes nothing: the box's clock runs at the hub's pace, so a frame's time may not run
ahead of the newest one taken by more than the hub's own time between them (plus
``AHEAD_S``), nor fall more than ``BEHIND_S`` behind it. One edge stamped 30 minutes
ahead is refused, not let skew every later press. Two refused in a row that agree
with each other mean the mapping was wrong (say, its first sample sat long in a
buffer): it starts afresh from them.
"""

from __future__ import annotations

from collections import deque

WRAP = 1 << 32
WINDOW = 64  # samples (heartbeats come 5 a second: about 13 s, drift stays sub-ms)
AHEAD_S = 1.0  # a frame delayed this much more than the newest one's is still believed
BEHIND_S = 10.0  # resent edges are a few tenths of a second old; nothing is this old


class ClockMap:
    """Unwraps the 32-bit µs timestamps and maps them to hub seconds."""

    def __init__(self) -> None:
        self._raw: int | None = None
        self._us = 0
        self._samples: deque[float] = deque(maxlen=WINDOW)
        self._offset: float | None = None
        self._newest: tuple[int, float] | None = None  # (µs, rx) of the newest time taken
        self._doubt: tuple[int, float] | None = None  # the last refused, if the one before

    def reset(self) -> None:
        """Forget everything (the microcontroller rebooted or was replaced)."""
        self.__init__()  # type: ignore[misc]

    def _unwrapped(self, raw: int) -> int:
        """Microseconds on the microcontroller's clock for ``raw`` (nothing changes)."""
        if self._raw is None:
            return raw
        delta = (raw - self._raw) % WRAP
        if delta >= WRAP // 2:  # a little backwards: an older frame
            delta -= WRAP
        return self._us + delta

    def unwrap(self, raw: int) -> float:
        """Seconds on the microcontroller's clock for the 32-bit timestamp ``raw``."""
        self._us = self._unwrapped(raw)
        self._raw = raw
        return self._us / 1_000_000

    def map(self, raw: int, rx: float) -> float | None:
        """Like :meth:`sample`, but None (and nothing changes) when ``raw`` cannot be
        true beside the times already taken."""
        us = self._unwrapped(raw)
        if self._newest is not None and not _agree((us, rx), self._newest):
            doubt, self._doubt = self._doubt, (us, rx)
            if doubt is None or not _agree((us, rx), doubt):
                return None
            self.reset()  # two in a row agree: it was the mapping that was wrong
        self._doubt = None
        return self.sample(raw, rx)

    def sample(self, raw: int, rx: float) -> float:
        """Take a timestamp read at hub time ``rx``; return it in hub seconds."""
        mcu = self.unwrap(raw)
        if self._newest is None or self._us > self._newest[0]:
            self._newest = (self._us, rx)
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


def _agree(later: tuple[int, float], earlier: tuple[int, float]) -> bool:
    """Whether two (µs, rx) readings fit one clock that runs at the hub's pace."""
    ahead = (later[0] - earlier[0]) / 1_000_000
    return -BEHIND_S <= ahead <= later[1] - earlier[1] + AHEAD_S
