"""The hub on a real mosquitto: topics, retained state after a reconnect, last will,
commands, and a broker that dies and comes back mid-game (docs/mqtt.md)."""

from __future__ import annotations

import json
import time

import pytest

from hub.clock import SystemClock
from hub.core.setup import parse_setup
from tests.mqtt_helpers import Listener

ROOT = "mtrain/t1"


@pytest.fixture
def listen(mosquitto):
    made: list[Listener] = []

    def make(topics=("mtrain/#",)):
        listener = Listener(mosquitto.port, tuple(topics))
        listener.wait_connected()
        made.append(listener)
        return listener

    yield make
    for listener in made:
        listener.close()


@pytest.fixture
def mqtt_hub(make_hub, mosquitto):
    def build(**mqtt):
        return make_hub(threaded=True, clock=SystemClock(), hub={"hub_id": "t1"},
                        mqtt={"url": mosquitto.url, **mqtt})
    return build


def start_game(hub, players=("Ann", "Bob", "Cy")):
    return hub.new_game(parse_setup({"players": list(players)}, "consensus"))


def press(hub, slot, hold_s=0.0):
    hub.sim.button(slot, True)
    time.sleep(hold_s)
    hub.sim.button(slot, False)
    time.sleep(hub.loop.table.timings.bounce)
    hub.loop.drain()


def test_a_press_appears_on_event(mqtt_hub, listen):
    events = listen([f"{ROOT}/event", f"{ROOT}/slot/+/action"])
    hub = mqtt_hub()
    start_game(hub)
    press(hub, 2)
    listener = events
    entry = listener.wait_for(lambda: [json.loads(p) for p in listener.on(f"{ROOT}/event")
                                       if json.loads(p)["kind"] == "tap"])
    assert entry[0]["slot"] == 2 and "at" in entry[0]
    assert listener.wait_for(lambda: listener.on(f"{ROOT}/slot/2/action")) == [b"tap"]


def test_state_game_and_slots_are_retained(mqtt_hub, listen):
    hub = mqtt_hub()
    game_id, _ = start_game(hub)
    hub.sim.marker(3, True)
    time.sleep(hub.loop.table.timings.flicker + 0.01)
    hub.loop.drain()
    first = listen()
    first.wait_for(lambda: first.latest.get(f"{ROOT}/slot/3/public") == b"ON")
    # A newcomer hears the retained topics at once, as the hub has them now.
    late = listen()
    late.wait_for(lambda: (late.json(f"{ROOT}/state") or {}).get("slots"))
    state = late.json(f"{ROOT}/state")
    assert state == json.loads(json.dumps(hub.loop.snapshot))
    assert state["mqtt"] == {"enabled": True, "connected": True, "dropped": 0}
    assert late.latest[f"{ROOT}/status"] == b"online"
    assert late.latest[f"{ROOT}/slot/3/public"] == b"ON"
    assert late.latest[f"{ROOT}/slot/6/public"] == b"OFF"  # 4: the Mexican Train
    game = late.json(f"{ROOT}/game")
    assert game["id"] == game_id and game["players"] == ["Ann", "Bob", "Cy"]
    assert "standings" in game and "totals" in game


def test_retained_state_is_right_after_a_reconnect(mqtt_hub, listen, mosquitto):
    hub = mqtt_hub()
    start_game(hub)
    mosquitto.kill()
    hub.loop.call(lambda t: None)
    press(hub, 1)  # the game goes on with no broker
    hub.sim.marker(5, True)
    time.sleep(hub.loop.table.timings.flicker + 0.01)
    hub.loop.drain()
    assert hub.loop.snapshot["slots"][4]["public"] is True
    mosquitto.start()  # an empty broker: it forgot every retained message
    listener = listen()
    listener.wait_for(lambda: listener.latest.get(f"{ROOT}/slot/5/public") == b"ON")
    listener.wait_for(lambda: (listener.json(f"{ROOT}/state") or {}).get(
        "mqtt", {}).get("connected"))
    state = listener.json(f"{ROOT}/state")
    assert state["turn"] == hub.loop.snapshot["turn"]
    assert state["slots"] == hub.loop.snapshot["slots"]
    assert listener.latest[f"{ROOT}/status"] == b"online"
    assert listener.json(f"{ROOT}/game")["players"] == ["Ann", "Bob", "Cy"]
