"""Buttons and marker sensors through gpiozero: the only module that imports it.

Each slot has a push button and a marker sensor (hall-effect or reed switch),
both wired from the pin to ground with the Pi's internal pull-up: active low.
Callbacks only post raw edges with a timestamp from the injected clock; the core
debounces (gpiozero's MockFactory ignores ``bounce_time``, so we never rely on it).
"""

from __future__ import annotations

import importlib.util
import logging
import sys
import threading
from collections.abc import Callable
from typing import Any

from hub.core.events import CENTRE, ButtonChanged, Event, MarkerChanged
from hub.runtime.clock import Clock

log = logging.getLogger("hub.io.pins")


def lazy_package(name: str) -> None:
    """Put package ``name`` in ``sys.modules`` without running its ``__init__`` (unless
    it is imported already): its submodules then import alone. The first name asked of
    the package that it lacks runs the real ``__init__``, so ``import gpiozero;
    gpiozero.Button`` anywhere still works.

    gpiozero's ``__init__`` imports every device class it has (boards, SPI devices,
    internal devices and ``subprocess`` with them, ~0.6 MB resident) where the hub
    uses one input device and one pin factory (docs/performance.md, "Footprint")."""
    spec = importlib.util.find_spec(name) if name not in sys.modules else None
    if spec is None or spec.loader is None:
        return  # imported already, or not installed (the import says so)
    loader, module = spec.loader, importlib.util.module_from_spec(spec)
    lock = threading.RLock()
    ran: list[bool] = []  # whether the real __init__ has run (or is running)

    def __getattr__(attr: str) -> Any:
        with lock:
            if not ran:
                ran.append(True)
                loader.exec_module(module)
                return getattr(module, attr)
        raise AttributeError(f"module {name!r} has no attribute {attr!r}")

    module.__getattr__ = __getattr__  # type: ignore[method-assign]
    sys.modules[name] = module


lazy_package("gpiozero")

from gpiozero.input_devices import DigitalInputDevice  # noqa: E402
from gpiozero.pins.mock import MockFactory  # noqa: E402


def is_raspberry_pi() -> bool:
    """True on a Raspberry Pi (read from the device tree model)."""
    try:
        with open("/proc/device-tree/model", encoding="ascii", errors="replace") as f:
            return "raspberry pi" in f.read().lower()
    except OSError:
        return False


def resolve_backend(configured: str) -> str:
    """``auto`` means ``gpio`` on a Raspberry Pi and ``sim`` anywhere else."""
    if configured != "auto":
        return configured
    return "gpio" if is_raspberry_pi() else "sim"


def make_factory(backend: str) -> Any:
    """The pin factory for ``backend``: MockFactory for ``sim``, lgpio (or default) for ``gpio``."""
    if backend == "sim":
        return MockFactory()
    try:
        from gpiozero.pins.lgpio import LGPIOFactory

        return LGPIOFactory()
    except Exception as exc:  # not a Pi, or lgpio missing: let gpiozero pick
        log.warning("lgpio unavailable (%s); using gpiozero's default pin factory", exc)
        from gpiozero.devices import Device

        return Device._default_pin_factory()


def claim_pins(factory: Any, pins: list[int]) -> list[tuple[int, str]]:
    """Open each pin as an input and close it again; the pins that could not be claimed
    (held by another process, such as a running hub, or not on this board), with why."""
    busy = []
    for pin in pins:
        try:
            DigitalInputDevice(pin, pull_up=True, pin_factory=factory).close()
        except Exception as exc:  # gpiozero's GPIOPinInUse, lgpio's "GPIO busy", ...
            busy.append((pin, f"{type(exc).__name__}: {exc}"))
    return busy


class SlotInputs:
    """The 8 slot buttons, 8 marker sensors and the centre button (when its pin is
    given; it posts as slot ``CENTRE``), posting raw edges to the hub loop."""

    def __init__(
        self,
        factory: Any,
        button_pins: list[int],
        marker_pins: list[int],
        clock: Clock,
        post: Callable[[Event], None],
        centre_pin: int | None = None,
    ) -> None:
        self._clock = clock
        self._post = post
        # DigitalInputDevice, not Button: Button's hold thread wakes ten times a second
        # per button, and the core classifies holds itself from the edges' timestamps.
        self.buttons = [
            DigitalInputDevice(pin, pull_up=True, pin_factory=factory) for pin in button_pins
        ]
        self.markers = [
            DigitalInputDevice(pin, pull_up=True, pin_factory=factory) for pin in marker_pins
        ]
        for slot, (button, marker) in enumerate(zip(self.buttons, self.markers, strict=True), 1):
            button.when_activated = self._poster(ButtonChanged, slot, True)
            button.when_deactivated = self._poster(ButtonChanged, slot, False)
            marker.when_activated = self._poster(MarkerChanged, slot, True)
            marker.when_deactivated = self._poster(MarkerChanged, slot, False)
        self.centre: DigitalInputDevice | None = None
        if centre_pin is not None:
            self.centre = DigitalInputDevice(centre_pin, pull_up=True, pin_factory=factory)
            self.centre.when_activated = self._poster(ButtonChanged, CENTRE, True)
            self.centre.when_deactivated = self._poster(ButtonChanged, CENTRE, False)

    def _poster(
        self, kind: type[ButtonChanged] | type[MarkerChanged], slot: int, level: bool
    ) -> Callable[[], None]:
        clock, post = self._clock, self._post

        def callback() -> None:
            post(kind(slot, level, clock.now()))

        return callback

    def read_markers(self) -> tuple[bool, ...]:
        """Every marker sensor's level now (after a start or reconnect)."""
        return tuple(bool(m.is_active) for m in self.markers)

    def close(self) -> None:
        """Release the pins."""
        for device in self.buttons + self.markers:
            device.close()
        if self.centre is not None:
            self.centre.close()


class SimPins:
    """Drives the MockFactory pins behind the ``sim`` backend, as a finger and a magnet would.

    A MockPin records every change it goes through (for a test's ``assert_states``); a
    hub driving its pins for hours would keep them all, so each drive here clears that
    record (docs/performance.md, "Footprint")."""

    def __init__(
        self,
        factory: MockFactory,
        button_pins: list[int],
        marker_pins: list[int],
        centre_pin: int | None = None,
    ) -> None:
        self._buttons = [factory.pin(p) for p in button_pins]
        self._markers = [factory.pin(p) for p in marker_pins]
        self._centre = None if centre_pin is None else factory.pin(centre_pin)

    def button(self, slot: int, pressed: bool) -> None:
        """Press (drive low) or release (high) the button of ``slot`` (``CENTRE``: the
        centre button)."""
        pin = self._centre if slot == CENTRE else self._buttons[slot - 1]
        if pin is None:
            raise ValueError("the centre button has no pin")
        _drive(pin, low=pressed)

    def marker(self, slot: int, present: bool) -> None:
        """Put a marker on (drive low) or take it off the sensor of ``slot``."""
        _drive(self._markers[slot - 1], low=present)

    def marker_present(self, slot: int) -> bool:
        """What the simulated sensor of ``slot`` reads."""
        return not self._markers[slot - 1].state


def _drive(pin: Any, low: bool) -> None:
    """Drive a MockPin low or high, keeping no record of its past changes."""
    pin.drive_low() if low else pin.drive_high()
    pin.clear_states()
