"""hub/core/follow.py alone: the core events that bring a table to what the store says."""

from __future__ import annotations

from hub.core.events import EngineSet, GameEnded, PlayerWentOut, RoundBlocked, RoundScored
from hub.core.follow import steps
from tests.helpers import CoreDriver

PLAYERS = ["Ann", "Bob", "Cid"]


def stored(**fields):
    """A stored game as ``GameStore.get_game`` gives it, round 1 playing."""
    game = {
        "id": 1,
        "round": 1,
        "round_count": 13,
        "engine": 12,
        "finished": False,
        "abandoned": False,
        "rounds": [{"round": 1, "went_out": None, "blocked": False}],
    }
    return {**game, **fields}


def playing():
    hub = CoreDriver()
    hub.start(PLAYERS, first=1, rounds=13)
    return hub


def kinds(events):
    return [type(e) for e in events]


def test_the_store_scored_rounds_the_table_had_not_begun():
    table = playing().table
    assert kinds(steps(table, stored(round=3, engine=10), 5.0, restart=False)) == [
        RoundScored,
        RoundScored,
    ]
    assert steps(table, stored(round=3, engine=10), 5.0, restart=False)[0].engine == 10
    assert steps(table, stored(), 5.0, restart=False) == []  # in step: nothing to do


def test_a_finished_game_ends_as_the_store_says():
    table = playing().table
    whole = steps(table, stored(finished=True), 5.0, restart=False)
    assert kinds(whole) == [RoundScored]  # the series played out: its last round scored
    early = steps(table, stored(finished=True, round_count=1), 5.0, restart=False)
    assert kinds(early) == [GameEnded]  # stopped early: round_count cut to what was scored


def test_only_a_restart_takes_the_round_end_and_engine_from_the_store():
    table = playing().table
    went_out = stored(rounds=[{"round": 1, "went_out": "Bob", "blocked": False}], engine=9)
    assert steps(table, went_out, 5.0, restart=False) == []  # live: the table leads
    events = steps(table, went_out, 5.0, restart=True)
    assert kinds(events) == [PlayerWentOut, EngineSet] and events[0].slot == 2
    blocked = stored(rounds=[{"round": 1, "went_out": None, "blocked": True}])
    assert kinds(steps(table, blocked, 5.0, restart=True)) == [RoundBlocked]


def test_a_table_that_cannot_follow_gets_none():
    table = playing().table
    assert steps(table, stored(id=2), 5.0, restart=False) is None  # another game
    assert steps(table, stored(abandoned=True), 5.0, restart=True) is None
    assert steps(CoreDriver().table, stored(), 5.0, restart=True) is None  # no game
