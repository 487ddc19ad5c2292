"""Helpers for the bridge tests: a board on a clock the test sets, and a byte port."""

from __future__ import annotations

from firmware_bridge.fakeboard import Machine, NeoPixelModule
from firmware_bridge.firmware.board import Board
from firmware_bridge.firmware.mcu import Firmware


class SetTicks:
    """``time.ticks_*`` on a clock the test moves (``us``), wrapping at 2**30."""

    def __init__(self, us: int = 0) -> None:
        self.us = us

    def ticks_us(self) -> int:
        return self.us % (1 << 30)

    def ticks_diff(self, a: int, b: int) -> int:
        half = 1 << 29
        return ((a - b + half) % (1 << 30)) - half

    def sleep_ms(self, ms: int) -> None:
        self.us += ms * 1000


class BytePort:
    """The firmware's port: what the hub sends waits in ``inbox``; ``sent`` collects."""

    def __init__(self) -> None:
        self.inbox = b""
        self.sent = b""

    def read(self) -> bytes:
        data, self.inbox = self.inbox, b""
        return data

    def write(self, data: bytes) -> None:
        self.sent += data


def firmware(us: int = 0, pixels: int = 24, boot_id: int = 0x1234):
    """A firmware on a fake board at ``us``; returns (firmware, machine, ticks, port)."""
    machine, ticks, port = Machine(), SetTicks(us), BytePort()
    fw = Firmware(Board(machine, NeoPixelModule, ticks, pixels), port, boot_id)
    return fw, machine, ticks, port
