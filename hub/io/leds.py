"""The LED port: the WS2812 ring around the hub, a whole ring at a time. Its adapter
is the serial link to the hub box's microcontroller (:class:`SerialLeds`); with none
configured, :class:`NoRing` lights nothing (the page shows the ring from the snapshot).
The tests' recording driver is ``tests/doubles.py``'s ``RecordingLeds``.

A pixel is ``(r, g, b, effect)``: the microcontroller animates the effect itself
(:data:`STEADY`, :data:`BREATHE`, :data:`BLINK`, :data:`CHASE`), so a breathing slot
stays smooth however busy USB is.
"""

from __future__ import annotations

from typing import Protocol

STEADY, BREATHE, BLINK, CHASE = 0, 1, 2, 3
EFFECTS = ("steady", "breathe", "blink", "chase")

Pixel = tuple[int, int, int, int]


class LedDriver(Protocol):
    """Shows a whole ring."""

    def show(self, pixels: list[Pixel]) -> None:
        """Show ``pixels`` (one per LED, in order around the ring)."""

    def connected(self) -> bool | None:
        """True/False: whether the ring's controller answers; None: there is no ring."""


class NoRing:
    """The LED driver when no ring is attached (no hub box): nothing is lit. It keeps
    only the last frame (``pixels``), as :class:`SerialLeds` does; the page shows the
    ring from the snapshot (``ring``), which the lights publish either way."""

    def __init__(self) -> None:
        self.pixels: list[Pixel] = []

    def show(self, pixels: list[Pixel]) -> None:
        """Keep the frame (the one before it is dropped)."""
        self.pixels = list(pixels)

    def connected(self) -> bool | None:
        """No controller: None."""
        return None


class LedLink(Protocol):
    """What :class:`SerialLeds` needs of the serial link (``firmware_bridge.link``)."""

    @property
    def connected(self) -> bool:
        """Whether the microcontroller answers."""

    def send_leds(self, payload: bytes) -> None:
        """Send an LED frame's payload."""


def payload(pixels: list[Pixel]) -> bytes:
    """The LEDS frame's payload (hardware/PROTOCOL.md): count, then r, g, b, effect each."""
    out = bytearray((len(pixels),))
    for r, g, b, effect in pixels:
        out += bytes((r, g, b, effect))
    return bytes(out)


class SerialLeds:
    """The ring on the hub box's microcontroller, over the serial link."""

    def __init__(self, link: LedLink) -> None:
        self.link = link
        self.pixels: list[Pixel] = []

    def show(self, pixels: list[Pixel]) -> None:
        """Send the whole ring (only the newest frame waits if USB is busy)."""
        self.pixels = list(pixels)
        self.link.send_leds(payload(pixels))

    def connected(self) -> bool | None:
        """Whether the microcontroller answers."""
        return self.link.connected
