"""Fan-out of hub news to live subscribers (SSE clients, MQTT): never blocks the loop.

A subscriber names the kinds of news it wants (``state``, ``sound``, ``game``,
``event``); nothing else is queued for it. Its queue is bounded: a slow subscriber
loses its oldest news, but never the latest ``state``, which is kept apart (a newer
snapshot replaces an older one still waiting), so a burst of sounds or log entries can
never push the table out.
"""

from __future__ import annotations

import logging
import threading
from collections import deque
from collections.abc import Callable, Iterable

log = logging.getLogger("hub.runtime.broadcast")

KINDS = frozenset({"state", "sound", "game", "event", "settings"})
Item = tuple[str, object]


class NewsQueue:
    """One subscriber's news of ``kinds``: a bounded queue plus the latest ``state``."""

    def __init__(self, kinds: Iterable[str], size: int) -> None:
        self.kinds = frozenset(kinds)
        unknown = self.kinds - KINDS
        if unknown:
            raise ValueError(f"unknown kinds of news: {', '.join(sorted(unknown))}")
        self._items: deque[tuple[int, Item]] = deque()
        self._size = size
        self._state: tuple[int, object] | None = None  # (order, snapshot) not yet taken
        self._order = 0
        self._closed = False
        self._ready = threading.Condition()
        self.dropped = 0

    def offer(self, kind: str, payload: object) -> None:
        """Queue news of a wanted kind without blocking (others are ignored)."""
        if kind not in self.kinds:
            return
        with self._ready:
            self._order += 1
            if kind == "state":
                self._state = (self._order, payload)
            else:
                if len(self._items) >= self._size:
                    self._items.popleft()
                    self.dropped += 1
                self._items.append((self._order, (kind, payload)))
            self._ready.notify()

    def close(self) -> None:
        """The hub is stopping: :meth:`get` answers ``("closed", None)`` once the news
        queued so far is taken."""
        with self._ready:
            self._closed = True
            self._ready.notify_all()

    @property
    def pending(self) -> int:
        """How many items are waiting to be taken."""
        with self._ready:
            return len(self._items) + (self._state is not None)

    def get(self, timeout: float | None = None) -> Item | None:
        """The next item in the order it was published, ``("closed", None)`` after
        :meth:`close`, or None after ``timeout`` seconds without news."""
        with self._ready:
            if not self._ready.wait_for(self._has_news, timeout):
                return None
            state, items = self._state, self._items
            if state is not None and (not items or state[0] < items[0][0]):
                self._state = None
                return ("state", state[1])
            if items:
                return items.popleft()[1]
            return ("closed", None)

    def _has_news(self) -> bool:
        return bool(self._items) or self._state is not None or self._closed


class Broadcaster:
    """Publishes ``(kind, payload)`` to every subscriber that wants it, and to every
    callback (each failure isolated)."""

    def __init__(self, queue_size: int = 64) -> None:
        self._subs: list[NewsQueue] = []
        self._lock = threading.Lock()
        self._size = queue_size
        self.callbacks: list[Callable[[str, object], None]] = []
        self.closed = False

    def close(self) -> None:
        """Tell every subscriber the hub is stopping (they get ``("closed", None)``)."""
        with self._lock:
            subs, self._subs = self._subs, []
            self.closed = True
        for sub in subs:
            sub.close()

    def subscribe(self, kinds: Iterable[str] = KINDS) -> NewsQueue:
        """A new subscription to news of ``kinds``; call :meth:`unsubscribe` when done.
        After :meth:`close`, the subscription answers ``("closed", None)`` at once."""
        sub = NewsQueue(kinds, self._size)
        with self._lock:
            if not self.closed:
                self._subs = [*self._subs, sub]
                return sub
        sub.close()
        return sub

    def unsubscribe(self, sub: NewsQueue) -> None:
        """Stop sending to ``sub``."""
        with self._lock:
            self._subs = [s for s in self._subs if s is not sub]

    def wants(self, kind: str) -> bool:
        """Whether anyone at all would hear news of ``kind`` (skip building it if not)."""
        return bool(self.callbacks) or any(kind in sub.kinds for sub in self._subs)

    def publish(self, kind: str, payload: object) -> None:
        """Send to every subscriber and callback (copy-on-write list: no lock held here)."""
        for sub in self._subs:
            sub.offer(kind, payload)
        for callback in self.callbacks:
            try:
                callback(kind, payload)
            except Exception:
                log.exception("broadcast callback failed for %s", kind)
