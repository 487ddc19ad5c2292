"""The web server: its worker pool (a few threads idle, more while phones listen, and
back) and its selector loop, which leaves resting connections alone until they stir."""

from __future__ import annotations

import re
import socket
import threading
import time
from collections.abc import Iterator
from typing import Any

import pytest

import hub.http.selector as webloop
import hub.http.server as webserver
from hub.http.selector import RESCAN_S, SocketMap
from hub.http.server import ElasticDispatcher
from tests.helpers import eventually


class Task:
    """A waitress task that holds its worker until released (like an SSE stream)."""

    def __init__(self, release: threading.Event, started: threading.Semaphore) -> None:
        self.release = release
        self.started = started

    def service(self) -> None:
        self.started.release()
        self.release.wait(10)

    def cancel(self) -> None:
        self.release.set()


def test_the_pool_grows_for_held_streams_and_shrinks_back():
    pool = ElasticDispatcher(idle=2, most=8, retire_after_s=0.0)
    try:
        assert len(pool.threads) == 2
        release, started = threading.Event(), threading.Semaphore(0)
        for _ in range(6):
            pool.add_task(Task(release, started))
        for _ in range(6):
            assert started.acquire(timeout=5)  # all six served at once, none queued
        assert 6 <= len(pool.threads) <= 8
        release.set()
        assert eventually(lambda: pool.active_count == 0)  # streams ended: workers idle
        done, quick = threading.Event(), threading.Semaphore(0)
        done.set()
        pool.add_task(Task(done, quick))  # the next request retires the extra workers
        assert quick.acquire(timeout=5)
        assert eventually(lambda: len(pool.threads) == 3)
    finally:
        pool.shutdown(timeout=5)


def test_the_pool_never_exceeds_its_most():
    pool = ElasticDispatcher(idle=1, most=3)
    release, started = threading.Event(), threading.Semaphore(0)
    try:
        for _ in range(5):
            pool.add_task(Task(release, started))
        for _ in range(3):
            assert started.acquire(timeout=5)
        assert len(pool.threads) == 3 and len(pool.queue) == 2
    finally:
        release.set()
        pool.shutdown(timeout=5)


def test_extra_workers_stay_through_bursts_and_retire_after_a_quiet_spell():
    """A burst every second must not start and end threads each time (the claim flood
    of issue 25 did): extra workers retire only ``retire_after_s`` after the last growth."""
    pool = ElasticDispatcher(idle=1, most=4, retire_after_s=3600.0)
    try:
        release, started = threading.Event(), threading.Semaphore(0)
        for _ in range(3):
            pool.add_task(Task(release, started))
        for _ in range(3):
            assert started.acquire(timeout=5)
        release.set()
        assert eventually(lambda: pool.active_count == 0)
        grown = set(pool.threads)
        assert len(grown) >= 3
        done, quick = threading.Event(), threading.Semaphore(0)
        done.set()
        pool.add_task(Task(done, quick))
        assert quick.acquire(timeout=5)
        assert pool.threads == grown and pool.stop_count == 0  # kept for the next burst
    finally:
        pool.shutdown(timeout=5)


def test_the_early_gate_answers_on_the_servers_thread_in_order(monkeypatch):
    """A gate's refusal is written by the server itself, in the order of the requests
    on the connection: a pipelined refused request, then a served one."""
    seen: list[str] = []

    def app(environ: Any, start_response: Any) -> list[bytes]:
        seen.append(environ["PATH_INFO"])
        return hello(environ, start_response)

    def gate(method: str, path: str, client: str) -> Any:
        if path == "/no":
            return "429 Too Many Requests", [("Retry-After", "7")], b"no"
        return None

    server = webserver.make_server(app, "127.0.0.1", 0, 2, gate=gate)
    thread = threading.Thread(target=server.run, daemon=True)
    thread.start()
    try:
        sock = socket.create_connection(("127.0.0.1", server.effective_port), timeout=10)
        ask = b"POST /no HTTP/1.1\r\nHost: x\r\nContent-Length: 0\r\n\r\n"
        sock.sendall(ask + b"GET /yes HTTP/1.1\r\nHost: x\r\n\r\n" + ask)
        got = b""
        while got.count(b"HTTP/1.1 ") < 3 or not got.endswith(b"no"):
            chunk = sock.recv(4096)
            assert chunk
            got += chunk
        assert re.findall(rb"HTTP/1.1 (\d+)", got) == [b"429", b"200", b"429"]
        assert b"Retry-After: 7" in got and seen == ["/yes"]
        sock.close()
    finally:
        server.close()
        thread.join(10)


# --- the selector loop: resting connections are not asked every round -------------------


def hello(environ: Any, start_response: Any) -> list[bytes]:
    start_response("200 OK", [("Content-Type", "text/plain"), ("Content-Length", "2")])
    return [b"ok"]


def serve(monkeypatch: pytest.MonkeyPatch, idle_s: int) -> Iterator[Any]:
    """The hub's web server around a one-line app, its loop's backstop round turned
    off (an hour), idle connections closed after ``idle_s``."""
    monkeypatch.setattr(webloop, "RESCAN_S", 3600.0)
    server = webserver.make_server(
        hello, "127.0.0.1", 0, 4, channel_timeout=idle_s, cleanup_interval=1
    )
    thread = threading.Thread(target=server.run, daemon=True)
    thread.start()
    assert eventually(lambda: server.loop is not None)
    yield server
    server.close()
    thread.join(10)


@pytest.fixture
def served(monkeypatch: pytest.MonkeyPatch) -> Iterator[Any]:
    """Idle connections closed after 60 s (never during a test)."""
    yield from serve(monkeypatch, idle_s=60)


@pytest.fixture
def served_briefly(monkeypatch: pytest.MonkeyPatch) -> Iterator[Any]:
    """Idle connections closed after 1 s."""
    yield from serve(monkeypatch, idle_s=1)


def connect(server: Any) -> socket.socket:
    sock = socket.create_connection(("127.0.0.1", server.effective_port), timeout=10)
    return sock


def server_fd(server: Any, sock: socket.socket) -> int:
    """The hub's descriptor for the connection whose phone end is ``sock``."""
    phone = sock.getsockname()
    found: list[int] = []

    def accepted() -> bool:
        found[:] = [
            fd
            # dict.copy copies the table in C with no Python code between entries (a
            # list() of the items makes a tuple per entry: a GC pass there can let the
            # server thread change the map mid-walk, "dictionary changed size")
            for fd, obj in dict.copy(server.server._map).items()
            if getattr(obj, "addr", None) == phone
        ]
        return bool(found)

    assert eventually(accepted)
    return found[0]


def resting(server: Any, fd: int) -> bool:
    """Whether the loop knows ``fd`` and has stopped asking it every round."""
    return fd in server.loop.known and fd not in server.loop.busy


def ask(sock: socket.socket) -> bytes:
    sock.sendall(b"GET / HTTP/1.1\r\nHost: 127.0.0.1\r\n\r\n")
    answer = b""
    while not answer.endswith(b"ok"):
        chunk = sock.recv(4096)
        assert chunk, answer
        answer += chunk
    return answer


def test_a_resting_connection_is_not_asked_while_others_are_served(served, monkeypatch):
    crowd = [connect(served) for _ in range(50)]
    phone = None
    try:
        assert eventually(lambda: all(resting(served, server_fd(served, s)) for s in crowd))
        resting_fds = {server_fd(served, s) for s in crowd}
        asked_resting = 0
        ask_them = served.loop._ask

        def counting(fds: set[int]) -> None:  # how often the loop asks a resting one
            nonlocal asked_resting
            asked_resting += len(fds & resting_fds)
            ask_them(fds)

        monkeypatch.setattr(served.loop, "_ask", counting)
        phone = connect(served)
        started = time.monotonic()
        for _ in range(20):
            assert ask(phone).startswith(b"HTTP/1.1 200")
        # Asked each round, the resting 50 would be asked at least 20 * 50 times; they
        # are asked only by the loop's full rescans (every RESCAN_S, however long a
        # busy machine takes over the 20 requests).
        rescans = (time.monotonic() - started) / RESCAN_S + 1
        assert asked_resting <= rescans * len(crowd) < 20 * len(crowd)
    finally:
        for sock in crowd + ([phone] if phone else []):
            sock.close()


def test_a_resting_connection_that_sends_a_request_later_is_answered(served):
    sock = connect(served)
    fd = server_fd(served, sock)
    assert eventually(lambda: resting(served, fd))
    assert ask(sock).startswith(b"HTTP/1.1 200")
    assert eventually(lambda: resting(served, fd))  # served, and resting again
    assert ask(sock).startswith(b"HTTP/1.1 200")
    sock.close()


def test_a_resting_connection_that_closes_is_forgotten(served):
    sock = connect(served)
    fd = server_fd(served, sock)
    assert eventually(lambda: resting(served, fd))
    sock.close()
    assert eventually(lambda: fd not in served.server._map and fd not in served.loop.known)


def test_the_idle_timeout_still_closes_a_resting_connection(served_briefly):
    served = served_briefly
    sock = connect(served)
    fd = server_fd(served, sock)
    assert eventually(lambda: resting(served, fd))
    assert sock.recv(1) == b""  # closed by the hub after 1 s idle (10 s would raise)
    sock.close()


def test_the_socket_map_notes_what_came_went_and_was_touched():
    socket_map = SocketMap()
    socket_map[5] = "five"
    socket_map[6] = "six"
    assert socket_map.changed()
    assert socket_map.take() == (set(), {5, 6})
    assert not socket_map.changed()
    del socket_map[5]
    socket_map.touch(6)
    socket_map.touch(None)  # a closed dispatcher has no descriptor: nothing to ask
    assert socket_map.take() == ({5}, {6})
    assert socket_map.take() == (set(), set())
    assert dict(socket_map) == {6: "six"}


def test_marking_a_connection_for_closing_has_the_loop_ask_it_again():
    socket_map = SocketMap()
    channel = webserver.LiveChannel.__new__(webserver.LiveChannel)  # no socket needed
    channel._map, channel._fileno = socket_map, 9
    socket_map[9] = channel
    socket_map.take()
    assert not channel.will_close
    channel.will_close = False  # nothing to close: nothing to ask
    assert not socket_map.changed()
    channel.will_close = True  # as waitress's idle timeout or our room-making does
    assert channel.will_close
    assert socket_map.take() == (set(), {9})


def test_out_of_file_descriptors_the_server_backs_off_and_logs_once(served, caplog):
    import errno
    import logging

    caplog.set_level(logging.INFO, "hub.http.server")

    class Exhausted:
        """A listening socket whose accept fails as at the process's file limit."""

        def __init__(self, real: socket.socket) -> None:
            self.real, self.calls = real, 0

        def accept(self):
            self.calls += 1
            raise OSError(errno.EMFILE, "Too many open files")

        def __getattr__(self, name):
            return getattr(self.real, name)

    listener = served.server
    real = listener.socket
    fake = Exhausted(real)
    listener.socket = fake
    try:
        for _ in range(2000):  # as many rounds as a busy loop makes in a moment
            listener.handle_accept()
        assert fake.calls >= 2000
        assert listener.readable() is False  # backing off: the loop stops asking accept
    finally:
        listener.socket = real
    warnings = [r for r in caplog.records if r.levelname == "WARNING"]
    assert len(warnings) == 1 and "out of file descriptors" in warnings[0].getMessage()
    assert not any(r.exc_info for r in caplog.records)
    sock = connect(served)  # accepted again once the back-off ends
    try:
        sock.sendall(b"GET / HTTP/1.1\r\nHost: x\r\n\r\n")
        assert eventually(lambda: b"ok" in sock.recv(4096))
    finally:
        sock.close()
    assert "accepting again" in caplog.text
