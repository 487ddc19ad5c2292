"""The store's reader connections are pooled (scorer/store.py): as many as reads ran at
once, not one per thread that ever read (docs/performance.md, "Footprint")."""

from __future__ import annotations

import os
import threading
from collections.abc import Iterator
from pathlib import Path

import pytest

from scorer.setup import check_setup
from scorer.store import GameStore


def connections(path: Path) -> int:
    """How many open files of this process are the database file itself."""
    fds = Path("/proc/self/fd")
    count = 0
    for fd in os.listdir(fds):
        try:
            count += os.readlink(fds / fd) == str(path)
        except OSError:  # closed meanwhile (listdir's own descriptor)
            pass
    return count


@pytest.fixture
def store(tmp_path: Path) -> Iterator[GameStore]:
    store = GameStore(tmp_path / "games.db", now=lambda: "2024-05-01T12:00:00+00:00")
    yield store
    store.close()


def new_game(store: GameStore) -> int:
    setup = check_setup({"players": ["Ann", "Bo", "Cy"], "rules": "consensus"})
    return store.create_game(setup, token="t0k")


def test_reads_on_many_threads_one_after_another_share_one_connection(store, tmp_path):
    game_id = new_game(store)
    assert connections(tmp_path / "games.db") == 1  # the writer
    seen = []
    for _ in range(6):
        reader = threading.Thread(target=lambda: seen.append(store.get_game(game_id)))
        reader.start()
        reader.join()
    assert [game["id"] for game in seen] == [game_id] * 6
    assert connections(tmp_path / "games.db") == 2  # the writer and one reader


def test_reads_at_once_get_their_own_connections_and_both_are_kept(store, tmp_path):
    game_id = new_game(store)
    with store._read() as first, store._read() as second:
        assert first is not second
        assert first.in_transaction and second.in_transaction
    assert connections(tmp_path / "games.db") == 3
    assert store.get_game(game_id)["id"] == game_id  # reuses one: no new connection
    assert connections(tmp_path / "games.db") == 3
    store.close()
    assert connections(tmp_path / "games.db") == 0


def test_a_reused_reader_sees_writes_made_since_its_last_read(store):
    game_id = new_game(store)
    assert store.get_game(game_id)["rounds"][0]["finished"] is False
    store.record_round(game_id, 1, {"Ann": 0, "Bo": 5, "Cy": 2}, went_out="Ann")
    assert store.get_game(game_id)["rounds"][0]["finished"] is True
