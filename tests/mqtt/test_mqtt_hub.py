"""The hub on a real mosquitto: topics, retained state after a reconnect, last will,
commands, and a broker that dies and comes back mid-game (docs/mqtt.md)."""

from __future__ import annotations

import json

import pytest

from hub.runtime.clock import SystemClock
from scorer.setup import check_setup
from tests.helpers import until
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
        return make_hub(
            threaded=True,
            clock=SystemClock(),
            hub={"hub_id": "t1"},
            mqtt={"url": mosquitto.url, **mqtt},
        )

    return build


def start_game(hub, players=("Ann", "Bob", "Cy")):
    return hub.games.new_game(check_setup({"players": list(players)}, "consensus"))


def taps(hub, slot):
    return sum(1 for e in hub.eventlog.recent(500) if e["kind"] == "tap" and e["slot"] == slot)


def press(hub, slot):
    """A tap on ``slot``: down and up at once; the loop reads it once the bounce window
    has passed (on its real clock), which the log shows."""
    before = taps(hub, slot)
    hub.sim.button(slot, True)
    hub.sim.button(slot, False)
    until(lambda: taps(hub, slot) > before, f"the tap on slot {slot}")


def place(hub, slot):
    """A marker put on ``slot``: public once the flicker window has passed."""
    hub.sim.marker(slot, True)
    until(lambda: hub.loop.snapshot["slots"][slot - 1]["public"], f"slot {slot} public")


def test_a_press_appears_on_event(mqtt_hub, listen):
    events = listen([f"{ROOT}/event", f"{ROOT}/slot/+/action"])
    hub = mqtt_hub()
    start_game(hub)
    press(hub, 2)
    listener = events
    entry = listener.wait_for(
        lambda: [
            json.loads(p) for p in listener.on(f"{ROOT}/event") if json.loads(p)["kind"] == "tap"
        ]
    )
    assert entry[0]["slot"] == 2 and "at" in entry[0]
    assert listener.wait_for(lambda: listener.on(f"{ROOT}/slot/2/action")) == [b"tap"]


def test_state_game_and_slots_are_retained(mqtt_hub, listen):
    hub = mqtt_hub()
    game_id, _ = start_game(hub)
    place(hub, 3)
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


def test_home_assistant_sensors_are_unknown_without_a_value(mqtt_hub, listen):
    """Issue 23: the leader sensor named a player before any round was scored, and a
    sensor with no value rendered "" (Home Assistant keeps the old value) instead of
    None (its "unknown"). The hub publishes JSON null; the templates render None."""
    import jinja2

    from hub.mqtt.discovery import messages
    from hub.mqtt.settings import MqttSettings

    sensors = messages(MqttSettings(host="h", port=1883, hub_id="t1"), "0")
    templates = {p["name"]: p["value_template"] for _, p in sensors if p and "value_template" in p}

    def sensor(name: str, payload: object) -> str:
        return jinja2.Environment().from_string(templates[name]).render(value_json=payload)

    hub = mqtt_hub()
    topics = listen()
    topics.wait_for(lambda: f"{ROOT}/game" in topics.latest)
    assert topics.latest[f"{ROOT}/game"] == b"null"  # no game: JSON null
    state = topics.wait_for(lambda: topics.json(f"{ROOT}/state"))
    for name in ("Whose turn", "Round", "Engine", "Phase", "Leader"):
        payload = topics.json(f"{ROOT}/game") if name == "Leader" else state
        assert sensor(name, payload) == "None", name
    game_id, _ = start_game(hub)
    topics.wait_for(lambda: (topics.json(f"{ROOT}/game") or {}).get("id") == game_id)
    game = topics.json(f"{ROOT}/game")
    assert "leader" in game and game["leader"] is None  # nobody leads before a score
    assert sensor("Leader", game) == "None"
    hub.games.score_round(game_id, 1, points={"Ann": 10, "Bob": 0, "Cy": 5}, mid_round=True)
    topics.wait_for(lambda: (topics.json(f"{ROOT}/game") or {}).get("leader") == "Bob")
    assert sensor("Leader", topics.json(f"{ROOT}/game")) == "Bob"


def test_retained_state_is_right_after_a_reconnect(mqtt_hub, listen, mosquitto):
    hub = mqtt_hub()
    start_game(hub)
    mosquitto.kill()
    hub.loop.call(lambda t: None)
    press(hub, 1)  # the game goes on with no broker
    place(hub, 5)
    assert hub.loop.snapshot["slots"][4]["public"] is True
    mosquitto.start()  # an empty broker: it forgot every retained message
    listener = listen()
    listener.wait_for(lambda: listener.latest.get(f"{ROOT}/slot/5/public") == b"ON")
    listener.wait_for(
        lambda: (listener.json(f"{ROOT}/state") or {}).get("mqtt", {}).get("connected")
    )
    state = listener.json(f"{ROOT}/state")
    assert state["turn"] == hub.loop.snapshot["turn"]
    assert state["slots"] == hub.loop.snapshot["slots"]
    assert listener.latest[f"{ROOT}/status"] == b"online"
    assert listener.json(f"{ROOT}/game")["players"] == ["Ann", "Bob", "Cy"]


def test_discovery_is_retained_valid_and_resent_when_home_assistant_starts(mqtt_hub, listen):
    from tests.ha_discovery_schema import problems

    # Subscribed before the hub connects, so it hears the four empty configs too: a
    # retained message with no payload clears the topic and is not kept for later.
    ha = listen(("homeassistant/#",))
    hub = mqtt_hub()
    ha.wait_for(lambda: len([t for t in ha.latest if t.endswith("/config")]) >= 44)
    configs = {t: p for t, p in ha.latest.items() if t.endswith("/config")}
    for topic, raw in configs.items():
        if raw:
            assert problems(topic, json.loads(raw)) == [], topic
    assert sum(1 for raw in configs.values() if not raw) == 4  # commands off: no controls
    # A Home Assistant that subscribes later gets every config the broker kept (at QoS
    # 1, 20 in flight at a time: its QoS 0 probe may come back before the last ones).
    late = listen(("homeassistant/#",))
    retained = {t: p for t, p in configs.items() if p}
    late.wait_for(lambda: len([t for t in late.latest if t.endswith("/config")]) >= 40)
    assert {t: p for t, p in late.latest.items() if t.endswith("/config")} == retained
    seen = len(ha.messages)
    ha.link.publish("homeassistant/status", "online", qos=1)
    ha.wait_for(lambda: len(ha.messages) >= seen + 44)
    assert hub.mqtt.status()["connected"] is True


def test_commands_from_the_broker(mqtt_hub, listen):
    hub = mqtt_hub(commands=True)
    listener = listen()
    listener.wait_for(lambda: listener.latest.get(f"{ROOT}/status") == b"online")
    listener.link.publish(f"{ROOT}/cmd/volume", "0.3")
    listener.wait_for(lambda: (listener.json(f"{ROOT}/settings") or {}).get("volume") == 0.3)
    assert hub.settings.values["volume"] == 0.3
    listener.link.publish(f"{ROOT}/cmd/settings", '{"volume": 7}')  # refused: logged
    listener.link.publish(f"{ROOT}/cmd/quiet", "mute")
    listener.wait_for(lambda: (listener.json(f"{ROOT}/settings") or {}).get("quiet") == "mute")
    assert hub.settings.values["volume"] == 0.3
    start_game(hub)
    listener.link.publish(f"{ROOT}/cmd/sim/slot/1/press", '{"hold_ms": 0}')
    listener.wait_for(
        lambda: any(
            json.loads(p) == {**json.loads(p), "kind": "tap", "slot": 1}
            for p in listener.on(f"{ROOT}/event")
        )
    )
    # The event may reach the broker before the loop swaps in its snapshot: settle it.
    hub.loop.drain()
    turn = hub.loop.snapshot["turn"]
    assert turn != 1
    listener.link.publish(f"{ROOT}/cmd/undo", "PRESS")
    undo = listener.wait_for(
        lambda: [
            json.loads(p) for p in listener.on(f"{ROOT}/event") if json.loads(p)["kind"] == "undo"
        ]
    )
    assert undo[0]["by"] == "mqtt"
    hub.loop.drain()
    assert hub.loop.snapshot["turn"] == 1  # the tap was taken back
    listener.link.publish(f"{ROOT}/cmd/sim/centre/press", '{"hold_ms": 0}')
    listener.wait_for(
        lambda: [
            json.loads(p)
            for p in listener.on(f"{ROOT}/event")
            if json.loads(p)["kind"] == "tap" and json.loads(p)["slot"] == 0
        ]
    )


def test_a_retained_command_never_runs_again_and_is_cleared(mqtt_hub, listen):
    listener = listen()
    # A retained undo and volume wait on the broker before the hub connects, as after
    # a restart or a broker reconnect.
    listener.link.publish(f"{ROOT}/cmd/volume", "0.3", retain=True)
    listener.link.publish(f"{ROOT}/cmd/undo", "PRESS", retain=True)
    listener.wait_for(lambda: listener.latest.get(f"{ROOT}/cmd/undo") == b"PRESS")
    hub = mqtt_hub(commands=True)
    volume = hub.settings.values["volume"]
    listener.wait_for(lambda: listener.latest.get(f"{ROOT}/status") == b"online")
    # Cleared from the broker: a new subscriber gets nothing retained on cmd/.
    listener.wait_for(lambda: listener.latest.get(f"{ROOT}/cmd/undo") == b"")
    listener.wait_for(lambda: listener.latest.get(f"{ROOT}/cmd/volume") == b"")
    fresh = listen((f"{ROOT}/cmd/#", f"{ROOT}/status"))
    fresh.wait_for(lambda: fresh.latest.get(f"{ROOT}/status") == b"online")
    assert not any(topic.startswith(f"{ROOT}/cmd/") for topic in fresh.latest)
    # A live command still runs once; the same id again is a repeat.
    listener.link.publish(f"{ROOT}/cmd/settings", '{"volume": 0.4, "id": "a1"}')
    listener.wait_for(lambda: (listener.json(f"{ROOT}/settings") or {}).get("volume") == 0.4)
    listener.link.publish(f"{ROOT}/cmd/settings", '{"volume": 0.6, "id": "a1"}')
    listener.link.publish(f"{ROOT}/cmd/quiet", "mute")  # after the repeat, in order
    listener.wait_for(lambda: (listener.json(f"{ROOT}/settings") or {}).get("quiet") == "mute")
    assert hub.settings.values["volume"] == 0.4 != volume
    assert not [p for p in listener.on(f"{ROOT}/event") if json.loads(p)["kind"] == "undo"]
