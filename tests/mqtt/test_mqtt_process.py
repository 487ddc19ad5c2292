"""``mtrain-hub run --mqtt`` as a process beside a real mosquitto: the last will after a
SIGKILL, and a broker killed and restarted mid-game while the table plays on."""

from __future__ import annotations

import json
import signal
import time

import pytest

from tests.helpers import eventually
from tests.http_client import HubProcess
from tests.mqtt_helpers import Listener

ROOT = "mtrain/table7"


@pytest.fixture
def listener(mosquitto):
    made = Listener(mosquitto.port, ("mtrain/#",))
    made.wait_connected()
    yield made
    made.close()


@pytest.fixture
def hub_process(tmp_path, mosquitto):
    processes: list[HubProcess] = []

    def start():
        process = HubProcess(tmp_path / "state", "--mqtt", mosquitto.url, "--hub-id", "table7")
        processes.append(process)
        return process

    yield start
    for process in processes:
        process.stop(signal.SIGKILL)


def test_sigkill_of_the_hub_shows_it_offline_through_the_last_will(hub_process, listener):
    hub = hub_process()
    listener.wait_for(lambda: listener.latest.get(f"{ROOT}/status") == b"online")
    hub.proc.send_signal(signal.SIGKILL)
    hub.proc.wait(10)
    listener.wait_for(lambda: listener.latest.get(f"{ROOT}/status") == b"offline")


def test_an_orderly_stop_says_offline(hub_process, listener):
    hub = hub_process()
    listener.wait_for(lambda: listener.latest.get(f"{ROOT}/status") == b"online")
    assert hub.stop(signal.SIGTERM) == 0
    listener.wait_for(lambda: listener.latest.get(f"{ROOT}/status") == b"offline")


def _sounds(hub) -> int:
    status, log = hub.get("/api/log?limit=2000")
    assert status == 200
    return sum(1 for entry in log if entry["kind"] == "sound")


def test_the_broker_killed_and_restarted_mid_game(hub_process, mosquitto, tmp_path):
    hub = hub_process()
    status, _ = hub.post("/api/games", {"players": ["Ann", "Bob", "Cy"]})
    assert status == 201
    watcher = Listener(mosquitto.port, (f"{ROOT}/#",))
    watcher.wait_connected()
    watcher.wait_for(lambda: (watcher.json(f"{ROOT}/state") or {}).get("game"))
    watcher.close()
    mosquitto.kill()
    # The page says so: polled, as a phone would.
    eventually(lambda: hub.get("/api/state")[1]["mqtt"]["connected"] is False, 10, every=0.05)
    assert hub.get("/api/state")[1]["mqtt"]["connected"] is False
    sounds = _sounds(hub)
    turns = []
    for slot in (1, 2, 3):  # three turns played with no broker
        status, snapshot = hub.post(f"/api/sim/slots/{slot}/press", {"hold_ms": 0})
        assert status == 200
        turns.append(snapshot["turn"])
    status, snapshot = hub.post("/api/sim/slots/2/marker", {"present": True})
    assert status == 200 and snapshot["slots"][1]["public"] is True
    assert _sounds(hub) > sounds  # chimes and "choo" went on
    page = hub.get("/api/state")
    assert page[0] == 200
    mosquitto.start()  # a fresh broker: no retained messages at all
    back = time.monotonic()
    listener = Listener(mosquitto.port, (f"{ROOT}/#",))
    try:
        listener.wait_connected()
        listener.wait_for(lambda: listener.latest.get(f"{ROOT}/slot/2/public") == b"ON", 15)
        listener.wait_for(
            lambda: (listener.json(f"{ROOT}/state") or {}).get("mqtt", {}).get("connected"), 15
        )
        assert time.monotonic() - back < 15
        state = listener.json(f"{ROOT}/state")
        now = hub.get("/api/state")[1]
        assert state["turn"] == now["turn"] and state["slots"] == now["slots"]
        assert listener.latest[f"{ROOT}/status"] == b"online"
        assert now["mqtt"]["connected"] is True
        status, snapshot = hub.post("/api/sim/slots/1/press", {"hold_ms": 0})
        assert status == 200
        listener.wait_for(
            lambda: any(json.loads(p)["kind"] == "tap" for p in listener.on(f"{ROOT}/event"))
        )
    finally:
        listener.close()
