"""The list of games in pages (scorer.store.GameStore.list_games, scorer.queries.games_page):
newest first from a cursor, the same summaries the whole games showed, and a page's
cost that does not grow with the store (issue 33, item 10)."""

from __future__ import annotations

import sqlite3
from collections.abc import Iterator
from pathlib import Path

import pytest

from scorer.queries import SUMMARY
from scorer.setup import check_setup
from scorer.store import GameStore
from tests.many_games import fill


def new_game(store: GameStore, players: list[str] | None = None, **body: object) -> int:
    setup = check_setup({"players": players or ["Ann", "Bo", "Cy"], "rules": "consensus"} | body)
    return store.create_game(setup, token="t0k")


@pytest.fixture
def store(tmp_path: Path) -> Iterator[GameStore]:
    store = GameStore(tmp_path / "games.db")
    yield store
    store.close()


def test_a_listed_game_is_the_game_as_its_own_page_shows_it(store: GameStore) -> None:
    won = new_game(store, rounds=1)
    store.record_round(won, 1, {"Ann": 0, "Bo": 1, "Cy": 2}, went_out="Ann")
    tied = new_game(store, rounds=1)
    store.record_round(tied, 1, {"Ann": 3, "Bo": 3, "Cy": 3}, went_out=None)
    abandoned = new_game(store, ["Di", "Ed"])
    teams = new_game(store, ["Ann", "Bo", "Cy", "Di"], options={"partnerships": True})
    store.record_round(teams, 1, {"Ann": 0, "Bo": 5, "Cy": 9, "Di": 1}, went_out="Ann")
    store.create_game(check_setup({"players": ["Hy", "Io"]}), token="t", replaces=abandoned)
    new_game(store, ["Fe", "Gu"])  # unfinished, round 1
    listed = store.list_games()
    assert [g["id"] for g in listed] == sorted((g["id"] for g in listed), reverse=True)
    assert len(listed) == 6
    for summary in listed:
        whole = store.get_game(summary["id"])
        assert summary == {key: whole[key] for key in SUMMARY}
    assert {g["id"]: g["abandoned"] for g in listed}[abandoned] is True
    assert {g["id"]: g["winner"] for g in listed}[won] == "Ann"


def test_pages_run_newest_first_from_a_cursor_and_a_game_added_between_shifts_none(
    store: GameStore,
) -> None:
    ids = [new_game(store) for _ in range(7)]
    first = store.list_games(limit=3)
    assert [g["id"] for g in first] == ids[:-4:-1]
    added = new_game(store)  # between two pages: newer than all, on no later page
    second = store.list_games(before=first[-1]["id"], limit=3)
    third = store.list_games(before=second[-1]["id"], limit=3)
    assert [g["id"] for g in second] == ids[3:0:-1]
    assert [g["id"] for g in third] == ids[:1]
    assert store.list_games(before=third[-1]["id"], limit=3) == []
    listed = [g["id"] for page in (first, second, third) for g in page]
    assert sorted(listed) == ids  # each game once, none skipped
    assert store.list_games(limit=1)[0]["id"] == added  # the newest, on the first page again


def steps_of(path: Path, monkeypatch: pytest.MonkeyPatch, ask: str, **kwargs: object) -> int:
    """SQLite's virtual machine steps (in hundreds) that ``store.<ask>(**kwargs)`` took
    on a store at ``path``: what a read costs, whatever the machine's speed."""
    steps = [0]
    made = GameStore._connect

    def counted(self: GameStore) -> sqlite3.Connection:
        conn = made(self)
        conn.set_progress_handler(lambda: steps.__setitem__(0, steps[0] + 1) or 0, 100)
        return conn

    monkeypatch.setattr(GameStore, "_connect", counted)
    store = GameStore(path)
    try:
        steps[0] = 0
        getattr(store, ask)(**kwargs)
        return steps[0]
    finally:
        store.close()
        monkeypatch.undo()


def test_a_page_costs_the_same_with_10_000_games_as_with_30(tmp_path, monkeypatch) -> None:
    few, many = tmp_path / "few.db", tmp_path / "many.db"
    fill(few, 30)
    fill(many, 10_000)
    for kwargs in ({"limit": 20}, {"limit": 1}, {"before": 25, "limit": 20}):
        small = steps_of(few, monkeypatch, "list_games", **kwargs)
        large = steps_of(many, monkeypatch, "list_games", **kwargs)
        assert large <= small + 2, (kwargs, small, large)  # not 300 times as many
