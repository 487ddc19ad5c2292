"""The composition root: builds every part from the config, starts them in order and
stops them in reverse (Mopidy's ``_app/server.py`` is the model). The CLI calls it.
"""

from __future__ import annotations

import gc
import logging
import sys
import threading
from collections.abc import Callable
from datetime import datetime
from pathlib import Path
from typing import TYPE_CHECKING, Any

from hub import core
from hub.core.events import Event, MarkersRead
from hub.games.changes import Games
from hub.games.trust import TableTrust
from hub.io.leds import LedDriver, NoRing, SerialLeds
from hub.io.leds import payload as ring_payload
from hub.io.lights import RingLights
from hub.io.sound import DisabledPlayer, SoundPlayer, SoundPolicy, parse_quiet_hours
from hub.persist.journal import FILE_NAME, FileJournal, JournalWriter
from hub.persist.replay import log_differences, put_back, recover
from hub.persist.storage import DB_NAME, BackupService, check_storage
from hub.persist.store_writer import StoreWriter
from hub.runtime.broadcast import Broadcaster
from hub.runtime.clock import Clock, SystemClock
from hub.runtime.config import ConfigError, timings
from hub.runtime.dispatch import EffectDispatcher
from hub.runtime.eventlog import EventLog
from hub.runtime.loop import HubLoop
from hub.runtime.settings import Settings
from hub.selftest.session import SelftestSession
from hub.selftest.walkthrough import Wiring
from scorer.store import GameStore

if TYPE_CHECKING:
    from firmware_bridge.link import SerialLink
    from hub.http.adapter import HubWebService
    from hub.io.pins import SimPins, SlotInputs
    from hub.mqtt.publisher import MqttPublisher

log = logging.getLogger("hub")


def resolve_backend(configured: str) -> str:
    """``auto`` means ``gpio`` on a Raspberry Pi and ``sim`` anywhere else."""
    if configured != "auto":
        return configured
    from hub.io.pins import is_raspberry_pi

    return "gpio" if is_raspberry_pi() else "sim"


def settle_heap() -> None:
    """Once the hub is up (``mtrain-hub run``, before the first request): collect what
    starting it left behind, then exempt every object still alive from the cyclic
    collector (``gc.freeze``). Those ~40,000 start-up objects (modules, classes, the
    web app) live as long as the process; without this, each full collection walks them
    all on whichever thread allocates, the loop's included: 12 ms on a PC at start,
    several times that on a Pi Zero, in the middle of a press. Collections then see only
    what the hub made since."""
    gc.collect()
    gc.freeze()


class Hub:
    """Everything the hub is, wired together. Pass fakes in to test any part alone;
    ``sound_options`` go to the ALSA player (a fake ``open_device``, ``retry_s``, hooks);
    ``mqtt_link`` builds the broker link (tests pass the fake; default: paho).
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
        # The pins adapter (gpiozero) is loaded only by a backend that reads pins: a
        # ``serial`` hub's inputs come from its box (docs/performance.md, "The Pi budget").
        self.factory = pin_factory or (None if self.backend == "serial" else self._pin_factory())
        self.state_dir = Path(config["hub"]["state_dir"])
        self.eventlog = EventLog(self.clock)
        self.broadcaster = Broadcaster()
        # Damaged, emptied or missing storage stops the hub here (StorageProblem).
        self.backups = (
            BackupService(check_storage(self.state_dir), self.state_dir / DB_NAME)
            if store is None
            else None
        )
        self.settings = self._open_settings()
        self._loop_ready = False
        self._sound_options = sound_options or {}
        self.policy = self._sound_policy()
        self.sound = sound if sound is not None else self._sound_player()
        self.link = self._serial_link()  # the hub box's microcontroller, if any
        self.leds = (
            leds
            if leds is not None
            else (SerialLeds(self.link) if self.link is not None else NoRing())
        )
        self.lights = self._ring_lights()
        self.store = store if store is not None else self._open_store()
        self.writer = StoreWriter()  # SQLite writes the loop orders run on its thread
        # The table's journal: read here at start, closed here at stop; fsyncs only on a
        # real clock (not tests, the soak). The loop hands it its events through the writer.
        self.journal_file = FileJournal(self.state_dir / FILE_NAME, durable=not self.clock.virtual)
        self.journal = JournalWriter(self.journal_file, self.writer)
        self.trust = TableTrust(self)  # claims at the table and table tokens
        self.dispatcher = EffectDispatcher(
            self.sound, self.lights, self.eventlog, self.broadcaster, self.policy
        )
        self.dispatcher.on_claim = self.trust.answered
        self.loop = HubLoop(
            core.new_table(timings(config)),
            self.clock,
            self.dispatcher,
            self.backend,
            on_state=self._state_changed,
            journal=self.journal,
        )
        self._loop_ready = True
        self.games = Games(
            self.store,
            self.writer,
            self.loop,
            self.clock,
            self.broadcaster,
            self.eventlog,
            self.backups,
        )
        self.dispatcher.on_round_ended = self.games.round_ended
        self.loop.set_extra("sound", self.sound.status())
        if self.link is not None:
            self.loop.set_extra("serial", self.link.status())
        self.apply_settings({})
        self.selftest = self._selftest_session()  # before the inputs: it may take their edges
        self.inputs = self._inputs()
        self.sim = self._sim_pins() if self.backend == "sim" else None
        self.mqtt = self._mqtt_publisher(mqtt_link)
        self._server: Any = None  # waitress's server (untyped)
        self._server_thread: threading.Thread | None = None

    def _pin_factory(self) -> Any:
        """gpiozero's pin factory for the ``sim`` or ``gpio`` backend."""
        from hub.io.pins import NoPins, make_factory

        try:
            return make_factory(self.backend)
        except NoPins as exc:  # it names the cause: lgpio, the chip, the working directory
            raise ConfigError(f"hub.backend: {self.backend}: {exc}") from None

    def _sim_pins(self) -> SimPins:
        from hub.io.pins import SimPins

        return SimPins(self.factory, *self._pins())

    def _pins(self) -> tuple[Any, Any, Any]:
        """The configured pins: (buttons, markers, centre)."""
        pins = self.config["pins"]
        return pins["buttons"], pins["markers"], pins["centre"]

    def _inputs(self) -> SerialLink | SlotInputs:
        """The hub box when it is the backend, else the pins (real or simulated)."""
        if self.link is not None and self.backend == "serial":
            return self.link
        from hub.io.pins import SlotInputs

        buttons, markers, centre = self._pins()
        return SlotInputs(
            self.factory, buttons, markers, self.clock, self._post_input, centre_pin=centre
        )

    def _ring_lights(self) -> RingLights:
        """The ring drawn from each snapshot, dimmed in ``[sound] quiet_hours``."""
        cfg = self.config
        hours = cfg["sound"]["quiet_hours"]
        return RingLights(
            self.leds,
            pixels=cfg["leds"]["pixels"],
            brightness=cfg["leds"]["brightness"],
            quiet_hours=parse_quiet_hours(hours) if hours else None,
            wall=lambda: datetime.fromtimestamp(self.clock.wall()),
            publish=self._publish_ring,
        )

    def _sound_policy(self) -> SoundPolicy:
        """Whether a sound plays: quiet mode and turn chime from the settings, quiet
        hours from ``[sound]``, judged by the hub's wall clock."""
        cfg, clock = self.config["sound"], self.clock
        hours = parse_quiet_hours(cfg["quiet_hours"]) if cfg["quiet_hours"] else None
        return SoundPolicy(
            quiet=self.settings.values["quiet"],
            turn_chime=self.settings.values["turn_chime"],
            quiet_hours=hours,
            quiet_hours_mode=cfg["quiet_hours_mode"],
            clock=lambda: datetime.fromtimestamp(clock.wall()),
        )

    def _sound_player(self) -> SoundPlayer:
        """The ALSA player from ``[sound]``, or a silent one when sound is disabled."""
        cfg = self.config["sound"]
        if not cfg["enabled"]:
            return DisabledPlayer("sound is disabled in the config ([sound] enabled = false)")
        from hub.io.alsa_player import AlsaPlayer

        player = AlsaPlayer(
            device=cfg["device"],
            volume=self.settings.values["volume"],
            on_status_change=self._sound_status,
            **self._sound_options,
        )
        player.wait_ready(2.0)
        return player

    def _sound_status(self, status: dict[str, Any]) -> None:
        if self._loop_ready:
            self.loop.set_extra("sound", status)

    def apply_settings(self, changes: dict[str, Any]) -> dict[str, Any]:
        """Check, save and apply a settings change (``{}`` re-applies what is saved)."""
        values = self.settings.update(changes) if changes else dict(self.settings.values)
        self.sound.set_volume(float(values["volume"]))
        self.policy.set_quiet(values["quiet"])
        self.policy.turn_chime = values["turn_chime"]
        self.lights.set_brightness(float(values["brightness"]))
        self.broadcaster.publish("settings", dict(values))
        return values

    def _mqtt_publisher(self, link_factory: Any = None) -> MqttPublisher | None:
        """The MQTT publisher when the config names a broker (else None: MQTT is off)."""
        from hub.mqtt import settings as mqtt_settings

        if not mqtt_settings.enabled(self.config):
            self.loop.set_extra("mqtt", {"enabled": False, "connected": False, "dropped": 0})
            return None
        from hub.mqtt.build import publisher

        try:
            mqtt = publisher(self, mqtt_settings.settings(self.config), link_factory)
        except ValueError as exc:
            raise ConfigError(str(exc)) from None
        self.broadcaster.callbacks.append(mqtt.offer)
        return mqtt

    def _publish_ring(self, ring: dict[str, object]) -> None:
        if self._loop_ready:
            self.loop.set_extra("ring", ring)

    def _serial_link(self) -> SerialLink | None:
        """The serial link when ``--backend serial`` or ``[serial] port`` names a hub box
        (then its ring shows the lights, whatever the inputs are); else None."""
        cfg = self.config["serial"]
        if self.backend != "serial" and not cfg["port"]:
            return None
        from firmware_bridge.link import SerialLink

        def status(value: dict[str, Any]) -> None:
            if self._loop_ready:
                self.loop.set_extra("serial", value)
                self.lights.connection_changed()

        return SerialLink(
            cfg["port"],
            cfg["baud"],
            self.clock.now,
            lambda event: self._post_input(event),
            inputs=self.backend == "serial",
            on_status=status,
            leds=lambda count: ring_payload(self.lights.pixels(count)),
        )

    def _open_settings(self) -> Settings:
        """The saved settings, defaulting to ``[sound]`` and ``[leds]``."""
        cfg = self.config
        return Settings(
            self.state_dir / "settings.json",
            {
                "volume": cfg["sound"]["volume"],
                "quiet": cfg["sound"]["quiet"],
                "turn_chime": True,
                "brightness": cfg["leds"]["brightness"],
            },
        )

    def _open_store(self) -> GameStore:
        return GameStore(self.state_dir / "games.db")

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
        recovered = recover(
            self.journal_file, self.store, self.loop.table.timings, self.clock.now()
        )
        if threaded:
            # A press must reach the sound thread quickly even while the loop thread
            # finishes the rest of the event: hand the GIL over every 0.5 ms, not 5 ms.
            sys.setswitchinterval(0.0005)
            self.writer.start()
            self.loop.start()
        if self.backups is not None:
            self.backups.start()
        self.loop.restore(recovered.table)
        if self.sim is not None:
            put_back(self.sim, recovered.markers)
        markers = self.inputs.read_markers()
        log_differences(recovered.markers, markers)  # the magnets are the truth
        self.loop.post(MarkersRead(markers, self.clock.now()))
        if recovered.resume:
            self.games.resume()
        self.loop.drain()
        if self.mqtt is not None:
            self.mqtt.start()
        if self.link is not None:
            self.link.start()

    def stop(self) -> None:
        """Stop in reverse order; each step runs even if an earlier one failed."""
        try:
            self.stop_server()
        finally:
            try:
                if self.mqtt is not None:
                    self.mqtt.stop()  # says "offline" while the table is still whole
            finally:
                self._stop_loop_and_devices()

    def _stop_loop_and_devices(self) -> None:
        try:
            self.loop.stop()
        finally:
            try:
                self.writer.stop()  # after the loop: it may still order writes
                self.journal_file.close()
                self.inputs.close()
                if self.link is not None and self.link is not self.inputs:
                    self.link.close()
            finally:
                try:
                    self.sound.close()
                finally:
                    try:
                        if self.backups is not None:
                            self.backups.stop()
                    finally:
                        self.store.close()

    def serve(
        self,
        host: str,
        port: int,
        block: bool = True,
        on_listening: Callable[[str, int], None] | None = None,
    ) -> None:
        """Serve the web app with waitress (in this thread when ``block``).

        ``on_listening(host, port)`` runs once the socket listens, before the first
        request is served (the service says READY there); without it a line is logged.
        """
        from hub.http.bind import bind_problem
        from hub.http.server import make_server
        from web import create_app

        app = create_app(self.web_service(), {"HUB_HOSTS": self.config["web"]["hosts"]})
        try:
            self._server = make_server(
                app,
                host,
                port,
                self.config["web"]["threads"],
                news=self.broadcaster,
                snapshot=lambda: self.loop.snapshot,
                streams=self.config["web"]["streams"],
                ident="mtrain-hub",
            )
        except (OSError, ValueError) as exc:  # the host or port: a config error
            raise ConfigError(bind_problem(exc, host, port)) from None
        if on_listening is not None:
            on_listening(host, self._server.effective_port)
        else:
            log.info(
                "scorepad at http://%s:%s/",
                "localhost" if host == "0.0.0.0" else host,
                self._server.effective_port,
            )
        if block:
            self._server.run()
        else:
            self._server_thread = threading.Thread(target=self._server.run, daemon=True, name="web")
            self._server_thread.start()

    def _selftest_session(self) -> SelftestSession:
        """The page's self-test (hub/selftest/session.py): it borrows the inputs, the
        ring and the speaker while it runs."""
        wiring = Wiring(
            self.backend,
            self.config["pins"],
            self.config["sound"]["device"],
            self.config["leds"]["pixels"],
        )
        return SelftestSession(
            wiring,
            show=self.lights.override,
            play=self.sound.play,
            running_game=self.running_game_id,
            reread_markers=lambda: self.loop.post(
                MarkersRead(self.inputs.read_markers(), self.clock.now())
            ),
        )

    def running_game_id(self) -> int | None:
        """The id of the game on the table, unless it is finished (None: no such game)."""
        game = self.loop.table.running_game
        return None if game is None else game.id

    def _post_input(self, event: Event) -> None:
        """An input edge (pins or hub box): to the self-test while one runs, else the loop."""
        if not self.selftest.take(event):
            self.loop.post(event)

    def web_service(self) -> HubWebService:
        """The hub as the web layer sees it (:class:`web.service.HubService`)."""
        from hub.http.adapter import HubWebService

        return HubWebService(self)

    def stop_server(self) -> None:
        """End the live streams, then close the web server if it runs (no stream holds a
        request thread: they are closed on their own thread, see hub/http/streams.py)."""
        self.broadcaster.close()
        if self._server is not None:
            self._server.close()
            self._server = None

    def _state_changed(self, snapshot: dict[str, Any]) -> None:
        """The table changed (loop thread): the ring redraws, adding its pixels to the
        snapshot at once (``set_extra``), then one ``state`` goes out with them."""
        self.lights.table_changed(snapshot)
        self.broadcaster.publish("state", self.loop.snapshot)
