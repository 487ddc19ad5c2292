"""The hub's side of the bridge protocol (hardware/PROTOCOL.md), without any I/O:
bytes and the time they were read go in, hub events go out through ``post``, and
frames to send go out through ``write``. The serial link (``link.py``) owns the port
and the threads; everything here is driven by it, or by tests and the fuzzer directly.

Nothing lost, no phantom press: edges count only inside a handshaken session, a
CRC-32 guards every frame, duplicates and replayed older frames are dropped, every
edge is numbered and acknowledged (the box sends it again until it is, so a tap lost
on the line arrives late, never not at all), a gap in the sequence numbers of any
frame is answered at once, a timestamp that cannot be true is refused, a button
found held at (re)connect is ignored until it is let go, and a press whose end
nobody saw (the link dropped, or the box paused) ends with no gesture.
"""

from __future__ import annotations

import logging
import struct
import threading
from collections.abc import Callable
from dataclasses import dataclass

from firmware_bridge.clockmap import ClockMap
from firmware_bridge.firmware import proto
from firmware_bridge.notes import Notes
from hub.core.events import CENTRE, ButtonChanged, ButtonLost, Event, MarkerChanged, MarkersRead

log = logging.getLogger("firmware_bridge")

HEARTBEAT_S = 0.5  # the hub's heartbeat
STALL_S = 1.5  # no frame for this long: the microcontroller is stalled
HELLO_RETRY_S = 1.0
# A held button's press is void once the box has been silent this long (five missed
# heartbeats): a stall that cuts a press short never lets the long hold fire on it.
DOUBT_S = 1.0


@dataclass(frozen=True)
class Identity:
    """What the microcontroller said about itself in IDENTIFY."""

    version: int
    capabilities: int
    slots: int
    pixels: int
    boot_id: int
    name: str


class Session:
    """One link's protocol state. ``post(event)`` goes to the hub loop; ``write(frame)``
    to the port; ``on_status(connected, identity)`` hears of every change."""

    def __init__(
        self,
        post: Callable[[Event], None],
        write: Callable[[bytes], None],
        on_status: Callable[[bool, Identity | None], None] | None = None,
    ) -> None:
        self.post = post
        self.write = write
        self.on_status = on_status
        self.decoder = proto.Decoder()
        self.clock = ClockMap()
        self.notes = Notes(log)
        self.identity: Identity | None = None
        self.ready = False
        self.seq = 0
        self._seq_lock = threading.Lock()
        self.rx_seq: int | None = None
        self.edge_next = 0  # the number of the next edge the hub takes
        self._ack = False  # an ACK is owed for what this read brought
        self.markers: tuple[bool, ...] | None = None  # last known, kept across reconnects
        self.pressed: set[int] = set()  # buttons posted as pressed
        self.ignored: set[int] = set()  # held at (re)connect: ignored until let go
        self.alive_at = 0.0  # hub time of the last frame read
        self.hello_at = 0.0
        self.beat_at = 0.0
        self.last_at = 0.0

    @property
    def errors(self) -> list[str]:
        """The newest warnings about the link (for the self-test)."""
        return self.notes.recent

    # --- the link's life ----------------------------------------------------------------

    def encode(self, kind: int, payload: bytes = b"") -> bytes:
        """One frame with the next sequence number (safe from any thread)."""
        with self._seq_lock:
            frame = proto.encode(self.seq, kind, payload)
            self.seq = (self.seq + 1) & 0xFF
        return frame

    def send(self, kind: int, payload: bytes = b"") -> bytes:
        """Encode one frame and write it."""
        frame = self.encode(kind, payload)
        self.write(frame)
        return frame

    def opened(self, now: float) -> None:
        """The port was (re)opened: a new session, counted from 0; say hello."""
        self.decoder.reset()
        self.rx_seq = None
        self.alive_at = now
        self.hello_at = now
        self.beat_at = now
        with self._seq_lock:
            self.seq = 0
        self.send(proto.HELLO, bytes((proto.VERSION,)))

    def closed(self, now: float) -> None:
        """The port went away (unplugged) or the microcontroller stopped answering."""
        self._lost()

    def _lost(self) -> None:
        self._void()
        if self.ready:
            self.ready = False
            self._status()

    def _void(self) -> None:
        """Nobody will see how the held buttons end: their presses make no gesture, and
        each is ignored until the box reports it let go."""
        for index in sorted(self.pressed):
            self.post(ButtonLost(CENTRE if index == 0 else index, self.alive_at))
        self.ignored |= self.pressed
        self.pressed.clear()

    def _status(self) -> None:
        if self.on_status is not None:
            self.on_status(self.ready, self.identity)

    def tick(self, now: float) -> None:
        """Heartbeat, and notice a stalled microcontroller; call a few times a second."""
        if now - self.beat_at >= HEARTBEAT_S:
            self.beat_at = now
            self.send(proto.HEARTBEAT)
        if self.pressed and now - self.alive_at > DOUBT_S:
            self._void()
        if self.ready and now - self.alive_at > STALL_S:
            self.notes.note(
                "stall", f"the hub box stopped answering (no frame for {STALL_S:g} s)", now
            )
            self._lost()
        if not self.ready and now - self.hello_at >= HELLO_RETRY_S:
            self.hello_at = now
            self.send(proto.HELLO, bytes((proto.VERSION,)))
        self.notes.flush(now)

    # --- frames in ------------------------------------------------------------------------

    def feed(self, data: bytes, rx: float) -> None:
        """Bytes read from the port at hub time ``rx``."""
        self._ack = False
        for seq, kind, payload in self.decoder.feed(data):
            try:
                self._frame(seq, kind, payload, rx)
            except (struct.error, IndexError, ValueError) as exc:
                self._note("payload", f"frame type 0x{kind:02x} with a bad payload ({exc})", rx)
            self.alive_at = rx
        if self._ack and self.ready:
            self.send(proto.ACK, bytes((self.edge_next,)))

    def _frame(self, seq: int, kind: int, payload: bytes, rx: float) -> None:
        if kind == proto.IDENTIFY:
            self.rx_seq = seq
            self._identify(payload, rx)
            return
        if self.identity is None or self.identity.version != proto.VERSION:
            return  # nothing counts before a handshake
        ahead = 1 if self.rx_seq is None else (seq - self.rx_seq) & 0xFF
        if ahead == 0 or ahead >= 128:
            return  # a duplicate, or an old frame replayed
        if ahead > 1:
            self._ack = True  # frames were lost: say at once which edge is awaited
        self.rx_seq = seq
        if kind == proto.SNAPSHOT:
            self._snapshot(payload, rx)
        elif kind == proto.MCU_HEARTBEAT:
            self._heartbeat(payload, rx)
        elif kind == proto.EDGE:
            if self.ready:
                self._edge(payload, rx)
        elif kind == proto.ERROR:
            self._refused(payload, rx)
        else:
            self._note("unknown", f"unknown frame type 0x{kind:02x}; ignored", rx)
            self.send(proto.ERROR, bytes((proto.E_UNKNOWN, seq)) + b"unknown frame type")

    def _note(self, kind: str, message: str, now: float) -> None:
        self.notes.note(kind, message, now)

    def _identify(self, payload: bytes, rx: float) -> None:
        version, caps, slots, pixels, boot = struct.unpack_from("<BBBBH", payload)
        (raw,) = struct.unpack_from("<I", payload, 6)
        name = bytes(payload[10:]).decode("ascii", "replace")
        identity = Identity(version, caps, slots, pixels, boot, name)
        if self.identity is None or identity.boot_id != self.identity.boot_id:
            if self.identity is not None:
                self._note("restart", f"the hub box restarted (boot id {boot:#06x})", rx)
            self.clock.reset()
            self._lost()
        self.identity = identity
        if version != proto.VERSION:
            self._note(
                "version",
                f"the hub box speaks protocol version {version}, this hub speaks "
                f"{proto.VERSION}: flash the firmware that came with this hub "
                "(hardware/flashing.md)",
                rx,
            )
            return
        self.clock.map(raw, rx)
        log.info("serial: %s (protocol %d, %d pixels)", name, version, pixels)

    def _refused(self, payload: bytes, rx: float) -> None:
        code, about = payload[0], payload[1]
        text = bytes(payload[2:]).decode("ascii", "replace")
        if code == proto.E_CRASH:
            self._note("crash", f"the hub box's firmware failed ({text}); it restarts", rx)
        else:
            self._note("refused", f"the hub box refused frame {about}: code {code}: {text}", rx)

    def _heartbeat(self, payload: bytes, rx: float) -> None:
        raw, _, edge_next = struct.unpack_from("<IHB", payload)
        if self.clock.map(raw, rx) is None:
            self._note("time", "a heartbeat with a time that cannot be true; ignored", rx)
        if self.ready and edge_next != self.edge_next:
            self._ack = True  # the box has sent edges the hub has not taken: ask again

    def active_inputs(self) -> list[tuple[str, int]] | None:
        """The inputs that read active now, as ``("button", slot)`` / ``("marker",
        slot)`` (the centre: slot ``CENTRE``); a button held since the (re)connect
        counts. None before the box's first snapshot: its levels are not known yet."""
        if self.markers is None:
            return None
        held = sorted(self.pressed | self.ignored)
        return [("button", CENTRE if index == 0 else index) for index in held] + [
            ("marker", slot) for slot, present in enumerate(self.markers, 1) if present
        ]

    def _snapshot(self, payload: bytes, rx: float) -> None:
        raw, buttons, markers, edge_next = struct.unpack_from("<IHHB", payload)
        at = self._at(raw, rx)
        if at is None:  # the levels are true whatever the stamp says
            self._note("time", "a snapshot with a time that cannot be true", rx)
            at = max(rx, self.last_at)
        self.edge_next = edge_next
        held = {i for i in range(proto.SLOTS + 1) if buttons & (1 << i)}
        for index in sorted(self.pressed - held):
            self.post(ButtonLost(CENTRE if index == 0 else index, at))
        self.ignored = held - self.pressed
        self.pressed &= held
        present = tuple(bool(markers & (2 << i)) for i in range(proto.SLOTS))
        if self.markers is None:
            self.post(MarkersRead(present, at))
        else:  # caught up: what changed while the link was down
            for slot, (was, now) in enumerate(zip(self.markers, present, strict=True), 1):
                if was != now:
                    self.post(MarkerChanged(slot, now, at))
        self.markers = present
        if not self.ready:
            self.ready = True
            self._status()

    def _edge(self, payload: bytes, rx: float) -> None:
        raw, source, flags, number = struct.unpack_from("<IBBB", payload)
        self._ack = True
        if number != self.edge_next:
            return  # sent before (a resend), or after one not yet here (it is resent)
        self.edge_next = (number + 1) & 0xFF
        if flags & ~(proto.LEVEL | proto.LATE) or not (
            source <= proto.SLOTS or proto.MARKER + 1 <= source <= proto.MARKER + proto.SLOTS
        ):
            raise ValueError(f"input {source}, level byte {flags}")
        level = bool(flags & proto.LEVEL)
        at = self._at(raw, rx)
        if at is None:
            self._note("time", f"an edge of input {source} with a time that cannot be true", rx)
        if source > proto.SLOTS:
            self._marker(source - proto.MARKER, level, rx if at is None else at)
        elif at is None or (flags & proto.LATE and not level):
            self._untimed(source, level, at)
        else:
            self._button(source, level, at)

    def _marker(self, slot: int, present: bool, at: float) -> None:
        assert self.markers is not None
        markers = list(self.markers)
        markers[slot - 1] = present
        self.markers = tuple(markers)
        self.post(MarkerChanged(slot, present, max(at, self.last_at)))

    def _button(self, index: int, pressed: bool, at: float) -> None:
        if index in self.ignored:
            if not pressed:
                self.ignored.discard(index)
            return
        if pressed == (index in self.pressed):
            return
        (self.pressed.add if pressed else self.pressed.discard)(index)
        self._post_button(index, pressed, at)

    def _untimed(self, index: int, pressed: bool, at: float | None) -> None:
        """A button edge whose time is unknown: a press is ignored until let go, and a
        release ends its press with no gesture."""
        if pressed:
            if index not in self.pressed:
                self.ignored.add(index)
            return
        self.ignored.discard(index)
        if index in self.pressed:
            self.pressed.discard(index)
            when = max(self.last_at if at is None else at, self.last_at)
            self.post(ButtonLost(CENTRE if index == 0 else index, when))

    def _at(self, raw: int, rx: float) -> float | None:
        mapped = self.clock.map(raw, rx)
        if mapped is None:
            return None
        at = max(mapped, self.last_at)
        self.last_at = at
        return at

    def _post_button(self, index: int, pressed: bool, at: float) -> None:
        """Post a button edge; input 0 is the centre button (``CENTRE``), 1-8 the slots'."""
        at = max(at, self.last_at)
        self.last_at = at
        self.post(ButtonChanged(CENTRE if index == 0 else index, pressed, at))
