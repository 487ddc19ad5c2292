"""The web server (hub/http/server.py) around one-line WSGI apps: its bounded workers,
its early gate, its limits (idle, slow, header and body sizes), running out of file
descriptors, and a clean start and stop."""

from __future__ import annotations

import contextlib
import errno
import json
import logging
import re
import socket
import threading
import time
from collections.abc import Iterator
from typing import Any

import pytest

import hub.http.server as webserver
import hub.http.workers as workers
from hub.http.server import WebServer
from hub.http.targets import split_target
from tests.helpers import eventually


def hello(environ: Any, start_response: Any) -> list[bytes]:
    start_response("200 OK", [("Content-Type", "text/plain"), ("Content-Length", "2")])
    return [b"ok"]


@contextlib.contextmanager
def running(server: WebServer) -> Iterator[WebServer]:
    """``server`` serving on a thread of its own, closed at the end whatever happened."""
    thread = threading.Thread(target=server.run, daemon=True)
    thread.start()
    try:
        yield server
    finally:
        server.close()
        thread.join(10)
    assert not thread.is_alive()


@pytest.fixture
def served() -> Iterator[WebServer]:
    with running(webserver.make_server(hello, "127.0.0.1", 0, 4)) as server:
        yield server


def connect(server: WebServer) -> socket.socket:
    return socket.create_connection(("127.0.0.1", server.effective_port), timeout=10)


def answer_of(sock: socket.socket) -> bytes:
    """One whole answer with a Content-Length (head and body; the only one asked for)."""
    seen = b""
    while b"\r\n\r\n" not in seen:
        chunk = sock.recv(65536)
        assert chunk, seen
        seen += chunk
    head, _, body = seen.partition(b"\r\n\r\n")
    length = int(re.search(rb"Content-Length: (\d+)", head, re.I).group(1))  # type: ignore[union-attr]
    while len(body) < length:
        chunk = sock.recv(65536)
        assert chunk
        body += chunk
    return head + b"\r\n\r\n" + body


def ask(sock: socket.socket, path: str = "/") -> bytes:
    sock.sendall(f"GET {path} HTTP/1.1\r\nHost: 127.0.0.1\r\n\r\n".encode())
    return answer_of(sock)


# --- workers -----------------------------------------------------------------------------


def test_the_workers_are_bounded_and_a_held_one_never_stops_the_loop():
    """At most ``most_threads`` handlers run at once; the rest wait their turn, and the
    loop keeps accepting and reading meanwhile."""
    release, running_now, most_seen = threading.Event(), [0], [0]
    lock = threading.Lock()

    def held(environ: Any, start_response: Any) -> list[bytes]:
        with lock:
            running_now[0] += 1
            most_seen[0] = max(most_seen[0], running_now[0])
        release.wait(10)
        with lock:
            running_now[0] -= 1
        return hello(environ, start_response)

    with running(webserver.make_server(held, "127.0.0.1", 0, 3)) as server:
        phones = [connect(server) for _ in range(6)]
        for phone in phones:
            phone.sendall(b"GET / HTTP/1.1\r\nHost: x\r\n\r\n")
        assert eventually(lambda: running_now[0] == 3)
        assert server.connections == 6  # all accepted and read while the workers wait
        release.set()
        assert all(answer_of(phone).endswith(b"ok") for phone in phones)
        assert most_seen[0] == 3
        for phone in phones:
            phone.close()


def test_a_phone_reading_slowly_holds_no_worker():
    """One worker: a phone that asks for 8 MB and reads none of it leaves the worker
    free for the next request (the loop holds the answer, not the worker)."""
    big = b"x" * (8 * 1024 * 1024)

    def app(environ: Any, start_response: Any) -> list[bytes]:
        if environ["PATH_INFO"] == "/big":
            start_response("200 OK", [("Content-Length", str(len(big)))])
            return [big]
        return hello(environ, start_response)

    with running(webserver.make_server(app, "127.0.0.1", 0, 1)) as server:
        slow = socket.socket()
        slow.setsockopt(socket.SOL_SOCKET, socket.SO_RCVBUF, 4096)
        slow.settimeout(10)
        slow.connect(("127.0.0.1", server.effective_port))
        slow.sendall(b"GET /big HTTP/1.1\r\nHost: x\r\n\r\n")  # and reads nothing
        for _ in range(3):
            other = connect(server)
            assert ask(other).endswith(b"ok")
            other.close()
        slow.close()


# --- the early gate ------------------------------------------------------------------------


def test_the_early_gate_answers_on_the_loop_in_order(monkeypatch):
    """A gate's refusal is written by the server itself, in the order of the requests
    on the connection: a pipelined refused request, then a served one."""
    monkeypatch.setattr(workers, "PAUSE_S", 0.05)
    seen: list[str] = []

    def app(environ: Any, start_response: Any) -> list[bytes]:
        seen.append(environ["PATH_INFO"])
        return hello(environ, start_response)

    def gate(method: str, path: str, client: str) -> Any:
        if path == "/no":
            return "429 Too Many Requests", [("Retry-After", "0.05")], b"no"
        return None

    with running(webserver.make_server(app, "127.0.0.1", 0, 2, gate=gate)) as server:
        sock = connect(server)
        no = b"POST /no HTTP/1.1\r\nHost: x\r\nContent-Length: 0\r\n\r\n"
        sock.sendall(no + b"GET /yes HTTP/1.1\r\nHost: x\r\n\r\n" + no)
        got = b""
        while got.count(b"HTTP/1.1 ") < 3 or not got.endswith(b"no"):
            chunk = sock.recv(4096)
            assert chunk, got
            got += chunk
        assert re.findall(rb"HTTP/1.1 (\d+)", got) == [b"429", b"200", b"429"]
        assert b"Retry-After: 0.05" in got and seen == ["/yes"]
        sock.close()


# --- limits ----------------------------------------------------------------------------


def test_an_idle_connection_is_closed_after_the_idle_time(monkeypatch):
    monkeypatch.setattr(webserver, "IDLE_S", 0.5)
    monkeypatch.setattr(webserver, "CLEANUP_S", 0.1)
    with running(webserver.make_server(hello, "127.0.0.1", 0, 2)) as server:
        sock = connect(server)
        assert ask(sock).endswith(b"ok")
        assert sock.recv(1) == b""  # closed by the hub (the socket's 10 s timeout would raise)
        sock.close()


def test_a_connection_that_never_speaks_costs_no_stream_and_is_closed_when_idle(monkeypatch):
    monkeypatch.setattr(webserver, "IDLE_S", 0.5)
    monkeypatch.setattr(webserver, "CLEANUP_S", 0.1)
    with running(webserver.make_server(hello, "127.0.0.1", 0, 2)) as server:
        quiet = [connect(server) for _ in range(20)]
        assert eventually(lambda: server.connections == 20)
        assert server.phones == {}  # no Tornado stream for any of them yet
        talker = connect(server)
        assert ask(talker).endswith(b"ok")  # served as soon as it speaks
        for sock in quiet:
            assert sock.recv(1) == b""  # closed by the hub after the idle time
            sock.close()
        talker.close()


def test_a_header_too_large_gets_a_431_at_once(served):
    sock = connect(served)
    big = b"x" * (300 * 1024)
    started = time.monotonic()
    sock.sendall(b"POST / HTTP/1.1\r\nHost: x\r\nOrigin: " + big + b"\r\nContent-Length: 0\r\n\r\n")
    answer = answer_of(sock)
    assert answer.startswith(b"HTTP/1.1 431 ") and b"Connection: close" in answer
    body = json.loads(answer.partition(b"\r\n\r\n")[2])
    assert body["error"] == "head_too_large" and body["params"] == {"limit": 256}
    assert body["message"].startswith("The request's headers are too large")
    assert time.monotonic() - started < 5  # a generous bound: it is answered, not left to hang
    sock.close()


def test_a_header_of_200_kb_is_served(served):
    """Below the 256 KB limit a long header (an ``Origin`` of 200 KB) reaches the app."""
    sock = connect(served)
    sock.sendall(b"GET / HTTP/1.1\r\nHost: x\r\nOrigin: " + b"o" * (200 * 1024) + b"\r\n\r\n")
    assert answer_of(sock).endswith(b"ok")
    sock.close()


def test_a_body_too_large_gets_a_413_before_it_is_read(served):
    sock = connect(served)
    sock.sendall(b"POST / HTTP/1.1\r\nHost: x\r\nContent-Length: 50000000\r\n\r\n" + b"y" * 65536)
    answer = answer_of(sock)
    assert answer.startswith(b"HTTP/1.1 413 ")
    body = json.loads(answer.partition(b"\r\n\r\n")[2])
    assert body["error"] == "too_large" and body["params"] == {"limit": 1024}
    sock.close()


def test_a_body_is_handed_to_the_app_whole(served):
    got: list[bytes] = []

    def echo(environ: Any, start_response: Any) -> list[bytes]:
        got.append(environ["wsgi.input"].read(int(environ.get("CONTENT_LENGTH") or 0)))
        return hello(environ, start_response)

    served.app = echo
    sock = connect(served)
    body = b"z" * 200_000
    sock.sendall(b"POST / HTTP/1.1\r\nHost: x\r\nContent-Length: %d\r\n\r\n" % len(body) + body)
    assert answer_of(sock).endswith(b"ok") and got == [body]
    chunked = b"5\r\nhello\r\n6\r\n world\r\n0\r\n\r\n"
    sock.sendall(b"POST / HTTP/1.1\r\nHost: x\r\nTransfer-Encoding: chunked\r\n\r\n" + chunked)
    assert answer_of(sock).endswith(b"ok") and got[1] == b"hello world"
    sock.close()


def test_an_answer_says_its_date(served):
    sock = connect(served)
    head = ask(sock).partition(b"\r\n\r\n")[0]
    assert re.search(rb"\r\nDate: \w{3}, \d{2} \w{3} \d{4} \d{2}:\d{2}:\d{2} GMT", head)
    sock.close()


def test_the_environ_is_wsgis(served):
    environs: list[dict[str, Any]] = []

    def keep(environ: Any, start_response: Any) -> list[bytes]:
        environs.append(environ)
        return hello(environ, start_response)

    served.app = keep
    sock = connect(served)
    sock.sendall(
        b"GET /a%20b/%C3%A9?x=1&y=%20 HTTP/1.1\r\nHost: hub.local:8080\r\nAccept: a\r\n"
        b"Accept: b\r\nX_Forged: 1\r\nX-Real: 2\r\n\r\n"
    )
    assert answer_of(sock).endswith(b"ok")
    sock.close()
    environ = environs[0]
    assert environ["PATH_INFO"] == "/a b/\xc3\xa9"  # latin-1 text of the bytes (PEP 3333)
    assert environ["QUERY_STRING"] == "x=1&y=%20" and environ["REQUEST_METHOD"] == "GET"
    assert environ["HTTP_HOST"] == "hub.local:8080" and environ["HTTP_ACCEPT"] == "a,b"
    assert environ["HTTP_X_REAL"] == "2" and "HTTP_X_FORGED" not in environ
    assert environ["REMOTE_ADDR"] == "127.0.0.1" and environ["SERVER_PROTOCOL"] == "HTTP/1.1"
    assert split_target("http://hub.local/x?q=1") == ("/x", "q=1")
    bad = connect(served)
    bad.sendall(b"GET http://[::1/x HTTP/1.1\r\nHost: x\r\n\r\n")
    assert answer_of(bad).startswith(b"HTTP/1.1 400 ")
    bad.close()


def test_a_streamed_body_goes_out_piece_by_piece_from_its_worker(served):
    """An answer without a length (the board's stream) is written as its worker makes
    it, in HTTP/1.1 chunks."""
    more = threading.Event()

    def stream(environ: Any, start_response: Any) -> Any:
        if environ["PATH_INFO"] == "/hello":
            yield from hello(environ, start_response)
            return
        start_response("200 OK", [("Content-Type", "text/plain")])
        yield b"first"
        more.wait(10)
        yield b"second"

    served.app = stream
    sock = connect(served)
    sock.sendall(b"GET / HTTP/1.1\r\nHost: x\r\n\r\n")
    seen = b""
    while b"first" not in seen:
        chunk = sock.recv(4096)
        assert chunk, seen
        seen += chunk
    assert b"Transfer-Encoding: chunked" in seen and b"second" not in seen
    more.set()
    while not seen.endswith(b"0\r\n\r\n"):
        chunk = sock.recv(4096)
        assert chunk, seen
        seen += chunk
    assert b"6\r\nsecond\r\n" in seen
    assert ask(sock, "/hello").endswith(b"ok")  # kept alive after it
    sock.close()


# --- running out of file descriptors --------------------------------------------------


def test_out_of_file_descriptors_the_server_backs_off_and_logs_once(served, caplog):
    caplog.set_level(logging.INFO, "hub.http.server")

    class Exhausted:
        """A listening socket whose accept fails as at the process's file limit."""

        calls = 0

        def accept(self) -> Any:
            Exhausted.calls += 1
            raise OSError(errno.EMFILE, "Too many open files")

    done = threading.Event()

    def starve() -> None:  # on the loop, as a busy loop's rounds would
        for _ in range(2000):
            served._accept(Exhausted(), 0)  # type: ignore[arg-type]
        done.set()

    served.io_loop.add_callback(starve)
    assert done.wait(10) and Exhausted.calls == 2000
    warnings = [r for r in caplog.records if r.levelname == "WARNING"]
    assert len(warnings) == 1 and "out of file descriptors" in warnings[0].getMessage()
    assert not any(r.exc_info for r in caplog.records)
    sock = connect(served)  # accepted again once the back-off ends
    try:
        assert ask(sock).endswith(b"ok")
    finally:
        sock.close()
    assert "accepting again" in caplog.text


# --- start and stop --------------------------------------------------------------------


def test_closing_a_server_that_never_ran_frees_its_port():
    server = webserver.make_server(hello, "127.0.0.1", 0, 2)
    port = server.effective_port
    server.close()
    again = webserver.make_server(hello, "127.0.0.1", port, 2)  # the port is free again
    again.close()


def test_closing_ends_every_connection_and_thread(served):
    others = set(threading.enumerate())  # its workers start with its first request
    phones = [connect(served) for _ in range(5)]
    assert ask(phones[0]).endswith(b"ok")
    half = phones[1]
    half.sendall(b"GET / HT")
    assert eventually(lambda: served.connections == 5)
    workers = [t for t in set(threading.enumerate()) - others if t.name.startswith("web_")]
    assert workers
    served.close()
    for phone in phones:
        assert phone.recv(1) == b""
        phone.close()
    assert not any(t.is_alive() for t in workers)
    with pytest.raises(OSError):
        connect(served)


def test_a_port_in_use_is_refused_before_anything_runs():
    first = webserver.make_server(hello, "127.0.0.1", 0, 2)
    try:
        with pytest.raises(OSError) as refused:
            webserver.make_server(hello, "127.0.0.1", first.effective_port, 2)
        assert refused.value.errno == errno.EADDRINUSE
    finally:
        first.close()
