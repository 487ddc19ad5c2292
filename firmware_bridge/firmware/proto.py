"""The bridge protocol's framing, shared by the firmware and the hub (hardware/PROTOCOL.md).

A frame is ``7E LEN SEQ TYPE PAYLOAD CRC32``: a sync byte, the payload's length, the
sender's sequence number, the frame type, the payload, and a CRC-32 (little-endian)
of LEN..PAYLOAD. The decoder resyncs on the sync byte after garbage: a candidate
frame whose CRC fails is dropped one byte at a time, and a candidate still waiting
for bytes gives way to a later complete frame, so garbage costs at most the frame it
corrupts. Written for MicroPython as well as CPython: no f-strings, no typing module.
"""

import struct

try:
    from binascii import crc32 as _crc32
except ImportError:  # a MicroPython build without binascii.crc32
    _crc32 = None  # type: ignore[assignment]

VERSION = 2
SYNC = 0x7E
OVERHEAD = 8  # sync, length, sequence, type and the 4-byte CRC
MAX_PAYLOAD = 200
# The hub's slots (inputs 1..SLOTS, markers MARKER+1..MARKER+SLOTS). The firmware runs
# standalone, so this is a copy of the hub's scorer.profiles.SLOTS that
# tests/arch/test_facts.py holds equal; the hub's side of the bridge reads it here.
SLOTS = 8

# Hub -> microcontroller
HELLO = 0x01
HEARTBEAT = 0x02
LEDS = 0x03
SNAPSHOT_REQUEST = 0x04
ACK = 0x05
UPDATE = 0x06  # payload UPDATE_WORD: the box restarts into MicroPython's REPL, once
# Microcontroller -> hub
IDENTIFY = 0x81
SNAPSHOT = 0x82
EDGE = 0x83
MCU_HEARTBEAT = 0x84
# Either way
ERROR = 0xEE

# The payload of UPDATE: a frame that reached the box by chance does not stop it.
UPDATE_WORD = b"mtrain-update"

# Capability bits of IDENTIFY
CAP_INPUTS = 0x01
CAP_LEDS = 0x02

# Inputs named in EDGE frames: the centre button, the slot buttons, the marker sensors
CENTRE = 0x00
BUTTON = 0x00  # + slot 1..8
MARKER = 0x10  # + slot 1..8

# The level byte of an EDGE: bit 0 the level; LATE: the box's previous scan was more
# than SCAN_GAP_US before this one, so the edge's time is only an upper bound
LEVEL = 0x01
LATE = 0x02

# Error codes
E_VERSION = 1
E_UNKNOWN = 2
E_PAYLOAD = 3
E_CRASH = 4  # the box's firmware failed: the text says how; the box resets
E_UPDATING = 5  # not a fault: the box took UPDATE and restarts into MicroPython's REPL

# LED effects (the fourth byte of each pixel)
STEADY = 0
BREATHE = 1
BLINK = 2
CHASE = 3

_TABLE: "list[int]" = []


def _table() -> "list[int]":
    if not _TABLE:
        for n in range(256):
            c = n
            for _ in range(8):
                c = (c >> 1) ^ 0xEDB88320 if c & 1 else c >> 1
            _TABLE.append(c)
    return _TABLE


def crc32_slow(data: bytes) -> int:
    """CRC-32 (the zlib one) in plain Python: for a firmware without binascii.crc32."""
    table = _table()
    c = 0xFFFFFFFF
    for b in data:
        c = table[(c ^ b) & 0xFF] ^ (c >> 8)
    return int(c ^ 0xFFFFFFFF)


def crc32(data: bytes) -> int:
    """CRC-32 of ``data`` (polynomial 0x04C11DB7 reflected, as zlib)."""
    if _crc32 is not None:
        return int(_crc32(data)) & 0xFFFFFFFF
    return crc32_slow(data)


def encode(seq: int, kind: int, payload: bytes = b"") -> bytes:
    """One frame: sequence number ``seq`` (mod 256), type ``kind``, ``payload`` bytes."""
    if len(payload) > MAX_PAYLOAD:
        raise ValueError("payload too long")
    body = bytes((len(payload), seq & 0xFF, kind)) + bytes(payload)
    return bytes((SYNC,)) + body + struct.pack("<I", crc32(body))


class Decoder:
    """Turns a byte stream into frames ``(seq, kind, payload)``, resyncing after garbage.

    ``dropped`` counts bytes thrown away (garbage, broken frames).
    """

    def __init__(self) -> None:
        self.buf = b""
        self.dropped = 0

    def reset(self) -> None:
        """Forget any partial frame (after a reconnect)."""
        self.buf = b""

    def feed(self, data: bytes) -> "list[tuple[int, int, bytes]]":
        """Take ``data``; return the list of complete, valid frames in it (in order)."""
        buf = self.buf + bytes(data)
        frames: list[tuple[int, int, bytes]] = []
        while buf:
            start = buf.find(b"\x7e")
            if start < 0:
                self.dropped += len(buf)
                buf = b""
                break
            if start:
                self.dropped += start
                buf = buf[start:]
            size = _size(buf, 0)
            if size < 0:
                self.dropped += 1
                buf = buf[1:]
                continue
            if len(buf) < size:
                later = _later_frame(buf)
                if later < 0:
                    break
                self.dropped += later
                buf = buf[later:]
                continue
            frame = _check(buf, 0, size)
            if frame is None:
                self.dropped += 1
                buf = buf[1:]
                continue
            frames.append(frame)
            buf = buf[size:]
        self.buf = buf
        return frames


def _size(buf: bytes, at: int) -> int:
    """The whole frame's size if ``buf[at]`` starts a plausible frame; 0 if too few
    bytes to tell, -1 if the length byte rules it out."""
    if len(buf) < at + 2:
        return OVERHEAD
    length = buf[at + 1]
    if length > MAX_PAYLOAD:
        return -1
    return length + OVERHEAD


def _check(buf: bytes, at: int, size: int) -> "tuple[int, int, bytes] | None":
    body = buf[at + 1 : at + size - 4]
    (crc,) = struct.unpack("<I", buf[at + size - 4 : at + size])
    if crc32(body) != crc:
        return None
    return (body[1], body[2], body[3:])


def _later_frame(buf: bytes) -> int:
    """Where a complete, valid frame starts after position 0, or -1."""
    at = buf.find(b"\x7e", 1)
    while at > 0:
        size = _size(buf, at)
        if size > 0 and len(buf) >= at + size and _check(buf, at, size) is not None:
            return at
        at = buf.find(b"\x7e", at + 1)
    return -1


def pack_time(us: int) -> bytes:
    """A microsecond timestamp as the 4 bytes frames carry (mod 2**32)."""
    return struct.pack("<I", us & 0xFFFFFFFF)
