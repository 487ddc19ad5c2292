"""Builds the hub's MQTT publisher from its settings and the hub's parts (called by the
composition root only when the config names a broker)."""

from __future__ import annotations

import socket
from collections.abc import Callable
from dataclasses import dataclass, replace
from typing import Any

from hub.io.mqtt import Broker, LinkHandlers, PahoLink, Will
from hub.mqtt.commands import HubCommands, SimInputs
from hub.mqtt.publisher import LinkFactory, MqttPublisher
from hub.mqtt.settings import MqttSettings
from scorer.store import GameNotFound


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


@dataclass(frozen=True)
class PublisherParts:
    """What the publisher reads and the commands act on, handed in by the composition
    root: the snapshot, a game by id (:meth:`hub.games.changes.Games.get_game`, which
    waits for the writes the loop ordered so far), the settings and their check
    (:func:`hub.runtime.settings.check`), the undo, the simulated pins (None off the
    ``sim`` backend), where the status goes, and the hub's version (for discovery)."""

    snapshot: Callable[[], dict[str, Any]]
    get_game: Callable[[int], dict[str, Any]]
    settings_now: Callable[[], dict[str, Any]]
    apply_settings: Callable[[dict[str, Any]], object]
    check_settings: Callable[[object], dict[str, Any]]
    undo: Callable[[str], object]
    sim: SimInputs | None
    on_status: Callable[[dict[str, Any]], None]
    version: str


def publisher(
    config: dict[str, Any],
    s: MqttSettings,
    parts: PublisherParts,
    link_factory: LinkFactory | None = None,
) -> MqttPublisher:
    """The publisher of ``parts`` (``config`` names the scorepad's address when ``s``
    does not); it reads games on its own thread."""
    if not s.scorepad_url:
        s = replace(s, scorepad_url=scorepad_url(config))

    def load_game(game_id: int) -> dict[str, Any] | None:
        try:
            return parts.get_game(game_id)
        except GameNotFound:
            return None

    return MqttPublisher(
        s,
        link_factory or paho_links(s),
        snapshot=parts.snapshot,
        load_game=load_game,
        settings_now=parts.settings_now,
        on_status=parts.on_status,
        commands=HubCommands(parts.apply_settings, parts.undo, parts.sim, parts.check_settings),
        version=parts.version,
    )
