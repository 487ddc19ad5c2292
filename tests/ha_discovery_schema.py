"""The keys and types of Home Assistant's MQTT discovery payloads that the hub uses,
written from Home Assistant's documentation:

- https://www.home-assistant.io/integrations/mqtt/ ("MQTT Discovery": the topic
  ``<discovery_prefix>/<component>/[<node_id>/]<object_id>/config``, the ``device``
  and ``origin`` maps, availability with ``availability_topic``,
  ``payload_available`` and ``payload_not_available``; an empty retained payload
  deletes an entity);
- https://www.home-assistant.io/integrations/binary_sensor.mqtt/ (``state_topic``
  required, ``payload_on``/``payload_off`` strings);
- https://www.home-assistant.io/integrations/sensor.mqtt/ (``state_topic`` required,
  ``value_template`` a template string);
- https://www.home-assistant.io/integrations/device_trigger.mqtt/ (``automation_type``
  must be ``trigger``; ``topic``, ``type``, ``subtype`` and ``device`` required;
  ``payload`` optional; only one trigger per discovery topic; type + subtype unique
  per device);
- https://www.home-assistant.io/integrations/number.mqtt/, ``select.mqtt``,
  ``switch.mqtt``, ``button.mqtt`` (``command_topic`` required; select ``options``
  required; number ``min``/``max``/``step`` floats and ``mode`` auto, box or slider).
"""

from __future__ import annotations

import re

STR = (str,)
NUM = (int, float)
TOPIC = re.compile(
    r"^(?P<prefix>[\w/-]+?)/(?P<component>[a-z_]+)/(?P<node>[A-Za-z0-9_-]+)/"
    r"(?P<object>[A-Za-z0-9_-]+)/config$"
)

DEVICE = {
    "identifiers": ((list, str), True),
    "connections": ((list,), False),
    "name": (STR, False),
    "manufacturer": (STR, False),
    "model": (STR, False),
    "sw_version": (STR, False),
    "hw_version": (STR, False),
    "configuration_url": (STR, False),
    "suggested_area": (STR, False),
    "via_device": (STR, False),
}
ORIGIN = {"name": (STR, True), "sw_version": (STR, False), "support_url": (STR, False)}
ENTITY = {
    "name": ((str, type(None)), False),
    "unique_id": (STR, False),
    "availability_topic": (STR, False),
    "payload_available": (STR, False),
    "payload_not_available": (STR, False),
    "device": ((dict,), False),
    "origin": ((dict,), False),
    "icon": (STR, False),
    "entity_category": (STR, False),
    "enabled_by_default": ((bool,), False),
    "qos": ((int,), False),
}
STATEFUL = {
    "state_topic": (STR, True),
    "value_template": (STR, False),
    "json_attributes_topic": (STR, False),
}
SCHEMAS: dict[str, dict[str, tuple[tuple[type, ...], bool]]] = {
    "binary_sensor": {
        **ENTITY,
        **STATEFUL,
        "payload_on": (STR, False),
        "payload_off": (STR, False),
        "device_class": (STR, False),
    },
    "sensor": {
        **ENTITY,
        **STATEFUL,
        "unit_of_measurement": (STR, False),
        "device_class": (STR, False),
        "state_class": (STR, False),
    },
    "number": {
        **ENTITY,
        **STATEFUL,
        "state_topic": (STR, False),
        "command_topic": (STR, True),
        "min": (NUM, False),
        "max": (NUM, False),
        "step": (NUM, False),
        "mode": (STR, False),
    },
    "select": {
        **ENTITY,
        **STATEFUL,
        "state_topic": (STR, False),
        "command_topic": (STR, True),
        "options": ((list,), True),
    },
    "switch": {
        **ENTITY,
        **STATEFUL,
        "state_topic": (STR, False),
        "command_topic": (STR, True),
        "payload_on": (STR, False),
        "payload_off": (STR, False),
    },
    "button": {**ENTITY, "command_topic": (STR, True), "payload_press": (STR, False)},
    "device_automation": {
        "automation_type": (STR, True),
        "topic": (STR, True),
        "type": (STR, True),
        "subtype": (STR, True),
        "payload": (STR, False),
        "qos": ((int,), False),
        "device": ((dict,), True),
        "origin": ((dict,), False),
        "value_template": (STR, False),
    },
}


def _check_map(where: str, value: object, schema: dict) -> list[str]:
    if not isinstance(value, dict):
        return [f"{where}: expected a map"]
    problems = [f"{where}.{key}: not a documented key" for key in value if key not in schema]
    for key, (types, required) in schema.items():
        if key not in value:
            if required:
                problems.append(f"{where}.{key}: required")
        elif (
            not isinstance(value[key], types) or isinstance(value[key], bool) and bool not in types
        ):
            problems.append(
                f"{where}.{key}: {type(value[key]).__name__} is not "
                f"{'/'.join(t.__name__ for t in types)}"
            )
    return problems


def problems(topic: str, payload: dict) -> list[str]:
    """What is wrong with one discovery message, per the documentation above."""
    match = TOPIC.match(topic)
    if match is None:
        return [f"{topic}: not <prefix>/<component>/<node_id>/<object_id>/config"]
    component = match["component"]
    if component not in SCHEMAS:
        return [f"{topic}: component {component} not in the schema"]
    found = _check_map(component, payload, SCHEMAS[component])
    if "device" in payload:
        found += _check_map(f"{component}.device", payload["device"], DEVICE)
    if "origin" in payload:
        found += _check_map(f"{component}.origin", payload["origin"], ORIGIN)
    if component == "device_automation" and payload.get("automation_type") != "trigger":
        found.append("device_automation.automation_type: must be 'trigger'")
    if component == "number" and payload.get("mode", "auto") not in ("auto", "box", "slider"):
        found.append("number.mode: auto, box or slider")
    if payload.get("entity_category") not in (None, "config", "diagnostic"):
        found.append("entity_category: config or diagnostic")
    return found
