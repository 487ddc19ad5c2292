"""Both sides of the bridge against the byte-exact examples in hardware/PROTOCOL.md."""

from __future__ import annotations

import re
from pathlib import Path

import pytest

from firmware_bridge.firmware import proto
from firmware_bridge.firmware.board import BUTTON_PINS, MARKER_PINS
from firmware_bridge.session import Session
from hub.core.events import ButtonChanged, MarkerChanged, MarkersRead
from tests.bridge_helpers import firmware

DOC = Path(__file__).resolve().parents[2] / "hardware" / "PROTOCOL.md"


def examples() -> dict[str, bytes]:
    """Every ```hex NAME block of the document, as bytes."""
    found = re.findall(r"```hex (\S+)\n(.*?)```", DOC.read_text(), re.S)
    return {name: bytes.fromhex(text.replace("\n", " ")) for name, text in found}


EX = examples()
FRAMES = [n for n in EX if n not in ("garbage-then-heartbeat", "reset-mid-frame")]


def test_the_document_has_every_frame():
    assert set(EX) >= {
        "hello",
        "heartbeat",
        "snapshot-request",
        "ack",
        "leds",
        "identify",
        "snapshot",
        "edge-press",
        "edge-release",
        "edge-marker",
        "mcu-heartbeat",
        "edge-late",
        "error",
        "error-crash",
        "update",
        "error-updating",
        "garbage-then-heartbeat",
        "reset-mid-frame",
    }


@pytest.mark.parametrize("name", FRAMES)
def test_each_example_is_one_whole_frame_and_encodes_back(name):
    frames = proto.Decoder().feed(EX[name])
    assert len(frames) == 1
    seq, kind, payload = frames[0]
    assert proto.encode(seq, kind, payload) == EX[name]


def test_the_pure_python_crc_agrees():
    for data in EX.values():
        assert proto.crc32_slow(data) == proto.crc32(data)


def test_resync_examples():
    assert proto.Decoder().feed(EX["garbage-then-heartbeat"]) == [(1, proto.HEARTBEAT, b"")]
    frames = proto.Decoder().feed(EX["reset-mid-frame"])
    assert [f[1] for f in frames] == [proto.IDENTIFY]


# --- the firmware's side: it writes the documented bytes and obeys the hub's ----------


# The board boots 0.4 s before its tick counter wraps: every time below crosses it.
BOOT = (1 << 30) - 400_000


def booted(pixels: int = 24):
    fw, machine, ticks, port = firmware(us=BOOT, pixels=pixels)
    ticks.us = BOOT + 1_000_000
    return fw, machine, ticks, port


def test_firmware_identify_is_the_documented_one():
    fw, machine, ticks, port = booted()
    fw.seq, port.sent = 0, b""
    fw.send_identify()
    assert port.sent == EX["identify"]


def scan_at(fw, ticks, us: int) -> None:
    """The box's loop scans just before ``us`` and at ``us`` (no pause: not LATE)."""
    ticks.us = us - 1000
    fw.scan()
    ticks.us = us


def test_firmware_snapshot_edges_and_heartbeat_are_the_documented_bytes():
    fw, machine, ticks, port = booted()
    machine.pins[BUTTON_PINS[0]].level = 0  # slot 1 held
    machine.pins[MARKER_PINS[1]].level = 0  # a marker on slot 2
    fw.buttons, fw.markers = fw.board.button_levels(), fw.board.marker_levels()
    ticks.us = BOOT + 1_000_500
    fw.seq, port.sent = 1, b""
    fw.send_snapshot()
    assert port.sent == EX["snapshot"]
    machine.pins[BUTTON_PINS[0]].level = 1  # back at rest: not part of the story
    machine.pins[MARKER_PINS[1]].level = 1
    fw.scan()
    fw.seq, fw.edge, port.sent = 2, 0, b""
    for us, pin, level in [
        (2_000_000, BUTTON_PINS[2], 0),
        (2_150_000, BUTTON_PINS[2], 1),
        (3_000_000, MARKER_PINS[1], 0),
    ]:
        scan_at(fw, ticks, BOOT + us)
        machine.pins[pin].level = level
        fw.scan()
    assert port.sent == EX["edge-press"] + EX["edge-release"] + EX["edge-marker"]
    ticks.us, port.sent, fw.next_beat = BOOT + 3_200_000, b"", 0
    fw.unacked = []
    fw.poll()
    assert port.sent.startswith(EX["mcu-heartbeat"])
    scan_at(fw, ticks, BOOT + 3_900_000)
    machine.pins[BUTTON_PINS[2]].level = 0
    fw.scan()  # slot 3 pressed again at 3.9 s (edge 3), ...
    fw.seq, port.sent = 6, b""
    machine.pins[BUTTON_PINS[2]].level = 1
    ticks.us = BOOT + 4_700_000  # ... and the loop stood still for 0.8 s: the release is LATE
    fw.scan()
    assert port.sent == EX["edge-late"]


def test_firmware_answers_hello_and_refuses_unknown_frames():
    fw, machine, ticks, port = booted()
    fw.seq, port.sent = 0, b""
    port.inbox = EX["hello"]
    fw.poll()
    kinds = [f[1] for f in proto.Decoder().feed(port.sent)]
    assert kinds[:2] == [proto.IDENTIFY, proto.SNAPSHOT]
    fw.seq, port.sent = 6, b""
    fw.handle(9, 0x55, b"")
    assert port.sent == EX["error"]
    fw.seq, port.sent, fw.last_rx_seq = 7, b"", 9
    fw.crashed(ZeroDivisionError("divide by zero"))
    assert port.sent == EX["error-crash"]


def test_firmware_forgets_the_edges_the_documented_ack_covers():
    fw, machine, ticks, port = booted()
    fw.unacked = [bytes(6) + bytes((n,)) for n in (1, 2, 3)]
    fw.edge = 4
    port.inbox = EX["ack"]
    fw.poll()
    assert [p[-1] for p in fw.unacked] == [3]  # the hub has edges up to 2, waits for 3


def test_firmware_shows_the_documented_led_frame():
    fw, machine, ticks, port = booted(pixels=8)
    port.inbox = EX["leds"]
    fw.poll()
    assert fw.pixels[0] == (0, 0x72, 0xB2, 1) and fw.pixels[1] == (0xFF, 0x9A, 0, 0)
    assert fw.board.ring.shown[1] == (0xFF, 0x9A, 0)
    fw24, *_ = booted()
    fw24.port.sent = b""
    fw24.port.inbox = EX["leds"]
    fw24.poll()  # 8 pixels for a ring of 24: refused with code 3
    errors = [f for f in proto.Decoder().feed(fw24.port.sent) if f[1] == proto.ERROR]
    assert errors and errors[0][2][0] == proto.E_PAYLOAD


# --- the hub's side: it reads the documented frames into events --------------------------


def test_hub_session_reads_the_documented_frames():
    posted, written = [], []
    session = Session(posted.append, written.append)
    session.opened(10.0)
    assert written == [EX["hello"]]
    session.feed(EX["identify"], 10.0)
    session.feed(EX["snapshot"], 10.001)
    assert session.ready
    assert posted == [MarkersRead((False, True) + (False,) * 6, posted[0].at)]
    assert posted[0].at <= 10.001
    for name in ("edge-press", "edge-release", "edge-marker"):
        session.feed(EX[name], 11.2 if name != "edge-marker" else 12.05)
    presses = [e for e in posted if isinstance(e, ButtonChanged)]
    # Slot 1 was held at connect (ignored until let go); slot 3's tap is 150 ms long
    # by the box's clock, whenever USB delivered it.
    assert [(e.slot, e.pressed) for e in presses] == [(3, True), (3, False)]
    assert presses[1].at - presses[0].at == pytest.approx(0.150, abs=1e-6)
    assert MarkerChanged(2, True, posted[-1].at) == posted[-1]
    # Each edge is acknowledged: the hub has edges up to 2 and waits for 3 (as ``ack``).
    seq, kind, payload = proto.Decoder().feed(written[-1])[0]
    assert (kind, payload) == (proto.ACK, EX["ack"][4:5])
    session.feed(EX["mcu-heartbeat"], 12.3)
    session.feed(EX["error"], 12.3)
    assert "refused frame 9" in session.errors[-1]
    session.feed(EX["error-crash"], 12.3)
    assert "ZeroDivisionError: divide by zero" in session.errors[-1]
    session.tick(12.4)
    assert proto.Decoder().feed(written[-1])[0][1] == proto.HEARTBEAT
