"""Fan-out of hub news to live subscribers (SSE clients, MQTT): never blocks the loop."""

from __future__ import annotations

import logging
import queue
import threading

log = logging.getLogger("hub.broadcast")


class Subscription:
    """One subscriber's bounded queue of ``(kind, payload)``; oldest dropped when full."""

    def __init__(self, size: int) -> None:
        self.queue: queue.Queue = queue.Queue(maxsize=size)
        self.dropped = 0

    def offer(self, item: tuple[str, object]) -> None:
        """Queue ``item`` without blocking; a slow subscriber loses its oldest news."""
        while True:
            try:
                self.queue.put_nowait(item)
                return
            except queue.Full:
                try:
                    self.queue.get_nowait()
                    self.dropped += 1
                except queue.Empty:
                    pass

    def get(self, timeout: float | None = None) -> tuple[str, object] | None:
        """The next item, or None after ``timeout`` seconds."""
        try:
            return self.queue.get(timeout=timeout)
        except queue.Empty:
            return None


class Broadcaster:
    """Publishes ``(kind, payload)`` to every subscriber; each failure isolated."""

    def __init__(self, queue_size: int = 64) -> None:
        self._subs: list[Subscription] = []
        self._lock = threading.Lock()
        self._size = queue_size
        self.callbacks: list = []
        self.closed = False

    def close(self) -> None:
        """Tell every subscriber the hub is stopping (they get ``("closed", None)``)."""
        with self._lock:
            subs, self._subs = self._subs, []
            self.closed = True
        for sub in subs:
            sub.offer(("closed", None))

    def subscribe(self) -> Subscription:
        """A new subscription; call :meth:`unsubscribe` when done. After :meth:`close`,
        the subscription gets ``("closed", None)`` at once."""
        sub = Subscription(self._size)
        if self.closed:
            sub.offer(("closed", None))
            return sub
        with self._lock:
            self._subs = [*self._subs, sub]
        return sub

    def unsubscribe(self, sub: Subscription) -> None:
        """Stop sending to ``sub``."""
        with self._lock:
            self._subs = [s for s in self._subs if s is not sub]

    @property
    def count(self) -> int:
        """How many subscribers are connected."""
        return len(self._subs)

    def publish(self, kind: str, payload: object) -> None:
        """Send to every subscriber and callback (copy-on-write list: no lock held here)."""
        for sub in self._subs:
            sub.offer((kind, payload))
        for callback in self.callbacks:
            try:
                callback(kind, payload)
            except Exception:
                log.exception("broadcast callback failed for %s", kind)
