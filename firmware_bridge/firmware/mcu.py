"""The hub box's firmware: reads the inputs, timestamps every edge with its own
microsecond clock, drives the ring, and speaks the bridge protocol
(hardware/PROTOCOL.md) over a byte port. ``main.py`` runs it on a Pico; the fake
microcontroller runs the same class under CPython.
"""

import struct

try:
    from typing import Any
except ImportError:  # MicroPython never evaluates annotations
    pass

try:  # a package under CPython (the hub, the fake microcontroller)
    from . import lights, proto
except ImportError:  # flat files on the Pico
    import lights  # type: ignore[no-redef,import-not-found]
    import proto  # type: ignore[no-redef,import-not-found]

NAME = b"mtrain-pico 1.0"
HEARTBEAT_US = 200_000
HOST_LOST_US = 3_000_000
FRAME_US = 20_000  # animation step: 50 frames a second
IDLE = (12, 12, 10, lights.STEADY)  # dim white: nobody is driving the ring


class Firmware:
    """One microcontroller: ``board`` (see board.py) and ``port`` (``read()`` returns
    the bytes waiting, maybe none; ``write(data)``). Call :meth:`poll` in a loop."""

    def __init__(self, board: Any, port: Any, boot_id: int = 0) -> None:
        self.board = board
        self.port = port
        self.boot_id = boot_id & 0xFFFF
        self.decoder = proto.Decoder()
        self.seq = 0
        self.errors = 0
        self.last_rx_seq = -1
        self._tick = board.ticks_us()
        self.now_us = 0
        self.buttons = board.button_levels()
        self.markers = board.marker_levels()
        self.pixels: list[tuple[int, ...]] = [IDLE] * board.pixels
        self.host_at = -HOST_LOST_US
        self.next_beat = 0
        self.next_frame = 0
        self.shown: list[tuple[int, int, int]] = []
        self.send_identify()
        self.send_snapshot()

    # --- time -----------------------------------------------------------------------

    def clock(self) -> int:
        """Microseconds since boot, extended past the counter's wrap."""
        t = self.board.ticks_us()
        self.now_us += self.board.ticks_diff(t, self._tick)
        self._tick = t
        return self.now_us

    # --- sending --------------------------------------------------------------------

    def send(self, kind: int, payload: bytes = b"") -> None:
        """Send one frame with the next sequence number."""
        self.port.write(proto.encode(self.seq, kind, payload))
        self.seq = (self.seq + 1) & 0xFF

    def send_identify(self) -> None:
        """Who this is: version, capabilities, slots, pixels, boot id, clock, name."""
        caps = proto.CAP_INPUTS | proto.CAP_LEDS
        head = struct.pack("<BBBBH", proto.VERSION, caps, 8, self.board.pixels, self.boot_id)
        self.send(proto.IDENTIFY, head + proto.pack_time(self.clock()) + NAME)

    def send_snapshot(self) -> None:
        """Every input's level now."""
        payload = proto.pack_time(self.clock()) + struct.pack("<HH", self.buttons, self.markers)
        self.send(proto.SNAPSHOT, payload)

    def send_error(self, code: int, about: int, text: bytes) -> None:
        """Tell the hub what was wrong with its frame ``about``."""
        self.errors += 1
        self.send(proto.ERROR, bytes((code, about & 0xFF)) + text)

    # --- the loop -------------------------------------------------------------------

    def poll(self) -> None:
        """One pass: inputs, then the port, then heartbeat and lights when due."""
        self.scan()
        data = self.port.read()
        if data:
            for frame in self.decoder.feed(data):
                self.handle(frame[0], frame[1], frame[2])
        now = self.clock()
        if now >= self.next_beat:
            self.next_beat = now + HEARTBEAT_US
            payload = proto.pack_time(now) + struct.pack("<H", self.decoder.dropped & 0xFFFF)
            self.send(proto.MCU_HEARTBEAT, payload)
        if now >= self.next_frame:
            self.next_frame = now + FRAME_US
            self.render(now)

    def scan(self) -> None:
        """Send an EDGE for every input that changed since the last scan."""
        buttons = self.board.button_levels()
        markers = self.board.marker_levels()
        if buttons == self.buttons and markers == self.markers:
            return
        now = proto.pack_time(self.clock())
        for i in range(9):
            bit = 1 << i
            if (buttons ^ self.buttons) & bit:
                self.send(proto.EDGE, now + bytes((proto.BUTTON + i, 1 if buttons & bit else 0)))
            if i and (markers ^ self.markers) & bit:
                self.send(proto.EDGE, now + bytes((proto.MARKER + i, 1 if markers & bit else 0)))
        self.buttons = buttons
        self.markers = markers

    def handle(self, seq: int, kind: int, payload: bytes) -> None:
        """Act on one frame from the hub."""
        self.host_at = self.now_us
        if seq == self.last_rx_seq and kind != proto.HELLO:
            return  # a duplicate
        self.last_rx_seq = seq
        if kind == proto.HELLO:
            self.send_identify()
            if not payload or payload[0] != proto.VERSION:
                self.send_error(proto.E_VERSION, seq, b"protocol version 1 only")
            self.send_snapshot()
        elif kind == proto.SNAPSHOT_REQUEST:
            self.send_snapshot()
        elif kind == proto.LEDS:
            self.take_leds(seq, payload)
        elif kind not in (proto.HEARTBEAT, proto.ERROR):
            self.send_error(proto.E_UNKNOWN, seq, b"unknown frame type")

    def take_leds(self, seq: int, payload: bytes) -> None:
        """A whole ring: count, then (r, g, b, effect) per pixel."""
        count = payload[0] if payload else 0
        if count != self.board.pixels or len(payload) != 1 + 4 * count:
            self.send_error(proto.E_PAYLOAD, seq, b"LEDS: expected one pixel per LED")
            return
        self.pixels = [tuple(payload[1 + 4 * i : 5 + 4 * i]) for i in range(count)]
        self.shown = []
        self.render(self.now_us)

    def render(self, now: int) -> None:
        """Show the ring as it should look now (the idle look once the hub is gone)."""
        pixels = self.pixels
        if now - self.host_at > HOST_LOST_US:
            pixels = [IDLE] * self.board.pixels
        colours = lights.frame(pixels, now // 1000)
        if colours != self.shown:
            self.board.show(colours)
            self.shown = colours
