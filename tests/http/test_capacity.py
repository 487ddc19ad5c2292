"""Capacity (issue 10): listening, idle and slow clients and held presses never starve
the API. A real sim hub served by its real web server on 127.0.0.1, with 4 workers."""

from __future__ import annotations

import json
import socket
import threading
import time

import pytest

import hub.http.server as webserver
import hub.http.workers as workers
from hub.runtime.config import DEFAULT_BUTTON_PINS
from tests.helpers import eventually
from tests.http_client import call

WORKERS = 4
STREAMS = 6  # more than the workers: a stream that held one would starve the API


@pytest.fixture
def served(make_hub):
    """A sim hub on the real clock, served on a free port; its base URL."""
    from hub.runtime.clock import SystemClock

    hub = make_hub(threaded=True, clock=SystemClock(), web={"threads": WORKERS, "streams": STREAMS})
    hub.serve("127.0.0.1", 0, block=False, on_listening=lambda host, port: None)
    return hub, f"http://127.0.0.1:{hub._server.effective_port}"


def connect(base: str) -> socket.socket:
    host, port = base.removeprefix("http://").split(":")
    sock = socket.create_connection((host, int(port)), timeout=10)
    return sock


def open_stream(base: str) -> tuple[socket.socket, bytes]:
    """Ask for ``/api/events``; the socket and the answer's head."""
    sock = connect(base)
    sock.sendall(b"GET /api/events HTTP/1.1\r\nHost: 127.0.0.1\r\n\r\n")
    head = b""
    while b"\r\n\r\n" not in head:
        chunk = sock.recv(4096)
        assert chunk, "the hub closed the stream before answering"
        head += chunk
    return sock, head


def status(head: bytes) -> int:
    return int(head.split(b" ", 2)[1])


def test_streams_past_capacity_get_a_503_with_retry_after_while_the_api_answers(served):
    _, base = served
    streams = [open_stream(base) for _ in range(STREAMS)]
    assert all(status(head) == 200 for _, head in streams)
    assert all(b"event: state" in head for _, head in streams)  # the snapshot came first
    sock, head = open_stream(base)
    assert status(head) == 503
    headers, _, body = head.partition(b"\r\n\r\n")
    assert b"\r\nRetry-After: 10" in headers
    while body.count(b"}") < 1:
        body += sock.recv(4096)
    assert json.loads(body)["error"] == "streams_full"
    sock.close()
    assert call(base, "GET", "/api/state")[0] == 200  # the streams hold no worker
    streams.pop()[0].close()  # a phone goes away: its place is free again

    def reopened() -> bool:
        sock, head = open_stream(base)
        streams.append((sock, head))
        return status(head) == 200

    assert eventually(reopened)
    for sock, _ in streams:
        sock.close()


def test_a_stream_hears_the_news(served):
    hub, base = served
    sock, head = open_stream(base)
    call(base, "POST", "/api/games", {"players": ["Ann", "Bob"], "first": 1})
    seen = head
    while b'"game":{"id":1' not in seen:
        chunk = sock.recv(65536)
        assert chunk
        seen += chunk
    assert b"event: game" in seen or b"event: state" in seen
    sock.close()


def test_many_idle_and_half_sent_connections_do_not_block_the_api(served):
    _, base = served
    idle = [connect(base) for _ in range(300)]  # plain waitress stopped at 100
    for sock in idle[:30]:
        sock.sendall(b"GET /api/state HTTP/1.1\r\nHo")  # a request that never ends
    assert call(base, "GET", "/api/state")[0] == 200
    for sock in idle:
        sock.close()


def test_held_sim_presses_do_not_hold_a_worker(served, mock_factory):
    _, base = served
    holds = 2 * WORKERS
    finished: list[int] = []

    def press(slot: int) -> None:
        code, snapshot = call(base, "POST", f"/api/sim/slots/{slot}/press", {"hold_ms": 6000})
        assert code == 200 and snapshot["backend"] == "sim"
        finished.append(slot)

    pressers = [threading.Thread(target=press, args=(slot,)) for slot in range(1, holds + 1)]
    for thread in pressers:
        thread.start()
    buttons = [mock_factory.pin(pin) for pin in DEFAULT_BUTTON_PINS[:holds]]
    assert eventually(lambda: all(not pin.state for pin in buttons))  # all held down now
    assert call(base, "GET", "/api/state")[0] == 200
    assert finished == []  # the API answered while every press was still held
    for thread in pressers:
        thread.join(30)
    assert sorted(finished) == list(range(1, holds + 1))
    assert all(pin.state for pin in buttons)  # released


def test_the_press_answer_is_the_snapshot_after_the_hub_handled_it(served):
    _, base = served
    call(base, "POST", "/api/games", {"players": ["Ann", "Bob"], "first": 1})
    code, snapshot = call(base, "POST", "/api/sim/slots/1/press", {"hold_ms": 0})
    assert code == 200 and snapshot["turn"] == 2


def test_a_press_from_another_origin_is_still_refused(served):
    _, base = served
    host, port = base.removeprefix("http://").split(":")
    sock = socket.create_connection((host, int(port)), timeout=10)
    body = b'{"hold_ms": 0}'
    sock.sendall(
        b"POST /api/sim/slots/1/press HTTP/1.1\r\nHost: 127.0.0.1\r\n"
        b"Origin: http://evil.example\r\nContent-Type: application/json\r\n"
        b"Content-Length: %d\r\n\r\n%s" % (len(body), body)
    )
    assert status(sock.recv(4096)) == 403
    sock.close()


# --- the web server alone: room for new connections, slow senders cut ------------------


def hello(environ, start_response):
    start_response("200 OK", [("Content-Type", "text/plain"), ("Content-Length", "2")])
    return [b"ok"]


@pytest.fixture
def small_server(monkeypatch):
    """The hub's web server around a one-line app, with room for 20 connections and
    a request deadline of 0.3 s."""
    monkeypatch.setattr(webserver, "REQUEST_S", 0.3)
    monkeypatch.setattr(webserver, "CLEANUP_S", 0.1)
    server = webserver.make_server(hello, "127.0.0.1", 0, 4, connection_limit=20)
    thread = threading.Thread(target=server.run, daemon=True)
    thread.start()
    yield f"http://127.0.0.1:{server.effective_port}"
    server.close()
    thread.join(10)


def ask(base: str) -> bytes:
    sock = connect(base)
    sock.sendall(b"GET / HTTP/1.1\r\nHost: 127.0.0.1\r\nConnection: close\r\n\r\n")
    answer = b""
    while chunk := sock.recv(4096):
        answer += chunk
    sock.close()
    return answer


def test_idle_connections_beyond_the_limit_make_room_for_a_request(small_server):
    idle = [connect(small_server) for _ in range(40)]  # twice what the server takes
    assert ask(small_server).endswith(b"ok")
    closed = 0
    for sock in idle:
        sock.settimeout(0.5)
        try:
            closed += sock.recv(1) == b""
        except TimeoutError:
            pass
        sock.close()
    assert closed > 0  # the least active idle ones were closed to make room


def test_a_request_that_trickles_in_is_cut_off(small_server):
    sock = connect(small_server)
    sock.sendall(b"GET / HT")  # and nothing more: the deadline passes
    assert sock.recv(4096) == b""  # closed by the hub (the socket's 10 s timeout would raise)
    sock.close()
    assert ask(small_server).endswith(b"ok")


def claim_on(sock: socket.socket, close: bool = False) -> tuple[int, dict[str, str], bytes]:
    """One ``POST /api/claim`` on a kept-alive socket: status, headers, body."""
    extra = "Connection: close\r\n" if close else ""
    sock.sendall(
        b"POST /api/claim HTTP/1.1\r\nHost: 127.0.0.1\r\nContent-Type: application/json\r\n"
        + extra.encode()
        + b"Content-Length: 2\r\n\r\n{}"
    )
    head = b""
    while b"\r\n\r\n" not in head:
        chunk = sock.recv(4096)
        assert chunk, "the hub closed the connection before answering"
        head += chunk
    head, _, body = head.partition(b"\r\n\r\n")
    lines = head.decode("latin-1").split("\r\n")
    headers = dict(line.split(": ", 1) for line in lines[1:])
    while len(body) < int(headers["Content-Length"]):
        body += sock.recv(4096)
    return int(lines[0].split()[1]), headers, body


def test_a_claim_flood_is_refused_before_any_worker_or_flask(served, monkeypatch):
    """Issue 25, HIGH 2: claims beyond the limits are answered 429 by the server's own
    thread (the early gate), with the page's security headers and Retry-After, on a
    connection kept alive; none reaches a worker, and the ones within the limits are
    counted once (the handler does not count them again)."""
    hub, base = served
    served_by_workers = []
    original = webserver.run_app

    def counted(app, exchange, environ):
        served_by_workers.append(environ["PATH_INFO"])
        return original(app, exchange, environ)

    monkeypatch.setattr(webserver, "run_app", counted)
    sock = connect(base)
    statuses = [claim_on(sock)[0] for _ in range(3)]
    assert statuses == [202, 409, 409]  # within the limit of 3 a minute: served
    assert served_by_workers == ["/api/claim"] * 3
    monkeypatch.setattr(workers, "PAUSE_S", 0.5)
    for _ in range(50):  # the flood, each on a new connection
        flooder = connect(base)
        status, headers, body = claim_on(flooder)
        flooder.close()
        assert status == 429
    assert 1 <= int(headers["Retry-After"]) <= 60
    assert headers["Content-Security-Policy"].startswith("default-src 'self'")
    assert headers["X-Frame-Options"] == "DENY" and headers["Content-Type"] == "application/json"
    assert json.loads(body)["error"] == "wait"
    assert json.loads(body)["params"] == {"count": int(headers["Retry-After"])}
    assert served_by_workers == ["/api/claim"] * 3  # no worker saw the flood
    assert call(base, "GET", "/api/state")[0] == 200  # the API answers, on a worker
    # A kept-alive connection refused is not read again until its pause is over.
    assert claim_on(sock)[0] == 429
    asked = time.monotonic()
    assert claim_on(sock)[0] == 429
    assert time.monotonic() - asked >= 0.25  # at least half the pause (it is spread)
    # Asked again straight after its pause: now it waits out the whole Retry-After.
    sock.settimeout(1.0)
    with pytest.raises(TimeoutError):
        claim_on(sock)
    sock.close()
    closing = connect(base)
    status, headers, _ = claim_on(closing, close=True)
    assert status == 429 and headers["Connection"] == "close"
    assert closing.recv(1) == b""  # closed as asked
    closing.close()
