"""Each part of the hub built from the config: the composition root's helpers.

:class:`hub.app.Hub` calls these in order and owns (starts, stops) what they return.
Each takes the config and the few callables its part needs, never the hub.
"""

from __future__ import annotations

import logging
from collections.abc import Callable
from contextlib import ExitStack
from datetime import datetime, time
from pathlib import Path
from typing import TYPE_CHECKING, Any

from hub.core.events import Event
from hub.io.clock import Clock
from hub.io.leds import LedDriver
from hub.io.lights import RingLights, Scheduler
from hub.io.sound import (
    SOUND_NAMES,
    DisabledPlayer,
    SoundPlayer,
    SoundPolicy,
    parse_quiet_hours,
)
from hub.runtime.config import ConfigError
from hub.runtime.settings import Settings
from hub.selftest.session import SelftestSession
from hub.selftest.steps import Wiring

if TYPE_CHECKING:
    from firmware_bridge.link import SerialLink
    from hub.io.pins import SimPins, SlotInputs
    from hub.voice.speaker import Announcer
    from scorer.store import GameStore

log = logging.getLogger("hub")

Status = Callable[[dict[str, Any]], None]


def pin_factory(backend: str) -> Any:
    """gpiozero's pin factory for the ``sim`` or ``gpio`` backend."""
    from hub.io.pins import NoPins, make_factory  # gpiozero: only for a backend with pins

    try:
        return make_factory(backend)
    except NoPins as exc:  # it names the cause: lgpio, the chip, the working directory
        raise ConfigError(f"hub.backend: {backend}: {exc}") from None


def pins(config: dict[str, Any]) -> tuple[Any, Any, Any]:
    """The configured pins: (buttons, markers, centre)."""
    p = config["pins"]
    return p["buttons"], p["markers"], p["centre"]


def sim_pins(config: dict[str, Any], backend: str, factory: Any, clock: Clock) -> SimPins | None:
    """The ``sim`` backend's simulated fingers and magnets on ``factory``'s pins (None
    for another backend); its ``clock`` (a :class:`hub.io.pins.FingerClock` on
    ``clock``) is the inputs' clock."""
    if backend != "sim":
        return None
    from hub.io.pins import FingerClock, SimPins

    return SimPins(factory, *pins(config), clock=FingerClock(clock))


def slot_inputs(
    config: dict[str, Any], factory: Any, clock: Clock, post: Callable[[Event], None]
) -> SlotInputs:
    """The slots' buttons and markers and the centre button on ``factory``'s pins."""
    from hub.io.pins import SlotInputs

    buttons, markers, centre = pins(config)
    return SlotInputs(factory, buttons, markers, clock, post, centre_pin=centre)


def open_settings(config: dict[str, Any], state_dir: Path) -> Settings:
    """The saved settings, defaulting to ``[sound]`` and ``[leds]`` (the players'
    privacy: remembered, statistics open to every phone)."""
    return Settings(
        state_dir / "settings.json",
        {
            "volume": config["sound"]["volume"],
            "quiet": config["sound"]["quiet"],
            "turn_chime": True,
            "brightness": config["leds"]["brightness"],
            "voice": config["sound"]["voice"],
            "voice_language": config["sound"]["voice_language"],
            "spoken_names": {},
            "remember_players": True,
            "hide_stats": False,
        },
    )


def quiet_hours(config: dict[str, Any]) -> tuple[time, time] | None:
    """``[sound] quiet_hours``, parsed (the config has checked it), or None."""
    hours = config["sound"]["quiet_hours"]
    return parse_quiet_hours(hours) if hours else None


def sound_policy(
    config: dict[str, Any], settings: Settings, wall: Callable[[], datetime]
) -> SoundPolicy:
    """Whether a sound plays: quiet mode and turn chime from the settings, quiet hours
    from ``[sound]``, judged by ``wall`` (the hub clock's local time)."""
    return SoundPolicy(
        quiet=settings.values["quiet"],
        turn_chime=settings.values["turn_chime"],
        quiet_hours=quiet_hours(config),
        quiet_hours_mode=config["sound"]["quiet_hours_mode"],
        clock=wall,
    )


def led_driver(link: SerialLink | None) -> LedDriver:
    """The ring on the hub box when there is one, else none (the page shows it)."""
    from hub.io.leds import NoRing, SerialLeds

    return SerialLeds(link) if link is not None else NoRing()


def sound_player(
    config: dict[str, Any],
    volume: float,
    set_extra: Callable[[str, object], None],
    options: dict[str, Any],
) -> SoundPlayer:
    """The ALSA player from ``[sound]`` (``options``: a test's device, retry, hooks), or
    a silent one when sound is disabled. Its status changes go to
    ``set_extra("sound", …)`` (the snapshot)."""
    cfg = config["sound"]
    if not cfg["enabled"]:
        return DisabledPlayer("sound is disabled in the config ([sound] enabled = false)")
    from hub.io.alsa_player import AlsaPlayer

    player = AlsaPlayer(
        device=cfg["device"],
        volume=volume,
        on_status_change=lambda status: set_extra("sound", status),
        **options,
    )
    player.wait_ready(2.0)
    return player


def voice(
    opened: ExitStack,
    config: dict[str, Any],
    settings: Settings,
    store: GameStore,
    sound: SoundPlayer,
    set_extra: Callable[[str, object], None],
) -> tuple[Announcer, dict[str, int]]:
    """The voice, handed the catalogs' words, reading the settings as they are at each
    change and naming a finished game's winner from ``store``, its stop registered on
    ``opened``; and each chime's length in frames (a sentence waits for the chimes of
    its change to end). Its status goes to ``set_extra("voice", …)`` (the snapshot)."""
    from hub.sounds import load_sounds
    from hub.voice.speaker import Announcer
    from hub.wire.i18n import text  # the catalogs: one home for each sentence

    def winner(game_id: int) -> str | None:
        try:
            name = store.get_game(game_id).get("winner")
        except Exception:  # no such game, a store fault: said without a name
            return None
        return name if isinstance(name, str) else None

    spoken = Announcer(
        text,
        mode=lambda: str(settings.values["voice"]),
        lang=lambda: str(settings.values["voice_language"]),
        spellings=lambda: dict(settings.values["spoken_names"]),
        winner=winner,
        on_late=sound.say,
        renders=bool(config["sound"]["enabled"]),
        on_status=lambda status: set_extra("voice", status),
    )
    on_stop(opened, "the voice", spoken.close)
    settings.check_spoken = spoken.check_spellings  # a spelling the voice says too long
    set_extra("voice", spoken.status())
    if voice_on(config, settings) and spoken.problem is not None:
        log.warning("voice: %s; the hub will not speak", spoken.problem)
    sounds, _ = load_sounds(SOUND_NAMES)
    return spoken, {name: len(samples) for name, samples in sounds.items()}


def voice_on(config: dict[str, Any], settings: Settings) -> bool:
    """Whether the hub speaks at all now (sound enabled, the voice not ``off``)."""
    return bool(config["sound"]["enabled"]) and settings.values["voice"] != "off"


def selftest_speaker(sound: SoundPlayer, settings: Settings) -> Callable[[str], None]:
    """The self-test's speaker: a sound by name, or (``say``) the voice's test
    sentence in the voice's language as it is when the step begins."""
    from hub.selftest.parts import speaking
    from hub.wire.i18n import text

    def play(name: str) -> None:
        lang = str(settings.values["voice_language"])
        speaking(sound.play, sound.say, lang, text)(name)

    return play


def serial_link(
    config: dict[str, Any],
    backend: str,
    now: Callable[[], float],
    post: Callable[[Event], None],
    on_status: Status,
    leds: Callable[[int], bytes],
) -> SerialLink | None:
    """The serial link when ``--backend serial`` or ``[serial] port`` names a hub box
    (then its ring shows the lights, whatever the inputs are); else None. ``leds(n)``
    gives the ring's frame on ``n`` pixels."""
    cfg = config["serial"]
    if backend != "serial" and not cfg["port"]:
        return None
    from firmware_bridge.link import SerialLink

    return SerialLink(
        cfg["port"],
        cfg["baud"],
        now,
        post,
        inputs=backend == "serial",
        on_status=on_status,
        leds=leds,
    )


def ring_lights(
    config: dict[str, Any],
    leds: LedDriver,
    wall: Callable[[], datetime],
    later: Scheduler,
    changed: Callable[[], None],
) -> RingLights:
    """The ring drawn from each snapshot, dimmed in ``[sound] quiet_hours``; its flash
    ends on ``later`` (the hub's timers), and ``changed()`` draws it anew."""
    return RingLights(
        leds,
        later=later,
        pixels=config["leds"]["pixels"],
        brightness=config["leds"]["brightness"],
        quiet_hours=quiet_hours(config),
        wall=wall,
        changed=changed,
    )


def selftest_session(
    config: dict[str, Any],
    backend: str,
    *,
    show: Callable[[Any], None],
    play: Callable[[str], None],
    running_game: Callable[[], int | None],
    reread_markers: Callable[[], None],
    levels: Callable[[], list[tuple[str, int]] | None],
    ring: bool,
    voice: Callable[[], bool] = lambda: False,
) -> SelftestSession:
    """The page's self-test (hub/selftest/session.py): it borrows the inputs (reading
    their ``levels`` first), the ring (``show``; ``ring`` False: no hub box drives one)
    and the speaker (``play``) while it runs."""
    wiring = Wiring(backend, config["pins"], config["sound"]["device"], config["leds"]["pixels"])
    return SelftestSession(
        wiring,
        show=show,
        play=play,
        running_game=running_game,
        reread_markers=reread_markers,
        levels=levels,
        ring=ring,
        voice=voice,
    )


def on_stop(stack: ExitStack, name: str, stop: Callable[[], object]) -> None:
    """Register part ``name``'s ``stop`` on ``stack``: a failure is logged, naming the
    part, and raised on once the parts registered before it are stopped too."""

    def run() -> None:
        try:
            stop()
        except Exception as exc:
            log.error("stopping %s failed: %s: %s", name, type(exc).__name__, exc)
            raise

    stack.callback(run)
