"""What ``POST /api/selftest`` (open to any phone) costs the store: it looks for the
newest game to know whose token may start the self-test, and that is one row, however
many games the hub has kept (issue 33, item 10: it loaded every game, 1.24 s with
10,000, and four at once got a Pi-sized hub killed for memory)."""

from __future__ import annotations

import sqlite3

import pytest

from scorer.store import GameStore
from tests.many_games import fill
from web import create_app


def store_steps(tmp_path, make_hub, monkeypatch, games: int) -> tuple[int, int]:
    """A hub whose store holds ``games`` finished games: SQLite's virtual machine steps
    (in hundreds) on the store's connections while it answers one self-test start from
    a phone with no proof, and the answer's status."""
    steps = [0]
    made = GameStore._connect

    def counted(self: GameStore) -> sqlite3.Connection:
        conn = made(self)
        conn.set_progress_handler(lambda: steps.__setitem__(0, steps[0] + 1) or 0, 100)
        return conn

    monkeypatch.setattr(GameStore, "_connect", counted)
    state = tmp_path / f"{games}"
    state.mkdir()
    fill(state / "games.db", games)
    hub = make_hub(threaded=True, hub={"state_dir": str(state)})
    client = create_app(hub.web_service(), {"TESTING": True}).test_client()
    client.get("/api/selftest")  # every lazy start-up read done
    steps[0] = 0
    answer = client.post("/api/selftest", json={"action": "start"})
    counted_steps = steps[0]
    hub.stop()  # its pins free for the next hub
    return counted_steps, answer.status_code


@pytest.mark.parametrize("games", [10_000])
def test_the_newest_game_is_one_row_however_many_are_kept(tmp_path, make_hub, monkeypatch, games):
    few, refused = store_steps(tmp_path, make_hub, monkeypatch, 10)
    many, refused_too = store_steps(tmp_path, make_hub, monkeypatch, games)
    assert refused == refused_too == 403  # no proof: refused, after the look
    assert many <= few + 2, (few, many)  # the same work, not 1,000 times as much
