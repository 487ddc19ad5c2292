"""The composition root: builds every part from the config, starts them in order and
stops them in reverse (Mopidy's ``_app/server.py`` is the model). The CLI calls it.
"""

from __future__ import annotations

import logging
import sys
import threading
from collections.abc import Callable
from contextlib import ExitStack
from datetime import datetime
from pathlib import Path
from typing import TYPE_CHECKING, Any

from hub import build, core
from hub.core.effects import Effect
from hub.core.events import Event, MarkersRead
from hub.games.changes import Games
from hub.games.trust import TableTrust
from hub.io.leds import LedDriver
from hub.io.leds import payload as ring_payload
from hub.io.pinmap import resolve_backend
from hub.io.sound import SoundPlayer
from hub.persist.journal import FILE_NAME, FileJournal, JournalWriter
from hub.persist.replay import Recovered, log_differences, put_back, recover
from hub.persist.storage import DB_NAME, BackupService, check_storage
from hub.persist.store_writer import StoreWriter
from hub.runtime.broadcast import Broadcaster
from hub.runtime.clock import Clock, SystemClock
from hub.runtime.config import ConfigError, timings
from hub.runtime.dispatch import EffectDispatcher
from hub.runtime.eventlog import EventLog
from hub.runtime.loop import HubLoop
from scorer.store import GameStore

if TYPE_CHECKING:
    from firmware_bridge.link import SerialLink
    from hub.http.adapter import HubWebService, Later
    from hub.http.server import WebServer
    from hub.io.pins import SlotInputs
    from hub.mqtt.publisher import MqttPublisher

log = logging.getLogger("hub")


class Hub:
    """Everything the hub is, wired together. Pass fakes in to test any part alone;
    ``sound_options`` go to the ALSA player (a fake ``open_device``, ``retry_s``, hooks);
    ``mqtt_link`` builds the broker link (tests pass the fake; default: paho).

    Each part that needs closing is registered on one :class:`ExitStack` as it is opened
    or started; :meth:`stop` closes them all in reverse, each even when one before it
    raised. A part that fails to build closes those built before it.
    """

    def __init__(
        self,
        config: dict[str, Any],
        *,
        clock: Clock | None = None,
        pin_factory: Any = None,
        sound: SoundPlayer | None = None,
        leds: LedDriver | None = None,
        store: GameStore | None = None,
        sound_options: dict[str, Any] | None = None,
        mqtt_link: Any = None,
    ) -> None:
        self.config = config
        self.backend = resolve_backend(config["hub"]["backend"])
        self.clock = clock or SystemClock()
        # gpiozero only for a backend that reads pins (a ``serial`` hub's box reads them)
        self.factory = pin_factory or (
            None if self.backend == "serial" else build.pin_factory(self.backend)
        )
        self.state_dir = Path(config["hub"]["state_dir"])
        self.eventlog = EventLog(self.clock)
        self.broadcaster = Broadcaster()
        # Damaged, emptied or missing storage stops the hub here (StorageProblem).
        self.backups = (
            BackupService(check_storage(self.state_dir), self.state_dir / DB_NAME)
            if store is None
            else None
        )
        self.settings = build.open_settings(config, self.state_dir)
        self._sound_options = sound_options or {}
        self._server: WebServer | None = None
        self._server_thread: threading.Thread | None = None
        with ExitStack() as opened:  # closes what was opened if a later part fails
            self._build(opened, store, sound, leds, mqtt_link)
            self._stops = opened.pop_all()

    def _build(
        self,
        opened: ExitStack,
        store: GameStore | None,
        sound: SoundPlayer | None,
        leds: LedDriver | None,
        mqtt_link: Any,
    ) -> None:
        """Build the parts in order, each one's close registered on ``opened``."""
        self.store = store if store is not None else GameStore(self.state_dir / "games.db")
        build.on_stop(opened, "the store", self.store.close)
        self.writer = StoreWriter()  # SQLite writes the loop orders run on its thread
        # The table's journal: fsyncs only on a real clock (not tests, the soak); a
        # write that fails (a read-only SD card) is said in the snapshot's "storage".
        self.journal_file = FileJournal(self.state_dir / FILE_NAME, durable=not self.clock.virtual)
        build.on_stop(opened, "the journal", self.journal_file.close)
        self.journal = JournalWriter(self.journal_file, self.writer)
        # The loop comes first, so every part below may report into its snapshot from the
        # start; it calls the dispatcher and the ring only once it runs, when they exist.
        self.loop = HubLoop(
            core.new_table(timings(self.config)),
            self.clock,
            self._dispatch,
            self.backend,
            on_state=self._state_changed,
            journal=self.journal,
        )
        self.journal.watch(lambda problem: self.loop.set_extra("storage", problem))
        self.policy = build.sound_policy(self.config, self.settings, self._wall)
        self.sound = sound or build.sound_player(  # its status changes: to the snapshot
            self.config, self.settings.values["volume"], self.loop.set_extra, self._sound_options
        )
        build.on_stop(opened, "the sound player", self.sound.close)
        self.loop.set_extra("sound", self.sound.status())
        self._build_devices(opened, leds)
        self._build_rules(opened, mqtt_link)

    def _build_devices(self, opened: ExitStack, leds: LedDriver | None) -> None:
        """The hub box's link, the ring, the self-test and the inputs."""
        self.link = build.serial_link(  # the hub box's microcontroller, if any
            self.config,
            self.backend,
            self.clock.now,
            self._post_input,
            self._serial_status,
            lambda count: ring_payload(self.lights.pixels(count)),
        )
        if self.link is not None:
            build.on_stop(opened, "the serial link", self.link.close)
            self.loop.set_extra("serial", self.link.status())
        self.leds = leds if leds is not None else build.led_driver(self.link)
        self.lights = build.ring_lights(
            self.config, self.leds, self._wall, lambda ring: self.loop.set_extra("ring", ring)
        )
        self.selftest = build.selftest_session(  # before the inputs: it may take their edges
            self.config,
            self.backend,
            show=self.lights.override,
            play=build.selftest_speaker(self.sound, self.settings),
            running_game=self.running_game_id,
            reread_markers=self._reread_markers,
            levels=lambda: self.inputs.active_inputs(),
            ring=self.link is not None or self.backend == "sim",  # sim: the page draws it
            voice=lambda: build.voice_on(self.config, self.settings),
        )
        self.sim = build.sim_pins(self.config, self.backend, self.factory, self.clock)
        self.inputs = self._inputs()
        if self.inputs is not self.link:
            build.on_stop(opened, "the inputs", self.inputs.close)

    def _build_rules(self, opened: ExitStack, mqtt_link: Any) -> None:
        """Trust, the games, the dispatcher of the core's effects, settings and MQTT."""
        self.trust = TableTrust(self.loop, self.writer, self.store.add_token, self.clock.now)
        self.games = Games(
            self.store,
            self.writer,
            self.loop,
            self.clock,
            self.broadcaster,
            self.eventlog,
            self.backups,
        )
        self.voice, chime_frames = build.voice(  # the snapshot's "voice": its renders
            opened, self.config, self.settings, self.store, self.sound, self.loop.set_extra
        )
        self.dispatcher = EffectDispatcher(
            self.sound,
            self.lights,
            self.eventlog,
            self.broadcaster,
            self.policy,
            on_record=self.games.record,
            on_claim=self.trust.answered,
            voice=self.voice,
            chime_frames=chime_frames,
        )
        self.apply_settings({})
        self.mqtt = self._mqtt_publisher(mqtt_link)

    def _dispatch(self, effects: list[Effect]) -> None:
        """The loop's effects (loop thread), to the dispatcher, with the table after them."""
        self.dispatcher(effects, self.loop.table)

    def _inputs(self) -> SerialLink | SlotInputs:
        """The hub box when it is the backend, else the pins (real or simulated)."""
        if self.link is not None and self.backend == "serial":
            return self.link
        clock = self.sim.clock if self.sim and self.sim.clock else self.clock
        return build.slot_inputs(self.config, self.factory, clock, self._post_input)

    def _wall(self) -> datetime:
        """The hub clock's local wall time (quiet hours are judged by it)."""
        return datetime.fromtimestamp(self.clock.wall())

    def _serial_status(self, value: dict[str, Any]) -> None:
        """The hub box came or went (the link's thread, once started)."""
        self.loop.set_extra("serial", value)
        self.lights.connection_changed()

    def _reread_markers(self) -> None:
        """The table reads the markers afresh (after the self-test borrowed them)."""
        self.loop.post(MarkersRead(self.inputs.read_markers(), self.clock.now()))

    def apply_settings(self, changes: dict[str, Any]) -> dict[str, Any]:
        """Check, save and apply a settings change (``{}`` re-applies what is saved)."""
        values = self.settings.update(changes) if changes else dict(self.settings.values)
        self.sound.set_volume(float(values["volume"]))
        self.policy.set_quiet(values["quiet"])
        self.policy.turn_chime = values["turn_chime"]
        self.games.remember_players = bool(values["remember_players"])
        self.lights.set_brightness(float(values["brightness"]))
        # a new language or spelling: render ahead (on the loop thread, which reads the words)
        self.loop.call(self.voice.prepare)
        self.broadcaster.publish("settings", dict(values))
        return values

    def _mqtt_publisher(self, link_factory: Any = None) -> MqttPublisher | None:
        """The MQTT publisher when the config names a broker (else None: MQTT is off)."""
        from hub.mqtt import settings as mqtt_settings

        if not mqtt_settings.enabled(self.config):
            self.loop.set_extra("mqtt", {"enabled": False, "connected": False, "dropped": 0})
            return None
        from hub.mqtt.build import PublisherParts, publisher

        parts = PublisherParts(
            snapshot=lambda: self.loop.snapshot,
            get_game=self.games.get_game,
            settings_now=lambda: dict(self.settings.values),
            apply_settings=self.apply_settings,
            undo=self.games.undo,
            sim=self.sim,
            on_status=lambda status: self.loop.set_extra("mqtt", status),
        )
        try:
            mqtt = publisher(self.config, mqtt_settings.settings(self.config), parts, link_factory)
        except ValueError as exc:
            raise ConfigError(str(exc)) from None
        self.broadcaster.callbacks.append(mqtt.offer)
        return mqtt

    # --- lifecycle -------------------------------------------------------------------

    def start(self, threaded: bool = True) -> None:
        """Start the loop, read the sensors, and resume an unfinished game.

        ``threaded=False`` leaves the loop without its thread: the caller drains it
        (tests on a fake clock, the soak on virtual time).
        """
        if self.backend == "sim":
            log.warning(
                "backend: sim — no GPIO hardware; the pins are simulated "
                "(drive them from the page's virtual hub or the API)"
            )
        else:
            log.info("backend: %s", self.backend)
        # The table as the journal left it, read before anything writes a new one.
        table = self.loop.table
        recovered = recover(self.journal_file, self.store, table.timings, self.clock.now())
        if self.backups is not None:
            self.backups.start()
            build.on_stop(self._stops, "the backups", self.backups.stop)
        if threaded:
            # A press must reach the sound thread quickly even while the loop thread
            # finishes the rest of the event: hand the GIL over every 0.5 ms, not 5 ms.
            sys.setswitchinterval(0.0005)
            self.writer.start()  # stops after the loop: the loop may still order writes
            build.on_stop(self._stops, "the store writer", self.writer.stop)
            self.loop.start()
            build.on_stop(self._stops, "the loop", self.loop.stop)
        self._resume(recovered)
        if self.mqtt is not None:
            self.mqtt.start()  # stops before the loop: says "offline" with the table whole
            build.on_stop(self._stops, "the MQTT publisher", self.mqtt.stop)
        if self.link is not None:
            self.link.start()
        # At a stop the subscribers hear "closed" first (a live stream ends).
        build.on_stop(self._stops, "the news", self.broadcaster.close)

    def _resume(self, recovered: Recovered) -> None:
        """The table as recovered, then as the sensors say (the magnets are the truth)."""
        self.loop.restore(recovered.table)
        if self.sim is not None:
            put_back(self.sim, recovered.markers)
        markers = self.inputs.read_markers()
        log_differences(recovered.markers, markers)
        self.loop.post(MarkersRead(markers, self.clock.now()))
        if recovered.resume:
            self.games.resume()
        self.loop.drain()

    def stop(self) -> None:
        """Stop every part in reverse order, each even if one before failed (logged, raised)."""
        self._stops.close()

    def serve(
        self,
        host: str,
        port: int,
        block: bool = True,
        on_listening: Callable[[str, int], None] | None = None,
    ) -> None:
        """Serve the web app (:mod:`hub.http.server`; in this thread when ``block``).
        ``on_listening(host, port)`` runs once the socket listens, before the first
        request (READY is said there)."""
        from hub.http.bind import bind_problem
        from hub.http.server import make_server
        from web import create_app, early_gate

        app = create_app(
            self.web_service(), {"HUB_HOSTS": self.config["web"]["hosts"], "HUB_LISTEN": host}
        )
        try:
            server = make_server(
                app,
                host,
                port,
                self.config["web"]["threads"],
                news=self.broadcaster,
                snapshot=lambda: self.loop.snapshot,
                streams=self.config["web"]["streams"],
                gate=early_gate(app),  # a claim flood is refused before Flask
            )
        except (OSError, ValueError) as exc:  # the host or port: a config error
            raise ConfigError(bind_problem(exc, host, port)) from None
        self._server = server
        build.on_stop(self._stops, "the web server", self.stop_server)
        if on_listening is not None:
            on_listening(host, server.effective_port)
        else:
            log.info(
                "scorepad at http://%s:%s/",
                "localhost" if host == "0.0.0.0" else host,
                server.effective_port,
            )
        if block:
            server.run()
        else:
            self._server_thread = threading.Thread(target=server.run, daemon=True, name="web")
            self._server_thread.start()

    def running_game_id(self) -> int | None:
        """The id of the game on the table, unless it is finished (None: no such game)."""
        game = self.loop.table.running_game
        return None if game is None else game.id

    def _post_input(self, event: Event) -> None:
        """An input edge (pins or hub box): to the self-test while one runs, else the loop."""
        if not self.selftest.take(event):
            self.loop.post(event)

    def web_service(
        self, sleep: Callable[[float], None] | None = None, timers: Later | None = None
    ) -> HubWebService:
        """The hub as the web layer sees it (:class:`web.service.HubService`): the parts
        a request may reach. ``sleep`` and ``timers``: a test's virtual time."""
        from hub.http.adapter import HubWebService, WebParts

        parts = WebParts(
            backend=self.backend,
            default_rules=str(self.config["hub"]["default_rules"]),
            loop=self.loop,
            games=self.games,
            trust=self.trust,
            store=self.store,
            flush=self.writer.flush,
            now=self.clock.now,
            eventlog=self.eventlog,
            settings_now=lambda: dict(self.settings.values),
            apply_settings=self.apply_settings,
            sound_status=self.sound.status,
            selftest=self.selftest,
            sim=self.sim,
        )
        return HubWebService(parts, sleep=sleep, timers=timers)

    def stop_server(self) -> None:
        """End the news, then the server (its live streams first: hub/http/server.py)."""
        self.broadcaster.close()
        if self._server is not None:
            self._server.close()
            self._server = None

    def _state_changed(self, snapshot: dict[str, Any]) -> None:
        """The table changed (loop thread): the ring redraws, adding its pixels to the
        snapshot at once (``set_extra``), then one ``state`` goes out with them."""
        self.lights.table_changed(snapshot)
        self.broadcaster.publish("state", self.loop.snapshot)
