"""The serial link to the hub box's microcontroller: the one module that imports
pyserial. A reader thread opens the port (the configured path, else the first USB
device with MicroPython's VID:PID on a Pico), feeds what it reads to the protocol
:class:`~firmware_bridge.session.Session` (which only posts events), and reopens it
with backoff after an unplug. A writer thread sends, so no caller ever waits on USB.
"""

from __future__ import annotations

import io
import logging
import os
import select
import threading
from collections import deque
from collections.abc import Callable

import serial
from serial.tools import list_ports

from firmware_bridge.firmware import proto
from firmware_bridge.session import HEARTBEAT_S, Identity, Session
from hub.core.events import Event

log = logging.getLogger("firmware_bridge")

# MicroPython on a Raspberry Pi Pico (RP2040) enumerates as 2E8A:0005.
USB_IDS = ((0x2E8A, 0x0005),)
BY_ID = "/dev/serial/by-id"
READ_S = 0.25  # the reader wakes at least this often (heartbeats, stall check)
REFRESH_S = 2.0  # the whole ring is re-sent this often: a lost LED frame heals


def find_port(usb_ids: tuple[tuple[int, int], ...] = USB_IDS) -> str | None:
    """The first serial device with one of ``usb_ids``, by its stable by-id path if any."""
    for info in sorted(list_ports.comports(), key=lambda p: p.device):
        if (info.vid, info.pid) in usb_ids:
            return _stable_path(info.device)
    return None


def _stable_path(device: str) -> str:
    try:
        for name in sorted(os.listdir(BY_ID)):
            path = os.path.join(BY_ID, name)
            if os.path.realpath(path) == os.path.realpath(device):
                return path
    except OSError:
        pass
    return device


class SerialLink:
    """The hub box on ``port`` (empty: found by USB VID:PID). ``post`` takes the input
    events (``inputs=False``: LEDs only, the inputs come from GPIO); ``on_status`` hears
    ``{"connected": bool, "port": str | None}``; ``leds(pixels)`` gives the ring payload
    to (re)send on connect and every few seconds."""

    def __init__(
        self,
        port: str,
        baud: int,
        now: Callable[[], float],
        post: Callable[[Event], None],
        *,
        inputs: bool = True,
        on_status: Callable[[dict[str, object]], None] | None = None,
        leds: Callable[[int], bytes] | None = None,
        retry: tuple[float, float] = (0.1, 2.0),
    ) -> None:
        self.port_setting = port
        self.baud = baud
        self.now = now
        self.inputs = inputs
        self.on_status = on_status
        self.leds_source = leds
        self.retry = retry
        self.session = Session(post if inputs else _ignore, self._queue, self._session_status)
        self.path: str | None = None
        self.opened = 0  # how many times a port was opened
        self._port: serial.Serial | None = None
        self._out: deque[bytes] = deque(maxlen=64)
        self._leds: bytes | None = None
        self._wake = threading.Condition()
        self._stop = threading.Event()
        self._threads: list[threading.Thread] = []
        self._refresh_at = 0.0

    # --- the hub's side -------------------------------------------------------------------

    @property
    def connected(self) -> bool:
        """True while a handshaken microcontroller answers."""
        return self.session.ready

    def status(self) -> dict[str, object]:
        """For the snapshot: ``{"connected": bool, "port": path or None}``."""
        return {"connected": self.session.ready, "port": self.path or self.port_setting or None}

    def read_markers(self) -> tuple[bool, ...]:
        """The marker levels last reported (all off before the first snapshot)."""
        return self.session.markers or (False,) * proto.SLOTS

    def active_inputs(self) -> list[tuple[str, int]] | None:
        """The box's inputs that read active now (the self-test's level check); None
        while it has not reported them."""
        return self.session.active_inputs() if self.inputs else None

    def send_leds(self, payload: bytes) -> None:
        """Send a whole-ring LED frame (only the newest waiting one goes out)."""
        with self._wake:
            self._leds = payload
            self._wake.notify()

    def start(self) -> None:
        """Start the reader and writer threads."""
        for target, name in ((self._read_loop, "serial-read"), (self._write_loop, "serial-write")):
            thread = threading.Thread(target=target, name=name, daemon=True)
            thread.start()
            self._threads.append(thread)

    def close(self) -> None:
        """Stop the threads and close the port."""
        self._stop.set()
        with self._wake:
            self._wake.notify()
        port = self._port
        if port is not None:
            try:  # wakes a reader blocked in read()
                port.cancel_read()
            except OSError:  # the reader closed the port meanwhile (a reconnect): awake
                pass
        for thread in self._threads:
            thread.join(5)
        self._threads.clear()

    # --- internals ---------------------------------------------------------------------------

    def _queue(self, frame: bytes) -> None:
        with self._wake:
            self._out.append(frame)
            self._wake.notify()

    def _session_status(self, ready: bool, identity: Identity | None) -> None:
        if ready:
            self._refresh_at = 0.0  # lights restored at once
            self._refresh(self.now())
        self._announce()

    def _announce(self) -> None:
        if self.on_status is not None:
            self.on_status(self.status())

    def _refresh(self, now: float) -> None:
        identity = self.session.identity
        if self.leds_source is None or identity is None or not self.session.ready:
            return
        if now >= self._refresh_at:
            self._refresh_at = now + REFRESH_S
            self.send_leds(self.leds_source(identity.pixels))

    def _read_loop(self) -> None:
        delay = self.retry[0]
        while not self._stop.is_set():
            path = self.port_setting or find_port()
            port = self._open(path) if path else None
            if port is None:
                self._stop.wait(delay)
                delay = min(delay * 2, self.retry[1])
                continue
            delay = self.retry[0]
            self._serve(port, path or "")

    def _open(self, path: str) -> serial.Serial | None:
        try:
            port = serial.Serial(path, self.baud, timeout=READ_S, write_timeout=0.5)
            port.reset_input_buffer()
            return port
        except (serial.SerialException, OSError, ValueError) as exc:
            log.debug("serial: cannot open %s: %s", path, exc)
            return None

    def _serve(self, port: serial.Serial, path: str) -> None:
        self.path = path
        self.opened += 1
        log.info("serial: opened %s", path)
        with self._wake:
            self._out.clear()
            self._port = port
        self.session.opened(self.now())
        self._announce()
        try:
            while not self._stop.is_set():
                data = _read(port)
                now = self.now()
                if data:
                    self.session.feed(data, now)
                self.session.tick(now)
                self._refresh(now)
        except (serial.SerialException, OSError, TypeError) as exc:
            log.warning("serial: the hub box went away (%s); looking for it again", exc)
        finally:
            with self._wake:
                self._port = None
            port.close()
            self.session.closed(self.now())
            self._announce()

    def _write_loop(self) -> None:
        while not self._stop.is_set():
            with self._wake:
                while not (self._out or self._leds) and not self._stop.is_set():
                    self._wake.wait(HEARTBEAT_S)
                port = self._port
                frames = list(self._out)
                self._out.clear()
                leds, self._leds = self._leds, None
            if leds is not None and self.session.ready:
                frames.append(self.session.encode(proto.LEDS, leds))
            if port is None:
                continue
            try:
                port.write(b"".join(frames))
            except (serial.SerialException, OSError, TypeError, ValueError) as exc:
                # The reader closed the port under us (unplugged): it reopens it.
                log.debug("serial: write failed: %s", exc)


def _read(port: serial.Serial) -> bytes:
    """Whatever has arrived, waiting up to the port's timeout: on POSIX one ``select``
    and one ``read`` for a whole frame (pyserial's ``read(n)`` takes two of each)."""
    try:
        fd = port.fileno()
    except (AttributeError, io.UnsupportedOperation, serial.SerialException):
        return bytes(port.read(max(1, port.in_waiting)))
    if not select.select([fd], [], [], READ_S)[0]:
        return b""
    data = os.read(fd, 4096)
    if not data:  # readable but empty: the device is gone (as pyserial says it)
        raise serial.SerialException("device reports readiness to read but returned no data")
    return data


def _ignore(event: Event) -> None:
    """Inputs from the hub box when the GPIO pins are the inputs: not posted."""
