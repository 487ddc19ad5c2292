"""The phones' live streams and the answers that wait, all on one thread.

Waitress hands each request to a worker thread; an SSE stream used to keep its worker
for as long as the phone listened, so a few dozen phones starved the API. Here the
worker only decides (capacity left, or a 503) and the web server hands the connection
over to :class:`LiveStreams`: one thread with a selector that writes each piece of news
to every stream that wants it, formatted once. A stream costs a socket and a buffer,
no thread. A phone that falls :data:`MOST_UNSENT` bytes behind is dropped (its page
reconnects and starts again from the snapshot); while it is behind, only the newest
``state`` waits for it, as in :class:`hub.runtime.broadcast.NewsQueue`.

An answer that waits for the hub (a simulated press held for a while) is handed over
the same way with a future: the thread writes the JSON once the future resolves, so
the wait holds no worker either.
"""

from __future__ import annotations

import logging
import selectors
import socket
import threading
import time
from collections import deque
from collections.abc import Callable, Iterable
from concurrent.futures import Future
from typing import Any

from hub.wire.sse import KEEPALIVE, KEEPALIVE_S, RETRY, Places, news_event

log = logging.getLogger("hub.http.streams")

MOST_UNSENT = 256 * 1024  # bytes waiting for one phone before it is dropped
LINGER_S = 2.0  # after an answer, how long to wait for the phone to close first
_READ, _WRITE = selectors.EVENT_READ, selectors.EVENT_WRITE


class _Peer:
    """One handed-over connection: a stream of news of ``kinds``, or a waiting answer."""

    __slots__ = ("sock", "kinds", "out", "state", "done", "linger_until", "writing")

    def __init__(self, sock: socket.socket, kinds: frozenset[str]) -> None:
        self.sock = sock
        self.kinds = kinds
        self.out = bytearray()
        self.state: bytes | None = None  # the newest state, held while the phone is behind
        self.done = False  # all written: half-closed, waiting for the phone to close
        self.linger_until = 0.0
        self.writing = False  # registered for writability (something is waiting)


class LiveStreams:
    """At most ``capacity`` live streams, served by one thread.

    ``snapshot()`` is the hub's current snapshot (each stream starts with it). Feed
    news with :meth:`offer` (a :class:`hub.runtime.broadcast.Broadcaster` callback): it only
    queues, so the loop thread never waits on a socket.
    """

    def __init__(
        self,
        capacity: int,
        snapshot: Callable[[], object],
        kinds: Iterable[str] = ("state", "sound", "game"),
    ) -> None:
        self.capacity = capacity
        self._snapshot = snapshot
        self._kinds = frozenset(kinds)
        self._lock = threading.Lock()
        self._places = Places(capacity)  # streams reserved or served
        self._inbox: deque[tuple[str, Any]] = deque()
        self._woken = False  # a wake is on its way: no need to send another (see _post)
        self._selector = selectors.DefaultSelector()
        self._wake_r, self._wake_w = socket.socketpair()
        self._wake_r.setblocking(False)
        self._wake_w.setblocking(False)
        self._selector.register(self._wake_r, _READ, None)
        self._peers: dict[int, _Peer] = {}
        self._last_state: tuple[object, bytes] | None = None
        self._thread: threading.Thread | None = None
        self._stopping = False

    # --- any thread ---------------------------------------------------------------------

    def reserve(self) -> bool:
        """Take one of the ``capacity`` places for a stream; False when all are taken."""
        with self._lock:
            return not self._stopping and self._places.take()

    def release(self) -> None:
        """Give a place back (a reserved stream that never started, or one that ended)."""
        self._places.give_back()

    def adopt_stream(self, sock: socket.socket, head: bytes, kinds: Iterable[str]) -> None:
        """Serve ``sock`` (its place reserved) as a stream: ``head``, the snapshot, news."""
        self._post("stream", (sock, head, frozenset(kinds) & self._kinds))

    def adopt_answer(
        self, sock: socket.socket, future: Future[Any], render: Callable[[Future[Any]], bytes]
    ) -> None:
        """Once ``future`` resolves, write ``render(future)`` (a whole HTTP answer) to
        ``sock`` and close it."""
        future.add_done_callback(lambda done: self._post("answer", (sock, done, render)))

    def offer(self, kind: str, payload: object) -> None:
        """News for the streams (ignored unless some stream could want ``kind``)."""
        if kind in self._kinds and self._places.taken:
            self._post("news", (kind, payload))

    def start(self) -> None:
        """Start the thread."""
        self._thread = threading.Thread(target=self._run, name="live-streams", daemon=True)
        self._thread.start()

    def close(self, timeout: float = 5.0) -> None:
        """Close every stream and stop the thread."""
        with self._lock:
            self._stopping = True
        self._post("stop", None)
        if self._thread is not None:
            self._thread.join(timeout)
            self._thread = None
        for peer in list(self._peers.values()):
            self._drop(peer)
        self._selector.close()
        self._wake_r.close()
        self._wake_w.close()

    def _post(self, what: str, item: Any) -> None:
        # One wake per burst, not one system call per piece of news: the thread clears
        # the flag before it empties the inbox, so an item appended while the flag was
        # still set is taken in that pass, and one appended after it sends a new wake.
        self._inbox.append((what, item))
        if self._woken:
            return
        self._woken = True
        try:
            self._wake_w.send(b"\0")
        except (BlockingIOError, OSError):  # already woken (buffer full), or closing
            pass

    # --- the thread ---------------------------------------------------------------------

    def _run(self) -> None:
        next_keepalive = time.monotonic() + KEEPALIVE_S
        while True:
            timeout = max(0.0, next_keepalive - time.monotonic())
            for key, mask in self._selector.select(min(timeout, LINGER_S)):
                if key.data is None:
                    self._drain_wake()
                else:
                    self._ready(key.data, mask)
            if not self._take_inbox():
                return
            now = time.monotonic()
            if now >= next_keepalive:
                next_keepalive = now + KEEPALIVE_S
                self._broadcast(None, KEEPALIVE)
            self._end_lingering(now)

    def _drain_wake(self) -> None:
        try:
            while self._wake_r.recv(4096):
                pass
        except BlockingIOError:
            pass

    def _take_inbox(self) -> bool:
        """Handle what other threads posted; False once told to stop."""
        self._woken = False  # before the inbox is read: see _post
        while self._inbox:
            what, item = self._inbox.popleft()
            if what == "stop":
                return False
            try:
                self._take(what, item)
            except Exception:  # a bug must not end every phone's stream: drop this one
                log.exception("live streams: %s failed; dropped", what)
                if what in ("stream", "answer"):
                    self._discard(item[0])
                if what == "stream":  # its place was reserved: give it back
                    self.release()
        return True

    def _discard(self, sock: socket.socket) -> None:
        """Forget and close ``sock`` whether or not it was added yet."""
        peer = self._peers.pop(sock.fileno(), None) if sock.fileno() >= 0 else None
        if peer is not None:
            try:
                self._selector.unregister(sock)
            except (KeyError, ValueError):
                pass
        sock.close()

    def _take(self, what: str, item: Any) -> None:
        if what == "news":
            self._broadcast(item[0], self._format(*item))
        elif what == "stream":
            self._start_stream(*item)
        elif what == "answer":
            self._start_answer(*item)

    def _format(self, kind: str, payload: object) -> bytes:
        chunk = news_event(kind, payload)
        if kind == "state":
            self._last_state = (payload, chunk)
        return chunk

    def _start_stream(self, sock: socket.socket, head: bytes, kinds: frozenset[str]) -> None:
        snapshot = self._snapshot()
        cached = self._last_state
        state = (
            cached[1]
            if cached is not None and cached[0] is snapshot
            else news_event("state", snapshot)
        )
        peer = self._add(sock, kinds)
        if peer is None:
            self.release()
            return
        peer.out += head + RETRY + state
        self._flush(peer)

    def _start_answer(
        self, sock: socket.socket, future: Future[Any], render: Callable[[Future[Any]], bytes]
    ) -> None:
        peer = self._add(sock, frozenset())
        if peer is None:
            return
        peer.out += render(future)
        peer.done = True
        self._flush(peer)

    def _add(self, sock: socket.socket, kinds: frozenset[str]) -> _Peer | None:
        try:
            sock.setblocking(False)
            peer = _Peer(sock, kinds)
            self._selector.register(sock, _READ, peer)
        except (OSError, ValueError):  # the phone went away during the hand-over
            sock.close()
            return None
        self._peers[sock.fileno()] = peer
        return peer

    def _broadcast(self, kind: str | None, chunk: bytes) -> None:
        for peer in list(self._peers.values()):
            if not peer.done and (kind is None or kind in peer.kinds):
                self._queue(peer, kind, chunk)

    def _queue(self, peer: _Peer, kind: str | None, chunk: bytes) -> None:
        if kind == "state" and peer.out:  # behind: only the newest state waits
            peer.state = chunk
            return
        if not peer.out and peer.state is None:  # the common case: straight out
            try:
                sent = peer.sock.send(chunk)
            except BlockingIOError:
                sent = 0
            except OSError:
                self._drop(peer)
                return
            if sent == len(chunk):
                return
            chunk = chunk[sent:]
        if peer.state is not None:  # keep the order: that state went out before this
            peer.out += peer.state
            peer.state = None
        peer.out += chunk
        if len(peer.out) > MOST_UNSENT:
            log.info("a phone fell %d bytes behind its stream: dropped", len(peer.out))
            self._drop(peer)
            return
        self._flush(peer)

    def _ready(self, peer: _Peer, mask: int) -> None:
        if mask & _READ:
            try:
                if not peer.sock.recv(4096):  # the phone closed its end
                    self._drop(peer)
                    return
            except BlockingIOError:
                pass
            except OSError:
                self._drop(peer)
                return
        if mask & _WRITE:
            self._flush(peer)

    def _flush(self, peer: _Peer) -> None:
        """Send what the socket takes now; wait for it to be writable for the rest."""
        while peer.out or peer.state is not None:
            if not peer.out:
                peer.out, peer.state = bytearray(peer.state or b""), None
            try:
                sent = peer.sock.send(peer.out)
            except BlockingIOError:
                break
            except OSError:
                self._drop(peer)
                return
            del peer.out[:sent]
        if not peer.out and peer.done and not peer.linger_until:
            self._half_close(peer)
            return
        if bool(peer.out) != peer.writing:  # the kernel hears only of a change
            peer.writing = bool(peer.out)
            self._selector.modify(peer.sock, _READ | (_WRITE if peer.writing else 0), peer)

    def _half_close(self, peer: _Peer) -> None:
        """All written: tell the phone, and close once it has (or after a while), so
        the answer is not cut off by a reset."""
        peer.linger_until = time.monotonic() + LINGER_S
        try:
            peer.sock.shutdown(socket.SHUT_WR)
            if peer.writing:
                peer.writing = False
                self._selector.modify(peer.sock, _READ, peer)
        except OSError:
            self._drop(peer)

    def _end_lingering(self, now: float) -> None:
        for peer in list(self._peers.values()):
            if peer.linger_until and now >= peer.linger_until:
                self._drop(peer)

    def _drop(self, peer: _Peer) -> None:
        fileno = peer.sock.fileno()
        if self._peers.pop(fileno, None) is None:
            return
        try:
            self._selector.unregister(peer.sock)
        except (KeyError, ValueError):
            pass
        peer.sock.close()
        if not peer.done:
            self.release()
