"""Small stand-ins for MicroPython's ``machine``, ``neopixel`` and ``time.ticks_*``:
with them the firmware in ``firmware/`` runs unchanged under CPython (the fake
microcontroller). Pins are driven by the test or by ``mtrain-hub fake-mcu``.
"""

from __future__ import annotations

import time as _time

TICKS_PERIOD = 1 << 30  # MicroPython's ticks_us wraps here, as on the Pico


class Pin:
    """A GPIO pin: inputs read ``level`` (1 = high, as the pull-up leaves it)."""

    IN = 0
    OUT = 1
    PULL_UP = 1

    def __init__(
        self, machine: Machine, number: int, mode: int = IN, pull: int | None = None
    ) -> None:
        self.number = number
        self.mode = mode
        old = machine.pins.get(number)
        self.level: int = old.level if old is not None else 1  # a reboot keeps the wiring
        machine.pins[number] = self

    def value(self, level: int | None = None) -> int:
        """Read the pin (or drive it, for an output)."""
        if level is not None:
            self.level = int(level)
        return self.level


class Machine:
    """The ``machine`` module: ``Pin`` remembers every pin made, by GP number."""

    def __init__(self) -> None:
        self.pins: dict[int, Pin] = {}
        machine = self

        class BoundPin(Pin):
            def __init__(self, number: int, mode: int = Pin.IN, pull: int | None = None) -> None:
                super().__init__(machine, number, mode, pull)

        self.Pin = BoundPin


class NeoPixel:
    """A WS2812 strip: colours set by index, shown on ``write()``."""

    def __init__(self, pin: Pin, n: int) -> None:
        self.n = n
        self.buffer: list[tuple[int, int, int]] = [(0, 0, 0)] * n
        self.shown: list[tuple[int, int, int]] = list(self.buffer)
        self.writes = 0

    def __setitem__(self, index: int, rgb: tuple[int, int, int]) -> None:
        self.buffer[index] = tuple(rgb)  # type: ignore[assignment]

    def __len__(self) -> int:
        return self.n

    def write(self) -> None:
        """Latch the buffer onto the pixels."""
        self.shown = list(self.buffer)
        self.writes += 1


class NeoPixelModule:
    """The ``neopixel`` module."""

    NeoPixel = NeoPixel


class Ticks:
    """The ``time`` module's ``ticks_us``/``ticks_diff``, wrapping at 2**30.

    ``start_us`` sets where the counter starts (near the wrap, to exercise it).
    """

    def __init__(self, start_us: int = 0) -> None:
        self._origin = _time.monotonic_ns() // 1000 - start_us

    def ticks_us(self) -> int:
        """Microseconds, modulo 2**30."""
        return (_time.monotonic_ns() // 1000 - self._origin) % TICKS_PERIOD

    def ticks_diff(self, a: int, b: int) -> int:
        """Signed ``a - b`` on the wrapping counter."""
        half = TICKS_PERIOD // 2
        return ((a - b + half) % TICKS_PERIOD) - half
