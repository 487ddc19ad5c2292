"""The phones' connections as the web server holds them (docs/architecture.md).

:class:`PhoneStream` is Tornado's ``IOStream`` over one accepted socket, with two of
the methods its documentation names for a stream's subclasses (``read_from_fd``,
``close_fd``) extended. It notes what the connection is doing (:data:`IDLE` between requests,
:data:`RECEIVING` from a request's first byte until it is whole, :data:`SERVING`
until its answer is written, :data:`STREAMING` once it is a live stream) so the
server can close idle ones and cut slow senders, and answers a header too large with
a 431 of its own instead of a silent close, and a request Tornado cannot read (a NUL
in a header) with the API's JSON 400 instead of Tornado's bare one (``write``, the
stream's public method, extended for that one answer).

:class:`Lingering` closes a refused connection gently: the refusal is sent, the
writing half shut, and what the phone still sends is read and dropped for at most
:data:`LINGER_S` before the close, so the refusal is not lost to a reset.
"""

from __future__ import annotations

import json
import socket
import time
from collections.abc import Callable

from tornado.concurrent import Future
from tornado.ioloop import IOLoop
from tornado.iostream import IOStream, StreamBufferFullError, UnsatisfiableReadError

from hub.wire import i18n

IDLE, RECEIVING, SERVING, STREAMING = "idle", "receiving", "serving", "streaming"
MAX_HEADER = 256 * 1024  # a request's line and headers, at most (as waitress had it)
READ_CHUNK = 64 * 1024
LINGER_S = 2.0  # after a refusal, how long the phone's further bytes are read and dropped
LINGER_BYTES = 4 * 1024 * 1024  # ... and how many, at most
# Why Tornado closes a stream whose request head outgrew MAX_HEADER.
HEAD_UNREAD = (UnsatisfiableReadError, StreamBufferFullError)


def answer_body(code: str, **params: int) -> bytes:
    """A refusal the server writes itself, shaped as the API's (``{"error": code,
    "params", "message"}``), its words in the hub's default language: the server
    answers before the app has read who asks."""
    words = i18n.text(i18n.DEFAULT, f"error.{code}", **params)
    return json.dumps({"error": code, "params": params, "message": words}).encode()


def refusal(status: str, code: str, **params: int) -> bytes:
    """A whole HTTP answer that ends the connection: ``status`` and :func:`answer_body`."""
    body = answer_body(code, **params)
    head = (
        f"HTTP/1.1 {status}\r\nContent-Type: application/json\r\n"
        f"Content-Length: {len(body)}\r\nCache-Control: no-store\r\nConnection: close\r\n\r\n"
    )
    return head.encode("latin-1") + body


HEADER_TOO_LARGE = refusal(
    "431 Request Header Fields Too Large", "head_too_large", limit=MAX_HEADER // 1024
)
# What Tornado writes itself for a request it cannot read (a NUL or another control
# character in a header, a bad request line, a Content-Length that is no number, a
# broken chunk): a bare 400. :meth:`PhoneStream.write` sends the API's refusal instead.
TORNADOS_400 = b"HTTP/1.1 400 Bad Request\r\n\r\n"
BAD_REQUEST = refusal("400 Bad Request", "bad_request")


class Lingering:
    """Refused connections on their way out, on the server's loop (see the module doc)."""

    def __init__(self, io_loop: IOLoop) -> None:
        self.io_loop = io_loop
        self._socks: dict[socket.socket, tuple[object, list[int]]] = {}  # deadline, dropped

    def __call__(self, sock: socket.socket, answer: bytes) -> None:
        """Send ``answer`` on ``sock`` (no longer any stream's), then close it gently."""
        try:
            sock.send(answer)  # a few hundred bytes: the socket's buffer takes them
            sock.shutdown(socket.SHUT_WR)
            self.io_loop.add_handler(sock, self._read, IOLoop.READ)
        except (OSError, ValueError):
            sock.close()
            return
        self._socks[sock] = (self.io_loop.call_later(LINGER_S, self._end, sock), [0])

    def _read(self, sock: socket.socket, events: int) -> None:
        try:
            data = sock.recv(READ_CHUNK)
        except BlockingIOError:
            return
        except OSError:
            data = b""
        entry = self._socks.get(sock)
        if entry is None:
            return
        entry[1][0] += len(data)
        if not data or entry[1][0] > LINGER_BYTES:
            self._end(sock)

    def _end(self, sock: socket.socket) -> None:
        entry = self._socks.pop(sock, None)
        if entry is None:
            return
        self.io_loop.remove_timeout(entry[0])
        self.io_loop.remove_handler(sock)  # before the close: no registration outlives it
        sock.close()

    def close(self) -> None:
        """Close every lingering connection now (the server is stopping)."""
        for sock in list(self._socks):
            self._end(sock)


class PhoneStream(IOStream):
    """One accepted connection: Tornado's stream over ``sock`` (see the module doc)."""

    def __init__(
        self,
        sock: socket.socket,
        address: tuple[str, int],
        lingering: Callable[[socket.socket, bytes], None],
    ) -> None:
        self.sock = sock  # ours: Tornado's stream and the lingering close use it
        self.address = address
        self.state = IDLE
        self.since = 0.0  # when the request being received began (monotonic; 0: none)
        self.active = time.monotonic()  # when the last request or answer ended
        self.refused = 0  # the early gate's refusals in a row on this connection
        self.answer_on_close: bytes | None = None  # a refusal to send as it closes
        self._lingering = lingering
        # A request's headers plus what one read may bring beyond them; the body is
        # handed on as it comes, never buffered here.
        super().__init__(
            sock, max_buffer_size=MAX_HEADER + 2 * READ_CHUNK, read_chunk_size=READ_CHUNK
        )

    def read_from_fd(self, buf: bytearray | memoryview) -> int | None:
        """Read into ``buf``; the first byte after a rest starts the request's clock."""
        read = super().read_from_fd(buf)
        if read and self.state == IDLE:
            self.state, self.since = RECEIVING, time.monotonic()
        return read

    def write(self, data: bytes | memoryview) -> Future[None]:
        """Write ``data``; Tornado's bare 400 (:data:`TORNADOS_400`) becomes the API's
        refusal, sent by the lingering close as Tornado closes the connection next."""
        if data == TORNADOS_400:
            self.answer_on_close = BAD_REQUEST
            done: Future[None] = Future()
            done.set_result(None)
            return done
        return super().write(data)

    def close_fd(self) -> None:
        """Close the socket (Tornado has unregistered it already), or hand it to the
        lingering close with its refusal: a header past :data:`MAX_HEADER` (Tornado
        stops reading it and closes the stream) gets a 431."""
        answer = self.answer_on_close
        if answer is None and isinstance(self.error, HEAD_UNREAD):
            answer = HEADER_TOO_LARGE
        if answer is None or self.state in (SERVING, STREAMING):
            super().close_fd()
        else:
            self._lingering(self.sock, answer)

    def receiving(self) -> None:
        """A request's head is in (it may have come whole in one read)."""
        if self.state != RECEIVING:
            self.state, self.since = RECEIVING, time.monotonic()

    def serving(self) -> None:
        """The request is whole: no deadline runs while it is served."""
        self.state, self.since = SERVING, 0.0

    def resting(self) -> None:
        """The answer is out: idle until the next request's first byte."""
        self.state, self.since, self.active = IDLE, 0.0, time.monotonic()
