"""The simulator's stand-ins for the hub's clock and speaker: virtual time
(:class:`FakeClock`) and a player that listens (:class:`RecordingPlayer`).

The soak and the bot table play whole games through the real hub on them (a 1.5 s
hold costs no real time; every sound the hub orders is heard), and the tests use them
too. They are the simulator's, not the hub's: ``hub/`` never runs on them.
"""

from __future__ import annotations

import array
import threading
from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Any

from hub.io.sound import SAY, check_volume


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


@dataclass
class RecordingPlayer:
    """A sound player that remembers what it was asked to play (the fake for tests).

    ``played`` records every request: what reached the player after the policy;
    ``spoken`` the speech handed to :meth:`say` (its PCM, after its lead of silence).
    """

    played: list[str] = field(default_factory=list)
    spoken: list[array.array[int]] = field(default_factory=list)
    listeners: list[Callable[[str], None]] = field(default_factory=list)
    volume: float = 1.0

    def play(self, name: str) -> None:
        """Record ``name`` and tell any listener (benchmarks wait on these)."""
        self.played.append(name)
        for listener in self.listeners:
            listener(name)

    def say(self, samples: array.array[int], lead_frames: int = 0) -> None:
        """Record the speech as heard (its lead of silence first) and tell any
        listener (as sound ``say``). Without a lead the very array is kept, no copy:
        a copy of a sentence cost more than the hub's whole way from the dispatcher
        to the player (``bench/press_to_effect.py`` times a turn said through here)."""
        if lead_frames:
            samples = array.array("h", bytes(2 * lead_frames)) + samples
        self.spoken.append(samples)
        for listener in self.listeners:
            listener(SAY)

    def status(self) -> dict[str, Any]:
        """Always available."""
        return {"available": True, "reason": None}

    def set_volume(self, volume: float) -> None:
        """Remember the volume (checked like the real player does)."""
        self.volume = check_volume(volume)

    def close(self) -> None:
        """Nothing to release."""
