"""The hub's recent event log (``GET /api/log``): a bounded ring of entries."""

from __future__ import annotations

import threading
from collections import deque
from collections.abc import Callable
from typing import Any

from hub.core.entries import Entry
from hub.core.news import Kind
from hub.io.clock import Clock
from hub.runtime.clock import iso

# One entry as kept: epoch seconds, kind, then its fields' names and values in turn.
# A flat tuple costs about 170 bytes where the JSON-ready dict with its ISO time string
# costs 280: a full log of 2,000 is ~0.2 MB less on a Pi (docs/performance.md).
_Kept = tuple[float, Kind, tuple[Any, ...]]


class EventLog:
    """Keeps the last ``size`` hub events, oldest first; hands them out as JSON-ready
    dicts (``at`` as ISO 8601 UTC, ``kind``, then the entry's own fields)."""

    def __init__(self, clock: Clock, size: int = 2000) -> None:
        self._clock = clock
        self._entries: deque[_Kept] = deque(maxlen=size)
        self._lock = threading.Lock()

    def append(self, entry: Entry, at: float | None = None) -> dict[str, Any]:
        """Add ``entry`` stamped with the wall time of monotonic ``at`` (None: now);
        the entry as :meth:`recent` will give it."""
        flat = tuple(v for pair in entry.items() for v in pair)
        kept = (self._clock.wall(at), entry.KIND, flat)
        with self._lock:
            self._entries.append(kept)
        return _shown(kept)

    def recent(self, limit: int = 100) -> list[dict[str, Any]]:
        """The newest ``limit`` entries, oldest first."""
        if not limit:
            return []
        with self._lock:
            newest = list(self._entries)[-limit:]
        return [_shown(kept) for kept in newest]

    def rewrite(self, change: Callable[[dict[str, Any]], dict[str, Any]]) -> None:
        """Each entry's fields (all but ``at`` and ``kind``) become ``change(fields)``:
        a forgotten player's name leaves the log (:mod:`hub.games.forget`)."""
        with self._lock:
            kept = list(self._entries)
            self._entries.clear()
            for epoch, kind, flat in kept:
                fields = change({flat[i]: flat[i + 1] for i in range(0, len(flat), 2)})
                self._entries.append((epoch, kind, tuple(v for p in fields.items() for v in p)))


def _shown(kept: _Kept) -> dict[str, Any]:
    epoch, kind, flat = kept
    entry: dict[str, Any] = {"at": iso(epoch), "kind": kind}
    for i in range(0, len(flat), 2):
        entry[flat[i]] = flat[i + 1]
    return entry
