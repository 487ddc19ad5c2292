"""Home Assistant MQTT discovery for one hub, the way zigbee2mqtt and ESPHome do it.

One device per hub; a binary sensor per slot's public train; sensors for whose turn,
the round, the engine, the phase and the leader; device triggers for every slot's
tap, hold and long hold and for the centre button; with commands on, a volume number,
a quiet-mode select, a turn-chime switch and an undo button. Every entity shares the
hub's availability (its ``status`` topic and last will) and has a stable ``unique_id``.
Keys and types follow https://www.home-assistant.io/integrations/mqtt/ (the pages of
each platform are named beside the builders below).
"""

from __future__ import annotations

from hub.core.events import CENTRE
from hub.io.sound import QUIET_MODES
from hub.mqtt.settings import MqttSettings
from scorer.profiles import SLOTS

GESTURES = ("tap", "hold", "long_hold")
# Trigger types: the frontend names short and long presses itself; a long hold (fires
# while still held, "went out") has no frontend name and shows as "<subtype> long hold".
TRIGGER_TYPES = {
    "tap": "button_short_press",
    "hold": "button_long_press",
    "long_hold": "button_long_hold",
}
# Config topics of entities that exist only with commands on: emptied when they are off.
COMMAND_ENTITIES = (
    ("number", "volume"),
    ("select", "quiet"),
    ("switch", "turn_chime"),
    ("button", "undo"),
)

# No value renders None (from the JSON null the hub publishes): Home Assistant's MQTT
# sensor reads the rendered "None" as unknown, where "" would keep the old value.
_TURN = (
    "{% set t = value_json.turn %}{% if t %}{% for s in value_json.slots "
    "if s.slot == t %}{{ s.owner or ('slot ' ~ t) }}{% endfor %}{% else %}{{ None }}{% endif %}"
)
_GAME = "{{ value_json.game.%s if value_json.game else None }}"
_LEADER = "{{ value_json.leader if value_json else None }}"


def action_topic(s: MqttSettings, slot: int) -> str:
    """Where a slot's (or the centre button's) gestures are announced."""
    return f"{s.root}/centre/action" if slot == CENTRE else f"{s.root}/slot/{slot}/action"


def device(s: MqttSettings, version: str) -> dict[str, object]:
    """The hub as a Home Assistant device (the ``device`` map of every entity)."""
    info: dict[str, object] = {
        "identifiers": [f"mtrain_{s.hub_id}"],
        "name": f"Mexican Train hub {s.hub_id}",
        "manufacturer": "mtrain-hub",
        "model": "Mexican Train hub",
        "sw_version": version,
    }
    if s.scorepad_url:
        info["configuration_url"] = s.scorepad_url
    return info


def _common(s: MqttSettings, version: str, object_id: str, name: str) -> dict[str, object]:
    return {
        "name": name,
        "unique_id": f"mtrain_{s.hub_id}_{object_id}",
        "availability_topic": f"{s.root}/status",
        "payload_available": "online",
        "payload_not_available": "offline",
        "device": device(s, version),
        "origin": {"name": "mtrain-hub", "sw_version": version},
    }


def _topic(s: MqttSettings, component: str, object_id: str) -> str:
    return f"{s.discovery_prefix}/{component}/mtrain_{s.hub_id}/{object_id}/config"


def _public_trains(s: MqttSettings, version: str) -> list[tuple[str, dict[str, object]]]:
    """binary_sensor.mqtt: state_topic, payload_on, payload_off."""
    out = []
    for slot in SLOTS:
        config = _common(s, version, f"slot{slot}_public", f"Slot {slot} public train")
        config.update(
            state_topic=f"{s.root}/slot/{slot}/public",
            payload_on="ON",
            payload_off="OFF",
            icon="mdi:train",
        )
        out.append((_topic(s, "binary_sensor", f"slot{slot}_public"), config))
    return out


def _sensors(s: MqttSettings, version: str) -> list[tuple[str, dict[str, object]]]:
    """sensor.mqtt: state_topic with a value_template over the state or game JSON."""
    specs = [
        ("turn", "Whose turn", "state", _TURN, "mdi:account-arrow-right"),
        ("round", "Round", "state", _GAME % "round", "mdi:counter"),
        ("engine", "Engine", "state", _GAME % "engine", "mdi:domino-mask"),
        ("phase", "Phase", "state", _GAME % "phase", "mdi:timeline-clock"),
        ("leader", "Leader", "game", _LEADER, "mdi:trophy"),
    ]
    out = []
    for object_id, name, topic, template, icon in specs:
        config = _common(s, version, object_id, name)
        config.update(state_topic=f"{s.root}/{topic}", value_template=template, icon=icon)
        out.append((_topic(s, "sensor", object_id), config))
    return out


def _triggers(s: MqttSettings, version: str) -> list[tuple[str, dict[str, object]]]:
    """device_trigger.mqtt: automation_type, topic, type, subtype, payload, device."""
    out = []
    for slot in (*SLOTS, CENTRE):
        subtype = "centre" if slot == CENTRE else f"slot_{slot}"
        for gesture in GESTURES:
            object_id = f"{subtype.replace('_', '')}_{gesture}"
            config: dict[str, object] = {
                "automation_type": "trigger",
                "topic": action_topic(s, slot),
                "payload": gesture,
                "type": TRIGGER_TYPES[gesture],
                "subtype": subtype,
                "device": device(s, version),
                "origin": {"name": "mtrain-hub", "sw_version": version},
            }
            out.append((_topic(s, "device_automation", object_id), config))
    return out


def _controls(s: MqttSettings, version: str) -> list[tuple[str, dict[str, object]]]:
    """number.mqtt, select.mqtt, switch.mqtt, button.mqtt: the settings and undo."""
    settings_topic = f"{s.root}/settings"
    volume = _common(s, version, "volume", "Volume")
    volume.update(
        command_topic=f"{s.root}/cmd/volume",
        state_topic=settings_topic,
        value_template="{{ value_json.volume }}",
        min=0.0,
        max=1.0,
        step=0.05,
        mode="slider",
        icon="mdi:volume-high",
        entity_category="config",
    )
    quiet = _common(s, version, "quiet", "Quiet mode")
    quiet.update(
        command_topic=f"{s.root}/cmd/quiet",
        state_topic=settings_topic,
        value_template="{{ value_json.quiet }}",
        options=list(QUIET_MODES),
        icon="mdi:volume-off",
        entity_category="config",
    )
    chime = _common(s, version, "turn_chime", "Turn chime")
    chime.update(
        command_topic=f"{s.root}/cmd/turn_chime",
        state_topic=settings_topic,
        value_template="{{ 'ON' if value_json.turn_chime else 'OFF' }}",
        payload_on="ON",
        payload_off="OFF",
        icon="mdi:bell-ring",
        entity_category="config",
    )
    undo = _common(s, version, "undo", "Undo last table action")
    undo.update(command_topic=f"{s.root}/cmd/undo", payload_press="PRESS", icon="mdi:undo")
    entities = {"volume": volume, "quiet": quiet, "turn_chime": chime, "undo": undo}
    return [(_topic(s, component, oid), entities[oid]) for component, oid in COMMAND_ENTITIES]


def messages(s: MqttSettings, version: str) -> list[tuple[str, dict[str, object] | None]]:
    """Every discovery config as (topic, payload), retained by the publisher. With
    commands off, the controls' topics get ``None`` (an empty retained message, which
    removes an entity an earlier run with commands on created)."""
    out: list[tuple[str, dict[str, object] | None]] = [
        *_public_trains(s, version),
        *_sensors(s, version),
        *_triggers(s, version),
    ]
    if s.commands:
        out.extend(_controls(s, version))
    else:
        out.extend((_topic(s, component, oid), None) for component, oid in COMMAND_ENTITIES)
    return out
