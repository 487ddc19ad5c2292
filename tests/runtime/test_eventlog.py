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


def test_forgetting_rewrites_every_entry_by_its_game() -> None:
    """hub/games/forget.py over the log: each game's own anonymous name, the newest
    game's for an entry naming none, and a spoken sentence's whole words only."""
    from types import SimpleNamespace

    from hub.games import forget
    from scorer.people import Forgotten

    log = EventLog(FakeClock())
    log.append("game", 1.0, game=1, players=["Ann", "Bob"])
    log.append("score", 2.0, game=1, points={"Ann": 0, "Bob": 5}, went_out="Ann")
    log.append("game", 3.0, game=2, players=["Cy", "ann"])
    log.append("turn", 4.0, slot=2, player="ann")
    log.append("say", 5.0, text="Ann's turn, then Anna's. Annie, say Zed", lang="en")
    parts = SimpleNamespace(
        rewrite_log=log.rewrite,
        settings_now=lambda: {"spoken_names": {"Ann": "Annie"}},
        apply_settings=lambda changes: changes,
        loop=SimpleNamespace(table=SimpleNamespace(game=None)),
    )
    seats = ((1, "Ann", "Player 1"), (2, "ann", "Player 2"))
    forget.follow(parts, Forgotten("Ann", seats))  # type: ignore[arg-type]
    entries = [{k: v for k, v in e.items() if k != "at"} for e in log.recent(10)]
    assert entries == [
        {"kind": "game", "game": 1, "players": ["Player 1", "Bob"]},
        {"kind": "score", "game": 1, "points": {"Player 1": 0, "Bob": 5}, "went_out": "Player 1"},
        {"kind": "game", "game": 2, "players": ["Cy", "Player 2"]},
        {"kind": "turn", "slot": 2, "player": "Player 2"},
        {"kind": "say", "text": "Player 2's turn, then Anna's. Player 2, say Zed", "lang": "en"},
    ]
