"""The hub on an MQTT broker: what it publishes, the commands it takes, Home Assistant
discovery, and the tournament board that reads many hubs (docs/mqtt.md).

Only :mod:`hub.io.mqtt` imports paho; this package decides what goes over the link.
"""
