"""The hub's event log (hub/runtime/eventlog.py): a bounded ring of typed entries
(hub/core/entries.py), handed out as JSON-ready dicts."""

from __future__ import annotations

import json

from hub.core.entries import GameEntry, SayEntry, SoundEntry, TapEntry
from hub.core.news import Sound
from hub.runtime.clock import iso
from hub.runtime.eventlog import EventLog
from tablesim.virtual import FakeClock


def test_entries_come_back_as_they_went_in_newest_last_and_bounded() -> None:
    clock = FakeClock()
    log = EventLog(clock, size=3)
    first = log.append(GameEntry(7, "standard", ("Ann", "Bob")), 1.0)
    assert json.loads(json.dumps(first)) == {
        "at": iso(clock.wall(1.0)),
        "kind": "game",
        "game": 7,
        "rules": "standard",
        "players": ["Ann", "Bob"],
    }
    for slot in (1, 2, 3):
        log.append(TapEntry(slot), 2.0 + slot)
    assert [e["slot"] for e in log.recent(10)] == [1, 2, 3]  # the game entry fell out
    assert log.recent(2) == [
        {"at": iso(clock.wall(4.0)), "kind": "tap", "slot": 2},
        {"at": iso(clock.wall(5.0)), "kind": "tap", "slot": 3},
    ]
    assert log.recent(0) == []


def test_an_entry_without_a_time_is_stamped_now_and_its_flags_show_only_when_set() -> None:
    clock = FakeClock()
    log = EventLog(clock)
    now = iso(clock.wall())
    assert log.append(SoundEntry(Sound.CHICKEN)) == {"at": now, "kind": "sound", "name": "chicken"}
    voiced = log.append(SoundEntry(Sound.TURN, voiced=True))
    assert voiced == {"at": now, "kind": "sound", "name": "turn", "voiced": True}
    said = log.append(SayEntry("Bea's turn", "en", played=True))
    assert said == {"at": now, "kind": "say", "text": "Bea's turn", "lang": "en", "played": True}
    assert log.append(SayEntry("Bea's turn", "en", True, late=True))["late"] is True
