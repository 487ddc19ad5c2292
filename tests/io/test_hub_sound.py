"""The hub with its real ALSA player: sound status in the snapshot, faults isolated."""

from __future__ import annotations

import threading

import pytest

from hub.app import Hub
from hub.runtime.clock import SystemClock
from hub.runtime.config import load
from tests.conftest import need
from tests.helpers import eventually
from web import create_app


class Card:
    """A sound card that can be pulled out (writes fail) and put back."""

    def __init__(self):
        self.pulled = False
        self.frames = 0
        self.lock = threading.Lock()

    def open(self, name, rate, period_frames, periods):
        if self.pulled:
            raise OSError(f"no such card {name!r}")
        return self

    def write(self, frames):
        if self.pulled:
            raise OSError("No such device")
        with self.lock:
            self.frames += len(frames) // 2

    def close(self):
        pass


@pytest.fixture
def hub(tmp_path, mock_factory):
    card = Card()
    config = load(None, {"hub": {"backend": "sim", "state_dir": str(tmp_path)}})
    the_hub = Hub(
        config,
        clock=SystemClock(),
        pin_factory=mock_factory,
        sound_options={"open_device": card.open, "retry_s": 0.05},
    )
    the_hub.card = card
    the_hub.start()
    yield the_hub
    the_hub.stop()


def test_pulling_the_sound_card_keeps_the_game_going(hub):
    client = create_app(hub.web_service(), {"TESTING": True}).test_client()
    assert client.get("/api/state").get_json()["sound"] == {"available": True, "reason": None}
    client.post("/api/games", json={"players": ["Ann", "Bob", "Cid"], "first": 1})
    client.post("/api/sim/slots/1/press", json={})
    assert eventually(lambda: hub.card.frames > 0)
    hub.card.pulled = True
    for slot in (2, 3):
        state = client.post(f"/api/sim/slots/{slot}/press", json={}).get_json()
    assert state["turn"] == 1 and state["game"]["phase"] == "play"
    assert eventually(lambda: not client.get("/api/state").get_json()["sound"]["available"])
    assert (
        "No such device" in client.get("/api/state").get_json()["sound"]["reason"]
        or "no such card" in client.get("/api/state").get_json()["sound"]["reason"]
    )
    client.post("/api/sim/slots/1/press", json={})
    assert client.get("/api/state").get_json()["turn"] == 2
    hub.card.pulled = False
    assert eventually(lambda: client.get("/api/state").get_json()["sound"]["available"])
    before = hub.card.frames
    client.post("/api/sim/slots/2/press", json={})
    assert eventually(lambda: hub.card.frames > before)


def test_the_hub_plays_on_alsas_null_device(tmp_path, mock_factory):
    need("aplay")
    config = load(
        None, {"hub": {"backend": "sim", "state_dir": str(tmp_path)}, "sound": {"device": "null"}}
    )
    started = []
    hub = Hub(
        config,
        clock=SystemClock(),
        pin_factory=mock_factory,
        sound_options={"on_sound_start": started.append},
    )
    try:
        hub.start()
        assert hub.loop.snapshot["sound"] == {"available": True, "reason": None}
        hub.sim.marker(3, True)
        assert eventually(lambda: started == ["choo"])
    finally:
        hub.stop()


def test_disabled_sound_says_so(tmp_path, mock_factory):
    config = load(
        None, {"hub": {"backend": "sim", "state_dir": str(tmp_path)}, "sound": {"enabled": False}}
    )
    hub = Hub(config, clock=SystemClock(), pin_factory=mock_factory)
    try:
        hub.start()
        sound = hub.loop.snapshot["sound"]
        assert sound["available"] is False and "disabled" in sound["reason"]
    finally:
        hub.stop()
