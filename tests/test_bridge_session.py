"""The hub's side of the protocol, driven byte by byte: handshake, clock mapping (a tap
stays a tap whatever USB does), gaps, stalls, versions, the centre button."""

from __future__ import annotations

import struct

import pytest

from firmware_bridge import session as session_module
from firmware_bridge.clockmap import ClockMap
from firmware_bridge.firmware import proto
from firmware_bridge.session import Session
from hub import core
from hub.core.events import CENTRE, ButtonChanged, MarkerChanged, MarkersRead


class Box:
    """Frames as the box sends them."""

    def __init__(self, version: int = 1, boot: int = 7) -> None:
        self.seq, self.version, self.boot = 0, version, boot

    def frame(self, kind: int, payload: bytes) -> bytes:
        frame = proto.encode(self.seq, kind, payload)
        self.seq += 1
        return frame

    def identify(self, us: int) -> bytes:
        head = struct.pack("<BBBBH", self.version, 3, 8, 24, self.boot)
        return self.frame(proto.IDENTIFY, head + proto.pack_time(us) + b"box")

    def snapshot(self, us: int, buttons: int = 0, markers: int = 0) -> bytes:
        return self.frame(
            proto.SNAPSHOT, proto.pack_time(us) + struct.pack("<HH", buttons, markers)
        )

    def edge(self, us: int, source: int, level: int) -> bytes:
        return self.frame(proto.EDGE, proto.pack_time(us) + bytes((source, level)))


def connected(box: Box | None = None, markers: int = 0):
    posted, written = [], []
    s = Session(posted.append, written.append)
    box = box or Box()
    s.opened(100.0)
    s.feed(box.identify(5_000_000) + box.snapshot(5_000_100, markers=markers), 100.002)
    return s, box, posted, written


def kinds(written: list[bytes]) -> list[int]:
    return [f[1] for data in written for f in proto.Decoder().feed(data)]


def test_usb_latency_never_turns_a_tap_into_a_hold():
    s, box, posted, _ = connected()
    s.feed(box.edge(6_000_000, 4, 1), 101.0)
    # The release (0.9 s after the press by the box's clock) is stuck in USB for 1.5 s.
    s.feed(box.edge(6_900_000, 4, 0), 103.4)
    table = core.new_table()
    gestures = []
    for event in posted:
        table, effects = core.apply(table, event)
        gestures += [e.kind for e in effects if hasattr(e, "kind")]
    table, effects = core.apply(table, core.events.ClockTicked(104.0))
    gestures += [e.kind for e in effects if hasattr(e, "kind")]
    press, release = [e for e in posted if isinstance(e, ButtonChanged)]
    assert release.at - press.at == pytest.approx(0.9)
    assert "tap" in gestures and "hold" not in gestures


def test_first_snapshot_sets_markers_later_ones_catch_up():
    s, box, posted, _ = connected(markers=0b100)
    assert posted == [MarkersRead((False, True) + (False,) * 6, posted[0].at)]
    s.closed(101.0)
    s.opened(102.0)
    s.feed(box.identify(9_000_000) + box.snapshot(9_000_100, markers=0b1000), 102.01)
    assert [(e.slot, e.present) for e in posted[1:]] == [(2, False), (3, True)]
    assert all(isinstance(e, MarkerChanged) for e in posted[1:])


def test_a_gap_asks_for_a_snapshot_and_duplicates_are_dropped():
    s, box, posted, written = connected()
    frame = box.edge(6_000_000, 0x13, 1)
    s.feed(frame + frame, 101.0)
    assert len(posted) == 2  # MarkersRead, then one MarkerChanged
    box.seq += 3  # three frames lost
    written.clear()
    s.feed(box.edge(6_100_000, 0x13, 0), 101.1)
    assert kinds(written) == [proto.SNAPSHOT_REQUEST]


def test_nothing_counts_before_the_handshake():
    posted, written = [], []
    s = Session(posted.append, written.append)
    s.opened(1.0)
    box = Box()
    box.seq = 9
    s.feed(box.edge(1000, 3, 1) + box.snapshot(1001), 1.01)
    assert posted == [] and not s.ready
    assert kinds(written) == [proto.HELLO]


def test_another_protocol_version_is_refused_with_a_clear_error():
    posted, written = [], []
    s = Session(posted.append, written.append)
    s.opened(1.0)
    box = Box(version=2)
    s.feed(box.identify(1000) + box.snapshot(1001) + box.edge(1002, 3, 1), 1.01)
    assert posted == [] and not s.ready
    assert "protocol version 2" in s.errors[-1] and "flashing.md" in s.errors[-1]


def test_a_stall_lets_go_of_a_held_button_at_the_last_sign_of_life():
    s, box, posted, written = connected()
    s.feed(box.edge(6_000_000, 2, 1), 101.0)
    s.tick(101.5)
    assert s.ready
    s.tick(101.0 + session_module.STALL_S + 0.1)
    assert not s.ready
    release = posted[-1]
    assert release == ButtonChanged(2, False, 101.0)
    assert proto.HELLO in kinds(written)  # asked again, and again each second
    written.clear()
    s.tick(103.0 + session_module.HELLO_RETRY_S)
    assert proto.HELLO in kinds(written)


def test_a_reboot_resets_the_clock_mapping():
    s, box, posted, _ = connected()
    rebooted = Box(boot=99)
    s.feed(rebooted.identify(10) + rebooted.snapshot(20) + rebooted.edge(1_000_000, 5, 1), 200.0)
    # Mapped by the new boot's clock (the old mapping would put it near 96 s).
    assert posted[-1] == ButtonChanged(5, True, pytest.approx(200.0))


def test_the_centre_button_is_slot_0():
    s, box, posted, _ = connected()
    s.feed(box.edge(6_000_000, 0, 1) + box.edge(6_100_000, 0, 0), 101.2)
    assert [(e.slot, e.pressed) for e in posted[1:]] == [(CENTRE, True), (CENTRE, False)]


def test_clock_map_unwraps_and_takes_the_quickest_sample():
    clock = ClockMap()
    assert clock.sample((1 << 32) - 1000, 50.0) == pytest.approx(50.0)
    # 2000 µs later on the box (past the 32-bit wrap), read 5 ms late: mapped by the
    # first, quicker sample.
    assert clock.sample(1000, 50.007) == pytest.approx(50.002)
    assert clock.sample(2000, 50.0035) == pytest.approx(50.003)
    # A quicker sample moves the offset down: nothing maps later than it was read.
    assert clock.sample(3000, 50.0036) == pytest.approx(50.0036)
