"""The Server-Sent Events wire format, in one place for every stream.

The phones' live streams (:mod:`hub.streams`, and :func:`web.api.events` when no
server takes the stream over) and the tournament board's (:mod:`web.board`) all write
these bytes: a stream starts with :data:`RETRY`, then events from :func:`event`, with
:data:`KEEPALIVE` after every :data:`KEEPALIVE_S` seconds without news. Stdlib only:
the hub imports it without loading Flask.
"""

from __future__ import annotations

import json

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
