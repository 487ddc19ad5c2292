"""Fan-out of hub news to its listeners: never blocks the loop.

News is ``(kind, payload)``: ``state`` (the snapshot), ``sound``, ``game``, ``event``
(a log entry) and ``settings``. The listeners are the phones' live streams
(:class:`hub.http.streams.LiveStreams`, which queues each phone's news on its own
thread and keeps only the newest ``state`` for one that falls behind) and the MQTT
publisher (its bounded outbox): each takes what it wants and returns at once.
"""

from __future__ import annotations

import logging
from collections.abc import Callable

log = logging.getLogger("hub.runtime.broadcast")

Listener = Callable[[str, object], None]


class Broadcaster:
    """Publishes ``(kind, payload)`` to every listener in :attr:`callbacks` (each
    failure isolated, logged) until :meth:`close`."""

    def __init__(self) -> None:
        self.callbacks: list[Listener] = []
        self.closed = False

    def close(self) -> None:
        """The hub is stopping: nothing is published from now on."""
        self.closed = True

    def publish(self, kind: str, payload: object) -> None:
        """Send to every listener, each on the caller's thread (they must not block)."""
        if self.closed:
            return
        for callback in self.callbacks:
            try:
                callback(kind, payload)
            except Exception:
                log.exception("broadcast callback failed for %s", kind)
