"""The live-stream thread alone, on socket pairs: capacity, the snapshot first, only the
news asked for, a phone that falls too far behind, and waiting answers."""

from __future__ import annotations

import socket
from concurrent.futures import Future

import pytest

import hub.http.streams as streams
from hub.http.streams import LiveStreams
from tests.helpers import eventually


@pytest.fixture
def live():
    snapshot = {"turn": 1}
    hub = LiveStreams(2, lambda: snapshot)
    hub.start()
    yield hub
    hub.close()


def phone(live: LiveStreams) -> socket.socket:
    """A stream handed over to ``live``; the phone's end of it."""
    ours, theirs = socket.socketpair()
    theirs.settimeout(10)
    assert live.reserve()
    live.adopt_stream(ours, b"HEAD\r\n\r\n", ["state", "sound"])
    return theirs


def read_until(sock: socket.socket, marker: bytes) -> bytes:
    seen = b""
    while marker not in seen:
        chunk = sock.recv(65536)
        assert chunk, f"closed before {marker!r}: {seen!r}"
        seen += chunk
    return seen


def test_a_stream_starts_with_the_snapshot_then_hears_what_it_asked_for(live):
    sock = phone(live)
    first = read_until(sock, b'"turn":1}\n\n')
    assert first.startswith(b"HEAD\r\n\r\nretry: 2000\n\nevent: state\n")
    live.offer("game", {"id": 1})  # not asked for
    live.offer("sound", {"name": "choo"})
    assert b"game" not in read_until(sock, b'event: sound\ndata: {"name":"choo"}\n\n')
    sock.close()


def test_capacity_is_taken_and_given_back(live):
    first, second = phone(live), phone(live)
    assert not live.reserve()  # both places taken
    read_until(first, b"\n\n")
    first.close()  # the phone goes: the thread sees its end close and frees the place

    def freed() -> bool:
        if live.reserve():
            live.release()
            return True
        return False

    assert eventually(freed)
    second.close()


def test_a_phone_far_behind_is_dropped(live, monkeypatch):
    monkeypatch.setattr(streams, "MOST_UNSENT", 64 * 1024)
    sock = phone(live)  # and it reads nothing for now
    for i in range(3000):  # sounds are all kept, unlike states: the backlog grows
        live.offer("sound", {"name": "x" * 200, "i": i})
    # Read only once it is dropped (its place given back): offers only queue, so the
    # thread may still be writing them when the loop above ends.
    assert eventually(lambda: live._places.taken == 0)
    data = b""
    while chunk := sock.recv(65536):  # what the kernel held, then the end
        data += chunk
    assert b'"i":2999' not in data
    sock.close()


def test_an_answer_is_sent_when_its_future_resolves_then_the_socket_closes(live):
    ours, theirs = socket.socketpair()
    theirs.settimeout(10)
    future: Future[int] = Future()
    live.adopt_answer(ours, future, lambda done: b"ANSWER %d" % done.result())
    future.set_result(7)
    assert read_until(theirs, b"7") == b"ANSWER 7"
    assert theirs.recv(100) == b""  # half-closed after the answer
    theirs.close()


def test_a_burst_of_news_wakes_the_thread_once():
    live = LiveStreams(2, lambda: {"turn": 1})  # not started: the test is its thread
    try:
        assert live.reserve()
        for n in range(5):
            live.offer("sound", {"name": f"s{n}"})
        live._wake_r.setblocking(False)
        assert live._wake_r.recv(64) == b"\0"  # one wake for the five
        assert live._take_inbox()  # the thread's pass takes all five
        assert not live._inbox
        live.offer("sound", {"name": "later"})  # news after the pass wakes it again
        assert live._wake_r.recv(64) == b"\0"
        assert list(live._inbox) == [("news", ("sound", {"name": "later"}))]
    finally:
        live.close()


def test_news_that_fails_to_format_is_dropped_and_the_streams_go_on(live, caplog):
    sock = phone(live)
    read_until(sock, b"event: state")
    live.offer("sound", {"name": object()})  # not JSON: a bug upstream
    live.offer("sound", {"name": "choo"})
    assert b'"name":"choo"' in read_until(sock, b'"choo"')
    assert "live streams: news failed; dropped" in caplog.text
    theirs = phone(live)  # a second stream still starts
    assert b"event: state" in read_until(theirs, b"event: state")
    sock.close()
    theirs.close()


def test_a_stream_that_fails_to_start_gives_its_place_back(caplog):
    def broken_snapshot():
        raise RuntimeError("a bug")

    live = LiveStreams(1, broken_snapshot)
    live.start()
    try:
        ours, theirs = socket.socketpair()
        theirs.settimeout(10)
        assert live.reserve()
        live.adopt_stream(ours, b"HEAD\r\n\r\n", ["state"])
        assert theirs.recv(100) == b""  # closed, nothing sent
        assert eventually(lambda: live.reserve())  # the one place is free again
        assert "live streams: stream failed; dropped" in caplog.text
        theirs.close()
    finally:
        live.close()
