"""The composition root: builds every part from the config, starts them in order and
stops them in reverse (Mopidy's ``_app/server.py`` is the model). The CLI calls it.
"""

from __future__ import annotations

import logging
import sys
import threading
from collections.abc import Callable, Mapping, Sequence
from datetime import datetime
from pathlib import Path
from typing import TYPE_CHECKING, Any

from hub import core
from hub.broadcast import Broadcaster
from hub.clock import Clock, SystemClock
from hub.config import ConfigError, timings
from hub.core.effects import RoundEnded, RoundReopened
from hub.core.events import (
    DoubleFixed,
    EngineSet,
    Event,
    GameEnded,
    GameResumed,
    GameStarted,
    MarkersRead,
    PublicFixed,
    RoundBlocked,
    RoundScored,
    TurnFixed,
    UndoRequested,
)
from hub.core.turns import PLAYING
from hub.core.undo import fix_error
from hub.dispatch import EffectDispatcher
from hub.eventlog import EventLog
from hub.io.leds import RecordingLeds, SerialLeds
from hub.io.leds import payload as ring_payload
from hub.io.lights import RingLights
from hub.io.pins import SimPins, SlotInputs, is_raspberry_pi, make_factory
from hub.io.sound import DisabledPlayer, SoundPlayer, SoundPolicy, parse_quiet_hours
from hub.loop import HubLoop
from hub.selftest import Wiring
from hub.selftest_session import SelftestSession
from hub.settings import Settings
from hub.storage import DB_NAME, BackupService, check_storage
from hub.store_writer import StoreWriter
from hub.trust import TableTrust
from scorer.games import KEEP, WentOut
from scorer.setup import GameSetup
from scorer.store import GameStore, new_token

if TYPE_CHECKING:
    from firmware_bridge.link import SerialLink
    from hub.broker.publisher import MqttPublisher
    from hub.service import HubWebService

log = logging.getLogger("hub")


def resolve_backend(configured: str) -> str:
    """``auto`` means ``gpio`` on a Raspberry Pi and ``sim`` anywhere else."""
    if configured != "auto":
        return configured
    return "gpio" if is_raspberry_pi() else "sim"


class Hub:
    """Everything the hub is, wired together. Pass fakes in to test any part alone;
    ``sound_options`` go to the ALSA player (a fake ``open_device``, ``retry_s``, hooks);
    ``mqtt_link`` builds the broker link (tests pass the fake; default: paho).
    """

    def __init__(self, config: dict[str, Any], *, clock: Clock | None = None,
                 pin_factory: Any = None, sound: SoundPlayer | None = None,
                 leds: RecordingLeds | None = None, store: GameStore | None = None,
                 sound_options: dict[str, Any] | None = None, mqtt_link: Any = None) -> None:
        self.config = config
        self.backend = resolve_backend(config["hub"]["backend"])
        self.clock = clock or SystemClock()
        try:
            self.factory = pin_factory or make_factory(
                "sim" if self.backend == "serial" else self.backend)  # serial: no pins used
        except Exception as exc:  # gpiozero's BadPinFactory and friends: not a Pi
            raise ConfigError(f"hub.backend: {self.backend}: no GPIO pins here ({exc}); "
                              "use --backend sim off a Raspberry Pi") from None
        self.state_dir = Path(config["hub"]["state_dir"])
        self.eventlog = EventLog(self.clock)
        self.broadcaster = Broadcaster()
        # Damaged, emptied or missing storage stops the hub here (StorageProblem).
        self.backups = (BackupService(check_storage(self.state_dir), self.state_dir / DB_NAME)
                        if store is None else None)
        self.settings = Settings(self.state_dir / "settings.json", {
            "volume": config["sound"]["volume"], "quiet": config["sound"]["quiet"],
            "turn_chime": True, "brightness": config["leds"]["brightness"]})
        self._loop_ready = False
        self._sound_options = sound_options or {}
        self.policy = self._sound_policy()
        self.sound = sound if sound is not None else self._sound_player()
        self.link = self._serial_link()  # the hub box's microcontroller, if any
        self.leds = leds if leds is not None else (
            SerialLeds(self.link) if self.link is not None else RecordingLeds())
        self.lights = RingLights(
            self.leds, pixels=config["leds"]["pixels"], brightness=config["leds"]["brightness"],
            quiet_hours=parse_quiet_hours(config["sound"]["quiet_hours"])
            if config["sound"]["quiet_hours"] else None,
            wall=lambda: datetime.fromtimestamp(self.clock.wall()),
            publish=self._publish_ring)
        self.store = store if store is not None else self._open_store()
        self.writer = StoreWriter()  # SQLite writes the loop orders run on its thread
        self.trust = TableTrust(self)  # claims at the table and table tokens
        self.dispatcher = EffectDispatcher(self.sound, self.lights, self.eventlog,
                                           self.broadcaster, self.policy, self._round_ended)
        self.dispatcher.on_claim = self.trust.answered
        self.loop = HubLoop(core.new_table(timings(config)), self.clock, self.dispatcher,
                            self.backend, on_state=self._state_changed)
        self._loop_ready = True
        self.loop.set_extra("sound", self.sound.status())
        self.apply_settings({})
        pins = config["pins"]
        self.selftest = self._selftest_session()  # before the inputs: it may take their edges
        self.inputs: SerialLink | SlotInputs = (
            self.link if self.link is not None and self.backend == "serial" else SlotInputs(
                self.factory, pins["buttons"], pins["markers"], self.clock, self._post_input,
                centre_pin=pins["centre"]))
        if self.link is not None:
            self.loop.set_extra("serial", self.link.status())
        self.sim = (SimPins(self.factory, pins["buttons"], pins["markers"], pins["centre"])
                    if self.backend == "sim" else None)
        self.mqtt = self._mqtt_publisher(mqtt_link)
        self._server: Any = None  # waitress's server (untyped)
        self._server_thread: threading.Thread | None = None
        # Keeps the table in step with the store when score requests race each other.
        self._rounds_lock = threading.Lock()

    def _sound_policy(self) -> SoundPolicy:
        """Whether a sound plays: quiet mode and turn chime from the settings, quiet
        hours from ``[sound]``, judged by the hub's wall clock."""
        cfg, clock = self.config["sound"], self.clock
        hours = parse_quiet_hours(cfg["quiet_hours"]) if cfg["quiet_hours"] else None
        return SoundPolicy(quiet=self.settings.values["quiet"],
                           turn_chime=self.settings.values["turn_chime"], quiet_hours=hours,
                           quiet_hours_mode=cfg["quiet_hours_mode"],
                           clock=lambda: datetime.fromtimestamp(clock.wall()))

    def _sound_player(self) -> SoundPlayer:
        """The ALSA player from ``[sound]``, or a silent one when sound is disabled."""
        cfg = self.config["sound"]
        if not cfg["enabled"]:
            return DisabledPlayer("sound is disabled in the config ([sound] enabled = false)")
        from hub.io.alsa_player import AlsaPlayer

        player = AlsaPlayer(device=cfg["device"], volume=self.settings.values["volume"],
                            on_status_change=self._sound_status, **self._sound_options)
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
        from hub.broker import settings as mqtt_settings

        if not mqtt_settings.enabled(self.config):
            self.loop.set_extra("mqtt", {"enabled": False, "connected": False, "dropped": 0})
            return None
        from hub.broker.build import publisher

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

        return SerialLink(cfg["port"], cfg["baud"], self.clock.now,
                          lambda event: self._post_input(event),
                          inputs=self.backend == "serial", on_status=status,
                          leds=lambda count: ring_payload(self.lights.pixels(count)))

    def _open_store(self) -> GameStore:
        return GameStore(self.state_dir / "games.db")

    # --- lifecycle -------------------------------------------------------------------

    def start(self, threaded: bool = True) -> None:
        """Start the loop, read the sensors, and resume an unfinished game.

        ``threaded=False`` leaves the loop without its thread: the caller drains it
        (tests on a fake clock, the soak on virtual time).
        """
        if self.backend == "sim":
            log.warning("backend: sim — no GPIO hardware; the pins are simulated "
                        "(drive them from the page's virtual hub or the API)")
        else:
            log.info("backend: %s", self.backend)
        if threaded:
            # A press must reach the sound thread quickly even while the loop thread
            # finishes the rest of the event: hand the GIL over every 0.5 ms, not 5 ms.
            sys.setswitchinterval(0.0005)
            self.writer.start()
            self.loop.start()
        if self.backups is not None:
            self.backups.start()
        self.loop.post(MarkersRead(self.inputs.read_markers(), self.clock.now()))
        self._resume()
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

    def serve(self, host: str, port: int, block: bool = True,
              on_listening: Callable[[str, int], None] | None = None) -> None:
        """Serve the web app with waitress (in this thread when ``block``).

        ``on_listening(host, port)`` runs once the socket listens, before the first
        request is served (the service says READY there); without it a line is logged.
        """
        from hub.listen import bind_problem
        from hub.webserver import make_server
        from web import create_app

        app = create_app(self.web_service())
        try:
            self._server = make_server(app, host, port, self.config["web"]["threads"],
                                       news=self.broadcaster, snapshot=lambda: self.loop.snapshot,
                                       streams=self.config["web"]["streams"], ident="mtrain-hub")
        except (OSError, ValueError) as exc:  # the host or port: a config error
            raise ConfigError(bind_problem(exc, host, port)) from None
        if on_listening is not None:
            on_listening(host, self._server.effective_port)
        else:
            log.info("scorepad at http://%s:%s/",
                     "localhost" if host == "0.0.0.0" else host, self._server.effective_port)
        if block:
            self._server.run()
        else:
            self._server_thread = threading.Thread(target=self._server.run, daemon=True,
                                                   name="web")
            self._server_thread.start()

    def _selftest_session(self) -> SelftestSession:
        """The page's self-test (hub/selftest_session.py): it borrows the inputs, the
        ring and the speaker while it runs."""
        wiring = Wiring(self.backend, self.config["pins"], self.config["sound"]["device"],
                        self.config["leds"]["pixels"])
        return SelftestSession(
            wiring, show=self.lights.override, play=self.sound.play,
            running_game=lambda: self.web_service().running_game(),
            reread_markers=lambda: self.loop.post(
                MarkersRead(self.inputs.read_markers(), self.clock.now())))

    def _post_input(self, event: Event) -> None:
        """An input edge (pins or hub box): to the self-test while one runs, else the loop."""
        if not self.selftest.take(event):
            self.loop.post(event)

    def web_service(self) -> HubWebService:
        """The hub as the web layer sees it (:class:`web.service.HubService`)."""
        from hub.service import HubWebService

        return HubWebService(self)

    def stop_server(self) -> None:
        """End the live streams, then close the web server if it runs (waitress waits
        up to 5 s for request threads; an open SSE stream would hold it that long)."""
        self.broadcaster.close()
        if self._server is not None:
            self._server.close()
            self._server = None

    # --- games ---------------------------------------------------------------------

    def new_game(self, setup: GameSetup, replaces: int | None = None) -> tuple[int, str]:
        """Store a new game and start its round 1 on the table; returns (id, token).
        ``replaces``: the unfinished game it replaces, marked abandoned."""
        token = new_token()
        game_id = self.store.create_game(setup, token=token, replaces=replaces)
        self.loop.submit(GameStarted(
            game_id=game_id, rules=setup.rules, players=setup.players, seats=setup.seats,
            mexican_slot=setup.mexican_slot, set_max=setup.set_max, rounds=setup.rounds,
            at=self.clock.now(), first=setup.first, options=setup.options)).result(5.0)
        return game_id, token

    def round_scored(self, game: dict[str, Any]) -> None:
        """A score change was stored: tell phones, and start the next round on the table.

        The store is read again under a lock, so racing requests can neither advance
        the table twice nor publish an older game after a newer one.
        """
        with self._rounds_lock:
            stored = self.store.get_game(game["id"])
            table = self.loop.table
            if (table.game is not None and table.game.id == stored["id"]
                    and table.game.phase != "finished"):
                for _ in range(stored["round"] - table.game.round):
                    self.loop.post(RoundScored(self.clock.now(), engine=stored["engine"]))
                if stored["finished"]:  # the last round scored, or ended early
                    last = stored["round_count"] == table.game.rounds
                    now = self.clock.now()
                    self.loop.post(RoundScored(now) if last else GameEnded(now))
                self.loop.drain()
            self.broadcaster.publish("game", stored)
        if stored["finished"]:
            self._backup(f"game{stored['id']}")

    def score_round(self, game_id: int, round: int, *,
                    points: Mapping[str, int] | None = None,
                    tiles: Mapping[str, Sequence[str]] | None = None,
                    went_out: WentOut = KEEP, by: str = "scorekeeper",
                    based_on: int | None = None) -> dict[str, Any]:
        """Record (or correct) a round's scores; the table follows. Returns the game.
        ``based_on``: the game's version the editor saw (``StaleEdit`` if it moved on).

        Raises the store's ``StoreError`` (``GameNotFound``) and then changes nothing.
        """
        self.writer.flush()  # a round the table just ended is in the store first
        game = self.store.record_round(game_id, round, points, tiles=tiles,
                                       went_out=went_out, by=by, based_on=based_on)
        scored = next(r for r in game["rounds"] if r["round"] == round)
        self._log("score", game=game_id, round=round, points=scored["points"],
                  went_out=scored["went_out"], by=by)
        self.round_scored(game)
        return game

    def block_round(self, game_id: int, round: int) -> dict[str, Any]:
        """Nobody can play: end ``round`` as blocked (on the table too, if it is being
        played there). Returns the game; raises the store's ``StoreError``."""
        self.writer.flush()
        with self._rounds_lock:
            self.store.get_game(game_id)  # GameNotFound before touching the table
            table = self.loop.table
            if (table.game is not None and table.game.id == game_id
                    and table.game.round == round and table.game.phase in PLAYING):
                # The loop ends the round; its RoundEnded effect records it (_round_ended).
                self.loop.submit(RoundBlocked(self.clock.now())).result(5.0)
                self.writer.flush()
            game = self.store.get_game(game_id)
            if not any(r["round"] == round and r["blocked"] for r in game["rounds"]):
                game = self.store.set_blocked(game_id, round)
            self._log("blocked", game=game_id, round=round)
            self.broadcaster.publish("game", game)
        return game

    def end_game(self, game_id: int) -> dict[str, Any]:
        """Stop a game early (after its last scored round); the table shows it finished."""
        self.writer.flush()
        with self._rounds_lock:
            game = self.store.finish_game(game_id)
            table = self.loop.table
            if table.game is not None and table.game.id == game_id:
                self.loop.submit(GameEnded(self.clock.now())).result(5.0)
            self._log("game-ended", game=game_id, winner=game["winner"])
            self.broadcaster.publish("game", game)
        self._backup(f"game{game_id}")
        return game

    def _backup(self, reason: str) -> None:
        """A game finished: back the database up, on the backup thread."""
        if self.backups is not None:
            self.backups.request(reason)

    def _log(self, kind: str, **fields: Any) -> None:
        """A score edit for ``GET /api/log`` and the ``event`` subscribers (MQTT)."""
        self.broadcaster.publish("event", self.eventlog.append(kind, **fields))

    def bring_back(self, game_id: int, replaces: int | None = None) -> dict[str, Any]:
        """Put an abandoned game back on the table; ``replaces``, the unfinished game
        there, is abandoned instead. Returns the game; raises the store's errors."""
        self.writer.flush()
        with self._rounds_lock:
            game = self.store.bring_back(game_id, replaces)
            self._resume(game)
            self.loop.drain()
            self._log("game-back", game=game_id, replaces=replaces)
            self.broadcaster.publish("game", game)
        return game

    def _resume(self, game: dict[str, Any] | None = None) -> None:
        game = game or self.store.current_game()
        if game is None:
            return
        current = game["rounds"][-1] if game["rounds"] else None
        over = bool(current and (current.get("went_out") or current.get("blocked")))
        options = tuple(sorted((game.get("options") or {}).items()))
        self.loop.post(GameResumed(
            game_id=game["id"], rules=game["rules"], players=tuple(game["players"]),
            seats=tuple(game["seats"]), mexican_slot=game["mexican_slot"],
            set_max=game["set"], rounds=game["round_count"], round=game["round"],
            at=self.clock.now(), first=game["first"], options=options, round_over=over,
            engine=current["engine"] if current else None))
        log.info("resumed game %s at round %s", game["id"], game["round"])

    # --- putting mistakes right -------------------------------------------------------

    def undo(self, by: str = "scorekeeper") -> dict[str, Any]:
        """Take back the last table action (as the centre's long hold does); returns
        the snapshot after it (an undo with nothing to take back plays ``nope``)."""
        self.loop.post(UndoRequested(self.clock.now(), by))
        self.loop.drain()
        self.writer.flush()  # a reopened round is out of the store before we answer
        return self.loop.snapshot

    def fix_table(self, fix: TurnFixed | DoubleFixed | PublicFixed) -> dict[str, Any]:
        """Set the table right by hand; raises ``ValueError`` saying why it cannot be
        done now (and then changes nothing). Returns the snapshot after it."""
        error = self.loop.call(lambda table: fix_error(table, fix))
        if error is not None:
            raise ValueError(str(error))
        self.loop.post(fix)
        self.loop.drain()
        return self.loop.snapshot

    def set_engine(self, game_id: int, round: int, engine: int,
                   by: str = "scorekeeper") -> dict[str, Any]:
        """Name round ``round``'s engine (``aces``); the table follows when it plays that
        round. Returns the game; raises the store's ``StoreError``."""
        with self._rounds_lock:
            game = self.store.set_engine(game_id, round, engine)
            table = self.loop.table
            if (table.game is not None and table.game.id == game_id
                    and table.game.round == round):
                self.loop.post(EngineSet(engine, self.clock.now(), by))
                self.loop.drain()
            self.broadcaster.publish("game", game)
        return game

    def _round_ended(self, effect: RoundEnded | RoundReopened) -> None:
        """The table ended (or an undo reopened) a round: record it on the writer
        thread, never the loop's."""
        self.writer.submit(lambda: self._record_round_end(effect))

    def _record_round_end(self, effect: RoundEnded | RoundReopened) -> None:
        if isinstance(effect, RoundReopened):
            game = self.store.reopen_round(effect.game_id, effect.round)
        elif effect.went_out is not None:
            game = self.store.set_went_out(effect.game_id, effect.round, effect.went_out)
        else:
            game = self.store.set_blocked(effect.game_id, effect.round)
        self.broadcaster.publish("game", game)  # phones ask for the hands

    def _state_changed(self, snapshot: dict[str, Any]) -> None:
        """The table changed (loop thread): the ring redraws, adding its pixels to the
        snapshot at once (``set_extra``), then one ``state`` goes out with them."""
        self.lights.table_changed(snapshot)
        self.broadcaster.publish("state", self.loop.snapshot)
