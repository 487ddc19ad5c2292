"""A round's score history stays small whatever a token holder sends: corrections by one
editor close together merge, and a round holds at most MOST_ENTRIES entries with every
player's chain of scores whole (scorer/history.py, on a real SQLite file)."""

from __future__ import annotations

from collections.abc import Iterator
from datetime import UTC, datetime, timedelta
from pathlib import Path
from typing import Any

import pytest

from scorer.history import MERGE_S, MOST_ENTRIES
from scorer.setup import check_setup
from scorer.store import GameStore

PLAYERS = ["Ann", "Bo", "Cy", "Di", "Ed", "Flo", "Gus", "Hal"]
START = datetime(2026, 12, 5, 20, 0, tzinfo=UTC)


def at(seconds: float) -> str:
    return (START + timedelta(seconds=seconds)).isoformat()


@pytest.fixture
def store(tmp_path: Path) -> Iterator[GameStore]:
    store = GameStore(tmp_path / "games.db")
    yield store
    store.close()


def finished_game(store: GameStore) -> int:
    """A one-round game of eight, scored (and so finished) at START."""
    setup = check_setup({"players": PLAYERS, "rules": "consensus", "rounds": 1})
    game_id = store.create_game(setup, token="t0k", at=at(0))
    points = {name: 0 if name == "Ann" else 5 for name in PLAYERS}
    store.record_round(game_id, 1, points, went_out="Ann", by="Ann", at=at(0))
    return game_id


def correct(store: GameStore, game_id: int, value: int, seconds: float, by: str = "Bo") -> None:
    points = {name: 0 if name == "Ann" else value for name in PLAYERS}
    store.record_round(game_id, 1, points, by=by, at=at(seconds))


def chains_whole(history: list[dict[str, Any]], now: dict[str, int]) -> None:
    """Each player's entries run from the first scoring (old null) to the score now,
    each one's ``old`` the ``new`` before it."""
    for name in PLAYERS:
        mine = [h for h in history if h["player"] == name]
        assert mine[0]["old"] is None, mine
        for before, after in zip(mine, mine[1:], strict=False):
            assert after["old"] == before["new"], mine
        assert mine[-1]["new"] == now[name], mine


def test_corrections_close_together_by_one_editor_are_one_entry(store: GameStore) -> None:
    game_id = finished_game(store)
    for i in range(1, 200):  # a flood: a correction every second
        correct(store, game_id, 6 + i % 2, seconds=i)
    history = store.round_history(game_id, 1)
    first = [h for h in history if h["old"] is None]
    corrections = [h for h in history if h["old"] is not None]
    assert len(first) == 8
    assert [(h["player"], h["old"], h["new"], h["by"]) for h in corrections] == [
        (name, 5, 7, "Bo") for name in PLAYERS[1:]
    ]
    assert {h["at"] for h in corrections} == {at(199)}


def test_a_correction_put_back_leaves_no_entry(store: GameStore) -> None:
    game_id = finished_game(store)
    correct(store, game_id, 9, seconds=10)
    correct(store, game_id, 5, seconds=20)  # back to what was first written
    history = store.round_history(game_id, 1)
    assert all(h["old"] is None for h in history) and len(history) == 8


def test_another_editor_or_a_later_correction_is_an_entry_of_its_own(store: GameStore) -> None:
    game_id = finished_game(store)
    correct(store, game_id, 9, seconds=10, by="Bo")
    correct(store, game_id, 11, seconds=20, by="Cy")  # another editor
    correct(store, game_id, 12, seconds=20 + MERGE_S + 1, by="Cy")  # past the window
    bo = [
        (h["old"], h["new"], h["by"])
        for h in store.round_history(game_id, 1)
        if h["player"] == "Bo"
    ]
    assert bo == [(None, 5, "Ann"), (5, 9, "Bo"), (9, 11, "Cy"), (11, 12, "Cy")]


def test_a_rounds_history_is_bounded_and_each_chain_stays_whole(store: GameStore) -> None:
    game_id = finished_game(store)
    for i in range(1, 120):  # each correction its own entry: ten minutes apart
        correct(store, game_id, 6 + i, seconds=i * 2 * MERGE_S)
    history = store.round_history(game_id, 1)
    assert len(history) <= MOST_ENTRIES
    now = store.get_game(game_id)["rounds"][0]["points"]
    chains_whole(history, now)
    assert history[-1]["new"] == 6 + 119 and history[-1]["at"] == at(119 * 2 * MERGE_S)
