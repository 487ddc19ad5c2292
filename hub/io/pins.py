"""Buttons and marker sensors through gpiozero: the only module that imports it.

Each slot has a push button and a marker sensor (hall-effect or reed switch),
both wired from the pin to ground with the Pi's internal pull-up: active low.
Callbacks only post raw edges with a timestamp from the injected clock; the core
debounces (gpiozero's MockFactory ignores ``bounce_time``, so we never rely on it).
"""

from __future__ import annotations

import logging
import os
import shutil
import sys
import tempfile
import threading
from collections.abc import Callable, Iterator
from contextlib import contextmanager, nullcontext
from pathlib import Path
from typing import Any

from gpiozero import DigitalInputDevice
from gpiozero.pins.mock import MockFactory

from hub.core.events import CENTRE, ButtonChanged, Event, MarkerChanged
from hub.io.clock import Clock
from hub.io.pinmap import is_raspberry_pi

log = logging.getLogger("hub.io.pins")


# gpiozero's other pin factories, and why the ``gpio`` backend never falls back to one.
NOT_TRIED = (
    "rpigpio and native need /dev/gpiomem (the service may open only /dev/gpiochip*), "
    "pigpio needs the pigpiod daemon"
)
# The unit's working directory (systemd/mtrain-hub.service), a folder of its own: lgpio's
# notify pipe no longer depends on it (:func:`private_folder`), nothing else is written there.
UNIT_WORKING_DIRECTORY = "/run/mtrain-hub"


class NoPins(RuntimeError):
    """The ``gpio`` backend cannot open the pins; the message names the real cause."""


def make_factory(backend: str, dev: Path = Path("/dev")) -> Any:
    """The pin factory for ``backend``: MockFactory for ``sim``, lgpio for ``gpio``.

    ``gpio`` opens lgpio (the GPIO character device, ``/dev/gpiochip*``) or raises
    :class:`NoPins` saying why; it never falls back to gpiozero's other factories
    (:data:`NOT_TRIED` says why), and it logs which factory it opened.
    """
    if backend == "sim":
        return MockFactory()
    try:
        return open_lgpio(dev)
    except NoPins as exc:
        if is_raspberry_pi():
            raise
        raise NoPins(f"{exc}; use --backend sim off a Raspberry Pi") from None


def open_lgpio(dev: Path = Path("/dev")) -> Any:
    """gpiozero's LGPIOFactory on this board's GPIO chip, or :class:`NoPins`.

    lgpio makes its notify pipe (``.lgd-nfy*``) in the current directory when it is
    first imported: it is imported from a private folder of its own
    (:func:`private_folder`), so the hub, ``selftest --check`` and the walk-through
    open the pins from any folder (a read-only checkout, another user's home).
    """
    # Once loaded, lgpio holds its pipe open: no folder, no chdir (other threads run).
    loaded = "lgpio" in sys.modules
    with nullcontext("") if loaded else private_folder() as where:
        try:
            from gpiozero.pins.lgpio import LGPIOFactory
        except ImportError as exc:
            raise NoPins(
                f"the lgpio module is not installed ({exc}): on Raspberry Pi OS install "
                "python3-lgpio (systemd/install.sh does, with a venv that sees it)"
            ) from None
        except OSError as exc:  # lgpio makes its notify pipe in the current directory
            raise NoPins(
                f"lgpio cannot make its notify pipe (.lgd-nfy*) in its private folder "
                f"{where}: {_unwritable(where)} ({exc}); point TMPDIR at a folder this "
                "user may write"
            ) from None
    made = (
        f"its notify pipe in {where}, a private folder removed once the pipe was open"
        if where
        else "its notify pipe open since it first loaded"
    )
    return _on_chip(LGPIOFactory, dev, made)


def _on_chip(factory_class: Any, dev: Path, made: str) -> Any:
    """``factory_class`` (gpiozero's LGPIOFactory) on the first chip in ``dev``;
    ``made`` says where lgpio made its notify pipe, for the messages."""
    chips = sorted(dev.glob("gpiochip*"))
    if not chips:
        raise NoPins(
            f"no GPIO chip: {dev / 'gpiochip0'} does not exist (not a Raspberry Pi, or a "
            f"container without the device; lgpio itself loaded, {made})"
        )
    try:
        factory = factory_class()
    except Exception as exc:  # lgpio.error, gpiozero's PinUnknownPi
        raise NoPins(_chip_problem(chips, exc)) from None
    log.info(
        "pins: lgpio on %s (%s); not gpiozero's other pin factories: %s",
        dev / f"gpiochip{factory.chip}",
        made,
        NOT_TRIED,
    )
    return factory


@contextmanager
def private_folder() -> Iterator[str]:
    """Run the body in a new folder only this user may enter (0700), then come back and
    remove it: lgpio makes its notify pipe in the current directory and holds it open
    (both ends) from then on, so the pipe's name is not needed after its import.

    The folder is made in the unit's runtime directory (``$RUNTIME_DIRECTORY``) when
    there is one, else in ``$TMPDIR`` or ``/tmp``; coming back works even to a folder
    this user may enter but not read (``O_PATH``), and from one it may not even enter
    the body ends in ``/``.
    """
    try:
        where = tempfile.mkdtemp(prefix="lgpio-", dir=os.environ.get("RUNTIME_DIRECTORY") or None)
    except OSError as exc:
        raise NoPins(
            f"cannot make a private folder for lgpio's notify pipe: {exc}; point TMPDIR "
            "at a folder this user may write"
        ) from None
    try:
        back: int | None = os.open(".", os.O_PATH)
    except OSError:  # a folder this user may not enter (sudo -u from root's home)
        back = None
    try:
        os.chdir(where)
        yield where
    finally:
        if back is None:
            os.chdir("/")  # no way back: nothing relative could be opened there anyway
        else:
            os.fchdir(back)
            os.close(back)
        shutil.rmtree(where, ignore_errors=True)


def _unwritable(path: str) -> str:
    """Why the hub cannot write in ``path``: the file system, or the permissions."""
    try:
        if os.statvfs(path).f_flag & os.ST_RDONLY:
            return "a read-only file system"
    except OSError as exc:
        return str(exc)
    if not os.access(path, os.W_OK):
        return "not writable for this user"
    return "writable, yet the pipe could not be made"


def _chip_problem(chips: list[Path], exc: Exception) -> str:
    """What kept lgpio from a chip: the device refused (sandbox, group), or not a Pi."""
    for chip in chips:
        try:
            os.close(os.open(chip, os.O_RDWR))
        except OSError as refused:
            return (
                f"cannot open {chip}: {refused.strerror} (the gpio group; the unit's "
                f"DeviceAllow=char-gpiochip); lgpio said: {exc}"
            )
    return f"lgpio could not open the pins of {', '.join(map(str, chips))}: {exc}"


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

    def active_inputs(self) -> list[tuple[str, int]]:
        """The inputs that read active now, as ``("button", slot)`` / ``("marker", slot)``
        (the centre button: slot ``CENTRE``): the self-test's up-front level check."""
        active = [
            (kind, slot)
            for kind, devices in (("button", self.buttons), ("marker", self.markers))
            for slot, device in enumerate(devices, 1)
            if device.is_active
        ]
        if self.centre is not None and self.centre.is_active:
            active.append(("button", CENTRE))
        return active

    def close(self) -> None:
        """Release the pins."""
        for device in self.buttons + self.markers:
            device.close()
        if self.centre is not None:
            self.centre.close()


class FingerClock:
    """The ``sim`` backend's inputs read time from this: the hub's clock, except while
    :class:`SimPins` drives a pin *as of* a time it is given. A simulated tap is a press
    and, ``hold_s`` later, a release made by a timer thread; on a busy machine that
    thread can run a second late, and the edge it makes would turn the tap into a hold.
    The release is stamped when the finger meant it (press + ``hold_s``) instead, as a
    real button's edge is stamped when it happens. (MockPin calls its callbacks in the
    thread that drives it, so the stamp is that thread's alone.)"""

    def __init__(self, clock: Clock) -> None:
        self._clock = clock
        self.virtual = clock.virtual
        self._as_of = threading.local()

    def now(self) -> float:
        """The time being driven, else the hub clock's now."""
        at: float | None = getattr(self._as_of, "at", None)
        return self._clock.now() if at is None else at

    def wall(self, at: float | None = None) -> float:
        """As the hub's clock."""
        return self._clock.wall(at)

    def timeout_until(self, deadline: float | None) -> float | None:
        """As the hub's clock."""
        return self._clock.timeout_until(deadline)

    @contextmanager
    def as_of(self, at: float | None) -> Iterator[None]:
        """Edges made in this thread meanwhile are stamped ``at`` (None: now)."""
        self._as_of.at = at
        try:
            yield
        finally:
            self._as_of.at = None


class SimPins:
    """Drives the MockFactory pins behind the ``sim`` backend, as a finger and a magnet would.

    A MockPin records every change it goes through (for a test's ``assert_states``); a
    hub driving its pins for hours would keep them all, so each drive here clears that
    record (docs/performance.md, "Footprint"). ``clock`` is the inputs' clock: a
    button can be driven as of a time (:class:`FingerClock`)."""

    def __init__(
        self,
        factory: MockFactory,
        button_pins: list[int],
        marker_pins: list[int],
        centre_pin: int | None = None,
        *,
        clock: FingerClock | None = None,
    ) -> None:
        self._buttons = [factory.pin(p) for p in button_pins]
        self._markers = [factory.pin(p) for p in marker_pins]
        self._centre = None if centre_pin is None else factory.pin(centre_pin)
        self.clock = clock

    def button(self, slot: int, pressed: bool, at: float | None = None) -> None:
        """Press (drive low) or release (high) the button of ``slot`` (``CENTRE``: the
        centre button); ``at``: the time the edge is stamped (default: now)."""
        pin = self._centre if slot == CENTRE else self._buttons[slot - 1]
        if pin is None:
            raise ValueError("the centre button has no pin")
        if at is None or self.clock is None:
            _drive(pin, low=pressed)
        else:
            with self.clock.as_of(at):
                _drive(pin, low=pressed)

    def now(self) -> float:
        """The inputs' clock's now (what a press made now is stamped)."""
        if self.clock is None:
            raise ValueError("these simulated pins were given no clock")
        return self.clock.now()

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
