"""The hub box's firmware: reads the inputs, timestamps every edge with its own
microsecond clock, keeps each edge until the hub acknowledges it (and sends it again
until then), drives the ring, and speaks the bridge protocol (hardware/PROTOCOL.md)
over a byte port. ``main.py`` runs it on a Pico under a watchdog; the fake
microcontroller runs the same code under CPython.
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

NAME = b"mtrain-pico 2.0"
HEARTBEAT_US = 200_000
HOST_LOST_US = 3_000_000
FRAME_US = 20_000  # animation step: 50 frames a second
RESEND_US = 100_000  # an edge the hub has not acknowledged by then is sent again
SCAN_GAP_US = 250_000  # scans further apart than this: the edges seen are LATE
UNACKED = 32  # edges kept for resending; past that the box resyncs with a SNAPSHOT
# The watchdog resets a box whose loop stops for this long. Long enough for a pass
# whose writes wait on a host that stopped reading (MicroPython gives each USB write
# up to 0.5 s), well under the RP2040's limit of 8.3 s.
WATCHDOG_MS = 5000
IDLE = (12, 12, 10, lights.STEADY)  # dim white: nobody is driving the ring
UPDATING = (0, 0, 60)  # dim blue: the program was skipped, the REPL is free
UPDATING_TEXT = (
    b"mtrain: update mode (asked by the hub, or the centre button held at power-on):\r\n"
    b"the program is skipped. Copy the new files with mpremote, then mpremote reset.\r\n"
)
# The file whose presence at boot means the hub asked for the update mode (UPDATE):
# main.py removes it and returns to the REPL, so the next reset runs the program again.
UPDATE_FLAG = "mtrain-update"
UPDATE_WAIT_MS = 50  # the box's last words leave over USB before it restarts


class Firmware:
    """One microcontroller: ``board`` (see board.py) and ``port`` (``read()`` returns
    the bytes waiting, maybe none; ``write(data)``). Call :meth:`poll` in a loop
    (:meth:`guarded_poll` under a watchdog, as ``main.py`` does). ``ask_update()``
    leaves the mark that makes the next boot the update mode (``main.py``: a file
    named :data:`UPDATE_FLAG`); without it the box refuses ``UPDATE``."""

    def __init__(self, board: Any, port: Any, boot_id: int = 0, ask_update: Any = None) -> None:
        self.board = board
        self.port = port
        self.ask_update = ask_update
        self.restart_due = False  # UPDATE taken: restart after this pass
        self.boot_id = boot_id & 0xFFFF
        self.decoder = proto.Decoder()
        self.seq = 0
        self.errors = 0
        self.last_rx_seq = -1
        self._tick = board.ticks_us()
        self.now_us = 0
        self.buttons = board.button_levels()
        self.markers = board.marker_levels()
        self.scanned_at = 0
        self.edge = 0  # the number the next EDGE carries
        self.unacked: list[bytes] = []  # EDGE payloads the hub has not acknowledged
        self.resend_at = 0
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
        slots = proto.SLOTS
        head = struct.pack("<BBBBH", proto.VERSION, caps, slots, self.board.pixels, self.boot_id)
        self.send(proto.IDENTIFY, head + proto.pack_time(self.clock()) + NAME)

    def send_snapshot(self) -> None:
        """Every input's level now, and the number of the next edge: the hub takes the
        levels as they are, so the edges not yet acknowledged need no resending."""
        self.unacked = []
        levels = struct.pack("<HHB", self.buttons, self.markers, self.edge)
        self.send(proto.SNAPSHOT, proto.pack_time(self.clock()) + levels)

    def send_edge(self, stamp: bytes, source: int, level: int) -> None:
        """Send one EDGE with the next edge number, and keep it until acknowledged."""
        payload = stamp + bytes((source, level, self.edge))
        self.edge = (self.edge + 1) & 0xFF
        if not self.unacked:
            self.resend_at = self.now_us + RESEND_US
        self.unacked.append(payload)
        self.send(proto.EDGE, payload)
        if len(self.unacked) > UNACKED:  # the hub does not answer: start again from levels
            self.send_snapshot()

    def send_error(self, code: int, about: int, text: bytes) -> None:
        """Tell the hub what was wrong with its frame ``about``."""
        self.errors += 1
        self.send(proto.ERROR, bytes((code, about & 0xFF)) + text)

    # --- the loop -------------------------------------------------------------------

    def poll(self) -> None:
        """One pass: inputs, then the port, then resends, heartbeat and lights when due."""
        self.scan()
        data = self.port.read()
        if data:
            for frame in self.decoder.feed(data):
                self.handle(frame[0], frame[1], frame[2])
        now = self.clock()
        if self.unacked and now >= self.resend_at and now - self.host_at <= HOST_LOST_US:
            self.resend_at = now + RESEND_US
            for payload in self.unacked:
                self.send(proto.EDGE, payload)
        if now >= self.next_beat:
            self.next_beat = now + HEARTBEAT_US
            beat = struct.pack("<HB", self.decoder.dropped & 0xFFFF, self.edge)
            self.send(proto.MCU_HEARTBEAT, proto.pack_time(now) + beat)
        if now >= self.next_frame:
            self.next_frame = now + FRAME_US
            self.render(now)

    def guarded_poll(self, watchdog: Any, machine: Any) -> None:
        """One pass as ``main.py`` runs it: :meth:`poll`, then feed the watchdog. Any
        exception is told to the hub (ERROR code 4) and resets the board: the box never
        sits in the REPL, and the hub sees it come back with a new boot id."""
        try:
            self.poll()
        except Exception as exc:  # whatever it was: start afresh
            self.crashed(exc)
            self.board.sleep_ms(UPDATE_WAIT_MS)  # the last word leaves before the reset
            machine.reset()
        if self.restart_due:  # UPDATE: the next boot is the update mode
            self.board.sleep_ms(UPDATE_WAIT_MS)
            machine.reset()
        watchdog.feed()

    def crashed(self, exc: Exception) -> None:
        """Tell the hub why the box is about to reset (best effort)."""
        text = (type(exc).__name__ + ": " + str(exc)).encode()[:120]
        try:
            self.send_error(proto.E_CRASH, self.last_rx_seq, text)
        except Exception:  # the port itself may be what failed
            pass

    def scan(self) -> None:
        """Send an EDGE for every input that changed since the last scan (marked LATE
        after a pause in scanning: when in the pause it changed, nobody knows)."""
        buttons = self.board.button_levels()
        markers = self.board.marker_levels()
        now = self.clock()
        late = proto.LATE if now - self.scanned_at > SCAN_GAP_US else 0
        self.scanned_at = now
        if buttons == self.buttons and markers == self.markers:
            return
        stamp = proto.pack_time(now)
        for i in range(proto.SLOTS + 1):  # the centre button (0) and each slot
            bit = 1 << i
            if (buttons ^ self.buttons) & bit:
                self.send_edge(stamp, proto.BUTTON + i, late | (1 if buttons & bit else 0))
            if i and (markers ^ self.markers) & bit:
                self.send_edge(stamp, proto.MARKER + i, late | (1 if markers & bit else 0))
        self.buttons = buttons
        self.markers = markers

    def handle(self, seq: int, kind: int, payload: bytes) -> None:
        """Act on one frame from the hub."""
        self.host_at = self.now_us
        if seq == self.last_rx_seq and kind != proto.HELLO:
            return  # a duplicate
        self.last_rx_seq = seq
        if kind == proto.HELLO:
            self.seq = 0  # a new session: both sides count from 0
            self.send_identify()
            if not payload or payload[0] != proto.VERSION:
                self.send_error(proto.E_VERSION, seq, b"protocol version 2 only")
            self.send_snapshot()
        elif kind == proto.ACK:
            self.acknowledged(payload[0] if payload else self.edge)
        elif kind == proto.SNAPSHOT_REQUEST:
            self.send_snapshot()
        elif kind == proto.LEDS:
            self.take_leds(seq, payload)
        elif kind == proto.UPDATE:
            self.take_update(seq, payload)
        elif kind not in (proto.HEARTBEAT, proto.ERROR):
            self.send_error(proto.E_UNKNOWN, seq, b"unknown frame type")

    def acknowledged(self, expected: int) -> None:
        """The hub has every edge before number ``expected``: forget those. An answer
        that fits no edge kept (the hub is out of step) is met with a SNAPSHOT."""
        unacked = self.unacked
        oldest = unacked[0][-1] if unacked else self.edge
        acked = (expected - oldest) & 0xFF
        if acked > len(unacked):
            self.send_snapshot()
        elif acked:
            del unacked[:acked]
            self.resend_at = self.now_us + RESEND_US

    def take_update(self, seq: int, payload: bytes) -> None:
        """The hub asks for the update mode: leave the mark, say so (an ``ERROR`` frame
        with code 5, the hub's cue that the box restarts), and restart after this pass."""
        if payload != proto.UPDATE_WORD:
            self.send_error(proto.E_PAYLOAD, seq, b"UPDATE: expected the word mtrain-update")
            return
        if self.ask_update is None:
            self.send_error(proto.E_UNKNOWN, seq, b"UPDATE: this board has no update mode")
            return
        self.ask_update()
        self.send(
            proto.ERROR,
            bytes((proto.E_UPDATING, seq & 0xFF)) + b"restarting into MicroPython's REPL",
        )
        self.restart_due = True

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
