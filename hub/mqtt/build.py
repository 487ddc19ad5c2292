"""Builds the hub's MQTT publisher from its settings and the hub's parts (called by the
composition root only when the config names a broker)."""

from __future__ import annotations

import socket
from importlib import metadata
from typing import Any

from hub.games.changes import Games
from hub.io.mqtt import Broker, LinkHandlers, PahoLink, Will
from hub.mqtt.commands import HubCommands
from hub.mqtt.publisher import LinkFactory, MqttPublisher
from hub.mqtt.settings import MqttSettings
from scorer.store import GameNotFound


def version() -> str:
    """The installed hub's version (Home Assistant's ``sw_version``)."""
    try:
        return metadata.version("mtrain-hub")
    except metadata.PackageNotFoundError:
        return "unknown"


def scorepad_url(config: dict[str, Any]) -> str:
    """Where a phone finds the scorepad: ``mqtt.scorepad_url``, else this host's name."""
    if config["mqtt"]["scorepad_url"]:
        return str(config["mqtt"]["scorepad_url"])
    host = config["web"]["host"]
    if host in ("0.0.0.0", "::", ""):
        name = socket.gethostname()
        host = name if "." in name else f"{name}.local"
    return f"http://{host}:{config['web']['port']}/"


def paho_links(s: MqttSettings) -> LinkFactory:
    """A factory of real broker links for ``s``."""
    broker = Broker(
        host=s.host,
        port=s.port,
        keepalive=s.keepalive,
        username=s.username,
        password=s.password,
        tls=s.tls,
        ca_file=s.ca_file,
    )

    def make(handlers: LinkHandlers, will: Will, subscriptions: tuple[str, ...]) -> PahoLink:
        return PahoLink(
            broker, f"mtrain-hub-{s.hub_id}", handlers, will=will, subscriptions=subscriptions
        )

    return make


def publisher(hub: Any, s: MqttSettings, link_factory: LinkFactory | None = None) -> MqttPublisher:
    """The publisher for ``hub`` (the composition root's ``Hub``); it reads games
    through the hub's games (:meth:`hub.games.changes.Games.get_game`), on its own thread,
    after the writes the loop ordered so far."""
    if not s.scorepad_url:
        from dataclasses import replace

        s = replace(s, scorepad_url=scorepad_url(hub.config))

    games: Games = hub.games

    def load_game(game_id: int) -> dict[str, Any] | None:
        try:
            return games.get_game(game_id)
        except GameNotFound:
            return None

    commands = HubCommands(hub.apply_settings, hub.games.undo, hub.sim)
    return MqttPublisher(
        s,
        link_factory or paho_links(s),
        snapshot=lambda: hub.loop.snapshot,
        load_game=load_game,
        settings_now=lambda: dict(hub.settings.values),
        on_status=lambda status: hub.loop.set_extra("mqtt", status),
        commands=commands,
        version=version(),
    )
