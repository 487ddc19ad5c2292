"""Phones waiting for the evening's picture on the hub's real server hold no worker
(issue 33): 16 ask while it is being drawn, with 4 workers, and ``GET /api/state``
still answers; then every one gets the one picture drawn, or the typed 503 when the
drawing failed (``web/players_api.py``, ``WholeAnswer`` in ``hub/http/workers.py``)."""

from __future__ import annotations

import http.client
import json
import threading
from concurrent.futures import ThreadPoolExecutor

import pytest

from tests import history
from tests.helpers import eventually


@pytest.fixture
def drawer(monkeypatch):
    """The picture's drawer replaced by one that waits for ``go``; its calls, its gate
    and whether it fails."""
    go = threading.Event()
    calls: list[object] = []
    failing: list[bool] = []

    def draw(shown):
        calls.append(shown)
        go.wait(30)
        if failing:
            raise RuntimeError("the drawing process was killed")
        return b"\x89PNG a picture"

    monkeypatch.setattr("web.evening_png.render", draw)
    return calls, go, failing


@pytest.fixture
def served(make_hub, drawer):
    """A sim hub with 4 workers and an evening of three games, on a free port."""
    from hub.runtime.clock import SystemClock

    hub = make_hub(threaded=True, clock=SystemClock(), web={"threads": 4})
    history.store_history(hub.store, history.generate(7, 3, per_day=3))
    ports: list[int] = []
    hub.serve("127.0.0.1", 0, block=False, on_listening=lambda host, port: ports.append(port))
    return ports[0]


def get(port: int, path: str) -> tuple[int, dict[str, str], bytes]:
    """``path`` asked in Spanish: the status, the headers (names in lower case), the body."""
    phone = http.client.HTTPConnection("127.0.0.1", port, timeout=20)
    try:
        phone.request("GET", path, headers={"Accept-Language": "es"})
        answer = phone.getresponse()
        return answer.status, {k.lower(): v for k, v in answer.getheaders()}, answer.read()
    finally:
        phone.close()


def _sixteen_wait(port, calls):
    phones = ThreadPoolExecutor(16)
    asked = [phones.submit(get, port, "/api/evening.png") for _ in range(16)]
    assert eventually(lambda: len(calls) == 1)
    # All 16 wait for the drawing, yet a worker is free for the table's state.
    status, _, body = get(port, "/api/state")
    assert status == 200 and "slots" in json.loads(body)
    assert not any(a.done() for a in asked)
    return phones, asked


def test_sixteen_wait_for_one_drawing_and_the_state_still_answers(served, drawer):
    calls, go, _ = drawer
    phones, asked = _sixteen_wait(served, calls)
    go.set()
    answers = [a.result() for a in asked]
    phones.shutdown()
    assert {status for status, _, _ in answers} == {200} and len(calls) == 1
    assert {body for _, _, body in answers} == {b"\x89PNG a picture"}
    status, headers, _ = answers[0]
    assert headers["content-type"] == "image/png" and headers["etag"].startswith('"')
    assert headers["content-length"] == str(len(b"\x89PNG a picture"))
    assert headers["x-content-type-options"] == "nosniff"


def test_a_failed_drawing_answers_every_waiting_phone_with_a_typed_503(served, drawer):
    calls, go, failing = drawer
    failing.append(True)
    phones, asked = _sixteen_wait(served, calls)
    go.set()
    answers = [a.result() for a in asked]
    phones.shutdown()
    assert {status for status, _, _ in answers} == {503}
    status, headers, body = answers[0]
    refusal = json.loads(body)
    assert refusal["error"] == "picture_failed" and refusal["params"] == {"count": 5}
    assert refusal["message"].startswith("El hub no pudo dibujar la imagen")
    assert headers["retry-after"] == "5" and "etag" not in headers
    assert headers["content-type"] == "application/json"
