"""The hub's MQTT publisher: hub news out to ``<base>/<hub_id>/...``, commands in.

It hears the hub through the broadcaster (``state``, ``game``, ``settings``, ``event``)
and only reads what it is given. :meth:`MqttPublisher.offer` runs on the loop thread
and only puts into the bounded :class:`Outbox`; the publisher's own thread turns
news into topics and hands them to the link (the paho adapter, or its fake). After
every (re)connect it says ``online`` and re-publishes discovery and every retained
topic, so a broker that restarts hears the table as it is now.
"""

from __future__ import annotations

import json
import logging
import queue
import threading
import time
from collections.abc import Callable
from typing import Any, Protocol

from hub.core.news import Kind
from hub.io.mqtt import LinkHandlers, Will
from hub.mqtt import discovery
from hub.mqtt.commands import CommandError, HubCommands, QuietLog, Rate, SeenIds
from hub.mqtt.outbox import Outbox
from hub.mqtt.settings import MqttSettings
from hub.wire.sse import compact

log = logging.getLogger("hub.mqtt")

# The gestures' log kinds (hub.core.news.GESTURES), as Home Assistant's triggers name them.
GESTURES = {Kind.TAP: "tap", Kind.HOLD: "hold", Kind.LONG_HOLD: "long_hold"}
STATUS_EVERY_S = 1.0


class BrokerLink(Protocol):
    """The broker connection (:class:`hub.io.mqtt.PahoLink`; the tests' ``RecordingLink``)."""

    connected: bool
    protocol: str

    def start(self) -> None:
        """Connect in the background."""

    def publish(
        self,
        topic: str,
        payload: str | bytes,
        *,
        retain: bool = False,
        qos: int = 1,
        json: bool = False,
    ) -> bool:
        """Send one message; False if not sent."""
        ...

    def stop(self, farewell: Will | None = None, timeout: float = 3.0) -> None:
        """Say goodbye and disconnect."""


LinkFactory = Callable[[LinkHandlers, Will, tuple[str, ...]], BrokerLink]


def leader(game: dict[str, Any]) -> str | None:
    """Who leads ``game``: the first of its standings once a round is scored, else None
    (published as JSON ``null``: Home Assistant's sensor then shows "unknown", where a
    name before any score would be a guess)."""
    scored = any(r.get("finished") for r in game.get("rounds") or [] if isinstance(r, dict))
    standings = game.get("standings") or []
    return str(standings[0]) if scored and standings else None


def _dumps(payload: object) -> str:
    return json.dumps(payload, separators=(",", ":"))


# QoS by topic (docs/mqtt.md, "Quality of service"): 1 for what a reader must not
# miss or must acknowledge (status, state, game, every event; the board reads state
# and game at QoS 1 and needs its PUBACKs); 0 for the rest, which is either re-sent
# whole after every reconnect (the retained slot/<n>/public) or a second copy of an
# event sent at QoS 1 (a gesture's action).
QOS_0 = ("/public", "/action")


class MqttPublisher:
    """Publishes one hub's news; see the module docstring and docs/mqtt.md."""

    def __init__(
        self,
        settings: MqttSettings,
        link_factory: LinkFactory,
        *,
        snapshot: Callable[[], dict[str, Any]],
        load_game: Callable[[int], dict[str, Any] | None],
        settings_now: Callable[[], dict[str, Any]],
        on_status: Callable[[dict[str, Any]], None],
        commands: HubCommands | None = None,
        version: str = "",
    ) -> None:
        self.settings = settings
        self.root = settings.root
        self.version = version
        self.outbox = Outbox(settings.outbox)
        self._load_game = load_game
        self._on_status = on_status
        self._commands = commands if settings.commands else None
        self._inbox: queue.Queue[tuple[str, bytes]] = queue.Queue(maxsize=64)
        self._quiet = QuietLog(log, time.monotonic)
        self._rate = Rate(time.monotonic)
        self._seen = SeenIds()
        # Retained commands to clear (paho's thread adds, ours publishes the empty
        # retained message), and those cleared whose empty echo is still to come.
        self._to_clear: set[str] = set()
        self._cleared: set[str] = set()
        self._current: dict[str, object] = {"state": snapshot(), "settings": settings_now()}
        self._game_id: int | None = None
        self._public: dict[int, str] = {}
        self._resync = False
        self._rediscover = False
        self._reported: tuple[bool, int] | None = None
        self._reported_at = 0.0
        self._stopping = False
        self._thread: threading.Thread | None = None
        self.published = 0
        handlers = LinkHandlers(
            connected=self._connected,
            disconnected=self.outbox.wake.set,
            message=self._message,
            retained=self._retained,
        )
        subscriptions = [f"{settings.discovery_prefix}/status"] if settings.discovery else []
        if self._commands is not None:
            subscriptions.append(f"{self.root}/cmd/#")
        self.link = link_factory(
            handlers, Will(f"{self.root}/status", "offline"), tuple(subscriptions)
        )

    # --- the loop thread's side: never waits ---------------------------------------

    def offer(self, kind: str, payload: object) -> None:
        """A broadcaster callback: queue hub news for the publisher thread."""
        if kind in ("state", "game", "settings", "event"):
            self.outbox.put(kind, payload)

    # --- the link's side: only hands over ------------------------------------------

    def _connected(self) -> None:
        self._resync = True
        self.outbox.wake.set()

    def _message(self, topic: str, payload: bytes) -> None:
        if topic == f"{self.settings.discovery_prefix}/status":
            if payload.strip() == b"online":  # Home Assistant (re)started
                self._rediscover = True
                self.outbox.wake.set()
            return
        try:
            self._inbox.put_nowait((topic, payload))
        except queue.Full:
            self._quiet.warn("full", f"{topic[:80]}: too many commands at once; ignored")
        self.outbox.wake.set()

    def _retained(self, topic: str, payload: bytes) -> None:
        """A message the broker kept: Home Assistant's status counts; a command never
        runs again (at every restart or reconnect) and is cleared from the broker."""
        if not topic.startswith(f"{self.root}/cmd/"):
            self._message(topic, payload)
        elif payload:
            self._quiet.warn("retained", f"{topic[:80]}: a retained command; ignored, cleared")
            self._to_clear.add(topic)
            self.outbox.wake.set()

    # --- lifecycle -------------------------------------------------------------------

    def start(self) -> None:
        """Start the publisher thread and connect (an absent broker is retried)."""
        self._report(force=True)
        self._thread = threading.Thread(target=self._run, name="mqtt-publish", daemon=True)
        self._thread.start()
        self.link.start()

    def stop(self, timeout: float = 3.0) -> None:
        """Publish what is waiting, say ``offline`` (retained), disconnect."""
        self._stopping = True
        self.outbox.wake.set()
        if self._thread is not None:
            self._thread.join(timeout)
            self._thread = None
        self.link.stop(Will(f"{self.root}/status", "offline"), timeout)

    def _run(self) -> None:
        while True:
            self.outbox.wake.wait(STATUS_EVERY_S)
            self.outbox.wake.clear()
            try:
                self.pump()
            except Exception:  # a bug here must not end the thread: log it, carry on
                log.exception("mqtt: publishing failed")
            if self._stopping:
                return

    def pump(self) -> None:
        """One round of work: commands in, then (when connected) everything waiting out.
        The publisher thread calls it; tests call it directly."""
        self._run_commands()
        if self.link.connected:
            for topic in list(self._to_clear):
                self._to_clear.discard(topic)
                self._cleared.add(topic)  # its empty echo is no command
                self._send(topic, "", retain=True)
            if self._resync:
                self._resync = self._rediscover = False
                self._publish_everything()
            elif self._rediscover:
                self._rediscover = False
                self._publish_discovery()
                self._publish_retained()
            self._flush()
        self._report()

    # --- what goes where ---------------------------------------------------------------

    def _send(self, topic: str, payload: object, retain: bool = False) -> bool:
        is_json = not isinstance(payload, str)
        text = compact(payload) if is_json else payload
        qos = 0 if topic.endswith(QOS_0) else 1
        sent = self.link.publish(topic, text, retain=retain, qos=qos, json=is_json)  # type: ignore[arg-type]
        self.published += sent
        return sent

    def _publish_everything(self) -> None:
        self._send(f"{self.root}/status", "online", retain=True)
        self._publish_discovery()
        self._public.clear()
        self._publish_retained()

    def _publish_discovery(self) -> None:
        if not self.settings.discovery:
            return
        for topic, config in discovery.messages(self.settings, self.version):
            self.link.publish(
                topic,
                "" if config is None else _dumps(config),
                retain=True,
                json=config is not None,
            )

    def _publish_retained(self) -> None:
        latest, events = self.outbox.take()  # the newest values, not the ones before them
        self.outbox.put_back(events)
        self._current.update(latest)
        self._state(self._current["state"], force=True)  # type: ignore[arg-type]
        if "game" in self._current:
            self._send(f"{self.root}/game", self._current["game"], retain=True)
        self._send(f"{self.root}/settings", self._current["settings"], retain=True)

    def _flush(self) -> None:
        latest, events = self.outbox.take()
        # Events first: they are the news (a press) that subscribers wait for; the
        # retained state that follows already includes them.
        for i, (_, entry) in enumerate(events):
            if not self._event(entry):
                self.outbox.put_back(events[i:])
                break
        if "state" in latest:
            self._state(latest["state"])  # type: ignore[arg-type]
        if "game" in latest:
            self._game(latest["game"])
        if "settings" in latest:
            self._current["settings"] = latest["settings"]
            self._send(f"{self.root}/settings", latest["settings"], retain=True)

    def _state(self, snapshot: dict[str, Any], force: bool = False) -> None:
        self._current["state"] = snapshot
        self._send(f"{self.root}/state", snapshot, retain=True)
        for slot in snapshot.get("slots", []):
            value = "ON" if slot.get("public") else "OFF"
            if force or self._public.get(slot["slot"]) != value:
                if self._send(f"{self.root}/slot/{slot['slot']}/public", value, retain=True):
                    self._public[slot["slot"]] = value
        game = snapshot.get("game")
        game_id = game.get("id") if isinstance(game, dict) else None
        if game_id != self._game_id or "game" not in self._current:
            self._game_id = game_id
            self._game(self._load_game(game_id) if game_id is not None else None)

    def _game(self, game: object) -> None:
        if isinstance(game, dict):
            game = {**game, "leader": leader(game)}
        self._current["game"] = game
        self._send(f"{self.root}/game", game, retain=True)

    def _event(self, entry: object) -> bool:
        if not self._send(f"{self.root}/event", entry):
            return False
        if isinstance(entry, dict) and entry.get("kind") in GESTURES:
            slot = entry.get("slot")
            if isinstance(slot, int):
                self._send(
                    discovery.action_topic(self.settings, slot), GESTURES[Kind(entry["kind"])]
                )
        return True

    # --- commands and status -----------------------------------------------------------

    def _run_commands(self) -> None:
        prefix = f"{self.root}/cmd/"
        while True:
            try:
                topic, payload = self._inbox.get_nowait()
            except queue.Empty:
                return
            if self._commands is None or not topic.startswith(prefix):
                continue
            if not payload and topic in self._cleared:
                self._cleared.discard(topic)  # the broker's echo of our clearing
                continue
            name = topic[len(prefix) :]
            if not self._rate.admit():
                self._quiet.warn("rate", f"more than {self._rate.per_s} commands a second; ignored")
                continue
            try:
                command = self._commands.parse(name, payload)
                if not self._seen.first_time(command.id):
                    self._quiet.warn("repeat", f"cmd/{name}: id {command.id!r} again; ignored")
                    continue
                self._commands.run(command)
                log.info("mqtt: cmd/%s done", name[:60])
            except CommandError as exc:  # its code first: what a script greps for
                self._quiet.warn("bad", f"refused {exc.code}: {exc}; ignored")

    def status(self) -> dict[str, Any]:
        """The snapshot extra ``mqtt``: enabled, connected, dropped events."""
        return {
            "enabled": True,
            "connected": bool(self.link.connected),
            "dropped": self.outbox.dropped,
        }

    def _report(self, force: bool = False) -> None:
        now = time.monotonic()
        key = (bool(self.link.connected), self.outbox.dropped)
        if key == self._reported:
            return
        if (
            not force
            and key[0] == (self._reported or (None,))[0]
            and now - self._reported_at < STATUS_EVERY_S
        ):
            return  # only the drop count changed: say so at most once a second
        self._reported, self._reported_at = key, now
        self._on_status(self.status())
