"""The web server: Tornado's loop on one thread, the Flask app on a bounded pool.

Tornado (its documented API only: ``IOLoop``, ``BaseIOStream`` for the connections,
``HTTP1ServerConnection`` and the ``httputil`` delegates for HTTP/1.1) reads every
request on the loop, so a phone sending slowly holds no worker, and writes every
answer from there, so a phone reading slowly holds none either. A request, once whole,
meets the early gate on the loop (a claim flood costs no worker and no Flask request),
then runs on a worker (:func:`hub.http.workers.run_app`, a
``concurrent.futures.ThreadPoolExecutor`` of ``web.threads``). A handler may hand its
answer back as a live stream or a future (:class:`hub.http.workers.Handover`); the
streams are served natively on the loop (:class:`hub.http.streams.LiveStreams`).
Limits on top of Tornado's:

- idle connections are closed after :data:`IDLE_S`; a request must arrive whole
  within :data:`REQUEST_S` of its first byte; a header past 256 KB gets a 431, a body
  past 1 MB a 413 (Flask's own limit, 64 KB, answers below that);
- when every connection is taken, the least recently active idle ones are closed to
  make room, so a crowd of idle connections can never lock the API out;
- out of file descriptors, accepting backs off and idle connections are closed, with
  one log line per episode (:meth:`WebServer._starved`).

Every socket is unregistered from the loop before it is closed, so a child process
holding a copy of a descriptor for a moment (between its fork and its exec) can never
leave a registration behind for the next connection given that number.
"""

from __future__ import annotations

import errno
import heapq
import logging
import resource
import socket
import threading
import time
from concurrent.futures import Future, ThreadPoolExecutor
from typing import Any, cast

from tornado import httputil
from tornado.http1connection import (
    HTTP1Connection,
    HTTP1ConnectionParameters,
    HTTP1ServerConnection,
)
from tornado.ioloop import IOLoop, PeriodicCallback
from tornado.platform.asyncio import BaseAsyncIOLoop

from hub.http.bind import listening_sockets
from hub.http.connections import IDLE, MAX_HEADER, READ_CHUNK, RECEIVING, Lingering, PhoneStream
from hub.http.streams import LiveStreams
from hub.http.workers import MAX_BODY, Exchange, Handover, Headers, answer_when_done, run_app
from hub.wire.serving import EarlyGate

log = logging.getLogger("hub.http.server")

IDLE_S = 30.0  # an idle keep-alive connection is closed after this
REQUEST_S = 10.0  # a request must arrive whole within this of its first byte
CLEANUP_S = 2.0  # how often the idle and slow connections are looked for
CONNECTIONS = 1000  # open connections (streams not counted), fewer if file descriptors lack
STREAMS = 500  # live streams (config web.streams)
ACCEPT_BACKOFF_S = 0.5  # out of file descriptors: no accept for this long
ACCEPTS_A_ROUND = 128  # connections accepted at most per wake of a listening socket


class _Phone(httputil.HTTPServerConnectionDelegate):
    """Tornado's delegate for one connection: an :class:`Exchange` per request."""

    def __init__(self, server: WebServer, phone: PhoneStream) -> None:
        self.server, self.phone = server, phone

    def start_request(
        self, server_conn: object, request_conn: httputil.HTTPConnection
    ) -> httputil.HTTPMessageDelegate:
        """The answer before is out (or this is the first request): rest until a byte."""
        self.phone.resting()
        assert isinstance(request_conn, HTTP1Connection)  # what HTTP1ServerConnection makes
        return Exchange(self.server, self.phone, request_conn)

    def on_close(self, server_conn: object) -> None:
        """The connection is closed."""
        self.server.forget(self.phone)


class WebServer:
    """Serves ``app`` on ``sockets`` (see the module doc): :meth:`run`, :meth:`close`."""

    def __init__(
        self,
        app: Any,
        sockets: list[socket.socket],
        io_loop: IOLoop,
        most_threads: int,
        live: LiveStreams,
        gate: EarlyGate | None,
        connection_limit: int,
    ) -> None:
        self.app = app
        self.sockets = sockets
        self.io_loop = io_loop
        self.live = live
        self.gate = gate
        self.connection_limit = connection_limit
        self.executor = ThreadPoolExecutor(most_threads, thread_name_prefix="web")
        self.address: tuple[str, int] = sockets[0].getsockname()[:2]
        self.idle_s, self.request_s, self.cleanup_s = IDLE_S, REQUEST_S, CLEANUP_S
        self.params = HTTP1ConnectionParameters(
            chunk_size=READ_CHUNK, max_header_size=MAX_HEADER, max_body_size=MAX_BODY
        )
        self.phones: dict[PhoneStream, HTTP1ServerConnection] = {}  # open connections
        # Accepted, not a byte yet: the address and when. A connection that never speaks
        # costs a socket and a registration here, no stream (about 9 KB) until it does.
        self.silent: dict[socket.socket, tuple[Any, float]] = {}
        self.news: Any = None  # the broadcaster whose callback feeds the streams
        self.lingering = Lingering(io_loop)
        self.running: threading.Thread | None = None
        self._stopped = threading.Event()
        self._accepting = False
        self._starved_until = 0.0  # no accept until then (monotonic)
        self._refused = 0  # accepts that failed for want of descriptors, this episode
        self._closed = False
        self._all_closed = False  # every connection closed (the end of close())

    @property
    def effective_port(self) -> int:
        """The port it listens on (the first, with several addresses)."""
        return int(self.address[1])

    # --- any thread ---------------------------------------------------------------------

    def run(self) -> None:
        """Serve on this thread until :meth:`close` (or SIGINT, SIGTERM)."""
        self.running = threading.current_thread()
        sweep = PeriodicCallback(self._sweep, self.cleanup_s * 1000)

        def started() -> None:  # on the loop: its timers are the loop's own
            self._accept_on()
            sweep.start()
            self.live.start()

        try:
            if not self._closed:
                self.io_loop.add_callback(started)
                self.io_loop.start()
        except (SystemExit, KeyboardInterrupt):
            pass
        finally:
            sweep.stop()
            self._stopped.set()

    def stop_soon(self) -> bool:
        """From a signal handler on the thread :meth:`run` serves on: end the loop once
        the callback it is in returns (SystemExit raised in that callback instead is
        taken for a request's error, logged, and the loop goes on). False when it is
        not serving on this thread."""
        if self.running is not threading.current_thread() or self._stopped.is_set():
            return False
        asyncio_loop = cast(BaseAsyncIOLoop, self.io_loop).asyncio_loop
        asyncio_loop.call_soon_threadsafe(self.io_loop.stop)  # wakes a waiting select
        return True

    def close(self) -> None:
        """Stop accepting, end the live streams, close every connection, then wait for
        the workers (a worker finishing a request meets a loop that is no more: its
        answer is dropped)."""
        if self._closed:
            return
        self._closed = True
        if self.news is not None and self.live.offer in self.news.callbacks:
            self.news.callbacks.remove(self.live.offer)
        running = self.running
        elsewhere = running is not None and running is not threading.current_thread()
        if elsewhere and not self._stopped.is_set():

            async def close_and_stop() -> None:
                try:
                    await self._close_all()
                finally:
                    self.io_loop.stop()

            self.io_loop.add_callback(close_and_stop)  # on the loop's own thread
            if not self._stopped.wait(10):
                log.warning("the web server's loop did not stop within 10 s")
        if not self._all_closed and (running is None or self._stopped.is_set()):
            # Not running (never, or it ended): once more, on a thread of its own (this
            # one may run another loop: Playwright's, in the tests).
            closing = threading.Thread(target=self._close_now, name="web-close")
            closing.start()
            closing.join(10)
        self.executor.shutdown(wait=True, cancel_futures=True)
        self.io_loop.close()

    def _close_now(self) -> None:
        try:
            self.io_loop.run_sync(self._close_all, timeout=5)
        except TimeoutError:
            log.warning("the web server's connections did not all close within 5 s")

    async def _close_all(self) -> None:
        self._accept_off()
        for sock in self.sockets:
            sock.close()
        self.live.close()
        self.lingering.close()
        for sock in list(self.silent):
            self._drop_silent(sock)
        for connection in list(self.phones.values()):
            await connection.close()  # resolves once its serving loop has ended
        self._all_closed = True

    # --- the loop -----------------------------------------------------------------------

    def submit(self, exchange: Exchange, environ: dict[str, Any]) -> None:
        """Run the app for ``exchange`` on a worker."""
        try:
            self.executor.submit(run_app, self.app, exchange, environ)
        except RuntimeError:  # shutting down
            exchange.phone.close()

    def hand_over(
        self, exchange: Exchange, handover: Handover, status: str, headers: Headers
    ) -> None:
        """The handler asked for a live stream or a later answer: serve it here (to a
        HEAD, only the head)."""
        if exchange.start.method == "HEAD":
            handover.cancel()
            exchange.answer(status, headers, b"")
        elif handover.kinds is not None:
            self.live.adopt(exchange, status, headers, handover.kinds)
        elif handover.future is not None:
            future: Future[Any] = handover.future

            def answer(done: Any) -> None:
                answer_when_done(exchange, status, headers, done)

            self.io_loop.add_future(future, answer)

    def forget(self, phone: PhoneStream) -> None:
        """A connection closed."""
        if self.phones.pop(phone, None) is not None and not self._accepting:
            self._accept_on()  # there is room again

    @property
    def connections(self) -> int:
        """Open connections, live streams not counted."""
        return len(self.phones) + len(self.silent) - self.live.count

    def _accept_on(self) -> None:
        if self._accepting or self._closed:
            return
        if time.monotonic() < self._starved_until or self.connections >= self.connection_limit:
            return
        for sock in self.sockets:
            self.io_loop.add_handler(sock, self._accept, IOLoop.READ)
        self._accepting = True

    def _accept_off(self) -> None:
        if self._accepting:
            for sock in self.sockets:
                self.io_loop.remove_handler(sock)
            self._accepting = False

    def _accept(self, listening: socket.socket, events: int) -> None:
        for _ in range(ACCEPTS_A_ROUND):
            try:
                sock, address = listening.accept()
            except BlockingIOError:
                return
            except ConnectionAbortedError:
                continue
            except OSError as exc:
                if exc.errno not in (errno.EMFILE, errno.ENFILE):
                    raise
                self._starved(exc)
                return
            if self._refused:
                log.info("accepting again (%d accepts failed for want of files)", self._refused)
                self._refused = 0
            self._serve(sock, address)
            if self.connections >= self.connection_limit and not self._make_room():
                self._accept_off()  # every connection busy: accept again when one closes
                return

    def _serve(self, sock: socket.socket, address: Any) -> None:
        try:
            sock.setsockopt(socket.IPPROTO_TCP, socket.TCP_NODELAY, 1)
        except OSError:  # the phone went away already
            sock.close()
            return
        sock.setblocking(False)
        self.silent[sock] = (address, time.monotonic())
        self.io_loop.add_handler(sock, self._spoke, IOLoop.READ)

    def _spoke(self, sock: socket.socket, events: int) -> None:
        """A silent connection's first byte (or its close): Tornado serves it now."""
        address, _ = self.silent.pop(sock)
        self.io_loop.remove_handler(sock)
        phone = PhoneStream(sock, address, self.lingering)
        connection = HTTP1ServerConnection(phone, self.params, context=address)
        self.phones[phone] = connection
        connection.start_serving(_Phone(self, phone))

    def _drop_silent(self, sock: socket.socket) -> None:
        if self.silent.pop(sock, None) is not None:
            self.io_loop.remove_handler(sock)  # before the close: no registration outlives it
            sock.close()
            self._accept_on()  # there may be room again

    def _starved(self, exc: OSError) -> None:
        """Out of file descriptors (``EMFILE``: the process's limit; ``ENFILE``: the
        system's), ``accept`` would fail on every round while the phone waits in the
        backlog: stop accepting for :data:`ACCEPT_BACKOFF_S`, close the least active
        idle connections, and say so once per episode (with the count when accepting
        works again), instead of a traceback per round."""
        if not self._refused:
            log.warning(
                "out of file descriptors (%s): not accepting for %g s; closing idle connections",
                exc.strerror,
                ACCEPT_BACKOFF_S,
            )
        self._refused += 1
        self._starved_until = time.monotonic() + ACCEPT_BACKOFF_S
        self._accept_off()
        self._make_room()
        self.io_loop.call_later(ACCEPT_BACKOFF_S, self._accept_on)

    def _make_room(self) -> bool:
        """Close the least recently active idle connections; whether any was."""
        idle: list[tuple[float, PhoneStream | socket.socket]] = [
            (phone.active, phone) for phone in self.phones if phone.state == IDLE
        ]
        idle += [(since, sock) for sock, (_, since) in self.silent.items()]
        closing = heapq.nsmallest(max(1, self.connection_limit // 16), idle, key=lambda i: i[0])
        for _, connection in closing:
            if isinstance(connection, PhoneStream):
                connection.close()
            else:
                self._drop_silent(connection)
        if closing:
            log.info(
                "all %d connections taken: closing the %d least active idle ones",
                self.connection_limit,
                len(closing),
            )
        return bool(closing)

    def _sweep(self) -> None:
        """Close idle connections past :data:`IDLE_S`, and cut requests that have not
        arrived whole within :data:`REQUEST_S` of their first byte."""
        now = time.monotonic()
        idle_since, late = now - self.idle_s, now - self.request_s
        for phone in list(self.phones):
            if phone.state == IDLE and phone.active < idle_since:
                phone.close()
            elif phone.state == RECEIVING and phone.since < late:
                phone.close()
        for sock, (_, since) in list(self.silent.items()):
            if since < idle_since:
                self._drop_silent(sock)


def raise_file_limit(need: int) -> int:
    """Raise the soft limit of open files towards the hard one; the soft limit after."""
    soft, hard = resource.getrlimit(resource.RLIMIT_NOFILE)
    if soft < need and soft != resource.RLIM_INFINITY:
        target = need if hard == resource.RLIM_INFINITY else min(need, hard)
        resource.setrlimit(resource.RLIMIT_NOFILE, (target, hard))
        soft = target
    return soft


def make_server(
    app: Any,
    host: str,
    port: int,
    most_threads: int,
    news: Any = None,
    snapshot: Any = None,
    streams: int = STREAMS,
    gate: EarlyGate | None = None,
    connection_limit: int | None = None,
) -> WebServer:
    """A server for WSGI ``app`` on ``host:port`` with ``most_threads`` workers, serving
    up to ``streams`` live streams of ``news`` (a Broadcaster), each starting with
    ``snapshot()``; ``gate`` refuses floods before ``app`` runs. Binding errors
    (``OSError``, ``socket.gaierror``) are raised here, before anything runs."""
    files = raise_file_limit(CONNECTIONS + streams + 128)
    connections = max(16, min(CONNECTIONS, files - streams - 64))
    sockets = listening_sockets(host, port)
    io_loop = IOLoop(make_current=False)
    live = LiveStreams(streams, snapshot or (lambda: None), io_loop)
    server = WebServer(
        app, sockets, io_loop, most_threads, live, gate, connection_limit or connections
    )
    if news is not None:
        news.callbacks.append(live.offer)
        server.news = news
    return server
