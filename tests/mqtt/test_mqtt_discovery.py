"""Home Assistant discovery payloads, checked against the documented keys and types
(tests/ha_discovery_schema.py cites the pages), and their templates rendered with Jinja
as Home Assistant would render them."""

from __future__ import annotations

import json

import jinja2
import pytest

from hub.mqtt import discovery
from hub.mqtt.settings import MqttSettings
from tests.ha_discovery_schema import TOPIC, problems

SETTINGS = MqttSettings(
    host="h", port=1883, hub_id="kitchen", scorepad_url="http://kitchen.local:8080/"
)


def configs(settings=SETTINGS):
    return discovery.messages(settings, "0.1.0")


def test_every_payload_follows_the_documentation():
    for topic, payload in configs(MqttSettings(**{**SETTINGS.__dict__, "commands": True})):
        assert payload is not None
        assert problems(topic, payload) == [], topic


def test_the_entities_of_one_hub():
    by_component: dict[str, list[dict]] = {}
    for topic, payload in configs():
        if payload is not None:
            by_component.setdefault(TOPIC.match(topic)["component"], []).append(payload)
    assert len(by_component["binary_sensor"]) == 8
    assert {p["name"] for p in by_component["sensor"]} == {
        "Whose turn",
        "Round",
        "Engine",
        "Phase",
        "Leader",
    }
    triggers = by_component["device_automation"]
    assert len(triggers) == 9 * 3  # 8 slots and the centre button, 3 gestures each
    assert len({(t["type"], t["subtype"]) for t in triggers}) == 27  # unique per device
    centre = [t for t in triggers if t["subtype"] == "centre"]
    assert {t["topic"] for t in centre} == {"mtrain/kitchen/centre/action"}
    entities = [p for c, ps in by_component.items() if c != "device_automation" for p in ps]
    ids = [p["unique_id"] for p in entities]
    assert len(ids) == len(set(ids)) and all(i.startswith("mtrain_kitchen_") for i in ids)
    for payload in entities:
        assert payload["availability_topic"] == "mtrain/kitchen/status"
    devices = {json.dumps(p["device"], sort_keys=True) for ps in by_component.values() for p in ps}
    assert len(devices) == 1  # one device per hub
    device = json.loads(devices.pop())
    assert device["identifiers"] == ["mtrain_kitchen"]
    assert device["configuration_url"] == "http://kitchen.local:8080/"
    assert device["sw_version"] == "0.1.0"


def test_the_controls_exist_only_with_commands_on():
    off = [(t, p) for t, p in configs() if p is None]
    assert {TOPIC.match(t)["component"] for t, _ in off} == {"number", "select", "switch", "button"}
    on = configs(MqttSettings(**{**SETTINGS.__dict__, "commands": True}))
    assert all(p is not None for _, p in on)
    undo = next(p for t, p in on if "/button/" in t)
    assert undo["command_topic"] == "mtrain/kitchen/cmd/undo"


SNAPSHOT = {
    "game": {"id": 1, "round": 3, "engine": 10, "phase": "play"},
    "turn": 2,
    "slots": [
        {"slot": 1, "owner": "Ann"},
        {"slot": 2, "owner": "Bob"},
        {"slot": 3, "owner": "mexican"},
    ],
}


def render(template: str, value: object) -> str:
    return jinja2.Environment().from_string(template).render(value_json=value)


@pytest.mark.parametrize(
    ("name", "value", "expected"),
    [
        ("Whose turn", SNAPSHOT, "Bob"),
        ("Whose turn", {**SNAPSHOT, "turn": None}, "None"),  # Home Assistant: unknown
        ("Round", SNAPSHOT, "3"),
        ("Engine", SNAPSHOT, "10"),
        ("Phase", SNAPSHOT, "play"),
        ("Round", {**SNAPSHOT, "game": None}, "None"),
        ("Leader", {"standings": ["Cy", "Ann"], "leader": "Cy"}, "Cy"),
        ("Leader", {"standings": ["Cy", "Ann"], "leader": None}, "None"),
        ("Leader", None, "None"),
    ],
)
def test_the_sensor_templates_render(name, value, expected):
    sensor = next(p for t, p in configs() if p and p.get("name") == name)
    assert render(sensor["value_template"], value) == expected
