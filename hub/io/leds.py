"""The LED port: the WS2812 ring around the hub, a whole ring at a time. Its adapter
is the serial link to the hub box's microcontroller (:class:`SerialLeds`); with none
configured, :class:`RecordingLeds` keeps the last frames (bounded) so the page can
show the ring as it would look.

A pixel is ``(r, g, b, effect)``: the microcontroller animates the effect itself
(:data:`STEADY`, :data:`BREATHE`, :data:`BLINK`, :data:`CHASE`), so a breathing slot
stays smooth however busy USB is.
"""

from __future__ import annotations

from collections import deque
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


class RecordingLeds:
    """No ring attached: keeps the last ``keep`` frames (the fake, and the driver the
    hub uses without a microcontroller, so it is bounded)."""

    def __init__(self, keep: int = 50) -> None:
        self.frames: deque[list[Pixel]] = deque(maxlen=keep)

    def show(self, pixels: list[Pixel]) -> None:
        """Record the frame."""
        self.frames.append(list(pixels))

    def connected(self) -> bool | None:
        """No controller: None."""
        return None

    @property
    def pixels(self) -> list[Pixel]:
        """The last frame shown (empty before any)."""
        return self.frames[-1] if self.frames else []


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
