"""The hub's recent event log (``GET /api/log``): a bounded ring of entries."""

from __future__ import annotations

import threading
from collections import deque
from typing import Any

from hub.clock import Clock, iso


class EventLog:
    """Keeps the last ``size`` hub events as JSON-ready dicts, oldest first."""

    def __init__(self, clock: Clock, size: int = 2000) -> None:
        self._clock = clock
        self._entries: deque[dict[str, Any]] = deque(maxlen=size)
        self._lock = threading.Lock()

    def append(self, kind: str, at: float | None = None, **fields: Any) -> dict[str, Any]:
        """Add an entry of ``kind`` stamped with the wall time of monotonic ``at``."""
        entry = {"at": iso(self._clock.wall(at)), "kind": kind, **fields}
        with self._lock:
            self._entries.append(entry)
        return entry

    def recent(self, limit: int = 100) -> list[dict[str, Any]]:
        """The newest ``limit`` entries, oldest first."""
        with self._lock:
            entries = list(self._entries)
        return entries[-limit:] if limit else []
