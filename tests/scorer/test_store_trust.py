"""The store's part of the trust model: tokens kept hashed (and the migration that
hashes the old ones), more than one token per game, abandoned games, and the version
every write bumps so a stale score edit is refused."""

from __future__ import annotations

import sqlite3
from collections.abc import Iterator
from pathlib import Path

import pytest

from scorer.schema import MIGRATIONS
from scorer.setup import check_setup
from scorer.store import GameStore, StaleEdit, StoreError, hash_token

PLAYERS = ["Ann", "Bo", "Cy"]


@pytest.fixture
def path(tmp_path: Path) -> Path:
    return tmp_path / "games.db"


@pytest.fixture
def store(path: Path) -> Iterator[GameStore]:
    store = GameStore(path)
    yield store
    store.close()


def new_game(store: GameStore, token: str = "secret-1", replaces: int | None = None) -> int:
    return store.create_game(check_setup({"players": PLAYERS}), token=token, replaces=replaces)


def _raw(path: Path, sql: str) -> list[tuple[object, ...]]:
    conn = sqlite3.connect(path)
    try:
        return conn.execute(sql).fetchall()
    finally:
        conn.close()


def test_no_token_is_stored_in_the_clear(store: GameStore, path: Path) -> None:
    game_id = new_game(store, token="plain-token")
    store.add_token(game_id, "claimed-token")
    dump = path.read_bytes() + b"".join(p.read_bytes() for p in path.parent.glob("*-wal"))
    assert b"plain-token" not in dump and b"claimed-token" not in dump
    hashes = {row[0] for row in _raw(path, "SELECT hash FROM tokens")}
    assert hashes == {hash_token("plain-token"), hash_token("claimed-token")}


def test_an_added_token_works_and_the_old_one_stays(store: GameStore) -> None:
    game_id = new_game(store, token="first")
    other = new_game(store, token="other")
    store.add_token(game_id, "second")
    assert store.check_token(game_id, "first") and store.check_token(game_id, "second")
    assert not store.check_token(other, "second") and not store.check_token(game_id, "other")
    with pytest.raises(StoreError):
        store.add_token(999, "x")


def test_the_migration_hashes_existing_tokens(path: Path) -> None:
    conn = sqlite3.connect(path)
    for statement in MIGRATIONS[0]:
        conn.execute(statement)
    conn.execute("PRAGMA user_version = 1")
    conn.execute(
        "INSERT INTO games (created_at, rules, set_max, rounds, token)"
        " VALUES ('2024-01-01T00:00:00+00:00', 'consensus', 12, 13, 'old-token')"
    )
    conn.commit()
    conn.close()
    store = GameStore(path)
    try:
        assert store.check_token(1, "old-token") and not store.check_token(1, "other")
        assert store.settings()["user_version"] == len(MIGRATIONS)
    finally:
        store.close()
    assert _raw(path, "SELECT token FROM games") == [(hash_token("old-token"),)]


def test_a_replaced_game_is_abandoned_listed_and_never_resumed(store: GameStore) -> None:
    old = new_game(store)
    new = new_game(store, token="secret-2", replaces=old)
    assert store.get_game(old)["abandoned"] and not store.get_game(new)["abandoned"]
    listed = {g["id"]: g["abandoned"] for g in store.list_games()}
    assert listed == {old: True, new: False}
    store.record_round(new, 1, {"Ann": 0, "Bo": 3, "Cy": 4})
    store.finish_game(new)
    assert store.current_game() is None  # the abandoned one does not come back


def test_an_abandoned_game_can_be_brought_back(store: GameStore) -> None:
    old = new_game(store)
    new = new_game(store, token="secret-2", replaces=old)
    back = store.bring_back(old, replaces=new)
    assert not back["abandoned"] and store.get_game(new)["abandoned"]
    current = store.current_game()
    assert current is not None and current["id"] == old


def test_a_finished_game_cannot_be_brought_back(store: GameStore) -> None:
    game_id = new_game(store)
    store.record_round(game_id, 1, {"Ann": 0, "Bo": 3, "Cy": 4})
    store.finish_game(game_id)
    with pytest.raises(StoreError, match="finished"):
        store.bring_back(game_id)


def test_every_write_bumps_the_version(store: GameStore) -> None:
    game_id = new_game(store)
    assert store.get_game(game_id)["version"] == 0
    store.set_went_out(game_id, 1, "Ann")
    assert store.get_game(game_id)["version"] == 1
    store.record_round(game_id, 1, {"Ann": 0, "Bo": 3, "Cy": 4}, based_on=1)
    assert store.get_game(game_id)["version"] == 2


def test_a_stale_edit_is_refused_with_the_round_as_it_is(store: GameStore) -> None:
    game_id = new_game(store)
    store.record_round(game_id, 1, {"Ann": 0, "Bo": 3, "Cy": 4}, based_on=0)
    with pytest.raises(StaleEdit) as caught:
        store.record_round(game_id, 1, {"Ann": 0, "Bo": 9, "Cy": 9}, based_on=0)
    assert caught.value.field == "version"
    assert caught.value.game["version"] == 1
    assert caught.value.game["round"]["points"] == {"Ann": 0, "Bo": 3, "Cy": 4}
    assert store.get_game(game_id)["rounds"][0]["points"]["Bo"] == 3  # nothing changed
