"""One request and its answer (:class:`Exchange`): read on the server's loop, run by a
worker thread, written back on the loop.

Tornado parses each request on the loop (:class:`tornado.httputil.HTTPMessageDelegate`,
its documented interface); once it is whole the early gate may refuse it there
(:meth:`Exchange.refuse`), or it goes to the bounded pool of worker threads that runs
the WSGI app (:func:`run_app`). The worker hands the answer back to the loop
(``IOLoop.add_callback``), which writes it through Tornado's connection
(``write_headers``, ``write``, ``finish``): a phone reading slowly holds no worker. A
handler may instead ask ``environ[LIVE_SERVER]`` (:class:`Handover`) to serve its
answer as a live stream or to send it once a future resolves, and then no worker waits
for that either.
"""

from __future__ import annotations

import io
import itertools
import json
import logging
import random
import sys
import threading
import time
import wsgiref.handlers
from collections.abc import Callable, Iterable, Iterator
from concurrent.futures import Future
from typing import Any, Protocol

from tornado import httputil
from tornado.http1connection import HTTP1Connection
from tornado.ioloop import IOLoop

from hub.http.connections import PhoneStream, answer_body, refusal
from hub.http.targets import split_target
from hub.wire.serving import EARLY_CHECKED, LIVE_SERVER, EarlyAnswer, EarlyGate, WholeAnswer

log = logging.getLogger("hub.http.server")
# Its own generator: the process-wide one is the tests' and the libraries' (a
# background thread drawing from it shows up in a hypothesis test as a flaky strategy).
_SPREAD = random.Random()

MAX_BODY = 1024 * 1024  # a request body the server takes at all (Flask's limit is lower)
PAUSE_S = 5.0  # a connection refused by the gate is not read for at most this long
HIGH_WATER = 1024 * 1024  # a streamed answer's bytes waiting before its worker waits
BODY_TOO_LARGE = refusal("413 Request Entity Too Large", "too_large", limit=MAX_BODY // 1024)
Headers = list[tuple[str, str]]


class StreamPlaces(Protocol):
    """The live streams' places (:class:`hub.http.streams.LiveStreams`)."""

    def reserve(self) -> bool:
        """Take a place; False when all are taken."""

    def release(self) -> None:
        """Give a place back."""


class Server(Protocol):
    """What an exchange needs of the server (:class:`hub.http.server.WebServer`)."""

    @property
    def io_loop(self) -> IOLoop:
        """The loop every connection is served on."""

    @property
    def gate(self) -> EarlyGate | None:
        """The early gate, if any."""

    @property
    def address(self) -> tuple[str, int]:
        """The address it listens on (the first)."""

    @property
    def live(self) -> StreamPlaces:
        """The live streams."""

    def submit(self, exchange: Exchange, environ: dict[str, Any]) -> None:
        """Run the app for ``exchange`` on a worker."""

    def hand_over(
        self, exchange: Exchange, handover: Handover, status: str, headers: Headers
    ) -> None:
        """Serve a stream or a later answer the handler asked for."""


class Handover:
    """``environ[LIVE_SERVER]`` (:class:`hub.wire.serving.ServerTakeover`): what the handler
    asked for instead of a plain answer."""

    def __init__(self, reserve: Callable[[], bool], release: Callable[[], None]) -> None:
        self._reserve, self._release = reserve, release
        self.kinds: tuple[str, ...] | None = None
        self.future: Future[Any] | None = None

    def stream(self, kinds: Iterable[str]) -> bool:
        """Reserve a place for a live stream (False: all are taken)."""
        if not self._reserve():
            return False
        self.kinds = tuple(kinds)
        return True

    def answer_later(self, future: Future[Any]) -> None:
        """Answer with ``future``'s JSON once it resolves."""
        self.future = future

    @property
    def asked(self) -> bool:
        """Whether the handler asked for anything."""
        return self.kinds is not None or self.future is not None

    def cancel(self) -> None:
        """The answer will not be handed over after all (an error status)."""
        if self.kinds is not None:
            self._release()
        self.kinds = self.future = None


class Exchange(httputil.HTTPMessageDelegate):
    """One request on ``phone`` and its answer, through Tornado's ``conn``. (One waits
    on every open connection: it keeps to a few attributes.)"""

    # Until the request's head is in (read only, never changed in place).
    start = httputil.RequestStartLine("GET", "/", "HTTP/1.1")
    headers = httputil.HTTPHeaders()
    closed = False  # the phone went away
    keep = True  # the connection stays open after this answer
    unsent = 0  # bytes of a streamed answer handed to the loop, not yet sent
    # Made by the worker of a streamed answer, before it hands any of it over.
    flowing: threading.Condition | None = None

    def __init__(self, server: Server, phone: PhoneStream, conn: HTTP1Connection):
        self.server, self.phone, self.conn = server, phone, conn
        self.body: list[bytes] = []
        conn.set_close_callback(self.on_connection_close)

    # --- on the loop: Tornado's calls -------------------------------------------------

    def headers_received(
        self,
        start_line: httputil.RequestStartLine | httputil.ResponseStartLine,
        headers: httputil.HTTPHeaders,
    ) -> None:
        """The request's head: refuse a body too large before reading it."""
        assert isinstance(start_line, httputil.RequestStartLine)
        self.phone.receiving()
        # The method as the app routes it: Werkzeug takes "post" for POST, so the gate
        # and every check of the method here take it so too (issue 33, item 5).
        method, target, version = start_line
        self.start = httputil.RequestStartLine(method.upper(), target, version)
        self.headers = headers
        length = headers.get("Content-Length", "")
        if length.isdigit() and int(length) > MAX_BODY:
            self.conn.detach()  # Tornado reads no further: the connection is ours
            self.phone.answer_on_close = BODY_TOO_LARGE
            self.phone.close()

    def data_received(self, chunk: bytes) -> None:
        """A piece of the body."""
        self.body.append(chunk)

    def finish(self) -> None:
        """The request is whole: the early gate, then a worker."""
        self.phone.serving()
        method, target, version = self.start
        connection = self.headers.get("Connection", "").lower()
        keep = connection == "keep-alive" or connection != "close" and version == "HTTP/1.1"
        self.keep = keep
        try:
            path, query = split_target(target)
        except ValueError:  # "http://[::1/": no path to be had
            body = answer_body("bad_request")
            self.answer("400 Bad Request", [("Content-Type", "application/json")], body)
            return
        client = self.phone.address[0]
        gate = self.server.gate
        answer = gate(method, path, client) if gate is not None else None
        if answer is not None:
            self.refuse(answer)
            return
        self.phone.refused = 0
        environ = self.environ(path, query)
        self.server.submit(self, environ)

    def on_connection_close(self) -> None:
        """The phone went away (while sending, or while we answered)."""
        self.closed = True
        flowing = self.flowing
        if flowing is not None:  # a worker may wait to hand over more of its answer
            with flowing:
                flowing.notify_all()

    # --- on the loop: answers -------------------------------------------------------

    def answer(self, status: str, headers: Headers, body: bytes) -> None:
        """Write a whole answer and end it (a HEAD's without its body)."""
        if self.closed:
            return
        block = header_block(headers)
        if "Content-Length" not in block:
            block["Content-Length"] = str(len(body))
        chunk = None if self.start.method == "HEAD" else body
        self.conn.write_headers(start_line(status), block, chunk=chunk)
        self.conn.finish()

    def begin(self, status: str, headers: Headers) -> None:
        """The head of an answer whose length is not known: its body follows in pieces."""
        if not self.closed:
            self.conn.write_headers(start_line(status), header_block(headers))

    def more(self, chunk: bytes) -> None:
        """A piece of a streamed answer (see :meth:`begin`)."""
        if self.closed:
            return
        sent = self.conn.write(chunk)
        sent.add_done_callback(lambda _: self._sent(len(chunk)))

    def end(self) -> None:
        """The end of a streamed answer; an HTTP/1.0 phone learns it by the close."""
        if self.closed:
            return
        self.conn.finish()
        if self.start.version != "HTTP/1.1":
            self.phone.close()

    def fail(self) -> None:
        """The app failed before its head went out: a 500 (the log has why)."""
        body = answer_body("failed")
        self.answer("500 Internal Server Error", [("Content-Type", "application/json")], body)

    def refuse(self, answer: EarlyAnswer) -> None:
        """The early gate's refusal, written here. A kept-alive connection is not read
        again until its ``Retry-After`` has passed (at most :data:`PAUSE_S` the first
        time, all of it the next), spread over the pause's second half: a flood refused
        at once does not come back at once, in a burst that would hold the GIL."""
        status, headers, body = answer
        retry = float(next((v for name, v in headers if name.lower() == "retry-after"), "0"))
        self.phone.refused += 1
        pause = retry if self.phone.refused > 1 else min(retry, PAUSE_S)
        self.conn.write_headers(
            start_line(status), header_block([*headers, ("Content-Length", str(len(body)))]), body
        )
        if not self.keep:
            self.conn.finish()  # Tornado closes it: the phone asked to
            return
        self.server.io_loop.call_later(pause * _SPREAD.uniform(0.5, 1.0), self._paused)

    def _paused(self) -> None:
        if not self.closed:
            self.conn.finish()  # the next request is read now

    def _sent(self, length: int) -> None:
        assert self.flowing is not None  # made before the first piece was handed over
        with self.flowing:
            self.unsent -= length
            self.flowing.notify_all()

    # --- the WSGI environ -------------------------------------------------------------

    def environ(self, path: str, query: str) -> dict[str, Any]:
        """The request as WSGI (PEP 3333) sees it, with the hand-over offer."""
        method, _, version = self.start
        body = b"".join(self.body)
        host, port = self.server.address
        environ: dict[str, Any] = {
            "REQUEST_METHOD": method,
            "SCRIPT_NAME": "",
            "PATH_INFO": path,
            "QUERY_STRING": query,
            "SERVER_NAME": host,
            "SERVER_PORT": str(port),
            "SERVER_PROTOCOL": version,
            "REMOTE_ADDR": self.phone.address[0],
            "REMOTE_PORT": str(self.phone.address[1]),
            "wsgi.version": (1, 0),
            "wsgi.url_scheme": "http",
            "wsgi.input": io.BytesIO(body),
            "wsgi.input_terminated": True,
            "wsgi.errors": sys.stderr,
            "wsgi.multithread": True,
            "wsgi.multiprocess": False,
            "wsgi.run_once": False,
            LIVE_SERVER: Handover(self.server.live.reserve, self.server.live.release),
        }
        if self.server.gate is not None:
            environ[EARLY_CHECKED] = True
        for name, value in self.headers.get_all():
            if "_" in name:  # "X_Forwarded" would pass for "X-Forwarded": dropped
                continue
            key = name.upper().replace("-", "_")
            if key not in ("CONTENT_TYPE", "CONTENT_LENGTH"):
                key = "HTTP_" + key
            environ[key] = f"{environ[key]},{value}" if key in environ else value
        if body and "CONTENT_LENGTH" not in environ:  # a chunked body, joined here
            environ["CONTENT_LENGTH"] = str(len(body))
        return environ


def start_line(status: str) -> httputil.ResponseStartLine:
    """``"200 OK"`` as Tornado's status line."""
    code, _, reason = status.partition(" ")
    return httputil.ResponseStartLine("HTTP/1.1", int(code), reason)


def header_block(headers: Headers) -> httputil.HTTPHeaders:
    """A WSGI header list as Tornado's headers, with the ``Date`` HTTP asks of a server
    with a clock (Tornado's connection adds none)."""
    block = httputil.HTTPHeaders()
    for name, value in headers:
        block.add(name, value)
    if "Date" not in block:
        block["Date"] = wsgiref.handlers.format_date_time(time.time())  # ~2 µs
    return block


def run_app(app: Any, exchange: Exchange, environ: dict[str, Any]) -> None:
    """On a worker: run the WSGI ``app`` and hand its answer to the loop."""
    post = exchange.server.io_loop.add_callback
    head: list[Any] = []

    def start_response(status: str, headers: Headers, exc_info: Any = None) -> Any:
        head[:] = [status, headers]
        return lambda data: None  # WSGI's write(): no app of ours uses it

    try:
        result = app(environ, start_response)
    except Exception:
        log.exception("the web app failed")
        post(exchange.fail)
        return
    try:
        chunks = iter(result)
        first = b"" if head else next(chunks, b"")  # a generator starts the answer late
        _hand_back(exchange, environ[LIVE_SERVER], first, chunks, *head)
    except Exception:
        log.exception("the web app's answer failed")
        post(exchange.phone.close)
    finally:
        close = getattr(result, "close", None)
        if close is not None:
            close()


def _hand_back(
    exchange: Exchange,
    handover: Handover,
    first: bytes,
    result: Iterator[bytes],
    status: str,
    headers: Headers,
) -> None:
    """The app's answer (``first``, then the rest of ``result``) to the loop: handed
    over, whole, or piece by piece."""
    post = exchange.server.io_loop.add_callback
    if handover.asked and status.startswith("200"):
        post(exchange.server.hand_over, exchange, handover, status, headers)
        return
    handover.cancel()
    if any(name.lower() == "content-length" for name, _ in headers):
        post(exchange.answer, status, headers, first + b"".join(result))
        return
    flowing = exchange.flowing = threading.Condition()
    post(exchange.begin, status, headers)  # a stream of its own (the board's)
    for chunk in itertools.chain((first,), result):
        with flowing:
            if chunk:
                exchange.unsent += len(chunk)
                post(exchange.more, chunk)
            while exchange.unsent > HIGH_WATER and not exchange.closed:
                flowing.wait(1.0)
            if exchange.closed:
                return
    post(exchange.end)


def answer_when_done(exchange: Exchange, status: str, headers: Headers, done: Future[Any]) -> None:
    """On the loop: a waiting answer once its future resolved, the JSON of its result
    (or a 500 the log explains), with the handler's status and headers; a
    :class:`WholeAnswer` as it is."""
    try:
        result = done.result()
        if isinstance(result, WholeAnswer):
            status, headers, body = result
        else:
            body = json.dumps(result, separators=(",", ":")).encode() + b"\n"
    except Exception:
        log.exception("an answer that waited for the hub failed")
        status = "500 Internal Server Error"
        body = answer_body("failed")
    kept = [(name, value) for name, value in headers if name.lower() != "content-length"]
    exchange.answer(status, [*kept, ("Content-Length", str(len(body)))], body)
