"""The parts ``mtrain-hub selftest`` opens on its own: inputs, LEDs and the speaker.

The terminal walk-through runs while the hub service is stopped, so it opens the pins
(or the Pico's serial link), the LED driver and the ALSA player itself, from the same
config the hub uses, and closes them in reverse order. Tests hand in a pin factory and
fakes for the rest.
"""

from __future__ import annotations

from collections.abc import Callable, Iterator
from contextlib import ExitStack, contextmanager
from dataclasses import dataclass, field
from typing import Any

from hub.clock import SystemClock
from hub.core.events import Event
from hub.io.leds import RecordingLeds
from hub.io.sound import DisabledPlayer


@dataclass
class Parts:
    """What a walk-through drives: ``leds.set(slot, state)``, ``play(name)``, and the
    inputs, whose raw edges go to the callable given to :meth:`listen`."""

    backend: str
    leds: Any
    play: Callable[[str], None]
    centre: bool
    sim: Any = None
    _listener: list[Callable[[Event], None]] = field(default_factory=list)

    def listen(self, callback: Callable[[Event], None]) -> None:
        """Send every input edge to ``callback`` from now on."""
        self._listener[:] = [callback]

    def post(self, event: Event) -> None:
        """Called by the input adapter (its thread): hand the edge on."""
        for callback in list(self._listener):
            callback(event)


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
def open_parts(config: dict[str, Any], *, factory: Any = None, sound: Any = None,
               leds: Any = None) -> Iterator[Parts]:
    """Open the inputs, the LEDs and the speaker of ``config``; close them on exit."""
    from hub.app import resolve_backend

    backend = resolve_backend(config["hub"]["backend"])
    with ExitStack() as stack:
        player = sound if sound is not None else sound_player(config)
        stack.callback(player.close)
        parts = Parts(backend, leds if leds is not None else RecordingLeds(), player.play,
                      centre=False)
        if backend == "serial":
            from hub.selftest_serial import open_serial_inputs

            stack.enter_context(open_serial_inputs(config, parts))
        else:
            _open_pins(config, backend, factory, parts, stack)
        yield parts


def _open_pins(config: dict[str, Any], backend: str, factory: Any, parts: Parts,
               stack: ExitStack) -> None:
    from hub.io.pins import SimPins, SlotInputs, make_factory

    factory = factory or make_factory(backend)
    pins = config["pins"]
    inputs = SlotInputs(factory, pins["buttons"], pins["markers"], SystemClock(), parts.post)
    stack.callback(inputs.close)
    if backend == "sim":
        parts.sim = SimPins(factory, pins["buttons"], pins["markers"])
