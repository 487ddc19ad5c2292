"""Tests for scorer.store: a real SQLite file in tmp_path."""

from __future__ import annotations

import sqlite3
import threading
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import Any

import pytest

from scorer.setup import check_setup
from scorer.store import (
    KEEP,
    MIGRATIONS,
    GameNotFound,
    GameStore,
    StoreError,
    hash_token,
    new_token,
    tokens_match,
)

PLAYERS = ["Ann", "Bo", "Cy"]


class Clock:
    """A fake ``now``: each call one second later."""

    def __init__(self) -> None:
        self.ticks = 0

    def __call__(self) -> str:
        self.ticks += 1
        return f"2024-05-01T12:00:{self.ticks:02d}+00:00"


@pytest.fixture
def path(tmp_path: Path) -> Path:
    return tmp_path / "games.db"


@pytest.fixture
def store(path: Path) -> Iterator[GameStore]:
    store = GameStore(path, now=Clock())
    yield store
    store.close()


def new_game(store: GameStore, token: str = "t0k", at: str | None = None, **body: Any) -> int:
    """Create a game from a ``POST /api/games`` body (checked first, as the hub does)."""
    setup = check_setup({"players": PLAYERS, "rules": "consensus"} | body)
    return store.create_game(setup, token=token, at=at)


def dump(path: Path) -> list[str]:
    """Every row of the database, read on a separate connection."""
    conn = sqlite3.connect(path)
    try:
        return list(conn.iterdump())
    finally:
        conn.close()


def test_wal_and_synchronous_full(store: GameStore, path: Path) -> None:
    settings = store.settings()
    assert settings["journal_mode"] == "wal"
    assert settings["synchronous"] == 2  # FULL
    assert settings["foreign_keys"] == 1
    assert settings["user_version"] == len(MIGRATIONS)
    conn = sqlite3.connect(path)
    assert conn.execute("PRAGMA journal_mode").fetchone()[0] == "wal"
    conn.close()


def test_migrations_are_idempotent_on_reopen(path: Path) -> None:
    first = GameStore(path)
    game_id = new_game(first)
    first.close()
    for _ in range(2):
        again = GameStore(path)
        assert again.settings()["user_version"] == len(MIGRATIONS)
        assert [g["id"] for g in again.list_games()] == [game_id]
        again.close()


def test_a_newer_schema_is_refused_and_nothing_is_left_open(
    path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    conn = sqlite3.connect(path)
    conn.execute(f"PRAGMA user_version = {len(MIGRATIONS) + 1}")
    conn.close()
    opened: list[sqlite3.Connection] = []
    connect = sqlite3.connect

    def tracked(*args: Any, **kwargs: Any) -> sqlite3.Connection:
        opened.append(connect(*args, **kwargs))
        return opened[-1]

    monkeypatch.setattr(sqlite3, "connect", tracked)
    with pytest.raises(StoreError, match="newer than this program"):
        GameStore(path)
    assert opened
    for conn in opened:  # Python 3.13 warns of a connection left to the collector
        with pytest.raises(sqlite3.ProgrammingError, match="closed database"):
            conn.execute("SELECT 1")


def test_a_new_game_starts_round_1(store: GameStore) -> None:
    game_id = new_game(store, seats=[1, 3, 5], mexican_slot=8, first=3, at="2024-05-01T10:00:00")
    game = store.get_game(game_id)
    assert game["players"] == PLAYERS
    assert game["seats"] == [1, 3, 5]
    assert (game["set"], game["round_count"], game["round"], game["engine"]) == (12, 13, 1, 12)
    assert game["rounds"] == [
        {
            "round": 1,
            "engine": 12,
            "points": {},
            "went_out": None,
            "blocked": False,
            "finished": False,
        }
    ]
    assert game["totals"] == {"Ann": 0, "Bo": 0, "Cy": 0}
    assert game["created_at"] == "2024-05-01T10:00:00"
    assert game["winner"] is None and game["finished"] is False
    assert "token" not in game


def test_finishing_a_round_starts_the_next(store: GameStore) -> None:
    game_id = new_game(store)
    game = store.record_round(game_id, 1, {"Ann": 0, "Bo": 12, "Cy": 30}, went_out="Ann")
    assert (game["round"], game["engine"]) == (2, 11)
    assert game["rounds"][0]["finished"] is True
    assert game["totals"] == {"Ann": 0, "Bo": 12, "Cy": 30}
    assert game["standings"] == ["Ann", "Bo", "Cy"]


def test_a_double_9_game_has_10_rounds(store: GameStore) -> None:
    game_id = new_game(store, players=["Ann", "Bo"], rules="mexicantrainfun")
    game = store.get_game(game_id)
    assert (game["set"], game["round_count"], game["engine"]) == (9, 10, 9)


def play_out(store: GameStore, game_id: int, scores: list[dict[str, int]]) -> dict[str, Any]:
    game: dict[str, Any] = {}
    for number, points in enumerate(scores, start=1):
        out = next((name for name, value in points.items() if value == 0), None)
        game = store.record_round(game_id, number, points, went_out=out)
    return game


def test_the_last_round_finishes_the_game_with_a_winner(store: GameStore) -> None:
    game_id = new_game(store, rounds=2)
    game = play_out(store, game_id, [{"Ann": 0, "Bo": 5, "Cy": 9}, {"Ann": 8, "Bo": 0, "Cy": 1}])
    assert game["finished"] is True
    assert game["finished_at"] is not None
    assert game["winner"] == "Bo" and game["winners"] == ["Bo"]
    assert len(game["rounds"]) == 2
    assert store.current_game() is None
    with pytest.raises(StoreError, match="has rounds 1 to 2"):
        store.record_round(game_id, 3, {"Ann": 0, "Bo": 0, "Cy": 0})


def test_a_tie_for_first_has_no_single_winner(store: GameStore) -> None:
    game_id = new_game(store, rounds=1)
    game = store.record_round(game_id, 1, {"Ann": 4, "Bo": 4, "Cy": 9}, went_out=None)
    assert game["winner"] is None
    assert game["winners"] == ["Ann", "Bo"]
    assert game["ties"] == [["Ann", "Bo"]]
    assert [p["tied"] for p in game["places"]] == [True, True, False]


def test_correcting_a_round_keeps_the_history(store: GameStore) -> None:
    game_id = new_game(store)
    store.record_round(
        game_id,
        1,
        {"Ann": 0, "Bo": 12, "Cy": 30},
        went_out="Ann",
        by="Ann",
        at="2024-05-01T12:10:00",
    )
    game = store.record_round(
        game_id, 1, {"Ann": 0, "Bo": 21, "Cy": 30}, by="Cy", at="2024-05-01T12:20:00"
    )
    assert game["rounds"][0]["points"]["Bo"] == 21
    assert game["rounds"][0]["went_out"] == "Ann"  # KEEP by default
    assert game["round"] == 2  # a correction does not start another round
    history = store.round_history(game_id, 1)
    assert [(h["player"], h["old"], h["new"], h["by"]) for h in history] == [
        ("Ann", None, 0, "Ann"),
        ("Bo", None, 12, "Ann"),
        ("Cy", None, 30, "Ann"),
        ("Bo", 12, 21, "Cy"),
    ]
    assert history[-1]["at"] == "2024-05-01T12:20:00"


def test_a_correction_after_the_end_updates_the_winner(store: GameStore) -> None:
    game_id = new_game(store, rounds=1)
    store.record_round(game_id, 1, {"Ann": 0, "Bo": 5, "Cy": 9}, went_out="Ann")
    game = store.record_round(game_id, 1, {"Ann": 7, "Bo": 0, "Cy": 9}, went_out="Bo")
    assert game["winner"] == "Bo"


BAD_ROUNDS: list[tuple[dict[str, Any], str]] = [
    ({"points": {"Ann": 0, "Bo": 1, "Cy": 2, "Di": 3}}, "unknown player 'Di'"),
    ({"points": {"Ann": 0, "Bo": 1}}, "no points for Cy"),
    ({"points": {"Ann": 0, "Bo": -1, "Cy": 2}}, "cannot be negative"),
    ({"points": {"Ann": 0, "Bo": 5000, "Cy": 2}}, "more than any hand can hold"),
    ({"points": {"Ann": 3, "Bo": 1, "Cy": 2}, "went_out": "Ann"}, "Ann went out, so scores 0"),
    ({"points": {"Ann": 0, "Bo": 1, "Cy": 2}, "went_out": "Di"}, "'Di' is not a player"),
    ({"points": {"Ann": 0, "Bo": 1, "Cy": 2}, "round": 3}, "round 3 has not been played yet"),
    ({"points": {"Ann": 0, "Bo": 1, "Cy": 2}, "round": 14}, "has rounds 1 to 13"),
    ({"points": {"Ann": 0, "Bo": 1, "Cy": 2}, "round": "1"}, "must be a round number"),
    ({"points": {"Ann": 0, "Bo": 1, "Cy": 2}, "by": ""}, "say who edits"),
    ({"points": {"Ann": 0, "Bo": 1, "Cy": 2}, "at": "yesterday"}, "not an ISO 8601 time"),
    ({}, "give either points or tiles"),
    ({"tiles": {"Ann": [], "Bo": ["6-5"], "Cy": ["5-6"]}}, "tile 6-5 is in both Bo's and Cy's"),
    ({"tiles": {"Ann": [], "Bo": ["13-1"], "Cy": []}}, "not in a double-12 set"),
    (
        {"tiles": {"Ann": [], "Bo": ["11-11"], "Cy": []}},
        "11-11 in Bo's hand is this round's engine",
    ),
    ({"tiles": {"Ann": ["1-0"], "Bo": [], "Cy": []}, "went_out": "Ann"}, "holds no tiles"),
    ({"tiles": {"Ann": [], "Bo": ["1-0"]}}, "no points for Cy"),
]


@pytest.mark.parametrize(("call", "message"), BAD_ROUNDS)
def test_bad_input_is_refused_and_changes_nothing(
    store: GameStore, path: Path, call: dict[str, Any], message: str
) -> None:
    game_id = new_game(store)
    store.record_round(game_id, 1, {"Ann": 0, "Bo": 4, "Cy": 7}, went_out="Ann")
    before = dump(path)
    arguments = {"round": 2} | call
    with pytest.raises(StoreError, match=message):
        store.record_round(game_id, arguments.pop("round"), **arguments)
    assert dump(path) == before
    assert store.integrity_ok()


def test_unknown_game(store: GameStore) -> None:
    with pytest.raises(GameNotFound, match="game 42: no such game"):
        store.get_game(42)
    with pytest.raises(GameNotFound):
        store.record_round(42, 1, {"Ann": 0})
    with pytest.raises(GameNotFound):
        store.round_history(42, 1)


BAD_CREATES: list[tuple[dict[str, Any], str]] = [
    ({"token": ""}, "token"),
    ({"at": "soon"}, "not an ISO 8601 time"),
]


@pytest.mark.parametrize(("setup", "message"), BAD_CREATES)
def test_bad_creates_are_refused_and_change_nothing(
    store: GameStore, path: Path, setup: dict[str, Any], message: str
) -> None:
    before = dump(path)
    with pytest.raises(StoreError, match=message):
        new_game(store, **setup)
    assert dump(path) == before


def test_reopen_returns_the_same_game(path: Path) -> None:
    store = GameStore(path, now=Clock())
    game_id = new_game(store, seats=[2, 4, 6], options={"double_blank": 25})
    store.record_round(game_id, 1, {"Ann": 0, "Bo": 4, "Cy": 7}, went_out="Ann")
    store.record_round(game_id, 2, {"Ann": 3, "Bo": 0, "Cy": 9}, went_out="Bo")
    store.record_round(game_id, 1, {"Ann": 0, "Bo": 5, "Cy": 7})
    before, history = store.get_game(game_id), store.round_history(game_id, 1)
    store.close()
    reopened = GameStore(path)
    try:
        assert reopened.get_game(game_id) == before
        assert reopened.round_history(game_id, 1) == history
        assert reopened.current_game() == before
        assert reopened.check_token(game_id, "t0k")
        assert reopened.integrity_ok()
    finally:
        reopened.close()


def test_went_out_recorded_by_the_hub_is_kept(store: GameStore) -> None:
    game_id = new_game(store)
    store.set_went_out(game_id, 1, "Cy")
    game = store.record_round(game_id, 1, {"Ann": 4, "Bo": 9, "Cy": 0})
    assert game["rounds"][0]["went_out"] == "Cy"
    assert game["rounds"][0]["blocked"] is False
    with pytest.raises(StoreError, match="went out, so scores 0"):
        store.record_round(game_id, 2, {"Ann": 4, "Bo": 9, "Cy": 0}, went_out="Bo")
    with pytest.raises(StoreError, match="Ann scored 4 in round 1, so did not go out"):
        store.set_went_out(game_id, 1, "Ann")


def test_a_blocked_round(store: GameStore) -> None:
    game_id = new_game(store)
    store.set_went_out(game_id, 1, "Cy")
    store.set_blocked(game_id, 1)
    game = store.record_round(game_id, 1, {"Ann": 4, "Bo": 9, "Cy": 2}, went_out=KEEP)
    assert game["rounds"][0]["went_out"] is None
    assert game["rounds"][0]["blocked"] is True


@pytest.mark.parametrize(("worth", "expected"), [(0, 11), (25, 36), (50, 61)])
def test_scores_from_tiles_with_the_double_blank_option(
    store: GameStore, worth: int, expected: int
) -> None:
    game_id = new_game(store, options={"double_blank": worth})
    tiles = {"Ann": [], "Bo": ["0-0", "5-6"], "Cy": ["1-2"]}
    game = store.record_round(game_id, 1, tiles=tiles, went_out="Ann")
    assert game["rounds"][0]["points"] == {"Ann": 0, "Bo": expected, "Cy": 3}


def test_partnerships_zero_the_partner_and_sum_teams(store: GameStore) -> None:
    four = ["Ann", "Bo", "Cy", "Di"]
    game_id = new_game(store, players=four, options={"partnerships": True}, rounds=1)
    game = store.record_round(game_id, 1, {"Ann": 0, "Bo": 7, "Cy": 12, "Di": 3}, went_out="Ann")
    assert game["rounds"][0]["points"] == {"Ann": 0, "Bo": 7, "Cy": 0, "Di": 3}
    assert game["teams"] == [["Ann", "Cy"], ["Bo", "Di"]]
    assert game["team_totals"] == {"Ann & Cy": 0, "Bo & Di": 10}
    assert game["winner"] == "Ann & Cy"
    assert store.round_history(game_id, 1)[2] == {
        "player": "Cy",
        "old": None,
        "new": 12,
        "by": "scorekeeper",
        "at": "2024-05-01T12:00:02+00:00",
    }


def test_stopping_early_keeps_the_played_rounds(store: GameStore) -> None:
    game_id = new_game(store)
    with pytest.raises(StoreError, match="no round has been scored yet"):
        store.finish_game(game_id)
    play_out(store, game_id, [{"Ann": 0, "Bo": 5, "Cy": 9}, {"Ann": 8, "Bo": 0, "Cy": 1}])
    game = store.finish_game(game_id, at="2024-05-01T13:00:00")
    assert (game["round_count"], len(game["rounds"]), game["finished"]) == (2, 2, True)
    assert game["winner"] == "Bo"
    with pytest.raises(StoreError, match="already finished"):
        store.finish_game(game_id)


def test_list_games_newest_first_and_current_game(store: GameStore) -> None:
    old = new_game(store, rounds=1)
    store.record_round(old, 1, {"Ann": 0, "Bo": 1, "Cy": 2}, went_out="Ann")
    newer = new_game(store, players=["Di", "Ed"])
    assert [g["id"] for g in store.list_games()] == [newer, old]
    assert store.list_games()[1]["winner"] == "Ann"
    current = store.current_game()
    assert current is not None and current["id"] == newer


def test_tokens(store: GameStore) -> None:
    game_id = new_game(store, token="secret")
    assert store.check_token(game_id, "secret")
    assert not store.check_token(game_id, "secreT")
    assert not store.check_token(game_id, None)
    assert not store.check_token(999, "secret")
    assert tokens_match(hash_token("a"), "a") and not tokens_match("a", "a")
    assert not tokens_match("", "")
    assert new_token() != new_token()


def test_readers_on_other_threads_see_whole_rounds(store: GameStore) -> None:
    game_id = new_game(store)
    seen: list[dict[str, Any]] = []
    errors: list[BaseException] = []
    done = threading.Event()

    def read() -> None:
        try:
            while not done.is_set():
                seen.append(store.get_game(game_id))
        except BaseException as error:  # reported to the test thread
            errors.append(error)

    reader = threading.Thread(target=read)
    reader.start()
    for number in range(1, 14):
        store.record_round(game_id, number, {"Ann": 0, "Bo": number, "Cy": 2}, went_out="Ann")
    done.set()
    reader.join()
    assert not errors
    for game in [*seen, store.get_game(game_id)]:
        finished = [r for r in game["rounds"] if r["finished"]]
        assert all(len(r["points"]) == 3 for r in finished)
        assert game["totals"]["Cy"] == 2 * len(finished)
    assert store.get_game(game_id)["finished"] is True


def test_integrity_ok(store: GameStore) -> None:
    new_game(store)
    assert store.integrity_ok()


def test_the_clock_is_only_a_default(path: Path) -> None:
    calls: list[str] = []
    clock: Callable[[], str] = lambda: calls.append("now") or "2024-01-01T00:00:00"  # noqa: E731
    store = GameStore(path, now=clock)
    try:
        new_game(store, at="2023-12-31T23:00:00")
        assert calls == []
        game_id = new_game(store)
        assert store.get_game(game_id)["created_at"] == "2024-01-01T00:00:00"
    finally:
        store.close()


def test_an_aces_series_goes_round_again_after_the_double_blank(store: GameStore) -> None:
    # Issue 24, item 10: an aces series is not capped at the set's 13 engines.
    setup = check_setup({"players": ["Ann", "Bob"], "rules": "aces", "set": 6, "rounds": 9})
    game_id = store.create_game(setup, token="t")
    for number in range(1, 10):
        game = store.record_round(game_id, number, {"Ann": 0, "Bob": number})
    assert [r["engine"] for r in game["rounds"]] == [6, 5, 4, 3, 2, 1, 0, 6, 5]
    assert game["totals"] == {"Ann": 0, "Bob": 45} and game["winner"] == "Ann"
