"""scorer.rows and scorer.queries: a game's rows read into a record (queries), the
statements of a change and the checks (rows), with no database (tests/scorer/test_store.py
runs them through SQLite)."""

from __future__ import annotations

import pytest

from scorer.games import RoundChange
from scorer.queries import game_record
from scorer.rows import (
    GameNotFound,
    StaleEdit,
    StoreError,
    check_version,
    game_number,
    round_change,
)

GAME = {
    "id": 7,
    "created_at": "2026-01-01T00:00:00+00:00",
    "rules": "consensus",
    "set_max": 12,
    "round_count": 13,
    "options": "{}",
    "mexican_slot": 8,
    "first": 1,
    "finished_at": None,
    "winner": None,
    "abandoned_at": None,
    "version": 3,
}


def _record():
    seated = [{"name": "Bob", "slot": 2}, {"name": "Ann", "slot": 1}]
    rounds = [(1, 12, "Ann", 0, 1), (2, 11, None, 0, 0)]
    scores = [
        {"round": 1, "player": "Ann", "points": 0},
        {"round": 1, "player": "Bob", "points": 9},
    ]
    return game_record(7, GAME, seated, rounds, scores)


def test_a_game_is_read_from_its_rows_in_seat_order():
    game = _record()
    assert (game.players, game.seats, game.version) == (["Bob", "Ann"], [2, 1], 3)
    assert [r.points for r in game.rounds] == [{"Bob": 9, "Ann": 0}, {}]
    assert game.rounds[0].went_out == "Ann" and game.rounds[0].finished


def test_a_missing_game_or_an_id_that_is_no_number_is_not_found():
    with pytest.raises(GameNotFound):
        game_record(7, None, [], [], [])
    for bad in (True, "7", None):
        with pytest.raises(GameNotFound):
            game_number(bad)
    assert game_number(7) == 7


def test_a_round_change_writes_each_score_and_the_next_round():
    """Its history is scorer.history's (tests/scorer/test_history.py)."""
    change = RoundChange(1, "Ann", {"Ann": 0, "Bob": 9}, (("Bob", None, 9),), 11, False)
    writes = round_change(7, change, "scorekeeper", "t")
    assert [sql.split()[0:3] for sql, _ in writes] == [
        ["INSERT", "INTO", "scores"],
        ["UPDATE", "rounds", "SET"],
        ["INSERT", "INTO", "rounds"],
    ]
    assert writes[0][1] == (7, 1, "Bob", 9)
    with pytest.raises(StoreError, match="by"):
        round_change(7, change, " ", "t")


def test_an_edit_based_on_an_older_version_is_stale():
    check_version(_record(), None, 1)
    check_version(_record(), 3, 1)
    with pytest.raises(StaleEdit) as stale:
        check_version(_record(), 2, 1)
    assert stale.value.game["version"] == 3 and stale.value.game["round"]["round"] == 1
