"""The hub's event log (hub/runtime/eventlog.py): a bounded ring of typed entries
(hub/core/entries.py), handed out as JSON-ready dicts."""

from __future__ import annotations

import json

from hub.core.entries import GameEntry, SayEntry, ScoreEntry, SoundEntry, TapEntry, TurnEntry
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


def test_forgetting_rewrites_every_entry_by_its_game() -> None:
    """hub/games/forget.py over the log: each game's own anonymous name, the newest
    game's for an entry naming none, and a spoken sentence's whole words only."""
    from types import SimpleNamespace

    from hub.games import forget
    from scorer.people import Forgotten

    log = EventLog(FakeClock())
    log.append(GameEntry(1, "aces", ("Ann", "Bob")), 1.0)
    log.append(ScoreEntry(1, 1, {"Ann": 0, "Bob": 5}, "Ann", "scorekeeper"), 2.0)
    log.append(GameEntry(2, "aces", ("Cy", "ann")), 3.0)
    log.append(TurnEntry(2, "ann"), 4.0)
    log.append(SayEntry("Ann's turn, then Anna's. Annie, say Zed", "en", True), 5.0)
    parts = SimpleNamespace(
        rewrite_log=log.rewrite,
        settings_now=lambda: {"spoken_names": {"Ann": "Annie"}},
        apply_settings=lambda changes: changes,
        loop=SimpleNamespace(table=SimpleNamespace(game=None)),
    )
    seats = ((1, "Ann", "Player 1"), (2, "ann", "Player 2"))
    forget.follow(parts, Forgotten("Ann", seats))  # type: ignore[arg-type]
    entries = [{k: v for k, v in e.items() if k != "at"} for e in log.recent(10)]
    assert json.loads(json.dumps(entries)) == [
        {"kind": "game", "game": 1, "rules": "aces", "players": ["Player 1", "Bob"]},
        {
            "kind": "score",
            "game": 1,
            "round": 1,
            "points": {"Player 1": 0, "Bob": 5},
            "went_out": "Player 1",
            "by": "scorekeeper",
        },
        {"kind": "game", "game": 2, "rules": "aces", "players": ["Cy", "Player 2"]},
        {"kind": "turn", "slot": 2, "player": "Player 2"},
        {
            "kind": "say",
            "text": "Player 2's turn, then Anna's. Player 2, say Zed",
            "lang": "en",
            "played": True,
        },
    ]
