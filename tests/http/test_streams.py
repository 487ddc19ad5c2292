"""The live streams on the web server's loop, behind a one-route WSGI app that asks for
them as ``web.api`` does: capacity, the snapshot first, only the news asked for, a
phone that falls too far behind, and waiting answers."""

from __future__ import annotations

import http.client
import json
import socket
import threading
from collections.abc import Iterator
from concurrent.futures import Future
from typing import Any

import pytest

import hub.http.streams as streams
from hub.http.server import WebServer, make_server
from hub.runtime.broadcast import Broadcaster
from hub.wire.serving import LIVE_SERVER
from tests.helpers import eventually

LATER: Future[Any] = Future()
ASKED = threading.Event()  # the app has run for /later


def app(environ: dict[str, Any], start_response: Any) -> list[bytes]:
    """``/events``: a stream of state and sound; ``/later``: the answer of ``LATER``."""
    live = environ[LIVE_SERVER]
    if environ["PATH_INFO"] == "/later":
        live.answer_later(LATER)
        ASKED.set()
        start_response("200 OK", [("Content-Type", "application/json")])
        return []
    if not live.stream(["state", "sound"]):
        start_response("503 Service Unavailable", [("Content-Length", "4")])
        return [b"full"]
    start_response("200 OK", [("Content-Type", "text/event-stream")])
    return []


@pytest.fixture
def served() -> Iterator[tuple[WebServer, Broadcaster]]:
    news = Broadcaster()
    server = make_server(app, "127.0.0.1", 0, 2, news=news, snapshot=lambda: {"turn": 1}, streams=2)
    thread = threading.Thread(target=server.run, daemon=True)
    thread.start()
    yield server, news
    server.close()
    thread.join(10)
    news.close()


def phone(server: WebServer, path: str = "/events") -> socket.socket:
    sock = socket.create_connection(("127.0.0.1", server.effective_port), timeout=10)
    sock.sendall(f"GET {path} HTTP/1.1\r\nHost: 127.0.0.1\r\n\r\n".encode())
    return sock


def read_until(sock: socket.socket, marker: bytes) -> bytes:
    seen = b""
    while marker not in seen:
        chunk = sock.recv(65536)
        assert chunk, f"closed before {marker!r}: {seen!r}"
        seen += chunk
    return seen


def test_a_stream_starts_with_the_snapshot_then_hears_what_it_asked_for(served):
    server, news = served
    sock = phone(server)
    first = read_until(sock, b'"turn":1}\n\n')
    assert first.startswith(b"HTTP/1.1 200 OK\r\n")
    assert b"\r\n\r\n" in first and b"retry: 2000\n\nevent: state\n" in first
    news.publish("game", {"id": 1})  # not asked for
    news.publish("sound", {"name": "choo"})
    assert b"game" not in read_until(sock, b'event: sound\ndata: {"name":"choo"}\n\n')
    sock.close()


def test_capacity_is_taken_and_given_back(served):
    server, _ = served
    first, second = phone(server), phone(server)
    read_until(first, b"event: state")
    read_until(second, b"event: state")
    third = phone(server)
    assert read_until(third, b"full").startswith(b"HTTP/1.1 503")
    third.close()
    first.close()  # the phone goes: the loop sees its end close and frees the place

    def reopened() -> bool:
        sock = phone(server)
        seen = read_until(sock, b"\r\n\r\n")
        if seen.startswith(b"HTTP/1.1 200"):
            second.close()
            sock.close()
            return True
        sock.close()
        return False

    assert eventually(reopened)


def test_a_phone_far_behind_is_dropped(served, monkeypatch):
    server, news = served
    monkeypatch.setattr(streams, "MOST_UNSENT", 64 * 1024)
    sock = socket.socket()
    sock.setsockopt(socket.SOL_SOCKET, socket.SO_RCVBUF, 4096)  # and it reads nothing
    sock.settimeout(10)
    sock.connect(("127.0.0.1", server.effective_port))
    sock.sendall(b"GET /events HTTP/1.1\r\nHost: 127.0.0.1\r\n\r\n")
    assert eventually(lambda: server.live.count == 1)
    try:
        for i in range(4000):  # sounds are all kept, unlike states: the backlog grows
            news.publish("sound", {"name": "x" * 2000, "i": i})  # past what the kernel holds
        assert eventually(lambda: server.live.count == 0)  # dropped, its place given back
        data = b""
        while chunk := sock.recv(65536):  # what the kernel held, then the end
            data += chunk
        assert b'"i":3999' not in data
    finally:
        sock.close()


def test_an_answer_is_sent_when_its_future_resolves_on_a_connection_kept_alive(served):
    server, _ = served
    global LATER
    LATER = Future()
    ASKED.clear()
    asker = http.client.HTTPConnection("127.0.0.1", server.effective_port, timeout=10)
    asker.request("GET", "/later")
    assert ASKED.wait(10)  # the handler returned; the answer waits for the future
    LATER.set_result({"turn": 7})
    answer = asker.getresponse()
    assert answer.status == 200 and json.loads(answer.read()) == {"turn": 7}
    LATER = Future()
    LATER.set_result({"turn": 8})
    asker.request("GET", "/later")  # the same connection, kept alive
    assert json.loads(asker.getresponse().read()) == {"turn": 8}
    asker.close()


def test_a_head_request_for_a_stream_gets_the_head_only(served):
    server, _ = served
    sock = socket.create_connection(("127.0.0.1", server.effective_port), timeout=10)
    sock.sendall(b"HEAD /events HTTP/1.1\r\nHost: x\r\nConnection: close\r\n\r\n")
    seen = b""
    while chunk := sock.recv(4096):
        seen += chunk
    assert seen.startswith(b"HTTP/1.1 200 OK") and seen.endswith(b"\r\n\r\n")
    assert server.live.reserve()  # its place was given back (capacity 2: one more)
    assert server.live.reserve()
    sock.close()


def test_a_burst_of_news_wakes_the_loop_once(served, monkeypatch):
    server, _ = served
    sock = phone(server)
    read_until(sock, b"event: state")
    wakes: list[object] = []
    add_callback = server.io_loop.add_callback
    monkeypatch.setattr(
        server.io_loop, "add_callback", lambda *a: wakes.append(a[0]) or add_callback(*a)
    )
    stopped = threading.Event()
    add_callback(lambda: stopped.wait(10))  # the loop is busy while the burst comes
    for n in range(5):
        server.live.offer("sound", {"name": f"s{n}"})
    stopped.set()
    assert b'"s4"' in read_until(sock, b'"s4"')
    assert len(wakes) == 1  # one wake for the five
    server.live.offer("sound", {"name": "later"})  # news after the pass wakes it again
    read_until(sock, b'"later"')
    assert len(wakes) == 2
    sock.close()


def test_news_that_fails_to_format_is_dropped_and_the_streams_go_on(served, caplog):
    server, news = served
    sock = phone(server)
    read_until(sock, b"event: state")
    news.publish("sound", {"name": object()})  # not JSON: a bug upstream
    news.publish("sound", {"name": "choo"})
    assert b'"name":"choo"' in read_until(sock, b'"choo"')
    assert "live streams: news failed; dropped" in caplog.text
    theirs = phone(server)  # a second stream still starts
    assert b"event: state" in read_until(theirs, b"event: state")
    sock.close()
    theirs.close()


def test_a_stream_that_fails_to_start_gives_its_place_back(caplog):
    def broken_snapshot():
        raise RuntimeError("a bug")

    server = make_server(app, "127.0.0.1", 0, 2, snapshot=broken_snapshot, streams=1)
    thread = threading.Thread(target=server.run, daemon=True)
    thread.start()
    try:
        sock = phone(server)
        seen = b""
        while chunk := sock.recv(4096):
            seen += chunk
        assert seen == b""  # closed, nothing sent
        assert eventually(lambda: server.live.reserve())  # the one place is free again
        assert "live streams: stream failed; dropped" in caplog.text
        sock.close()
    finally:
        server.close()
        thread.join(10)
