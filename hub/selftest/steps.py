"""The self-test's steps: what the walk-through asks for, in order, each named by the
part and the pin it is wired to (:func:`plan`), and the ring's frame that lights one
slot (:func:`ring_frame`)."""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

from hub.core.events import CENTRE
from hub.io.leds import STEADY, Pixel
from hub.io.lights import arc
from hub.io.pinmap import BCM_TO_HEADER, GP_TO_PICO_PIN, PICO_PINS, RING_PIXELS
from hub.io.sound import SAY, SOUND_NAMES

INPUT_KINDS = ("button", "marker-on", "marker-off")
ANSWER_KINDS = ("light", "sound")


@dataclass(frozen=True)
class Step:
    """One thing to try: ``kind`` is ``button``, ``marker-on``, ``marker-off``, ``light``
    or ``sound``; ``slot`` 1-8 (0: the centre button); ``pin`` where the part is wired."""

    kind: str
    slot: int
    part: str
    pin: str
    prompt: str
    sound: str = ""

    @property
    def needs_answer(self) -> bool:
        """A light or a sound: only the person can say whether it worked."""
        return self.kind in ANSWER_KINDS


class Wiring:
    """Where each part is wired, as a maker reads it on the board (BCM or Pico pins)."""

    def __init__(
        self, backend: str, pins: dict[str, Any], sound_device: str, pixels: int = RING_PIXELS
    ) -> None:
        self.serial = backend == "serial"
        self.pins = pins
        self.sound_device = sound_device
        self.pixels = pixels

    def _pi(self, bcm: int) -> str:
        return f"BCM {bcm} (header pin {BCM_TO_HEADER[bcm]})"

    def _pico(self, gp: int) -> str:
        return f"Pico GP{gp} (pin {GP_TO_PICO_PIN[gp]})"

    def input_pin(self, key: str, slot: int) -> str:
        """The pin of ``key`` (``buttons``, ``markers``, ``centre``) of ``slot``."""
        source = PICO_PINS if self.serial else self.pins
        value = source[key] if key == "centre" else source[key][slot - 1]
        return self._pico(int(value)) if self.serial else self._pi(int(value))

    def ring(self, slot: int) -> str:
        """The ring's pixels of ``slot`` and the Pico pin that drives them."""
        pixels = arc(slot, self.pixels)
        return f"pixels {pixels.start + 1}-{pixels.stop}, {self._pico(PICO_PINS['ring'])}"

    def speaker(self) -> str:
        """The sound device."""
        return f"ALSA device {self.sound_device!r}"


def plan(
    wiring: Wiring,
    centre: bool = True,
    slots: int = 8,
    sounds: tuple[str, ...] = SOUND_NAMES,
    lights: bool = True,
    voice: bool = False,
) -> list[Step]:
    """Every step, in the order a maker works round the hub: the buttons (the centre's
    last), the markers on and off, the lights (``lights`` False: no ring to ask about,
    no Pico drives one), the sounds, and (``voice``) the voice saying a sentence: its
    step plays sound ``say``, which the ``play`` handed to the walk-through speaks."""
    return [
        *_buttons(wiring, centre, slots),
        *_markers(wiring, slots),
        *(_lights(wiring, slots) if lights else []),
        *_sounds(wiring, sounds),
        *([_voice(wiring)] if voice else []),
    ]


def _buttons(wiring: Wiring, centre: bool, slots: int) -> list[Step]:
    steps = [
        Step(
            "button",
            n,
            f"slot {n} button",
            wiring.input_pin("buttons", n),
            f"Press and release the button of slot {n}.",
        )
        for n in range(1, slots + 1)
    ]
    if centre:
        steps.append(
            Step(
                "button",
                CENTRE,
                "centre button",
                wiring.input_pin("centre", 0),
                "Press and release the centre button.",
            )
        )
    return steps


def _markers(wiring: Wiring, slots: int) -> list[Step]:
    steps = []
    for n in range(1, slots + 1):
        pin = wiring.input_pin("markers", n)
        steps.append(Step("marker-on", n, f"slot {n} marker on", pin, f"Put a marker on slot {n}."))
        steps.append(
            Step("marker-off", n, f"slot {n} marker off", pin, f"Take the marker off slot {n}.")
        )
    return steps


def _lights(wiring: Wiring, slots: int) -> list[Step]:
    return [
        Step(
            "light",
            n,
            f"slot {n} lights",
            wiring.ring(n),
            f"Are the lights of slot {n} on (and only those)?",
        )
        for n in range(1, slots + 1)
    ]


def _sounds(wiring: Wiring, sounds: tuple[str, ...]) -> list[Step]:
    return [
        Step(
            "sound",
            0,
            f"sound {name}",
            wiring.speaker(),
            f"Did you hear the {name!r} sound?",
            sound=name,
        )
        for name in sounds
    ]


def _voice(wiring: Wiring) -> Step:
    return Step(
        "sound",
        0,
        "voice",
        wiring.speaker(),
        "Did you hear the hub's voice say a sentence?",
        sound=SAY,
    )


def ring_frame(slot: int | None, count: int) -> list[Pixel]:
    """A ring with only ``slot``'s arc lit, white and steady (None: all dark)."""
    lit = arc(slot, count) if slot is not None else range(0)
    return [(255, 255, 255, STEADY) if i in lit else (0, 0, 0, STEADY) for i in range(count)]


def slot_name(slot: int) -> str:
    return "the centre" if slot == CENTRE else f"slot {slot}"


# How a step can end, as the page words it (``selftest.outcome.<outcome>`` in the
# catalogs): its input seen, an answer, a timeout, skipped, or stuck from the start.
