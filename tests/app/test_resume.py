"""Restarting the real hub (``mtrain-hub run`` subprocess) mid-game, by SIGTERM (an
orderly stop) and by SIGKILL (a power cut): the same game, round, engine, seats and
scores come back, and a round that had ended but was not scored resumes as over."""

from __future__ import annotations

import signal

import pytest

from tests.http_client import HubProcess

PLAYERS = ["Ann", "Bob", "Cid"]
SEATS = [2, 4, 6]
STOPS = [
    pytest.param(signal.SIGTERM, 0, id="sigterm"),
    pytest.param(signal.SIGKILL, -signal.SIGKILL, id="sigkill"),
]


@pytest.fixture
def config(tmp_path):
    """Short gestures: a long hold (went out) takes 0.9 s, each press 300 ms inside its
    window (the hub reads it on its own clock, which a busy machine delays)."""
    path = tmp_path / "hub.toml"
    path.write_text("[gestures]\ntap_max_ms = 300\nlong_hold_ms = 600\n")
    return path


@pytest.fixture
def start(tmp_path, config):
    """Start (or restart) the hub on the same state directory (each on a port of its own)."""
    running = []

    def run():
        process = HubProcess(tmp_path / "state", "--config", str(config))
        running.append(process)
        return process

    yield run
    for process in running:
        if process.proc.poll() is None:
            process.stop(signal.SIGKILL)


def new_game(hub):
    """A game under the tournament rules (a player may go out in their first turn)."""
    body = {"players": PLAYERS, "rules": "consensus", "seats": SEATS, "mexican_slot": 8}
    status, answer = hub.post("/api/games", body | {"first": 4, "set": 9})
    assert status == 201
    return answer["id"], answer["token"]


def score(hub, game_id, round_no, points, token, **more):
    return hub.post(
        f"/api/games/{game_id}/rounds/{round_no}/scores",
        {"points": points, "mid_round": True, **more},
        token=token,
    )


def table_view(hub):
    """What must survive a restart: the game on the table and who sits where."""
    state = hub.get("/api/state")[1]
    game = state["game"]
    keep = ("id", "round", "rounds", "engine", "rules", "players", "seats", "mexican_slot")
    return (
        {key: game[key] for key in keep} if game else None,
        [(s["slot"], s["owner"]) for s in state["slots"]],
        game and game["phase"],
    )


@pytest.mark.parametrize("sig, code", STOPS)
def test_a_restart_mid_game_resumes_the_same_game_round_and_scores(start, sig, code):
    hub = start()
    game_id, token = new_game(hub)
    assert score(hub, game_id, 1, {"Ann": 0, "Bob": 14, "Cid": 22}, token, went_out="Ann")[0] == 200
    assert score(hub, game_id, 2, {"Ann": 5, "Bob": 0, "Cid": 9}, token)[0] == 200
    assert score(hub, game_id, 1, {"Ann": 0, "Bob": 15, "Cid": 22}, token)[0] == 200
    hub.post("/api/sim/slots/4/press", {"hold_ms": 0})  # round 3 under way
    before_table, before_game = table_view(hub), hub.get(f"/api/games/{game_id}")[1]
    before_state = hub.get("/api/state")[1]
    assert before_table[0]["round"] == 3 and before_table[0]["engine"] == 7
    assert hub.stop(sig) == code

    hub = start()
    after_table, after_game = table_view(hub), hub.get(f"/api/games/{game_id}")[1]
    assert after_table == before_table
    after_state = hub.get("/api/state")[1]  # the journal kept the round's first turn
    assert (after_state["turn"], after_state["game"]["first_turns_left"]) == (
        before_state["turn"],
        before_state["game"]["first_turns_left"],
    )
    assert after_game == before_game
    history = hub.get(f"/api/games/{game_id}/rounds/1/history")[1]
    assert [(h["player"], h["old"], h["new"]) for h in history][-1] == ("Bob", 14, 15)
    # The token still works, and the game goes on.
    assert score(hub, game_id, 3, {"Ann": 1, "Bob": 2, "Cid": 3}, token)[0] == 200
    assert hub.get("/api/state")[1]["game"]["round"] == 4


@pytest.mark.parametrize("sig, code", STOPS)
def test_a_round_that_ended_unscored_resumes_round_over(start, sig, code):
    hub = start()
    game_id, token = new_game(hub)
    state = hub.post("/api/sim/slots/4/press", {"hold_ms": 900})[1]  # Bob went out
    assert state["game"]["phase"] == "round-over"
    assert hub.get(f"/api/games/{game_id}")[1]["rounds"][0]["went_out"] == "Bob"
    assert hub.stop(sig) == code

    hub = start()
    state = hub.get("/api/state")[1]
    assert state["game"]["id"] == game_id and state["game"]["round"] == 1
    assert state["game"]["phase"] == "round-over" and state["turn"] is None
    status, game = score(hub, game_id, 1, {"Ann": 8, "Bob": 0, "Cid": 3}, token)
    assert status == 200 and game["rounds"][0]["went_out"] == "Bob"
    state = hub.get("/api/state")[1]
    assert (state["game"]["round"], state["game"]["engine"]) == (2, 8)
    assert state["game"]["phase"] == "first-turn"


def test_a_blocked_round_resumes_round_over(start):
    hub = start()
    game_id, token = new_game(hub)
    assert hub.post(f"/api/games/{game_id}/rounds/1/blocked", token=token)[0] == 200
    assert hub.stop(signal.SIGKILL) == -signal.SIGKILL
    hub = start()
    assert hub.get("/api/state")[1]["game"]["phase"] == "round-over"
    assert hub.get(f"/api/games/{game_id}")[1]["rounds"][0]["blocked"]


def test_a_finished_game_does_not_resume(start):
    hub = start()
    game_id, token = new_game(hub)
    assert score(hub, game_id, 1, {"Ann": 0, "Bob": 1, "Cid": 2}, token)[0] == 200
    assert hub.post(f"/api/games/{game_id}/finish", token=token)[0] == 200
    assert hub.stop(signal.SIGKILL) == -signal.SIGKILL
    hub = start()
    game = hub.get("/api/state")[1]["game"]  # shown finished, as before the kill
    assert (game["id"], game["phase"]) == (game_id, "finished")
    assert hub.post("/api/games", {"players": PLAYERS})[0] == 201  # none unfinished
    assert hub.get(f"/api/games/{game_id}")[1]["winner"] == "Ann"
    assert hub.stop() == 0
