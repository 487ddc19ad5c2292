"""The web server: waitress for requests, one thread for the streams (docs/architecture.md).

Waitress reads each request whole on its main (selector) thread, so a phone sending
slowly holds no worker; a worker thread runs the Flask handler; the answer is written
back from the selector thread, so a phone reading slowly holds none either. What
used to hold a worker is handed over: a handler asks ``environ[LIVE_SERVER]`` (see
:class:`web.service.ServerTakeover`) to serve its answer as a live stream, or to send it
once a future resolves, and the connection moves to :class:`hub.http.streams.LiveStreams`
once waitress has written everything before it. Limits on top of waitress's:

- idle connections are closed after :data:`IDLE_S`; a request must arrive whole
  within :data:`REQUEST_S` of its first byte;
- when every connection is taken, the least recently active idle ones are closed to
  make room, so a crowd of idle connections can never lock the API out;
- out of file descriptors, accepting backs off and idle connections are closed, with
  one log line per episode (:meth:`HandoverServer.accept`);
- :class:`ElasticDispatcher` starts ``idle`` workers and grows to ``most`` only
  while requests would wait, retiring the extra ones only after a quiet spell;
- an :class:`web.service.EarlyGate` handed in sees each request as it arrives whole and
  may refuse it there, on the selector thread: a claim flood costs the hub no worker,
  no Flask request and no thread (:meth:`HandoverServer.add_task`);
- the selector loop (:mod:`hub.http.selector`) asks only the connections that may have
  changed, so resting idle connections cost it nothing per round.
"""

from __future__ import annotations

import errno
import heapq
import logging
import resource
import socket
import time
from concurrent.futures import Future
from typing import Any, cast

from waitress.adjustments import Adjustments
from waitress.channel import HTTPChannel
from waitress.server import MultiSocketServer, TcpWSGIServer
from waitress.task import WSGITask

from hub.http.selector import EpollLoop, SocketMap, touch
from hub.http.streams import LiveStreams
from hub.http.workers import ElasticDispatcher, head, refuse, render
from web.service import EARLY_CHECKED, LIVE_SERVER, EarlyGate

log = logging.getLogger("hub.http.server")

IDLE_S = 30  # an idle keep-alive connection is closed after this (waitress channel_timeout)
REQUEST_S = 10.0  # a request must arrive whole within this of its first byte
CLEANUP_S = 2  # how often the idle and slow connections are looked for
CONNECTIONS = 1000  # open connections (streams not counted), fewer if file descriptors lack
STREAMS = 500  # live streams (config web.streams)
ACCEPT_BACKOFF_S = 0.5  # out of file descriptors: no accept for this long


class Handover:
    """``environ[LIVE_SERVER]`` for one request: what its handler asked for."""

    def __init__(self, live: LiveStreams) -> None:
        self.live = live
        self.kinds: tuple[str, ...] | None = None
        self.future: Future[Any] | None = None

    def stream(self, kinds: Any) -> bool:
        """Reserve a place for a live stream (False: all are taken)."""
        if not self.live.reserve():
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
        """The answer will not be handed over after all (an error, a closed phone)."""
        if self.kinds is not None:
            self.live.release()
        self.kinds = self.future = None


class LiveTask(WSGITask):
    """A WSGI task whose handler may hand its answer over to the stream thread."""

    def get_environment(self) -> Any:
        """Waitress's environ, plus the hand-over offer."""
        environ = super().get_environment()
        server: Any = self.channel.server
        environ.setdefault(LIVE_SERVER, Handover(server.live))
        if server.gate is not None:
            environ[EARLY_CHECKED] = True
        return environ

    def finish(self) -> None:
        """Hand the connection over if the handler asked and succeeded; else as usual."""
        handover = (self.environ or {}).get(LIVE_SERVER)
        if handover is None or not handover.asked:
            return super().finish()
        if not self.status.startswith("200"):
            handover.cancel()
            return super().finish()
        self.wrote_header = True  # waitress writes nothing more on this connection
        self.close_on_finish = True
        channel: Any = self.channel
        channel.give_over(handover, self.version, self.status, list(self.response_headers))
        return None


class LiveChannel(HTTPChannel):
    """A waitress connection that can be handed over once it has written everything."""

    task_class = LiveTask
    handover: tuple[Handover, str, str, list[tuple[str, str]]] | None = None
    request_since = 0.0  # when the request being received began (0: none)
    paused_until = 0.0  # not read until then (monotonic): refused by the early gate
    refused = 0  # the early gate's refusals in a row on this connection
    _will_close = False

    @property
    def will_close(self) -> bool:
        """Waitress's "close the socket" mark; setting it (from any thread, by waitress
        or by us) has the selector loop ask this connection again, so a resting one is
        closed now rather than at the next full round."""
        return self._will_close

    @will_close.setter
    def will_close(self, value: bool) -> None:
        self._will_close = value
        if value:
            touch(self)

    def readable(self) -> bool:
        """Waitress's answer, unless the early gate paused this connection."""
        if self.paused_until:
            if time.monotonic() < self.paused_until:
                return False
            self.paused_until = 0.0
        return bool(super().readable())

    def give_over(
        self, handover: Handover, version: str, status: str, headers: list[tuple[str, str]]
    ) -> None:
        """On the worker: hand over when flushed (see :meth:`handle_close`)."""
        with self.outbuf_lock:
            if self.connected:
                self.handover = (handover, version, status, headers)
                return
        handover.cancel()  # the phone is gone already

    def service(self) -> None:
        """On a worker: serve, then have the selector loop ask this connection again."""
        try:
            super().service()
        finally:
            touch(self)

    def received(self, data: bytes) -> Any:
        """Note when a request starts arriving (slow senders are cut off)."""
        if self.request is None and data:
            self.request_since = time.monotonic()
        result = super().received(data)
        if self.request is None:
            self.request_since = 0.0
        return result

    def handle_close(self) -> None:
        """Closing after the last byte: a handed-over answer keeps its socket."""
        with self.outbuf_lock:
            handed, self.handover = self.handover, None
        sock: socket.socket | None = self.socket
        if handed is not None and sock is not None:
            # Not dup(): a descriptor closed while another still points at the socket
            # would stay in waitress's epoll set and haunt the next one given its number.
            self.socket = None  # ours now: waitress forgets it without closing it
            self._hand_over(sock, *handed)
        super().handle_close()

    def _hand_over(
        self,
        sock: socket.socket,
        handover: Handover,
        version: str,
        status: str,
        headers: list[tuple[str, str]],
    ) -> None:
        live: LiveStreams = cast(Any, self.server).live
        if handover.kinds is not None:
            live.adopt_stream(sock, head(version, status, headers, None), handover.kinds)
        elif handover.future is not None:
            live.adopt_answer(
                sock, handover.future, lambda done: render(done, version, status, headers)
            )


class HandoverServer(TcpWSGIServer):
    """Waitress's TCP server with the hand-over, the request deadline and room-making.

    Out of file descriptors (``EMFILE``: the process's limit; ``ENFILE``: the
    system's), ``accept`` fails again on every round while the phone waits in the
    backlog: the server then stops accepting for :data:`ACCEPT_BACKOFF_S`, closes the
    least active idle connections, and says so once per episode (with the count
    when accepting works again), instead of a traceback per round."""

    channel_class = LiveChannel
    live: LiveStreams
    gate: EarlyGate | None = None
    _starved_until = 0.0  # no accept until then (monotonic)
    _refused = 0  # accepts that failed for want of descriptors, this episode

    def add_task(self, task: Any) -> None:
        """Hand a connection's next request to a worker, unless the gate refuses it:
        then its answer is written here (the selector thread, or the worker that served
        the one before it), and so on down the requests waiting. Waitress calls this
        with the connection's ``requests_lock`` held and its head request whole."""
        channel: Any = task
        while self.gate is not None and channel.requests and not channel.requests[0].error:
            request = channel.requests[0]  # waitress's parser: command and path are str
            client = channel.addr[0] if isinstance(channel.addr, tuple) else ""
            answer = self.gate(str(request.command), str(request.path), client)
            if answer is None:
                channel.refused = 0
                break
            refuse(channel, request, answer)
            if channel.close_when_flushed:
                return
        if channel.requests:
            super().add_task(channel)

    def readable(self) -> bool:
        """Accept while it can; when every connection is taken, close idle ones first."""
        if self._starved_until and time.monotonic() < self._starved_until:
            return False
        if self.accepting and len(cast(Any, self)._map) >= self.adj.connection_limit:
            self._make_room()
        return bool(super().readable())

    def accept(self) -> Any:
        """Waitress's accept; out of descriptors, back off (see the class doc)."""
        try:
            accepted = super().accept()
        except OSError as exc:
            if exc.errno not in (errno.EMFILE, errno.ENFILE):
                raise
            if not self._refused:
                log.warning(
                    "out of file descriptors (%s): not accepting for %g s; closing idle "
                    "connections",
                    exc.strerror,
                    ACCEPT_BACKOFF_S,
                )
            self._refused += 1
            self._starved_until = time.monotonic() + ACCEPT_BACKOFF_S
            self._make_room()
            return None
        if accepted is not None and self._refused:
            log.info("accepting again (%d accepts failed for want of descriptors)", self._refused)
            self._refused, self._starved_until = 0, 0.0
        return accepted

    def _make_room(self) -> None:
        idle = (
            c for c in _channels(self) if not c.requests and c.request is None and not c.will_close
        )
        closing = heapq.nsmallest(
            max(1, self.adj.connection_limit // 16), idle, key=lambda c: c.last_activity
        )
        for channel in closing:  # closed by the selector loop itself, next time round
            channel.will_close = True
        if closing:
            log.info(
                "all %d connections taken: closing the %d least active idle ones",
                self.adj.connection_limit,
                len(closing),
            )

    def maintenance(self, now: Any) -> None:
        """Waitress's idle timeout, and a request that trickles in too slowly is cut."""
        super().maintenance(now)
        late = time.monotonic() - REQUEST_S
        for channel in _channels(self):
            if channel.request_since and channel.request_since < late and not channel.requests:
                channel.will_close = True  # asked again at once, though resting


def _channels(server: HandoverServer) -> list[Any]:
    """The server's open connections (waitress's ``active_channels``, untyped)."""
    return list(cast(Any, server).active_channels.values())


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
    idle_threads: int = 4,
    news: Any = None,
    snapshot: Any = None,
    streams: int = STREAMS,
    gate: EarlyGate | None = None,
    **options: Any,
) -> Any:
    """A waitress server for WSGI ``app`` whose pool grows to ``most_threads`` and which
    serves up to ``streams`` live streams of ``news`` (a Broadcaster) on one thread,
    each starting with ``snapshot()``; ``gate`` refuses floods before ``app`` runs."""
    files = raise_file_limit(CONNECTIONS + streams + 128)
    connections = max(16, min(CONNECTIONS, files - streams - 64))
    settings = {
        "channel_timeout": IDLE_S,
        "cleanup_interval": CLEANUP_S,
        "connection_limit": connections,
        **options,
    }
    adj = Adjustments(host=host, port=port, threads=most_threads, **settings)
    dispatcher = ElasticDispatcher(idle_threads, most_threads)
    live = LiveStreams(streams, snapshot or (lambda: None))
    servers: list[HandoverServer] = []
    socket_map = SocketMap()
    for sockinfo in adj.listen:
        server = HandoverServer(
            app, socket_map, dispatcher=dispatcher, adj=adj, sockinfo=cast(Any, sockinfo)
        )
        server.live = live
        server.gate = gate
        servers.append(server)
    if news is not None:
        news.callbacks.append(live.offer)
    live.start()
    if len(servers) == 1:
        return _Served(servers[0], live, news)
    listening = [(cast(Any, s).effective_host, cast(Any, s).effective_port) for s in servers]
    return _Served(MultiSocketServer(socket_map, adj, listening, dispatcher), live, news)


class _Served:
    """The server as the hub uses it: ``run``, ``close`` (streams too), its port."""

    def __init__(self, server: Any, live: LiveStreams, news: Any) -> None:
        self.server = server
        self.live = live
        self._news = news
        self.loop: EpollLoop | None = None  # the selector loop, once running

    @property
    def effective_port(self) -> int:
        """The port it listens on (the first, with several addresses)."""
        if isinstance(self.server, MultiSocketServer):
            return int(self.server.effective_listen[0][1])
        return int(self.server.effective_port)

    def run(self) -> None:
        """Serve until closed (waitress's ``run``, on :class:`hub.http.selector.EpollLoop`)."""
        server: Any = self.server
        multi = isinstance(self.server, MultiSocketServer)
        socket_map = cast(SocketMap, server.map if multi else server._map)
        try:
            self.loop = EpollLoop(socket_map, server.adj.asyncore_loop_timeout)
            self.loop.run()
        except (SystemExit, KeyboardInterrupt):
            server.task_dispatcher.shutdown()

    def close(self) -> None:
        """Close the live streams, then waitress's workers, then its sockets: a worker
        finishing a request pulls the server's trigger, which must still be open (closing
        it first raised ``Bad file descriptor`` on a worker when Ctrl-C met a request)."""
        if self._news is not None and self.live.offer in self._news.callbacks:
            self._news.callbacks.remove(self.live.offer)
        self.live.close()
        self.server.task_dispatcher.shutdown()
        self.server.close()
