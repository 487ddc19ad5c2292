"""The publisher's bounded outbox: what the hub has said and the broker not yet heard.

The loop thread only :meth:`Outbox.put`\\ s (a lock held for a few dict operations,
never a wait). Retained kinds (``state``, ``game``, ``settings``) keep only their latest
value: a broker that comes back hears the table as it is, not how it was. Events queue
in order up to ``size``; when full, the oldest is dropped and counted.
"""

from __future__ import annotations

import threading
from collections import deque

LATEST_KINDS = ("state", "game", "settings")


class Outbox:
    """Latest value per retained kind, plus a bounded queue of events."""

    def __init__(self, size: int) -> None:
        self.size = size
        self.dropped = 0
        self._latest: dict[str, object] = {}
        self._events: deque[tuple[str, object]] = deque()
        self._lock = threading.Lock()
        self.wake = threading.Event()

    def put(self, kind: str, payload: object) -> None:
        """Queue ``payload`` of ``kind`` without blocking, and wake the publisher."""
        with self._lock:
            if kind in LATEST_KINDS:
                self._latest[kind] = payload
            else:
                if len(self._events) >= self.size:
                    self._events.popleft()
                    self.dropped += 1
                self._events.append((kind, payload))
        self.wake.set()

    def take(self) -> tuple[dict[str, object], list[tuple[str, object]]]:
        """Everything waiting: the latest retained values and the events, oldest first."""
        with self._lock:
            latest, self._latest = self._latest, {}
            events = list(self._events)
            self._events.clear()
        return latest, events

    def put_back(self, events: list[tuple[str, object]]) -> None:
        """Return unsent events to the front (the link dropped mid-batch), still bounded."""
        with self._lock:
            room = self.size - len(self._events)
            keep = events[-room:] if room > 0 else []
            self.dropped += len(events) - len(keep)
            self._events.extendleft(reversed(keep))

    def __len__(self) -> int:
        with self._lock:
            return len(self._events)
