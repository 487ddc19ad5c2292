"""The hub's side of the bridge protocol (hardware/PROTOCOL.md), without any I/O:
bytes and the time they were read go in, hub events go out through ``post``, and
frames to send go out through ``write``. The serial link (``link.py``) owns the port
and the threads; everything here is driven by it, or by tests and the fuzzer directly.

No phantom press: edges count only inside a handshaken session, a CRC-32 guards
every frame, duplicates and replayed older frames are dropped, a lost frame (a gap in
the sequence numbers) asks for a fresh snapshot, a button found held at (re)connect
is ignored until it is let go, and a button held when the link drops is let go at
the last moment the link was known alive.
"""

from __future__ import annotations

import logging
import struct
import threading
from collections.abc import Callable
from dataclasses import dataclass

from firmware_bridge.clockmap import ClockMap
from firmware_bridge.firmware import proto
from hub.core.events import CENTRE, ButtonChanged, Event, MarkerChanged, MarkersRead

log = logging.getLogger("firmware_bridge")

HEARTBEAT_S = 0.5  # the hub's heartbeat
STALL_S = 1.5  # no frame for this long: the microcontroller is stalled
HELLO_RETRY_S = 1.0


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
        self.identity: Identity | None = None
        self.ready = False
        self.seq = 0
        self._seq_lock = threading.Lock()
        self.rx_seq: int | None = None
        self.markers: tuple[bool, ...] | None = None  # last known, kept across reconnects
        self.pressed: set[int] = set()  # buttons posted as pressed
        self.ignored: set[int] = set()  # held at (re)connect: ignored until let go
        self.last_rx = 0.0
        self.alive_at = 0.0  # hub time of the last frame read
        self.hello_at = 0.0
        self.beat_at = 0.0
        self.last_at = 0.0
        self.errors: list[str] = []

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
        """The port was (re)opened: say hello."""
        self.decoder.reset()
        self.rx_seq = None
        self.alive_at = now
        self.hello_at = now
        self.beat_at = now
        self.send(proto.HELLO, bytes((proto.VERSION,)))

    def closed(self, now: float) -> None:
        """The port went away (unplugged) or the microcontroller stopped answering."""
        self._lost()

    def _lost(self) -> None:
        for index in sorted(self.pressed):
            self._post_button(index, False, self.alive_at)
        self.pressed.clear()
        if self.ready:
            self.ready = False
            self._status()

    def _status(self) -> None:
        if self.on_status is not None:
            self.on_status(self.ready, self.identity)

    def tick(self, now: float) -> None:
        """Heartbeat, and notice a stalled microcontroller; call a few times a second."""
        if now - self.beat_at >= HEARTBEAT_S:
            self.beat_at = now
            self.send(proto.HEARTBEAT)
        if self.ready and now - self.alive_at > STALL_S:
            log.warning("the hub box stopped answering (no heartbeat for %.1f s)", STALL_S)
            self._lost()
        if not self.ready and now - self.hello_at >= HELLO_RETRY_S:
            self.hello_at = now
            self.send(proto.HELLO, bytes((proto.VERSION,)))

    # --- frames in ------------------------------------------------------------------------

    def feed(self, data: bytes, rx: float) -> None:
        """Bytes read from the port at hub time ``rx``."""
        for seq, kind, payload in self.decoder.feed(data):
            try:
                self._frame(seq, kind, payload, rx)
            except (struct.error, IndexError, ValueError) as exc:
                self._note(f"frame type 0x{kind:02x} with a bad payload ({exc}); ignored")
            self.alive_at = rx

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
        gap = ahead > 1
        self.rx_seq = seq
        if kind == proto.SNAPSHOT:
            self._snapshot(payload, rx)
        elif kind == proto.MCU_HEARTBEAT:
            self.clock.sample(struct.unpack_from("<I", payload)[0], rx)
        elif kind == proto.EDGE and self.ready:
            self._edge(payload, rx)
            if gap:  # something before this edge was lost: ask for the levels afresh
                self.send(proto.SNAPSHOT_REQUEST)
        elif kind == proto.ERROR:
            text = bytes(payload[2:]).decode("ascii", "replace")
            self._note(f"the hub box refused frame {payload[1]}: code {payload[0]}: {text}")
        else:
            self._note(f"unknown frame type 0x{kind:02x}; ignored")
            self.send(proto.ERROR, bytes((proto.E_UNKNOWN, seq)) + b"unknown frame type")

    def _note(self, message: str) -> None:
        log.warning("serial: %s", message)
        self.errors.append(message)
        del self.errors[:-20]

    def _identify(self, payload: bytes, rx: float) -> None:
        version, caps, slots, pixels, boot = struct.unpack_from("<BBBBH", payload)
        (raw,) = struct.unpack_from("<I", payload, 6)
        name = bytes(payload[10:]).decode("ascii", "replace")
        identity = Identity(version, caps, slots, pixels, boot, name)
        if self.identity is None or identity.boot_id != self.identity.boot_id:
            self.clock.reset()
            self._lost()
        self.identity = identity
        if version != proto.VERSION:
            self._note(
                f"the hub box speaks protocol version {version}, this hub speaks "
                f"{proto.VERSION}: flash the firmware that came with this hub "
                "(hardware/flashing.md)"
            )
            return
        self.clock.sample(raw, rx)
        log.info("serial: %s (protocol %d, %d pixels)", name, version, pixels)

    def _snapshot(self, payload: bytes, rx: float) -> None:
        raw, buttons, markers = struct.unpack_from("<IHH", payload)
        at = self._at(raw, rx)
        held = {i for i in range(9) if buttons & (1 << i)}
        for index in sorted(self.pressed - held):
            self._post_button(index, False, at)
        self.ignored = held - self.pressed
        self.pressed &= held
        present = tuple(bool(markers & (2 << i)) for i in range(8))
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
        raw, source, level = struct.unpack_from("<IBB", payload)
        at = self._at(raw, rx)
        if level > 1:
            raise ValueError(f"level {level}")
        if proto.MARKER + 1 <= source <= proto.MARKER + 8:
            slot = source - proto.MARKER
            assert self.markers is not None
            markers = list(self.markers)
            markers[slot - 1] = bool(level)
            self.markers = tuple(markers)
            self.post(MarkerChanged(slot, bool(level), at))
        elif source <= 8:
            if source in self.ignored:
                if not level:
                    self.ignored.discard(source)
                return
            if bool(level) == (source in self.pressed):
                return
            (self.pressed.add if level else self.pressed.discard)(source)
            self._post_button(source, bool(level), at)
        else:
            raise ValueError(f"input {source}")

    def _at(self, raw: int, rx: float) -> float:
        at = max(self.clock.sample(raw, rx), self.last_at)
        self.last_at = at
        return at

    def _post_button(self, index: int, pressed: bool, at: float) -> None:
        """Post a button edge; input 0 is the centre button (``CENTRE``), 1-8 the slots'."""
        at = max(at, self.last_at)
        self.last_at = at
        self.post(ButtonChanged(CENTRE if index == 0 else index, pressed, at))
