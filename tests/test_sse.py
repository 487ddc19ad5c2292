"""The Server-Sent Events bytes (web/sse.py), and the three streams that write them: the
phones' live-stream thread, the API's stream on the request's thread, the board's."""

from __future__ import annotations

import socket

import hub.http.streams as streams
import web.api
from hub.board import app as board_app
from hub.board.app import create_board_app
from tests.fake_service import FakeHubService
from web import create_app
from web.sse import KEEPALIVE, KEEPALIVE_S, RETRY, RETRY_MS, event

START = b"retry: 2000\n\n"
QUIET = b": keepalive\n\n"


def test_the_wire_bytes():
    assert event("state", {"turn": 1, "slots": [1, None], "name": "Zoë"}) == (
        b'event: state\ndata: {"turn":1,"slots":[1,null],"name":"Zo\\u00eb"}\n\n'
    )
    assert (RETRY, RETRY_MS) == (START, 2000)
    assert (KEEPALIVE, KEEPALIVE_S) == (QUIET, 15.0)


def test_the_live_stream_thread_writes_them(monkeypatch):
    monkeypatch.setattr(streams, "KEEPALIVE_S", 0.05)
    live = streams.LiveStreams(1, lambda: {"turn": 1})
    live.start()
    ours, theirs = socket.socketpair()
    theirs.settimeout(10)
    try:
        assert live.reserve()
        live.adopt_stream(ours, b"HEAD\r\n\r\n", ["state"])
        seen = b""
        while QUIET not in seen:
            seen += theirs.recv(65536)
        assert seen.startswith(b"HEAD\r\n\r\n" + START + b'event: state\ndata: {"turn":1}\n\n')
    finally:
        theirs.close()
        live.close()


def test_the_api_stream_on_the_request_thread_writes_them(monkeypatch):
    monkeypatch.setattr(web.api, "KEEPALIVE_S", 0.01)
    fake = FakeHubService()
    response = create_app(fake, {"TESTING": True}).test_client().get("/api/events", buffered=False)
    chunks = response.response
    first = next(chunks)
    assert first.startswith(START + b'event: state\ndata: {"backend":"sim",')
    assert next(chunks) == QUIET
    fake.publish("sound", {"name": "choo"})
    assert next(chunks) == b'event: sound\ndata: {"name":"choo"}\n\n'
    response.close()


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
