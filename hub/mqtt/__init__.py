"""The hub on MQTT: what it publishes, Home Assistant discovery, the commands it takes."""
