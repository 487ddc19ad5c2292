"""The Server-Sent Events wire format, in one place for every stream.

The phones' live streams (:mod:`hub.http.streams`, and :func:`web.api.events` when no
server takes the stream over) and the tournament board's (:mod:`hub.board.app`) all write
these bytes: a stream starts with :data:`RETRY`, then events from :func:`event`, with
:data:`KEEPALIVE` after every :data:`KEEPALIVE_S` seconds without news. Both count
their open streams with :class:`Places`. Stdlib only: the hub imports it without
loading Flask.
"""

from __future__ import annotations

import json
import threading

KEEPALIVE_S = 15.0  # a comment line on every quiet stream: proxies and phones keep it open
RETRY_MS = 2000  # the EventSource reconnect delay a stream announces
KEEPALIVE = b": keepalive\n\n"
RETRY = f"retry: {RETRY_MS}\n\n".encode()
# An answer's headers for a stream: never cached, never buffered by a proxy.
STREAM_HEADERS = {"Cache-Control": "no-cache", "X-Accel-Buffering": "no"}


def event(kind: str, payload: object) -> bytes:
    """One event: ``event: kind`` with the payload's compact JSON as its ``data``."""
    data = json.dumps(payload, separators=(",", ":"))
    return f"event: {kind}\ndata: {data}\n\n".encode()


def news_event(kind: str, payload: object) -> bytes:
    """:func:`event` of the hub's news, whose JSON :func:`compact` writes once for
    every consumer (only for payloads never changed once published)."""
    return f"event: {kind}\ndata: {compact(payload)}\n\n".encode()


_RECENT = 8  # payloads whose JSON is kept: the news of one press, for every consumer
_recent: dict[int, tuple[object, str]] = {}
_recent_lock = threading.Lock()


def compact(payload: object) -> str:
    """``payload`` as compact JSON, written once however many consumers send it: the
    phones' streams and MQTT are handed the very same objects (the hub's snapshot, its
    log entries), which are never changed once published, so the text of the last
    few is kept by their identity (each kept with its payload: the id stays its own)."""
    with _recent_lock:
        kept = _recent.get(id(payload))
    if kept is not None and kept[0] is payload:
        return kept[1]
    text = json.dumps(payload, separators=(",", ":"))
    with _recent_lock:
        _recent[id(payload)] = (payload, text)
        while len(_recent) > _RECENT:
            del _recent[next(iter(_recent))]
    return text


class Places:
    """At most ``most`` live streams at once (None: no limit), from any thread: the
    hub's live streams and the board's pages both count theirs here."""

    def __init__(self, most: int | None) -> None:
        self.most = most
        self.taken = 0
        self._lock = threading.Lock()

    def take(self) -> bool:
        """A place for one more stream; False when all are taken."""
        with self._lock:
            if self.most is not None and self.taken >= self.most:
                return False
            self.taken += 1
            return True

    def give_back(self) -> None:
        """A stream ended (or a reserved one never started)."""
        with self._lock:
            self.taken -= 1
