"""The fake microcontroller's own commands, over its real pty."""

from __future__ import annotations

import os
import select
import subprocess
import sys
import time
import tty

import pytest

from firmware_bridge.fake_mcu import FakeMcu
from firmware_bridge.firmware import proto


def _edges(fd: int, decoder: proto.Decoder, want: int) -> list[tuple[int, int]]:
    """(input, level) of each EDGE frame read until ``want`` have arrived (1 s at most)."""
    edges: list[tuple[int, int]] = []
    while len(edges) < want and select.select([fd], [], [], 1.0)[0]:
        for _, kind, payload in decoder.feed(os.read(fd, 4096)):
            if kind == proto.EDGE:
                edges.append((payload[4], payload[5] & proto.LEVEL))
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


# --- the update path: mpremote against the fake board (hardware/flashing.md) ----------

from mpremote.transport import TransportError  # noqa: E402
from mpremote.transport_serial import SerialTransport  # noqa: E402


def mpremote(path: str, *args: str) -> subprocess.CompletedProcess[str]:
    """The real ``mpremote`` client, as a maker runs it."""
    return subprocess.run(
        [sys.executable, "-m", "mpremote", "connect", path, *args],
        capture_output=True,
        text=True,
        timeout=60,
    )


def test_mpremote_cannot_reach_the_repl_while_the_program_runs() -> None:
    mcu = FakeMcu()
    try:
        transport = SerialTransport(mcu.path)
        try:
            with pytest.raises(TransportError, match="could not enter raw repl"):
                transport.enter_raw_repl(soft_reset=True, timeout_overall=1.5)
        finally:
            transport.close()
        assert mcu.repl is None and mcu.firmware is not None  # Ctrl-C was just noise
    finally:
        mcu.close()


def test_the_update_escape_lets_mpremote_copy_files_and_reset(tmp_path) -> None:
    mcu = FakeMcu()
    try:
        mcu.update_mode()  # unplugged, centre held, plugged in, let go
        assert mcu.firmware is None and mcu.repl is not None
        assert mcu.machine.watchdog is None
        new_main = tmp_path / "main.py"
        new_main.write_bytes(b"# a new release\n" + bytes(range(256)) * 3)
        (tmp_path / "mcu.py").write_text("NAME = 'next'\n")
        done = mpremote(
            mcu.path, "cp", str(tmp_path / "mcu.py"), ":", "+", "cp", str(new_main), ":main.py"
        )
        assert done.returncode == 0, done.stdout + done.stderr
        assert mcu.files["main.py"] == new_main.read_bytes()  # byte for byte, 0x00-0xff too
        assert mcu.files["mcu.py"] == b"NAME = 'next'\n"
        done = mpremote(mcu.path, "rm", ":lights.py")
        assert done.returncode == 0, done.stderr
        assert "lights.py" not in mcu.files
        gone = mpremote(mcu.path, "rm", ":lights.py")
        assert gone.returncode != 0 and "lights.py" in gone.stdout + gone.stderr
        assert mcu.repl is not None  # still in the REPL: a soft reset does not run main.py
        boots = mcu.boots
        mpremote(mcu.path, "reset")
        deadline = time.monotonic() + 10
        while mcu.firmware is None and time.monotonic() < deadline:
            time.sleep(0.01)
        assert mcu.boots > boots and mcu.firmware is not None  # the program runs again
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
