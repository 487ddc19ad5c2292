"""Corrections and new games past their budget (hub/games/limits.py): a typed 429 the
page can word (its code, ``count`` seconds, ``Retry-After``), and nothing written."""

from __future__ import annotations

import pytest

from hub.games.limits import (
    CORRECTIONS_PER_GAME,
    GAMES_STARTED,
    Allowance,
    Budget,
    TooFast,
    WriteLimits,
)
from hub.runtime.clock import SystemClock
from web import create_app

PLAYERS = ["Ann", "Bob", "Cid"]


class Time:
    """A clock the test moves."""

    def __init__(self) -> None:
        self.now = 100.0

    def __call__(self) -> float:
        return self.now


@pytest.fixture
def hub(make_hub):
    return make_hub(threaded=True, clock=SystemClock())


@pytest.fixture
def client(hub):
    return create_app(hub.web_service(), {"TESTING": True}).test_client()


def client_with(hub, limits: WriteLimits):
    """A phone of ``hub`` whose writes are bounded by ``limits``."""
    hub.limits = limits
    return create_app(hub.web_service(), {"TESTING": True}).test_client()


def finished_game(client) -> tuple[int, dict[str, str]]:
    r = client.post("/api/games", json={"players": PLAYERS, "rounds": 1})
    assert r.status_code == 201, r.get_json()
    game_id, auth = r.get_json()["id"], {"Authorization": f"Bearer {r.get_json()['token']}"}
    body = {"points": {"Ann": 0, "Bob": 5, "Cid": 7}, "mid_round": True}
    assert correct(client, game_id, auth, body).get_json()["finished"] is True
    return game_id, auth


def correct(client, game_id, auth, body=None, lang="en"):
    body = body or {"points": {"Ann": 0, "Bob": 9, "Cid": 7}}
    headers = {**auth, "Accept-Language": lang}
    return client.post(f"/api/games/{game_id}/rounds/1/scores", json=body, headers=headers)


def test_corrections_past_the_games_budget_are_refused_429_and_change_nothing(client) -> None:
    game_id, auth = finished_game(client)
    for i in range(CORRECTIONS_PER_GAME.burst):
        body = {"points": {"Ann": 0, "Bob": 10 + i % 2, "Cid": 7}}
        assert correct(client, game_id, auth, body).status_code == 200
    before = client.get(f"/api/games/{game_id}").get_json()
    history = client.get(f"/api/games/{game_id}/rounds/1/history").get_json()
    refused = correct(client, game_id, auth)
    assert refused.status_code == 429
    body = refused.get_json()
    wait = body["params"]["count"]
    assert body["error"] == "too_many_corrections" and body["params"]["game"] == game_id
    assert 1 <= wait <= CORRECTIONS_PER_GAME.every_s
    assert refused.headers["Retry-After"] == str(wait)
    assert body["message"].startswith(f"Game {game_id} has been corrected many times")
    spanish = correct(client, game_id, auth, lang="es").get_json()
    assert spanish["message"].startswith(f"La partida {game_id} se ha corregido")
    assert client.get(f"/api/games/{game_id}").get_json() == before
    assert client.get(f"/api/games/{game_id}/rounds/1/history").get_json() == history


def test_scoring_the_rounds_in_play_is_no_correction(hub) -> None:
    client = client_with(hub, WriteLimits(Time(), per_game=Allowance(1, 60.0)))
    r = client.post("/api/games", json={"players": PLAYERS, "rounds": 3})
    game_id, auth = r.get_json()["id"], {"Authorization": f"Bearer {r.get_json()['token']}"}
    for number in (1, 2, 3):  # each round scored as it is played: none is a correction
        body = {"points": {"Ann": 0, "Bob": number, "Cid": 7}, "mid_round": True}
        r = client.post(f"/api/games/{game_id}/rounds/{number}/scores", json=body, headers=auth)
        assert r.status_code == 200, r.get_json()
    assert correct(client, game_id, auth).status_code == 200  # the one correction allowed
    assert correct(client, game_id, auth).status_code == 429


def test_new_games_past_their_budget_are_refused_429(hub) -> None:
    time = Time()
    client = client_with(hub, WriteLimits(time, games=Allowance(2, 60.0)))
    for _ in range(2):
        finished_game(client)
    before = client.get("/api/games").get_json()
    refused = client.post("/api/games", json={"players": PLAYERS, "rounds": 1})
    assert refused.status_code == 429
    assert refused.get_json()["error"] == "too_many_games"
    assert refused.get_json()["params"] == {"count": 60}
    assert refused.headers["Retry-After"] == "60"
    assert client.get("/api/games").get_json() == before
    time.now += 60.0
    assert client.post("/api/games", json={"players": PLAYERS, "rounds": 1}).status_code == 201


def test_the_games_and_all_corrections_budgets_are_each_kept() -> None:
    time = Time()
    limits = WriteLimits(time, per_game=Allowance(3, 10.0), in_all=Allowance(4, 5.0))
    for _ in range(3):
        limits.correction(1)
    with pytest.raises(TooFast) as one_game:
        limits.correction(1)
    assert one_game.value.code == "too_many_corrections"
    limits.correction(2)  # another game: its own budget, the last of all's
    with pytest.raises(TooFast) as in_all:
        limits.correction(3)
    assert in_all.value.params == {"count": 5, "game": 3}
    time.now += 5.0
    limits.correction(3)


def test_a_budget_refills_one_write_every_so_often() -> None:
    budget = Budget(Allowance(2, 10.0), now=0.0)
    for _ in range(2):
        assert budget.wait(0.0) == 0.0
        budget.spend()
    assert budget.wait(0.0) == 10.0 and budget.wait(4.0) == pytest.approx(6.0)
    assert budget.wait(10.0) == 0.0
    budget.spend()
    assert not budget.full(10.0) and budget.full(30.0)


def test_the_budgets_are_far_above_an_evening() -> None:
    """A family: a game at a time, its sheet put right after it."""
    assert CORRECTIONS_PER_GAME.burst >= 13  # every round of a double-12 game
    assert GAMES_STARTED.burst >= 10 and GAMES_STARTED.every_s <= 60.0
