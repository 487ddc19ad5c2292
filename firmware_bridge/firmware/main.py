"""Runs the hub box's firmware on a Raspberry Pi Pico (MicroPython): copied to the
board as ``main.py`` with the other files of this folder (hardware/flashing.md).
The USB serial port is the REPL's: Ctrl-C is switched off so binary frames pass.
"""

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


def run() -> None:
    """Build the board and run the firmware forever."""
    micropython.kbd_intr(-1)
    boot_id = random.getrandbits(16)
    firmware = mcu.Firmware(board.Board(machine, neopixel, time), UsbPort(), boot_id)
    while True:
        firmware.poll()


run()
