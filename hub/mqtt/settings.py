"""The ``[mqtt]`` section checked and turned into connection settings (no paho here, so
checking a config never loads the MQTT library)."""

from __future__ import annotations

import re
from dataclasses import dataclass
from pathlib import Path
from typing import Any
from urllib.parse import urlsplit

# A hub id and a base topic become MQTT topic levels: no wildcards, no slashes, no spaces.
_TOPIC_LEVEL = re.compile(r"^[A-Za-z0-9_-]{1,64}$")
_BASE_TOPIC = re.compile(r"^[A-Za-z0-9_-]{1,64}(/[A-Za-z0-9_-]{1,64}){0,3}$")
SCHEMES = {"mqtt": (1883, False), "mqtts": (8883, True)}


@dataclass(frozen=True)
class MqttSettings:
    """Everything the publisher needs from the config (the password read from its file)."""

    host: str
    port: int
    hub_id: str
    base_topic: str = "mtrain"
    keepalive: int = 60
    username: str = ""
    password: str = ""
    tls: bool = False
    ca_file: str = ""
    commands: bool = False
    discovery: bool = True
    discovery_prefix: str = "homeassistant"
    scorepad_url: str = ""
    outbox: int = 256

    @property
    def root(self) -> str:
        """The hub's topic root, ``mtrain/<hub_id>``."""
        return f"{self.base_topic}/{self.hub_id}"


def parse_url(url: str) -> tuple[str, int, bool]:
    """``mqtt://host[:port]`` or ``mqtts://host[:port]`` → (host, port, tls)."""
    parts = urlsplit(url)
    if parts.scheme not in SCHEMES:
        raise ValueError(f"mqtt.url: {url!r}: expected mqtt://HOST[:PORT] or mqtts://HOST[:PORT]")
    default_port, tls = SCHEMES[parts.scheme]
    try:
        port = parts.port or default_port
    except ValueError:
        raise ValueError(f"mqtt.url: {url!r}: the port is not a number from 1 to 65535") from None
    if not parts.hostname or parts.path not in ("", "/") or parts.query or parts.username:
        raise ValueError(
            f"mqtt.url: {url!r}: expected mqtt://HOST[:PORT] (credentials go in "
            "mqtt.username and mqtt.password_file)"
        )
    return parts.hostname, port, tls


def check_mqtt(hub_id: str, mqtt: dict[str, Any]) -> None:
    """Raise ``ValueError`` naming the key when the ``[mqtt]`` section is not usable."""
    if not _TOPIC_LEVEL.match(hub_id):
        raise ValueError(
            f"hub.hub_id: {hub_id!r}: use 1 to 64 letters, digits, - or _ "
            "(it is an MQTT topic level)"
        )
    if mqtt["url"]:
        parse_url(mqtt["url"])
    if not 1 <= mqtt["port"] <= 65535:
        raise ValueError(f"mqtt.port: {mqtt['port']!r} is out of range (1 to 65535)")
    if not 5 <= mqtt["keepalive"] <= 3600:
        raise ValueError(f"mqtt.keepalive: {mqtt['keepalive']!r} is out of range (5 to 3600 s)")
    if not 16 <= mqtt["outbox"] <= 100_000:
        raise ValueError(f"mqtt.outbox: {mqtt['outbox']!r} is out of range (16 to 100000)")
    for key in ("base_topic", "discovery_prefix"):
        if not _BASE_TOPIC.match(mqtt[key]):
            raise ValueError(
                f"mqtt.{key}: {mqtt[key]!r}: use topic levels of letters, "
                "digits, - or _, separated by /"
            )
    if mqtt["password_file"] and not mqtt["username"]:
        raise ValueError("mqtt.password_file: needs mqtt.username too")
    if mqtt["scorepad_url"] and urlsplit(mqtt["scorepad_url"]).scheme not in ("http", "https"):
        raise ValueError(f"mqtt.scorepad_url: {mqtt['scorepad_url']!r}: expected http(s)://…")


def enabled(config: dict[str, Any]) -> bool:
    """True when the config names a broker."""
    return bool(config["mqtt"]["url"] or config["mqtt"]["host"])


def _read_secret(key: str, path: str) -> str:
    try:
        return Path(path).read_text().strip()
    except OSError as exc:
        raise ValueError(f"mqtt.{key}: {path}: cannot read it ({exc.strerror})") from None


def settings(config: dict[str, Any]) -> MqttSettings:
    """The connection settings of a checked config; ``ValueError`` naming the key when
    the password or CA file cannot be read."""
    mqtt = config["mqtt"]
    host, port, tls = mqtt["host"], mqtt["port"], mqtt["tls"]
    if mqtt["url"]:
        host, port, url_tls = parse_url(mqtt["url"])
        tls = tls or url_tls
    password = _read_secret("password_file", mqtt["password_file"]) if mqtt["password_file"] else ""
    if mqtt["ca_file"]:
        _read_secret("ca_file", mqtt["ca_file"])
    return MqttSettings(
        host=host,
        port=port,
        hub_id=config["hub"]["hub_id"],
        base_topic=mqtt["base_topic"],
        keepalive=mqtt["keepalive"],
        username=mqtt["username"],
        password=password,
        tls=tls,
        ca_file=mqtt["ca_file"],
        commands=mqtt["commands"],
        discovery=mqtt["discovery"],
        discovery_prefix=mqtt["discovery_prefix"],
        scorepad_url=mqtt["scorepad_url"],
        outbox=mqtt["outbox"],
    )
