"""100,000 random and mutated frames into the hub's side of the bridge: no crash, no
phantom event, and after garbage the very next whole frame is read."""

from __future__ import annotations

import random
import struct

from firmware_bridge.firmware import proto
from firmware_bridge.session import Session
from hub.core.events import ButtonChanged, MarkerChanged

FRAMES = 100_000


class Box:
    """Genuine frames from a box whose inputs toggle at random, its clock at the hub's
    pace (``at(rx)``: the box's time for a frame read at hub time ``rx``)."""

    def __init__(self, rng: random.Random) -> None:
        self.rng = rng
        self.seq = 0
        self.us = 0
        self.edges = 0
        self.levels = {i: False for i in list(range(1, 9)) + [0x11 + i for i in range(8)]}

    def at(self, rx: float) -> None:
        self.us = max(self.us + 1, int(rx * 1_000_000) - self.rng.randrange(0, 900))

    def frame(self, kind: int, payload: bytes) -> bytes:
        frame = proto.encode(self.seq, kind, payload)
        self.seq = (self.seq + 1) & 0xFF
        return frame

    def start(self) -> bytes:
        head = struct.pack("<BBBBH", proto.VERSION, 3, 8, 24, 7) + proto.pack_time(self.us)
        snap = proto.pack_time(self.us) + struct.pack("<HHB", 0, 0, self.edges)
        return self.frame(proto.IDENTIFY, head + b"box") + self.frame(proto.SNAPSHOT, snap)

    def edge(self) -> tuple[bytes, tuple[str, int, bool]]:
        source = self.rng.choice(list(self.levels))
        self.levels[source] = level = not self.levels[source]
        payload = proto.pack_time(self.us) + bytes((source, int(level), self.edges))
        self.edges = (self.edges + 1) & 0xFF
        kind = "marker" if source > 8 else "button"
        return self.frame(proto.EDGE, payload), (kind, source & 0x0F, level)

    def heartbeat(self) -> bytes:
        beat = proto.pack_time(self.us) + bytes((0, 0, self.edges))
        return self.frame(proto.MCU_HEARTBEAT, beat)


def mutate(rng: random.Random, frame: bytes) -> bytes:
    """A broken copy of ``frame``: a bit flipped, cut short, a byte lost or added.

    Changes stay clear of the sync byte and the CRC's last bytes: a frame missing only
    its last byte is made whole by a random byte that happens to match, and a lost sync
    by a stray 7E before it (on the wire too, where that is no phantom but the frame).
    """
    while True:
        data = _mutated(rng, frame)
        if frame not in data:  # a change that leaves the frame whole is no change
            return data


def _mutated(rng: random.Random, frame: bytes) -> bytes:
    data = bytearray(frame)
    how = rng.randrange(4)
    body = len(data) - 4
    if how == 0:
        data[rng.randrange(len(data))] ^= 1 << rng.randrange(8)
    elif how == 1:
        del data[rng.randrange(1, body) :]
    elif how == 2:
        del data[rng.randrange(1, body)]
    else:
        at = rng.randrange(1, body)
        data.insert(at, (data[at] + rng.randrange(1, 256)) % 256)  # not a copy of its neighbour
    return bytes(data)


def seen(event) -> tuple[str, int, bool]:
    if isinstance(event, ButtonChanged):
        return ("button", event.slot, event.pressed)
    assert isinstance(event, MarkerChanged), event
    return ("marker", event.slot, event.present)


def test_fuzz_no_crash_no_phantom_resync_within_one_frame():
    rng = random.Random(20261201)
    posted: list = []
    session = Session(posted.append, lambda frame: None)
    box = Box(rng)
    session.opened(0.0)
    session.feed(box.start(), 0.0)
    assert session.ready
    posted.clear()
    expected: list[tuple[str, int, bool]] = []
    rx = 0.0
    kinds = {"genuine": 0, "random": 0, "mutated": 0, "duplicate": 0}
    last = b""
    for _ in range(FRAMES):
        rx += 0.001
        box.at(rx)
        roll = rng.random()
        if roll < 0.4:
            frame, event = box.edge()
            before = len(posted)
            session.feed(frame, rx)
            expected.append(event)
            # Whatever came before, this whole frame was read at once, and nothing else.
            assert [seen(e) for e in posted[before:]] == [event]
            assert len(posted) == len(expected)
            last, kind = frame, "genuine"
        elif roll < 0.5:
            session.feed(box.heartbeat(), rx)
            kind = "genuine"
        elif roll < 0.7:
            session.feed(rng.randbytes(rng.randrange(1, 60)), rx)
            kind = "random"
        elif roll < 0.9:
            levels, edges = dict(box.levels), box.edges
            frame, _ = box.edge()  # sent broken: as if its edge never happened
            box.levels, box.edges = levels, edges
            session.feed(mutate(rng, frame), rx)
            kind = "mutated"
        else:
            session.feed(last, rx)  # a duplicate: ignored
            kind = "duplicate"
        kinds[kind] += 1
    assert [seen(e) for e in posted] == expected
    assert min(kinds.values()) > 5000
