"""Small stand-ins for MicroPython's ``machine``, ``neopixel`` and ``time.ticks_*``:
with them the firmware in ``firmware/`` runs unchanged under CPython (the fake
microcontroller). Pins are driven by the test or by ``mtrain-hub fake-mcu``.

``machine.WDT`` and ``machine.reset()`` are modelled as far as the firmware uses them:
a started watchdog not fed within its timeout resets the board (the fake
microcontroller checks :meth:`Watchdog.due`), and ``reset()`` raises
:class:`BoardReset`, which the fake microcontroller catches to boot the board again.
"""

from __future__ import annotations

import os
import time as _time
from collections.abc import Callable

WDT_MAX_MS = 8388  # the RP2040's watchdog counts at most this long


class BoardReset(BaseException):
    """``machine.reset()`` on the fake board: the fake microcontroller boots it again
    (a real board never returns from the call)."""


class Watchdog:
    """``machine.WDT``: once started it cannot be stopped, and a board not fed within
    ``timeout`` milliseconds is reset (by whoever runs the board: see :meth:`due`)."""

    def __init__(self, timeout: int, now: Callable[[], float]) -> None:
        if not 1 <= timeout <= WDT_MAX_MS:
            raise ValueError(f"WDT timeout {timeout} ms: 1 to {WDT_MAX_MS} on an RP2040")
        self.timeout_s = timeout / 1000
        self._now = now
        self.fed_at = now()

    def feed(self) -> None:
        """Start the timeout again."""
        self.fed_at = self._now()

    def due(self) -> float:
        """When the watchdog resets the board unless fed before (``now``'s clock)."""
        return self.fed_at + self.timeout_s


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
    """The ``machine`` module: ``Pin`` remembers every pin made, by GP number (a reboot
    keeps the wiring); ``WDT`` starts the board's one watchdog (:attr:`watchdog`);
    ``reset()`` raises :class:`BoardReset`."""

    def __init__(self, now: Callable[[], float] = _time.monotonic) -> None:
        self.pins: dict[int, Pin] = {}
        self.watchdog: Watchdog | None = None
        machine = self

        class BoundPin(Pin):
            def __init__(self, number: int, mode: int = Pin.IN, pull: int | None = None) -> None:
                super().__init__(machine, number, mode, pull)

        def wdt(id: int = 0, timeout: int = 5000) -> Watchdog:
            machine.watchdog = Watchdog(timeout, now)
            return machine.watchdog

        self.Pin = BoundPin
        self.WDT = wdt

    def reset(self) -> None:
        """A hard reset: the board boots again (the watchdog stops with it)."""
        raise BoardReset()

    def powered_on(self) -> None:
        """The board (re)starts: no watchdog runs until the program starts one."""
        self.watchdog = None


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

    def sleep_ms(self, ms: int) -> None:
        """Wait ``ms`` milliseconds."""
        _time.sleep(ms / 1000)


def firmware_files() -> dict[str, bytes]:
    """The board's flash as hardware/flashing.md leaves it: the five files, by name."""
    folder = os.path.join(os.path.dirname(os.path.abspath(__file__)), "firmware")
    names = ("main.py", "mcu.py", "proto.py", "board.py", "lights.py")
    files = {}
    for name in names:
        with open(os.path.join(folder, name), "rb") as f:
            files[name] = f.read()
    return files
