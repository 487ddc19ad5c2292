"""The phones' live streams, served natively on the web server's loop.

A handler decides (capacity left, or a 503) and asks for a stream
(:class:`hub.http.workers.Handover`); the server then gives the connection to
:class:`LiveStreams`, which writes the head, the snapshot and every piece of news
through Tornado's connection (``write_headers``, ``write``; chunked, as HTTP/1.1 says).
A stream costs a socket and a buffer, no thread: the news is formatted once and
offered to every stream that wants it. A phone that falls :data:`MOST_UNSENT` bytes
behind is dropped (its page reconnects and starts again from the snapshot); while one
write waits for it, only the newest ``state`` waits behind it.
"""

from __future__ import annotations

import logging
from collections import deque
from collections.abc import Callable, Iterable
from typing import TYPE_CHECKING, Any

from tornado.ioloop import IOLoop, PeriodicCallback

from hub.http.connections import STREAMING
from hub.http.workers import Headers, header_block, start_line
from hub.wire.sse import KEEPALIVE, KEEPALIVE_S, RETRY, Places, news_event

if TYPE_CHECKING:
    from hub.http.workers import Exchange

log = logging.getLogger("hub.http.streams")

MOST_UNSENT = 256 * 1024  # bytes waiting for one phone before it is dropped


class _Peer:
    """One stream: its exchange, the kinds of news it wants, what waits for it."""

    __slots__ = ("exchange", "kinds", "out", "state", "writing")

    def __init__(self, exchange: Exchange, kinds: frozenset[str]) -> None:
        self.exchange = exchange
        self.kinds = kinds
        self.out = bytearray()  # waiting behind the write in flight
        self.state: bytes | None = None  # the newest state, held while the phone is behind
        self.writing = False  # a write is in flight


class LiveStreams:
    """At most ``capacity`` live streams on ``io_loop``'s thread.

    ``snapshot()`` is the hub's current snapshot (each stream starts with it). Feed
    news with :meth:`offer` (a :class:`hub.runtime.broadcast.Broadcaster` callback, any
    thread): it only queues, so the hub's loop never waits on a socket.
    """

    def __init__(
        self,
        capacity: int,
        snapshot: Callable[[], object],
        io_loop: IOLoop,
        kinds: Iterable[str] = ("state", "sound", "game"),
    ) -> None:
        self.capacity = capacity
        self.io_loop = io_loop
        self._snapshot = snapshot
        self._kinds = frozenset(kinds)
        self._places = Places(capacity)  # streams reserved or served
        self._inbox: deque[tuple[str, object]] = deque()
        self._woken = False  # a wake is on its way: no need to send another (see offer)
        self._peers: dict[Exchange, _Peer] = {}
        self._last_state: tuple[object, bytes] | None = None
        self._beat: PeriodicCallback | None = None
        self._stopping = False

    # --- any thread ---------------------------------------------------------------------

    def reserve(self) -> bool:
        """Take one of the ``capacity`` places for a stream; False when all are taken."""
        return not self._stopping and self._places.take()

    def release(self) -> None:
        """Give a place back (a reserved stream that never started, or one that ended)."""
        self._places.give_back()

    def offer(self, kind: str, payload: object) -> None:
        """News for the streams (ignored unless some stream could want ``kind``)."""
        if kind not in self._kinds or not self._places.taken:
            return
        # One wake per burst: the loop clears the flag before it empties the inbox, so
        # an item appended while the flag was still set is taken in that pass, and one
        # appended after it sends a new wake.
        self._inbox.append((kind, payload))
        if not self._woken:
            self._woken = True
            self.io_loop.add_callback(self._take_inbox)

    # --- the loop -----------------------------------------------------------------------

    def start(self) -> None:
        """Start the heartbeat (a comment line every ``KEEPALIVE_S``)."""
        self._beat = PeriodicCallback(lambda: self._broadcast(None, KEEPALIVE), KEEPALIVE_S * 1000)
        self._beat.start()

    def adopt(
        self, exchange: Exchange, status: str, headers: Headers, kinds: Iterable[str]
    ) -> None:
        """Serve ``exchange`` (its place reserved) as a stream: head, snapshot, news."""
        if exchange.closed or self._stopping:
            self.release()
            return
        try:
            snapshot = self._snapshot()
            cached = self._last_state
            state = (
                cached[1]
                if cached is not None and cached[0] is snapshot
                else news_event("state", snapshot)
            )
        except Exception:  # a bug must not keep the place: this phone is dropped
            log.exception("live streams: stream failed; dropped")
            self.release()
            exchange.phone.close()
            return
        peer = _Peer(exchange, frozenset(kinds) & self._kinds)
        self._peers[exchange] = peer
        exchange.phone.state = STREAMING
        exchange.conn.set_close_callback(lambda: self._drop(peer))
        kept = [(name, value) for name, value in headers if name.lower() != "content-length"]
        written = exchange.conn.write_headers(start_line(status), header_block(kept), RETRY + state)
        self._track(peer, written)

    def close(self) -> None:
        """End every stream (the server is stopping): the last chunk, then the close,
        so a page sees its stream end rather than break."""
        self._stopping = True
        if self._beat is not None:
            self._beat.stop()
        for peer in list(self._peers.values()):
            try:
                peer.exchange.conn.finish()  # written at once, unless the phone is behind
            except Exception:  # a stream closed already: nothing to end
                pass
            self._drop(peer)

    @property
    def count(self) -> int:
        """Streams served now."""
        return len(self._peers)

    def _take_inbox(self) -> None:
        self._woken = False  # before the inbox is read: see offer
        while self._inbox:
            kind, payload = self._inbox.popleft()
            try:
                chunk = news_event(kind, payload)
            except Exception:  # a bug upstream must not end every phone's stream
                log.exception("live streams: news failed; dropped")
                continue
            if kind == "state":
                self._last_state = (payload, chunk)
            self._broadcast(kind, chunk)

    def _broadcast(self, kind: str | None, chunk: bytes) -> None:
        for peer in list(self._peers.values()):
            if kind is None or kind in peer.kinds:
                self._queue(peer, kind, chunk)

    def _queue(self, peer: _Peer, kind: str | None, chunk: bytes) -> None:
        if not peer.writing:  # the common case: straight out
            self._send(peer, chunk)
            return
        if kind == "state":  # behind: only the newest state waits
            peer.state = chunk
            return
        if peer.state is not None:  # keep the order: that state went out before this
            peer.out += peer.state
            peer.state = None
        peer.out += chunk
        if len(peer.out) > MOST_UNSENT:
            log.info("a phone fell %d bytes behind its stream: dropped", len(peer.out))
            self._drop(peer)

    def _send(self, peer: _Peer, chunk: bytes) -> None:
        try:
            written = peer.exchange.conn.write(chunk)
        except Exception:  # a closed stream, a framing error: this phone is gone
            self._drop(peer)
            return
        self._track(peer, written)

    def _track(self, peer: _Peer, written: Any) -> None:
        """Note a write in flight; when it is done, send what waited behind it."""
        if written.done():
            if written.exception() is not None:
                self._drop(peer)
            return
        peer.writing = True
        written.add_done_callback(lambda _: self._written(peer))

    def _written(self, peer: _Peer) -> None:
        peer.writing = False
        if peer.exchange not in self._peers:
            return
        waiting = bytes(peer.out) + (peer.state or b"")
        peer.out.clear()
        peer.state = None
        if waiting:
            self._send(peer, waiting)

    def _drop(self, peer: _Peer) -> None:
        if self._peers.pop(peer.exchange, None) is None:
            return
        self.release()
        peer.exchange.phone.close()
