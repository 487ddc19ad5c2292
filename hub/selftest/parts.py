"""The parts ``mtrain-hub selftest`` opens on its own: inputs, the ring and the speaker.

The terminal walk-through runs while the hub service is stopped, so it opens the pins
(or the Pico's serial link), the ring and the ALSA player itself, from the same config
the hub uses, and closes them in reverse order. Tests hand in a pin factory and fakes.
"""

from __future__ import annotations

import logging
from collections.abc import Callable, Iterator
from contextlib import ExitStack, contextmanager
from dataclasses import dataclass, field
from typing import Any

from hub.core.events import Event
from hub.io.leds import NoRing
from hub.io.sound import SAY, DisabledPlayer
from hub.runtime.clock import SystemClock
from hub.runtime.config import ConfigError
from hub.selftest.steps import ring_frame

LINK_WAIT_S = 5.0
log = logging.getLogger("hub.selftest")


def speaking(
    play: Callable[[str], None],
    say: Callable[[Any], None] | None,
    lang: str,
    words: Callable[..., str],
) -> Callable[[str], None]:
    """``play``, except that sound ``say`` (the walk-through's voice step) speaks the
    voice's test sentence (catalog ``say.test`` from ``words(lang, key)``) in ``lang``,
    rendered now with espeak-ng; a failure is logged and the step goes on, for the
    person to answer that they heard nothing."""

    def play_or_say(name: str) -> None:
        if name != SAY or say is None:
            play(name)
            return
        from hub.voice import engine

        try:
            say(engine.render(words(lang, "say.test"), lang))
        except engine.EngineError as exc:
            log.warning("the voice cannot speak: %s", exc)

    return play_or_say


@dataclass
class Parts:
    """What a walk-through drives: the ring (``leds.show``; ``ring`` False when no Pico
    drives one), ``play(name)``, and the inputs, whose raw edges go to the callable given
    to :meth:`listen` (``inputs``: the pins, whose levels :meth:`active_inputs` reads)."""

    backend: str
    leds: Any
    play: Callable[[str], None]
    pixels: int
    say: Callable[[Any], None] | None = None  # the player's say(samples): speech
    centre: bool = False
    sim: Any = None
    ring: bool = False
    inputs: Any = None
    _listener: list[Callable[[Event], None]] = field(default_factory=list)

    def active_inputs(self) -> list[tuple[str, int]] | None:
        """The inputs that read active now, as ``("button", slot)`` / ``("marker", slot)``
        (slot 0: the centre button); None when their levels cannot be read (no inputs,
        or a hub box that has not reported them)."""
        return None if self.inputs is None else self.inputs.active_inputs()

    def listen(self, callback: Callable[[Event], None]) -> None:
        """Send every input edge to ``callback`` from now on."""
        self._listener[:] = [callback]

    def post(self, event: Event) -> None:
        """Called by the input adapter (its thread): hand the edge on."""
        for callback in list(self._listener):
            callback(event)

    def light(self, slot: int | None) -> None:
        """Light ``slot``'s arc of the ring, white (None: all dark)."""
        self.leds.show(ring_frame(slot, self.pixels))


def sound_player(config: dict[str, Any]) -> Any:
    """The ALSA player of ``[sound]`` at the configured volume, quiet modes off (the
    self-test asks for each sound on purpose), or a silent player saying why."""
    cfg = config["sound"]
    if not cfg["enabled"]:
        return DisabledPlayer("sound is disabled in the config ([sound] enabled = false)")
    try:
        from hub.io.alsa_player import AlsaPlayer
    except ImportError as exc:
        return DisabledPlayer(f"the ALSA player cannot load: {exc}")
    player = AlsaPlayer(device=cfg["device"], volume=cfg["volume"], retry_s=3600.0)
    player.wait_ready(5.0)
    return player


@contextmanager
def open_parts(
    config: dict[str, Any], *, factory: Any = None, sound: Any = None, leds: Any = None
) -> Iterator[Parts]:
    """Open the inputs, the ring and the speaker of ``config``; close them on exit."""
    from hub.io.pinmap import resolve_backend

    backend = resolve_backend(config["hub"]["backend"])
    with ExitStack() as stack:
        player = sound if sound is not None else sound_player(config)
        stack.callback(player.close)
        parts = Parts(
            backend,
            leds if leds is not None else NoRing(),
            player.play,
            config["leds"]["pixels"],
            say=player.say,
            ring=leds is not None,  # handed in (a test's ring), or the Pico's below
        )
        if leds is None and (backend == "serial" or config["serial"]["port"]):
            _open_link(config, backend, parts, stack)
        if backend != "serial":
            _open_pins(config, backend, factory, parts, stack)
        parts.light(None)
        yield parts
        parts.light(None)


def _open_link(config: dict[str, Any], backend: str, parts: Parts, stack: ExitStack) -> None:
    """The hub box: its ring always, its inputs on the serial backend."""
    import threading

    from firmware_bridge.link import SerialLink
    from hub.io.leds import SerialLeds

    up = threading.Event()

    def status(value: dict[str, object]) -> None:
        if value["connected"]:
            up.set()

    cfg = config["serial"]
    link = SerialLink(
        cfg["port"],
        cfg["baud"],
        SystemClock().now,
        parts.post,
        inputs=backend == "serial",
        on_status=status,
    )
    link.start()
    stack.callback(link.close)
    if not up.wait(LINK_WAIT_S):
        raise ConfigError(
            f"serial.port: the hub box on {cfg['port'] or 'USB'} does not "
            f"answer within {LINK_WAIT_S:g} s (mtrain-hub selftest --check)"
        )
    parts.leds = SerialLeds(link)
    parts.ring = True
    parts.centre = backend == "serial"
    if backend == "serial":
        parts.inputs = link  # the box reports its levels once handshaken (above)


def _open_pins(
    config: dict[str, Any], backend: str, factory: Any, parts: Parts, stack: ExitStack
) -> None:
    from hub.io.pins import SimPins, SlotInputs, make_factory

    factory = factory or make_factory(backend)
    pins = config["pins"]
    inputs = SlotInputs(
        factory,
        pins["buttons"],
        pins["markers"],
        SystemClock(),
        parts.post,
        centre_pin=pins["centre"],
    )
    stack.callback(inputs.close)
    parts.inputs = inputs
    parts.centre = True
    if backend == "sim":
        parts.sim = SimPins(factory, pins["buttons"], pins["markers"], pins["centre"])
