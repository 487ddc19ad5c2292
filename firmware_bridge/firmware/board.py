"""The hub box's microcontroller board: pins, ring and clock, built from the modules
``machine``, ``neopixel`` and ``time`` handed in (MicroPython's on a Pico; small
stand-ins under CPython, see ``firmware_bridge/fakeboard.py``).

Pico pin map (GP numbers): slot buttons 1-8 on GP2-GP9, hall sensors 1-8 on
GP10-GP17, the centre button on GP18, the WS2812 ring's data in on GP22. Buttons and
hall switches are wired from the pin to ground with the internal pull-up: active low.
"""

try:
    from typing import Any
except ImportError:  # MicroPython never evaluates annotations
    pass

BUTTON_PINS = (2, 3, 4, 5, 6, 7, 8, 9)
MARKER_PINS = (10, 11, 12, 13, 14, 15, 16, 17)
CENTRE_PIN = 18
RING_PIN = 22
PIXELS = 24
SETTLE_MS = 20  # the pull-up charges the button's wire before the escape is read


def centre_held(machine: Any, time: Any) -> bool:
    """True when the centre button is held as the board powers on: the update escape
    (hardware/flashing.md). ``main.py`` reads it before anything else starts, so no
    fault in the program can take the way to the REPL away."""
    pin = machine.Pin(CENTRE_PIN, machine.Pin.IN, machine.Pin.PULL_UP)
    time.sleep_ms(SETTLE_MS)
    return not pin.value()


class Board:
    """Inputs (index 0: the centre button; 1-8: slots), the ring and the µs clock."""

    def __init__(self, machine: Any, neopixel: Any, time: Any, pixels: int = PIXELS) -> None:
        pin = machine.Pin
        self.buttons = [pin(n, pin.IN, pin.PULL_UP) for n in (CENTRE_PIN,) + BUTTON_PINS]
        self.markers = [pin(n, pin.IN, pin.PULL_UP) for n in MARKER_PINS]
        self.ring = neopixel.NeoPixel(pin(RING_PIN, pin.OUT), pixels)
        self.pixels = pixels
        self._time = time

    def ticks_us(self) -> int:
        """The free-running microsecond counter (wraps; compare with ``ticks_diff``)."""
        return int(self._time.ticks_us())

    def ticks_diff(self, a: int, b: int) -> int:
        """``a - b`` on the wrapping counter."""
        return int(self._time.ticks_diff(a, b))

    def sleep_ms(self, ms: int) -> None:
        """Wait ``ms`` milliseconds (the loop never does; a last word before a reset may)."""
        self._time.sleep_ms(ms)

    def button_levels(self) -> int:
        """Bit 0: centre pressed; bits 1-8: slot buttons pressed (active low)."""
        bits = 0
        for i, p in enumerate(self.buttons):
            if not p.value():
                bits |= 1 << i
        return bits

    def marker_levels(self) -> int:
        """Bits 1-8: a marker sits on that slot (active low)."""
        bits = 0
        for i, p in enumerate(self.markers):
            if not p.value():
                bits |= 2 << i
        return bits

    def show(self, colours: "list[tuple[int, int, int]]") -> None:
        """Write one ``(r, g, b)`` per pixel to the ring."""
        ring = self.ring
        for i in range(self.pixels):
            ring[i] = colours[i]
        ring.write()
