"""The fake microcontroller's own commands, over its real pty."""

from __future__ import annotations

import os
import select
import tty

from firmware_bridge.fake_mcu import FakeMcu
from firmware_bridge.firmware import proto


def _edges(fd: int, decoder: proto.Decoder, want: int) -> list[tuple[int, int]]:
    """(input, level) of each EDGE frame read until ``want`` have arrived (1 s at most)."""
    edges: list[tuple[int, int]] = []
    while len(edges) < want and select.select([fd], [], [], 1.0)[0]:
        for _, kind, payload in decoder.feed(os.read(fd, 4096)):
            if kind == proto.EDGE:
                edges.append((payload[-2], payload[-1]))
    return edges


def test_edge_now_scans_on_the_callers_thread() -> None:
    mcu = FakeMcu()
    try:
        fd = os.open(mcu.path, os.O_RDWR | os.O_NOCTTY)
        tty.setraw(fd)
        decoder = proto.Decoder()
        with mcu._lock:  # the board's own thread cannot scan meanwhile
            mcu.edge_now(3, True)
            # Scanned before the call returned: the firmware already holds the level.
            assert mcu.firmware.buttons & (1 << 3)
        mcu.edge_now(3, False)
        assert not mcu.firmware.buttons & (1 << 3)
        assert _edges(fd, decoder, 2) == [(proto.BUTTON + 3, 1), (proto.BUTTON + 3, 0)]
        os.close(fd)
    finally:
        mcu.close()


def test_marker_now_scans_on_the_callers_thread() -> None:
    mcu = FakeMcu()
    try:
        fd = os.open(mcu.path, os.O_RDWR | os.O_NOCTTY)
        tty.setraw(fd)
        decoder = proto.Decoder()
        with mcu._lock:  # the board's own thread cannot scan meanwhile
            mcu.marker_now(5, True)
            assert mcu.firmware.markers & (1 << 5)
        mcu.marker_now(5, False)
        assert not mcu.firmware.markers & (1 << 5)
        assert _edges(fd, decoder, 2) == [(proto.MARKER + 5, 1), (proto.MARKER + 5, 0)]
        os.close(fd)
    finally:
        mcu.close()
