"""Runs the hub box's firmware on a Raspberry Pi Pico (MicroPython): copied to the
board as ``main.py`` with the other files of this folder (hardware/flashing.md).

- **The update mode.** When the hub asked for it (an ``UPDATE`` frame: the program
  leaves the file ``mcu.UPDATE_FLAG`` and resets; this boot removes it, so the next
  reset runs the program again), or with the centre button held as the board powers
  on, the program is skipped: the ring shows dim blue and the USB serial port is
  MicroPython's REPL, so ``mpremote`` can copy new files. Otherwise the program runs, and
- Ctrl-C is switched off on the USB serial port, so binary frames pass;
- a watchdog resets a box whose loop stops (``mcu.WATCHDOG_MS``), and any exception
  resets it too (after telling the hub why): it never sits in the REPL, and the hub
  sees it come back with a new boot id.
"""

import os
import random
import select
import sys
import time

import board
import machine
import mcu
import micropython
import neopixel


class UsbPort:
    """USB serial through stdin/stdout, read without blocking."""

    def __init__(self) -> None:
        self.inp = sys.stdin.buffer
        self.out = sys.stdout.buffer
        self.poller = select.poll()
        self.poller.register(sys.stdin, select.POLLIN)

    def read(self) -> bytes:
        """Whatever bytes have arrived (up to 64), or b''."""
        data = b""
        while len(data) < 64 and self.poller.poll(0):
            data += self.inp.read(1)
        return data

    def write(self, data: bytes) -> None:
        """Send ``data`` to the hub."""
        self.out.write(data)


def updating() -> None:
    """The update escape: say so on the ring and on the REPL, and return to it."""
    try:
        ring = board.Board(machine, neopixel, time)
        ring.show([mcu.UPDATING] * ring.pixels)
    except Exception:  # the ring is only a courtesy here
        pass
    sys.stdout.write(mcu.UPDATING_TEXT.decode())


def asked() -> bool:
    """True once after the hub asked for the update mode: the mark is removed here."""
    try:
        os.remove(mcu.UPDATE_FLAG)
    except OSError:
        return False
    return True


def ask_update() -> None:
    """Leave the mark that makes the next boot the update mode."""
    with open(mcu.UPDATE_FLAG, "w") as mark:
        mark.write("the hub asked for the update mode\n")


def run() -> None:
    """Build the board and run the firmware forever, under the watchdog."""
    micropython.kbd_intr(-1)
    watchdog = machine.WDT(timeout=mcu.WATCHDOG_MS)
    box = board.Board(machine, neopixel, time)
    firmware = mcu.Firmware(box, UsbPort(), random.getrandbits(16), ask_update)
    while True:
        firmware.guarded_poll(watchdog, machine)


if asked() or board.centre_held(machine, time):
    updating()
else:
    try:
        run()
    except Exception:  # failed before the loop took over: start afresh
        machine.reset()
