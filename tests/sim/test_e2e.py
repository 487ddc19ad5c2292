"""End to end: ``mtrain-hub run`` as a subprocess, spoken to only over HTTP."""

from __future__ import annotations

import pytest

from tests.http_client import HubProcess

PLAYERS = ["Ann", "Bob", "Cid", "Dee", "Eve", "Fay"]


@pytest.fixture
def hub(tmp_path):
    process = HubProcess(tmp_path / "state")
    yield process
    assert process.stop() == 0


def test_illustration_over_http(hub):
    status, game = hub.post(
        "/api/games",
        {"players": PLAYERS, "rules": "consensus", "set": 9, "first": 1, "mexican_slot": 8},
    )
    assert status == 201

    def tap(slot):
        return hub.post(f"/api/sim/slots/{slot}/press", {"hold_ms": 100})[1]

    def hold(slot):
        return hub.post(f"/api/sim/slots/{slot}/press", {"hold_ms": 1500})[1]

    def marker(slot):
        return hub.post(f"/api/sim/slots/{slot}/marker", {"present": True})[1]

    for _ in range(2):
        for slot in range(1, 7):
            tap(slot)
    assert hold(1)["double"]["slot"] == 1
    assert tap(1)["double"] is None
    assert hold(2)["double"] == {
        "slot": 2,
        "covers_left": 1,
        "responsible": 2,
        "waiting": False,
        "queued": False,
    }
    assert marker(2)["double"]["responsible"] == 3
    assert marker(3)["double"]["responsible"] == 4
    state = tap(2)
    public = {s["slot"] for s in state["slots"] if s["public"] and s["owner"] != "mexican"}
    assert public == {2, 3} and state["turn"] == 5 and state["double"] is None
    _, log = hub.get("/api/log?limit=500")
    sounds = [e["name"] for e in log if e["kind"] == "sound"]
    assert sounds.count("chicken") == 2 and sounds.count("choo") == 2
    assert "reminder" not in sounds and "nope" not in sounds


def test_bad_input_never_500(hub):
    for path, body in [
        ("/api/games", {"players": 5}),
        ("/api/sim/slots/12/press", {}),
        ("/api/sim/slots/1/marker", {"present": None}),
        ("/api/games", {"players": ["A", "B"], "seats": [1, 1]}),
    ]:
        status, answer = hub.post(path, body)
        assert 400 <= status < 500 and answer["error"] and answer["message"]
    status, state = hub.get("/api/state")
    assert status == 200 and state["game"] is None


def test_stop_is_quick_with_a_phone_watching(tmp_path):
    import time
    import urllib.request

    process = HubProcess(tmp_path / "state")
    stream = urllib.request.urlopen(process.base + "/api/events", timeout=10)
    assert stream.readline().startswith(b"retry")
    started = time.monotonic()
    assert process.stop() == 0
    assert time.monotonic() - started < 3.0
    stream.close()
