"""The hub's event log (hub/runtime/eventlog.py): a bounded ring, handed out as JSON-ready dicts."""

from __future__ import annotations

from hub.runtime.clock import iso
from hub.runtime.eventlog import EventLog
from tablesim.virtual import FakeClock


def test_entries_come_back_as_they_went_in_newest_last_and_bounded() -> None:
    clock = FakeClock()
    log = EventLog(clock, size=3)
    first = log.append("game", 1.0, game=7, players=["Ann", "Bob"])
    assert first == {
        "at": iso(clock.wall(1.0)),
        "kind": "game",
        "game": 7,
        "players": ["Ann", "Bob"],
    }
    for slot in (1, 2, 3):
        log.append("tap", 2.0 + slot, slot=slot)
    assert [e["slot"] for e in log.recent(10)] == [1, 2, 3]  # the game entry fell out
    assert log.recent(2) == [
        {"at": iso(clock.wall(4.0)), "kind": "tap", "slot": 2},
        {"at": iso(clock.wall(5.0)), "kind": "tap", "slot": 3},
    ]
    assert log.recent(0) == []


def test_an_entry_without_a_time_is_stamped_now_and_may_have_no_fields() -> None:
    clock = FakeClock()
    log = EventLog(clock)
    assert log.append("sound") == {"at": iso(clock.wall()), "kind": "sound"}
