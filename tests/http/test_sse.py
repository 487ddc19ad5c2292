"""The Server-Sent Events bytes (hub/wire/sse.py), and the streams that write them: the
phones' live-stream thread (the API's one path: the hub's server takes the request
over; a server that cannot gets a 503), and the board's."""

from __future__ import annotations

import socket
import threading

import hub.http.streams as streams
from hub.board import app as board_app
from hub.board.app import create_board_app
from hub.http.server import make_server
from hub.runtime.broadcast import Broadcaster
from hub.wire.sse import KEEPALIVE, KEEPALIVE_S, RETRY, RETRY_MS, compact, event, news_event
from tests.fake_service import FakeHubService
from tests.http_client import dechunked
from web import create_app

START = b"retry: 2000\n\n"
QUIET = b": keepalive\n\n"


def test_the_wire_bytes():
    assert event("state", {"turn": 1, "slots": [1, None], "name": "Zoë"}) == (
        b'event: state\ndata: {"turn":1,"slots":[1,null],"name":"Zo\\u00eb"}\n\n'
    )
    assert (RETRY, RETRY_MS) == (START, 2000)
    assert (KEEPALIVE, KEEPALIVE_S) == (QUIET, 15.0)


def test_the_news_json_is_written_once_for_every_consumer(monkeypatch):
    state = {"turn": 1, "slots": [1, None], "name": "Zoë"}
    assert news_event("state", state) == event("state", state)
    calls = []
    dumps = compact.__globals__["json"].dumps
    monkeypatch.setattr(
        compact.__globals__["json"], "dumps", lambda *a, **k: calls.append(1) or dumps(*a, **k)
    )
    fresh = {**state}
    text = compact(fresh)
    assert compact(fresh) is text and news_event("state", fresh) == event("state", fresh)
    assert len(calls) == 2  # compact once, event() (not cached) once
    later = {**state, "turn": 2}  # a new snapshot: its own JSON
    assert compact(later) == '{"turn":2,"slots":[1,null],"name":"Zo\\u00eb"}'
    for n in range(20):  # the kept texts are bounded
        compact({"n": n})
    assert len(compact.__globals__["_recent"]) <= 8


def test_the_api_stream_goes_through_the_hubs_server(monkeypatch):
    monkeypatch.setattr(streams, "KEEPALIVE_S", 0.05)
    fake, news = FakeHubService(), Broadcaster()
    app = create_app(fake, {"TESTING": True})
    server = make_server(app, "127.0.0.1", 0, 4, news=news, snapshot=fake.snapshot)
    threading.Thread(target=server.run, daemon=True).start()
    phone = socket.create_connection(("127.0.0.1", server.effective_port), timeout=10)
    try:
        phone.sendall(b"GET /api/events HTTP/1.1\r\nHost: 127.0.0.1\r\n\r\n")
        seen = b""
        while QUIET not in seen:
            seen += phone.recv(65536)
        head, _, body = seen.partition(b"\r\n\r\n")
        assert b"200 OK" in head and b"text/event-stream" in head
        assert b"Transfer-Encoding: chunked" in head  # HTTP/1.1's framing, by Tornado
        assert dechunked(body).startswith(START + b'event: state\ndata: {"backend":"sim",')
        news.publish("sound", {"name": "choo"})
        sound = b'event: sound\ndata: {"name":"choo"}\n\n'
        while sound not in dechunked(seen.partition(b"\r\n\r\n")[2]):
            seen += phone.recv(65536)
    finally:
        phone.close()
        news.close()
        server.close()


def test_a_server_that_cannot_take_the_stream_over_gets_a_503():
    client = create_app(FakeHubService(), {"TESTING": True}).test_client()
    response = client.get("/api/events")
    assert response.status_code == 503 and response.headers["Retry-After"] == "10"
    assert response.get_json()["error"] == "no_live_server"


class QuietBoard:
    """A board on which nothing changes."""

    def view(self):
        return {"version": 3, "tables": []}

    def changes_since(self, version, timeout):
        return None


def test_the_board_stream_writes_them(monkeypatch):
    monkeypatch.setattr(board_app, "KEEPALIVE_S", 2.0)
    response = create_board_app(QuietBoard()).test_client().get("/api/board/events", buffered=False)
    chunks = response.response
    assert next(chunks) == START + b'event: board\ndata: {"version":3,"tables":[]}\n\n'
    assert next(chunks) == QUIET
    response.close()
