"""The composition root: builds every part from the config, starts them in order and
stops them in reverse (Mopidy's ``_app/server.py`` is the model). The CLI calls it."""

from __future__ import annotations

import logging
import sys
import threading
from collections.abc import Callable
from contextlib import ExitStack
from datetime import datetime
from functools import partial
from pathlib import Path
from typing import TYPE_CHECKING, Any

from hub import build, core, version
from hub.core.events import MarkersRead
from hub.games.changes import Games
from hub.games.limits import WriteLimits
from hub.games.trust import TableTrust
from hub.io.clock import Clock
from hub.io.leds import LedDriver
from hub.io.leds import payload as ring_payload
from hub.io.pinmap import resolve_backend
from hub.io.sound import SoundPlayer
from hub.persist.journal import FILE_NAME, FileJournal, JournalWriter
from hub.persist.replay import Recovered, log_differences, put_back, recover
from hub.persist.storage import DB_NAME, BackupService, check_storage
from hub.persist.store_writer import StoreWriter
from hub.runtime.broadcast import Broadcaster
from hub.runtime.clock import SystemClock
from hub.runtime.config import ConfigError, hotspot_url, portal_url, timings
from hub.runtime.dispatch import EffectDispatcher
from hub.runtime.eventlog import EventLog
from hub.runtime.loop import HubLoop
from hub.runtime.timers import Timers
from scorer.store import GameStore

if TYPE_CHECKING:
    from firmware_bridge.link import SerialLink
    from hub.http.adapter import HubWebService, WebParts
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
        self.timers = Timers()  # one thread for what is due later (a flash's end, a held press)
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
        # start; the parts it calls (the dispatcher, the ring) are wired to it as they are
        # built, straight: a press's path does not pass through here.
        self.loop = HubLoop(
            core.new_table(timings(self.config)), self.clock, self.backend, journal=self.journal
        )
        self.loop.on_state = partial(self.broadcaster.publish, "state")
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
            self.loop.post,
            partial(self.loop.set_extra, "serial"),  # the box came or went (its thread)
            lambda count: ring_payload(self.lights.pixels(count)),
        )
        if self.link is not None:
            build.on_stop(opened, "the serial link", self.link.close)
            self.loop.set_extra("serial", self.link.status())
        self.leds = leds if leds is not None else build.led_driver(self.link)
        self.lights = build.ring_lights(
            self.config, self.leds, self._wall, self.timers, self.loop.refresh
        )
        self.loop.views["ring"] = self.lights.draw  # drawn into each snapshot
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
        # While the self-test runs it takes the input edges, before the loop queues them.
        self.loop.divert = self.selftest.take
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
        self.limits = WriteLimits(self.clock.now)  # what phones may write, how fast
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
        self.loop.dispatch = self.dispatcher
        self.apply_settings({})
        self.mqtt = self._mqtt_publisher(mqtt_link)

    def _inputs(self) -> SerialLink | SlotInputs:
        """The hub box when it is the backend, else the pins (real or simulated)."""
        if self.link is not None and self.backend == "serial":
            return self.link
        clock = self.sim.clock if self.sim and self.sim.clock else self.clock
        return build.slot_inputs(self.config, self.factory, clock, self.loop.post)

    def _wall(self) -> datetime:
        """The hub clock's local wall time (quiet hours are judged by it)."""
        return datetime.fromtimestamp(self.clock.wall())

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
        self.games.hide_stats = bool(values["hide_stats"])
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
        from hub.runtime.settings import check as check_settings

        parts = PublisherParts(
            snapshot=lambda: self.loop.snapshot,
            get_game=self.games.get_game,
            settings_now=lambda: dict(self.settings.values),
            apply_settings=self.apply_settings,
            check_settings=check_settings,
            undo=self.games.undo,
            sim=self.sim,
            on_status=lambda status: self.loop.set_extra("mqtt", status),
            version=version(),
        )
        try:
            mqtt = publisher(self.config, mqtt_settings.settings(self.config), parts, link_factory)
        except ValueError as exc:
            raise ConfigError(str(exc)) from None
        self.broadcaster.callbacks.append(mqtt.offer)
        return mqtt

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
        # At a stop the news ends first: no listener hears of a half-stopped hub.
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

        portal = portal_url(self.config["network"], port)
        hotspot = {"state_dir": self.state_dir, "url": hotspot_url(self.config["network"], port)}
        settings = {"HUB_HOSTS": self.config["web"]["hosts"], "HUB_LISTEN": host}
        settings |= {"HUB_PORTAL": portal, "HUB_HOTSPOT": hotspot}
        app = create_app(self.web_service(), settings)
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

    def web_service(self) -> HubWebService:
        """The hub as the web layer sees it (:class:`web.service.HubService`)."""
        from hub.http.adapter import HubWebService

        return HubWebService(self.web_parts(), timers=self.timers)

    def web_parts(self) -> WebParts:
        """The parts a request may reach (a test hands them to a web service on its
        virtual time)."""
        from hub.http.adapter import WebParts

        return WebParts(
            backend=self.backend,
            default_rules=str(self.config["hub"]["default_rules"]),
            loop=self.loop,
            games=self.games,
            limits=self.limits,
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
            check_players=self.voice.check_players,
        )

    def stop_serving_soon(self) -> bool:
        """From a signal handler: end :meth:`serve`'s loop once it is between callbacks
        (:meth:`hub.http.server.WebServer.stop_soon`); False when it is not serving here."""
        return self._server is not None and self._server.stop_soon()

    def stop_server(self) -> None:
        """End the news, then the server (its live streams first: hub/http/server.py)."""
        self.broadcaster.close()
        if self._server is not None:
            self._server.close()
            self._server = None
