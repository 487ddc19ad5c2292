"""The hub's side of the protocol, driven byte by byte: handshake, clock mapping (a tap
stays a tap whatever USB does), gaps, lost and resent edges, impossible times,
stalls, versions, the centre button, the rate-limited warnings."""

from __future__ import annotations

import struct

import pytest

from firmware_bridge import session as session_module
from firmware_bridge.clockmap import ClockMap
from firmware_bridge.firmware import proto
from firmware_bridge.session import Session
from hub import core
from hub.core.events import CENTRE, ButtonChanged, ButtonLost, MarkerChanged, MarkersRead


class Box:
    """Frames as the box sends them; edges numbered from 0 (``number`` overrides)."""

    def __init__(self, version: int = proto.VERSION, boot: int = 7) -> None:
        self.seq, self.version, self.boot, self.edges = 0, version, boot, 0

    def frame(self, kind: int, payload: bytes) -> bytes:
        frame = proto.encode(self.seq, kind, payload)
        self.seq = (self.seq + 1) & 0xFF
        return frame

    def identify(self, us: int) -> bytes:
        self.seq = 0
        head = struct.pack("<BBBBH", self.version, 3, 8, 24, self.boot)
        return self.frame(proto.IDENTIFY, head + proto.pack_time(us) + b"box")

    def snapshot(self, us: int, buttons: int = 0, markers: int = 0) -> bytes:
        levels = struct.pack("<HHB", buttons, markers, self.edges)
        return self.frame(proto.SNAPSHOT, proto.pack_time(us) + levels)

    def edge(self, us: int, source: int, level: int, number: int | None = None) -> bytes:
        if number is None:
            number, self.edges = self.edges, (self.edges + 1) & 0xFF
        return self.frame(proto.EDGE, proto.pack_time(us) + bytes((source, level, number)))

    def heartbeat(self, us: int) -> bytes:
        return self.frame(proto.MCU_HEARTBEAT, proto.pack_time(us) + bytes((0, 0, self.edges)))


def connected(box: Box | None = None, markers: int = 0):
    posted, written = [], []
    s = Session(posted.append, written.append)
    box = box or Box()
    s.opened(100.0)
    s.feed(box.identify(5_000_000) + box.snapshot(5_000_100, markers=markers), 100.002)
    return s, box, posted, written


def kinds(written: list[bytes]) -> list[int]:
    return [f[1] for data in written for f in proto.Decoder().feed(data)]


def acks(written: list[bytes]) -> list[int]:
    """The edge numbers the hub said it waits for, in order."""
    frames = [f for data in written for f in proto.Decoder().feed(data)]
    return [payload[0] for _, kind, payload in frames if kind == proto.ACK]


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


def test_a_gap_is_answered_at_once_and_duplicates_are_dropped():
    s, box, posted, written = connected()
    frame = box.edge(6_000_000, 0x13, 1)
    s.feed(frame + frame, 101.0)
    assert len(posted) == 2  # MarkersRead, then one MarkerChanged
    assert acks(written) == [1]  # edge 0 taken: edge 1 awaited
    box.seq += 3  # three frames lost (heartbeats: no edge among them)
    written.clear()
    s.feed(box.heartbeat(6_100_000), 101.1)
    assert acks(written) == [1]  # the gap, on a heartbeat, is answered at once
    assert len(posted) == 2


def test_a_tap_lost_in_a_gap_arrives_when_the_box_sends_it_again():
    s, box, posted, written = connected()
    press = box.edge(6_000_000, 4, 1)
    release = box.edge(6_150_000, 4, 0)  # lost on the line
    written.clear()
    s.feed(press, 101.0)
    s.feed(box.heartbeat(6_200_000), 101.21)  # says edges 0 and 1 were sent
    assert acks(written) == [1, 1]  # the heartbeat shows the release missing: asked again
    assert [type(e) for e in posted[1:]] == [ButtonChanged]
    later = box.edge(6_300_000, 0x12, 1)  # a marker, after the lost release: not taken yet
    s.feed(later, 101.3)
    assert len(posted) == 2 and acks(written)[-1] == 1
    resent = proto.Decoder().feed(release)[0][2]  # the box sends edges 1 and 2 again
    s.feed(box.frame(proto.EDGE, resent) + box.frame(proto.EDGE, later[4:-4]), 101.32)
    gestures = [(type(e).__name__, e.slot) for e in posted[1:]]
    assert gestures == [("ButtonChanged", 4), ("ButtonChanged", 4), ("MarkerChanged", 2)]
    press_e, release_e = posted[1], posted[2]
    assert release_e.at - press_e.at == pytest.approx(0.150)  # timed as the box saw it
    assert acks(written)[-1] == 3


def test_an_impossible_timestamp_is_refused_and_does_not_skew_the_clock():
    s, box, posted, written = connected()
    s.feed(box.heartbeat(5_200_000), 100.202)
    # One press stamped 30 minutes ahead: refused (the button is ignored until let go).
    s.feed(box.edge(5_300_000 + 1_800_000_000, 3, 1), 100.3)
    s.feed(box.edge(5_400_000, 3, 0), 100.4)
    assert [e for e in posted if isinstance(e, ButtonChanged)] == []
    assert "cannot be true" in s.errors[-1]
    # Later presses are mapped as before the bad stamp, not 30 minutes off.
    s.feed(box.edge(6_000_000, 5, 1), 101.0)
    s.feed(box.edge(6_200_000, 5, 0), 101.201)
    press, release = [e for e in posted if isinstance(e, ButtonChanged)]
    assert press.at == pytest.approx(101.0, abs=0.01)
    assert release.at - press.at == pytest.approx(0.2)
    # 40 minutes ahead looks like 31 minutes behind on the 32-bit clock: refused too.
    s.feed(box.edge(6_300_000 + 2_400_000_000, 0x13, 1), 101.3)
    assert [e for e in posted if isinstance(e, MarkerChanged)] == [
        MarkerChanged(3, True, pytest.approx(101.3))  # the level counts, at its reading
    ]
    s.feed(box.edge(6_400_000, 6, 1), 101.4)
    assert posted[-1] == ButtonChanged(6, True, pytest.approx(101.4, abs=0.01))


def test_a_mapping_whose_first_sample_was_stale_starts_afresh():
    s, box, posted, written = connected()  # identify read at 100.0 for box time 5.0 s
    # The box's frames really arrive 3 s sooner than that first sample said: two in a
    # row agree with each other, so the mapping starts again from them.
    s.feed(box.heartbeat(8_400_000), 100.2)
    s.feed(box.heartbeat(8_600_000), 100.4)
    s.feed(box.edge(8_700_000, 2, 1), 100.5)
    assert posted[-1] == ButtonChanged(2, True, pytest.approx(100.5, abs=0.01))


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
    box = Box(version=1)
    s.feed(box.identify(1000) + box.snapshot(1001) + box.edge(1002, 3, 1), 1.01)
    assert posted == [] and not s.ready
    assert "protocol version 1" in s.errors[-1] and "flashing.md" in s.errors[-1]


def test_a_press_cut_by_a_stall_makes_no_gesture():
    s, box, posted, written = connected()
    s.feed(box.edge(6_000_000, 2, 1), 101.0)
    s.tick(101.5)
    assert s.ready and posted[-1] == ButtonChanged(2, True, pytest.approx(101.0))
    s.tick(101.0 + session_module.DOUBT_S + 0.1)  # the box went quiet with slot 2 held
    assert posted[-1] == ButtonLost(2, 101.0)  # the press ends with no gesture
    s.tick(101.0 + session_module.STALL_S + 0.1)
    assert not s.ready
    assert proto.HELLO in kinds(written)  # asked again, and again each second
    written.clear()
    s.tick(103.0 + session_module.HELLO_RETRY_S)
    assert proto.HELLO in kinds(written)
    # The box comes back with the button still held, then lets go: still nothing.
    s.feed(box.identify(9_000_000) + box.snapshot(9_000_100, buttons=0b100), 104.0)
    s.feed(box.edge(9_100_000, 2, 0), 104.1)
    assert [type(e) for e in posted[1:]] == [ButtonChanged, ButtonLost]
    table = core.new_table()
    for event in posted:
        table, effects = core.apply(table, event)
        assert not [e for e in effects if getattr(e, "kind", "") in ("tap", "hold")]
    table, effects = core.apply(table, core.events.ClockTicked(110.0))
    assert not [e for e in effects if getattr(e, "kind", "") == "long-hold"]


def test_an_unplug_or_a_late_release_ends_the_press_with_no_gesture():
    s, box, posted, written = connected()
    s.feed(box.edge(6_000_000, 2, 1) + box.edge(6_100_000, 0, 1), 101.0)
    s.closed(101.2)  # unplugged with slot 2 and the centre held
    assert posted[-2:] == [ButtonLost(CENTRE, 101.0), ButtonLost(2, 101.0)]
    s, box, posted, written = connected()
    s.feed(box.edge(6_000_000, 5, 1), 101.0)
    s.feed(box.edge(6_900_000, 5, proto.LATE), 101.9)  # let go while the box stood still
    assert posted[-1] == ButtonLost(5, pytest.approx(101.9, abs=0.01))
    s.feed(box.edge(7_000_000, 5, 1) + box.edge(7_100_000, 5, 0), 102.1)
    assert [e.pressed for e in posted[-2:]] == [True, False]  # the next press counts


def test_sequence_numbers_start_again_at_every_open():
    s, box, posted, written = connected()
    for _ in range(5):
        s.send(proto.HEARTBEAT)
    s.closed(101.0)
    written.clear()
    s.opened(102.0)
    assert proto.Decoder().feed(written[0])[0][:2] == (0, proto.HELLO)


def test_a_restart_and_a_crash_of_the_box_are_told(caplog):
    s, box, posted, written = connected()
    crash = bytes((proto.E_CRASH, 4)) + b"MemoryError: memory allocation failed"
    s.feed(box.frame(proto.ERROR, crash), 100.1)
    rebooted = Box(boot=0x4242)
    s.feed(rebooted.identify(10) + rebooted.snapshot(20), 100.3)
    assert "firmware failed (MemoryError: memory allocation failed)" in s.errors[-2]
    assert "restarted (boot id 0x4242)" in s.errors[-1]


def test_a_flood_of_unknown_frames_is_logged_once_with_a_count(caplog):
    s, box, posted, written = connected()
    caplog.set_level("WARNING", logger="firmware_bridge")
    flood = b"".join(box.frame(0xC0, b"") for _ in range(20_000))
    s.feed(flood, 101.0)
    s.tick(101.5)
    assert len(caplog.records) == 1
    assert s.ready  # and the session goes on
    s.tick(101.0 + 11)  # the window has ended: the count is told
    lines = [r.getMessage() for r in caplog.records if "answering" not in r.getMessage()]
    assert lines == [
        "serial: unknown frame type 0xc0; ignored",
        "serial: 19999 more like that in 10 s (the last: unknown frame type 0xc0; ignored)",
    ]


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
