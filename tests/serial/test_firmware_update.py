"""The hub box is updated over its USB cable in every build, without opening it (issue
36, item 4): ``mtrain-hub firmware update`` asks the running firmware for its update
mode (an ``UPDATE`` frame), the real ``mpremote`` copies the files into the fake
board's REPL and resets it, and the firmware answers again."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

import pytest

from firmware_bridge.fake_mcu import FakeMcu
from firmware_bridge.fakeboard import BoardReset
from firmware_bridge.firmware import mcu as firmware_mcu
from firmware_bridge.firmware import proto
from firmware_bridge.update import FILES, FIRMWARE
from tests.bridge_helpers import firmware
from tests.helpers import until

MTRAIN_HUB = Path(sys.executable).with_name("mtrain-hub")


def update(*words: str) -> subprocess.CompletedProcess[str]:
    """The real command, as a maker runs it."""
    return subprocess.run(
        [str(MTRAIN_HUB), "firmware", "update", *words],
        capture_output=True,
        text=True,
        timeout=180,
    )


def release(tmp_path: Path) -> Path:
    """A new release's firmware: this one's files, each with a line of its own added."""
    folder = tmp_path / "release"
    folder.mkdir()
    for name in (*FILES, "main.py"):
        text = (FIRMWARE / name).read_bytes()
        (folder / name).write_bytes(text + f"# release 2.1: {name}\n".encode())
    return folder


def test_the_default_build_is_updated_over_usb_without_opening_it(tmp_path) -> None:
    box = FakeMcu()
    try:
        assert box.firmware is not None  # the program runs; nobody holds the centre button
        boots = box.boots
        new = release(tmp_path)
        done = update("--port", box.path, "--files", str(new))
        said = done.stdout + done.stderr
        assert done.returncode == 0, said
        assert f"the hub box on {box.path} restarts into its update mode" in said
        assert "copied 5 files; the box restarts" in said
        assert "done: the hub box answers as mtrain-pico 2.0 (protocol 2)" in said
        for name in (*FILES, "main.py"):
            assert box.files[name] == (new / name).read_bytes(), name  # byte for byte
        assert firmware_mcu.UPDATE_FLAG not in box.files  # the next boots run the program
        assert box.boots == boots + 2  # into the update mode, then the new firmware
        assert box.firmware is not None and box.repl is None
    finally:
        box.close()


def test_a_box_in_its_repl_already_is_updated_too(tmp_path) -> None:
    box = FakeMcu()
    try:
        box.update_mode()  # the centre-button escape (the USB build)
        assert box.repl is not None
        done = update("--port", box.path, "--files", str(release(tmp_path)))
        assert done.returncode == 0, done.stdout + done.stderr
        assert "did not answer UPDATE: trying its REPL" in done.stdout
        assert box.firmware is not None
    finally:
        box.close()


def test_the_frame_is_only_a_typo_to_a_box_at_its_repl() -> None:
    frame = proto.encode(0, proto.UPDATE, proto.UPDATE_WORD)  # what the command sends
    assert not {3, 4, 5} & set(frame)  # no Ctrl-C, no soft reset (Ctrl-D), no paste mode


def test_a_firmware_without_the_command_says_how_to_get_out(tmp_path) -> None:
    box = FakeMcu()
    try:
        box.firmware.ask_update = None  # as a release before the command answers it
        done = update("--port", box.path, "--files", str(FIRMWARE))
        assert done.returncode == 1
        assert "has no UPDATE command" in done.stderr and "flashing.md" in done.stderr
        assert box.firmware is not None and box.boots == 1  # left running, untouched
    finally:
        box.close()


def test_a_missing_port_is_named(tmp_path) -> None:
    done = update("--port", str(tmp_path / "nothing"))
    assert done.returncode == 1
    assert f"cannot open {tmp_path / 'nothing'}: No such file or directory" in done.stderr


def test_the_firmware_takes_update_only_with_its_word() -> None:
    fw, machine, ticks, port = firmware()
    marks: list[int] = []
    fw.ask_update = lambda: marks.append(1)
    watchdog = machine.WDT(timeout=firmware_mcu.WATCHDOG_MS)

    def errors_after(frame: bytes) -> list[bytes]:
        port.inbox, port.sent = frame, b""
        fw.guarded_poll(watchdog, machine)
        return [p for _, kind, p in proto.Decoder().feed(port.sent) if kind == proto.ERROR]

    said = errors_after(proto.encode(1, proto.UPDATE, b"update"))  # a word by chance
    assert said[-1][:2] == bytes((proto.E_PAYLOAD, 1)) and not marks and not fw.restart_due
    with pytest.raises(BoardReset):  # after the pass that took it, machine.reset()
        errors_after(proto.encode(2, proto.UPDATE, proto.UPDATE_WORD))
    said = [p for _, kind, p in proto.Decoder().feed(port.sent) if kind == proto.ERROR]
    assert said[-1][:2] == bytes((proto.E_UPDATING, 2)) and marks == [1]


def test_the_box_restarts_after_the_pass_that_took_update() -> None:
    box = FakeMcu()
    try:
        boots = box.boots
        with box._lock:
            box.firmware.take_update(0, proto.UPDATE_WORD)
        until(lambda: box.repl is not None, "the box to boot into its REPL", 10)
        assert box.boots == boots + 1 and box.repl is not None  # the update mode, once
        assert firmware_mcu.UPDATE_FLAG not in box.files
    finally:
        box.close()
