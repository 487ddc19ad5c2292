"""The fake microcontroller: the real firmware (``firmware/mcu.py``) under CPython on a
pty, its pins driven by commands. ``mtrain-hub fake-mcu`` runs it from standard input;
tests and the bench drive :class:`FakeMcu` directly.

The pty's path is reached through a symlink that stays put across ``unplug`` and
``replug`` (as ``/dev/serial/by-id/...`` does for a real board): unplugging closes
the pty, so the hub's reads fail as they do when a USB cable is pulled.
"""

from __future__ import annotations

import os
import random
import select
import tempfile
import threading
import time
import tty
from collections.abc import Callable

from firmware_bridge.fakeboard import BoardReset, Machine, NeoPixelModule, Ticks, firmware_files
from firmware_bridge.fakeport import PtyPort, unread
from firmware_bridge.fakerepl import Repl, SoftReset
from firmware_bridge.firmware import proto
from firmware_bridge.firmware.board import (
    BUTTON_PINS,
    CENTRE_PIN,
    MARKER_PINS,
    Board,
    centre_held,
)
from firmware_bridge.firmware.mcu import UPDATE_FLAG, UPDATING_TEXT, WATCHDOG_MS, Firmware

Pixels = list[tuple[int, ...]]
# A boot's id from a generator of its own: a box restarting on its thread must not
# draw from the process-wide one that tests seed and check (hypothesis does).
_BOOTS = random.Random()
POLL_S = 0.005  # the fake's loop wakes at least this often


class _Firmware(Firmware):
    """The firmware, telling the fake about every LED frame it takes; ``fault`` makes
    its next pass fail (``crash``), as a bug would."""

    on_leds: Callable[[Pixels], None] | None = None
    fault: str | None = None
    lost: tuple[int, ...] = ()  # frame types whose next frame is lost on the line

    def send(self, kind: int, payload: bytes = b"") -> None:
        if kind in self.lost:
            at = self.lost.index(kind)
            self.lost = self.lost[:at] + self.lost[at + 1 :]
            self.seq = (self.seq + 1) & 0xFF  # sent, and lost on the way
            return
        super().send(kind, payload)

    def take_leds(self, seq: int, payload: bytes) -> None:
        before = self.errors
        super().take_leds(seq, payload)
        if self.errors == before and self.on_leds is not None:
            self.on_leds(list(self.pixels))

    def poll(self) -> None:
        fault, self.fault = self.fault, None
        if fault is not None:
            raise RuntimeError(fault)
        super().poll()


class FakeMcu:
    """A hub box on a pty at :attr:`path`; ``on_leds(pixels)`` hears each LED frame.

    It boots as ``main.py`` does: when the hub asked for the update mode (``UPDATE``:
    the mark :data:`UPDATE_FLAG` in its flash, removed by this boot) or with the centre
    button held, into MicroPython's REPL (:attr:`repl`, :mod:`firmware_bridge.fakerepl`;
    :attr:`firmware` is None), else into the firmware under the watchdog. A watchdog or
    ``machine.reset()`` reset drops the USB link and brings it back, as on a Pico;
    :attr:`boots` counts boots.
    :attr:`files` is the board's flash (the REPL writes it; the firmware that runs is
    always this package's).
    """

    def __init__(
        self,
        link: str | None = None,
        on_leds: Callable[[Pixels], None] | None = None,
        pixels: int = 24,
    ) -> None:
        self.path = link or os.path.join(tempfile.mkdtemp(prefix="mtrain-"), "fake-mcu")
        self.on_leds = on_leds
        self.pixel_count = pixels
        self.frames: list[Pixels] = []
        self.machine = Machine()
        self.files = firmware_files()
        self.firmware: _Firmware | None = None
        self.repl: Repl | None = None
        self.boots = 0
        self._lock = threading.RLock()
        self._wake_r, self._wake_w = os.pipe()
        self._stall_until = 0.0
        self._running = True
        self._master = -1
        self._slave = -1
        self.plugged = False
        self.replug()
        self._thread = threading.Thread(target=self._run, name="fake-mcu", daemon=True)
        self._thread.start()

    # --- the board's life -------------------------------------------------------------

    def _boot(self) -> None:
        """Power-on, as ``main.py`` runs it: the update escape, else the firmware."""
        self.boots += 1
        self.machine.powered_on()
        # A fresh clock 5 s before its wrap, so every run crosses it.
        ticks = Ticks(start_us=(1 << 30) - 5_000_000)
        port = PtyPort(self._master)
        self.firmware = self.repl = None
        if self.files.pop(UPDATE_FLAG, None) is not None or centre_held(self.machine, ticks):
            port.write(UPDATING_TEXT)
            self.repl = Repl(port, self.files)
            return
        watchdog = self.machine.WDT(timeout=WATCHDOG_MS)
        board = Board(self.machine, NeoPixelModule, ticks, self.pixel_count)
        firmware = _Firmware(board, port, _BOOTS.getrandbits(16), self._ask_update)
        firmware.on_leds = self._leds
        self.firmware = firmware
        watchdog.feed()

    def _ask_update(self) -> None:
        """``main.py``'s mark for the next boot, in the fake board's flash."""
        self.files[UPDATE_FLAG] = b"the hub asked for the update mode\n"

    def _leds(self, pixels: Pixels) -> None:
        self.frames.append(pixels)
        del self.frames[:-100]
        if self.on_leds is not None:
            self.on_leds(pixels)

    def _run(self) -> None:
        while self._running:
            with self._lock:
                wait = self._step(time.monotonic())
                master = self._master
            fds = [self._wake_r] + ([master] if master >= 0 and wait == POLL_S else [])
            try:
                ready, _, _ = select.select(fds, [], [], wait)
            except OSError:  # unplugged meanwhile: the pty's fd is closed
                continue
            if self._wake_r in ready:
                os.read(self._wake_r, 512)

    def _step(self, now: float) -> float:
        """One moment of the board's life; how long to wait before the next."""
        watchdog = self.machine.watchdog
        if watchdog is not None and self.plugged and now >= watchdog.due():
            self._hard_reset()  # the loop stopped feeding it: a hang, or a long stall
            return 0.0
        stalled = self._stall_until - now
        if stalled > 0:
            return stalled if watchdog is None else max(0.0, min(stalled, watchdog.due() - now))
        if self.plugged:
            try:
                if self.firmware is not None:
                    self.firmware.guarded_poll(watchdog, self.machine)
                elif self.repl is not None:
                    self.repl.poll()
            except BoardReset:
                self._hard_reset()
            except SoftReset:
                self._boot()
        return POLL_S

    def _hard_reset(self) -> None:
        """The board resets: on a Pico the USB device goes away and comes back, so the
        hub's port closes and opens again, and the board boots with a new boot id. What
        was written before is given a moment to be read (a pty drops it on close)."""
        deadline = time.monotonic() + 0.5
        while self._slave >= 0 and unread(self._slave) and time.monotonic() < deadline:
            time.sleep(0.002)
        self.unplug()
        self.replug()

    def _wake(self) -> None:
        os.write(self._wake_w, b".")

    # --- commands ---------------------------------------------------------------------

    def button(self, index: int, pressed: bool) -> None:
        """Press or release the centre button (0) or slot ``index``'s button."""
        number = CENTRE_PIN if index == 0 else BUTTON_PINS[index - 1]
        self.machine.pins[number].level = 0 if pressed else 1
        self._wake()

    def edge_now(self, index: int, pressed: bool) -> None:
        """Press or release button ``index`` and scan it at once on the caller's thread,
        as a board whose loop never pauses sees an edge. :meth:`button` wakes the
        fake's own thread instead, a hand-off between two host threads that a real
        board does not have (``bench/serial_latency.py`` times the link without it)."""
        number = CENTRE_PIN if index == 0 else BUTTON_PINS[index - 1]
        with self._lock:
            self.machine.pins[number].level = 0 if pressed else 1
            if self.plugged and self.firmware is not None:
                self.firmware.scan()

    def press(self, slot: int, hold_ms: float) -> None:
        """Hold slot ``slot``'s button (0: the centre) for ``hold_ms``, then let go."""
        self.button(slot, True)
        self._scanned(slot)
        time.sleep(hold_ms / 1000)
        self.button(slot, False)

    def chord(self, slot: int, hold_ms: float) -> None:
        """Hold the centre button and slot ``slot``'s together for ``hold_ms``, then let
        go of both (a claim's chord: docs/security.md). A press let go of just before
        is seen let go first (else the two would merge into one long press)."""
        self._scanned(0, down=False)
        self._scanned(slot, down=False)
        self.button(0, True)
        self.button(slot, True)
        self._scanned(0)
        self._scanned(slot)
        time.sleep(hold_ms / 1000)
        self.button(slot, False)
        self.button(0, False)

    def _scanned(self, index: int, timeout: float = 1.0, down: bool = True) -> None:
        """Wait until the firmware has seen the button down (``down``; else up: a busy
        host can delay the fake's scan, which a real board never would), so a hold is
        timed from there."""
        deadline = time.monotonic() + timeout
        while (
            self.plugged
            and self._stall_until < time.monotonic() < deadline
            and self.firmware is not None
            and bool(self.firmware.buttons & (1 << index)) != down
        ):
            time.sleep(0.0005)

    def marker(self, slot: int, present: bool) -> None:
        """Put a marker on slot ``slot`` or take it off."""
        self.machine.pins[MARKER_PINS[slot - 1]].level = 0 if present else 1
        self._wake()

    def marker_now(self, slot: int, present: bool) -> None:
        """Put a marker on slot ``slot`` (or take it off) and scan at once on the
        caller's thread, as :meth:`edge_now` does for a button."""
        with self._lock:
            self.machine.pins[MARKER_PINS[slot - 1]].level = 0 if present else 1
            if self.plugged and self.firmware is not None:
                self.firmware.scan()

    def unplug(self) -> None:
        """Pull the cable: the pty goes away and the hub's reads fail."""
        with self._lock:
            if not self.plugged:
                return
            self.plugged = False
            for fd in (self._master, self._slave):
                os.close(fd)
            self._master = self._slave = -1
            try:
                os.unlink(self.path)
            except FileNotFoundError:
                pass

    def replug(self) -> None:
        """Plug the cable back in: a new pty behind the same path, and the board boots
        (into the REPL if the centre button is held meanwhile: the update escape)."""
        with self._lock:
            if self.plugged:
                return
            self._master, self._slave = os.openpty()
            tty.setraw(self._slave)  # no echo of our own frames before the hub opens it
            os.set_blocking(self._master, False)
            tmp = self.path + ".new"
            os.symlink(os.ttyname(self._slave), tmp)
            os.replace(tmp, self.path)
            self.plugged = True
            self._stall_until = 0.0
            self._boot()  # powered by USB: plugging in boots it
        self._wake()

    def update_mode(self) -> None:
        """Unplug, hold the centre button, plug in and let go: the update escape."""
        with self._lock:
            self.unplug()
            self.button(0, True)
            self.replug()
            self.button(0, False)

    def garbage(self, count: int) -> None:
        """Send ``count`` random bytes between two frames."""
        with self._lock:
            PtyPort(self._master).write(os.urandom(count))

    def reset(self) -> None:
        """Reset the board in the middle of sending a frame: half a frame, then it boots
        (the port stays open: the glitch as the protocol sees it; a Pico's own resets,
        :meth:`crash` and the watchdog, also drop the USB link)."""
        with self._lock:
            frame = proto.encode(0, proto.MCU_HEARTBEAT, bytes(7))
            PtyPort(self._master).write(frame[: len(frame) // 2])
            self._boot()
        self._wake()

    def lose(self, kind: int) -> None:
        """Lose the next frame of type ``kind`` the board sends, as noise on the line
        would (its sequence number is spent)."""
        with self._lock:
            if self.firmware is not None:
                self.firmware.lost += (kind,)

    def crash(self, why: str = "injected by fake-mcu") -> None:
        """Make the firmware's next pass raise: it tells the hub and resets."""
        with self._lock:
            if self.firmware is not None:
                self.firmware.fault = why
        self._wake()

    def stall(self, seconds: float) -> None:
        """Hang for ``seconds``: no scans, no heartbeat, nothing read or sent, the
        watchdog not fed (past its 5 s, it resets the board)."""
        with self._lock:
            self._stall_until = time.monotonic() + seconds
        self._wake()

    def close(self) -> None:
        """Stop the board and remove its pty."""
        self._running = False
        self._wake()
        self._thread.join(5)
        self.unplug()
        os.close(self._wake_r)
        os.close(self._wake_w)


# --- ``mtrain-hub fake-mcu`` ----------------------------------------------------------
