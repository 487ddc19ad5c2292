"""The games API (web/games_api.py) on a real hub and a real SQLite file: scores by
points and by tiles, corrections and their history, the table following the rounds,
tokens, and every bad input answered 4xx while changing nothing."""

from __future__ import annotations

import json
import threading

import pytest

from hub.runtime.clock import SystemClock
from web import create_app

PLAYERS = ["Ann", "Bob", "Cid"]
# Short gestures so a long hold (went out) takes 0.3 s of real time.
FAST = {"tap_max_ms": 100, "long_hold_ms": 200}


@pytest.fixture
def hub(make_hub):
    return make_hub(threaded=True, clock=SystemClock(), gestures=FAST)


@pytest.fixture
def app(hub):
    return create_app(hub.web_service(), {"TESTING": True})


@pytest.fixture
def client(app):
    return app.test_client()


def new_game(client, **setup):
    body = {"players": PLAYERS, "rules": "consensus", "first": 1} | setup
    r = client.post("/api/games", json=body)
    assert r.status_code == 201, r.get_json()
    return r.get_json()["id"], r.get_json()["token"]


@pytest.fixture
def game(client):
    """A double-12 game of 3; the client holds its token cookie."""
    return new_game(client)


def bearer(token):
    return {"Authorization": f"Bearer {token}"}


def score(client, game_id, round_no, body, token=None, mid_round=True):
    """POST scores. Most tests here score round 1 while the table still plays it, so
    they say so (``"mid_round": true``, the page's second step); ``mid_round=False``
    sends the body as it is."""
    headers = bearer(token) if token else {}
    if mid_round:
        body = {**body, "mid_round": True}
    return client.post(f"/api/games/{game_id}/rounds/{round_no}/scores", json=body, headers=headers)


def table(client):
    return client.get("/api/state").get_json()["game"]


# --- reads ----------------------------------------------------------------------------


def test_history_lists_games_newest_first(client):
    first, _ = new_game(client)
    second, _ = new_game(client, players=["Dee", "Eve"])
    games = client.get("/api/games").get_json()
    assert [g["id"] for g in games] == [second, first]
    assert games[0]["players"] == ["Dee", "Eve"] and games[0]["round"] == 1
    assert not games[0]["finished"] and games[0]["winner"] is None


def test_a_game_shows_rounds_totals_standings_and_never_its_token(client, game):
    game_id, token = game
    r = client.get(f"/api/games/{game_id}")
    assert r.status_code == 200 and token not in r.get_data(as_text=True)
    view = r.get_json()
    assert view["players"] == PLAYERS and view["totals"] == {n: 0 for n in PLAYERS}
    assert view["rounds"] == [
        {
            "round": 1,
            "engine": 12,
            "points": {},
            "went_out": None,
            "blocked": False,
            "finished": False,
        }
    ]
    assert "token" not in json.dumps(view) and view["winner"] is None


# --- scoring --------------------------------------------------------------------------


def test_points_finish_the_round_and_the_table_moves_to_the_next_engine(client, hub, game):
    game_id, _ = game
    news: list[tuple[str, object]] = []
    hub.broadcaster.callbacks.append(lambda kind, payload: news.append((kind, payload)))
    r = score(client, game_id, 1, {"points": {"Ann": 0, "Bob": 12, "Cid": 30}})
    assert r.status_code == 200
    view = r.get_json()
    assert view["round"] == 2 and view["engine"] == 11
    assert view["rounds"][0]["points"] == {"Ann": 0, "Bob": 12, "Cid": 30}
    assert view["totals"] == {"Ann": 0, "Bob": 12, "Cid": 30}
    assert view["standings"] == ["Ann", "Bob", "Cid"]
    state = table(client)
    assert (state["round"], state["engine"], state["phase"]) == (2, 11, "first-turn")
    games = [payload for kind, payload in news if kind == "game"]
    assert games and games[-1]["round"] == 2
    log = client.get("/api/log?limit=20").get_json()
    assert any(e["kind"] == "score" and e["round"] == 1 for e in log)


@pytest.mark.parametrize("double_blank, bob", [(0, 11), (25, 36), (50, 61)])
def test_tiles_are_counted_with_the_double_blank_option(client, double_blank, bob):
    game_id, _ = new_game(client, options={"double_blank": double_blank})
    tiles = {"Ann": [], "Bob": ["0-0", "6-5"], "Cid": ["12-11", "5-4"]}
    r = score(client, game_id, 1, {"tiles": tiles, "went_out": "Ann"})
    assert r.status_code == 200, r.get_json()
    first = r.get_json()["rounds"][0]
    assert first["points"] == {"Ann": 0, "Bob": bob, "Cid": 32}
    assert first["went_out"] == "Ann" and not first["blocked"]


def test_went_out_by_long_hold_then_scores_finish_the_round(client, hub, game):
    game_id, _ = game
    assert table(client)["phase"] == "first-turn"
    state = client.post("/api/sim/slots/1/press", json={"hold_ms": 300}).get_json()
    assert state["game"]["phase"] == "round-over"
    stored = client.get(f"/api/games/{game_id}").get_json()["rounds"][0]
    assert stored["went_out"] == "Ann" and not stored["finished"]
    # Whoever went out may be left out of the tiles: they hold none.
    r = score(client, game_id, 1, {"tiles": {"Bob": ["3-2"], "Cid": []}})
    assert r.status_code == 200, r.get_json()
    assert r.get_json()["rounds"][0]["points"] == {"Ann": 0, "Bob": 5, "Cid": 0}
    assert r.get_json()["rounds"][0]["went_out"] == "Ann"
    state = table(client)
    assert (state["round"], state["engine"], state["phase"]) == (2, 11, "first-turn")
    r = score(client, game_id, 2, {"points": {"Ann": 4, "Bob": 0, "Cid": 9}})
    assert r.get_json()["rounds"][1]["went_out"] is None  # nobody went out: blocked
    assert r.get_json()["rounds"][1]["blocked"]


def test_a_round_still_in_play_is_not_scored_by_accident(client, hub, game):
    """Issue 23 item 1: a round the table is still playing answers 409 with a plain
    reason and changes nothing, unless the body says ``"mid_round": true``."""
    game_id, _ = game
    before = client.get(f"/api/games/{game_id}").get_json(), table(client)
    for phase_body in ({"points": OK_POINTS}, {"points": OK_POINTS, "mid_round": False}):
        r = score(client, game_id, 1, phase_body, mid_round=False)
        body = r.get_json()
        assert r.status_code == 409 and body["field"] == "mid_round", body
        assert (body["error"], body["params"]) == ("round_in_play", {"round": 1})
        assert body["message"].startswith("Round 1 is still being played on the table")
        assert "mid_round" not in body["message"]  # words for people, not a field name
        assert (client.get(f"/api/games/{game_id}").get_json(), table(client)) == before
    assert client.get(f"/api/games/{game_id}/rounds/1/history").get_json() == []
    r = score(client, game_id, 1, {"points": OK_POINTS, "mid_round": "yes"}, mid_round=False)
    assert r.status_code == 400 and r.get_json()["field"] == "mid_round"
    r = score(client, game_id, 1, {"points": OK_POINTS, "mid_round": True}, mid_round=False)
    assert r.status_code == 200 and r.get_json()["round"] == 2
    # Round 2 is in play now: a correction of round 1 needs no second step.
    assert table(client)["phase"] == "first-turn"
    r = score(client, game_id, 1, {"points": {"Ann": 0, "Bob": 1, "Cid": 30}}, mid_round=False)
    assert r.status_code == 200 and r.get_json()["rounds"][0]["points"]["Bob"] == 1
    r = score(client, game_id, 2, {"points": OK_POINTS}, mid_round=False)
    assert r.status_code == 409 and r.get_json()["params"] == {"round": 2}


def test_a_round_over_on_the_table_is_scored_in_one_step(client, hub, game):
    game_id, _ = game
    state = client.post("/api/sim/slots/1/press", json={"hold_ms": 300}).get_json()
    assert state["game"]["phase"] == "round-over"
    r = score(client, game_id, 1, {"points": {"Ann": 0, "Bob": 3, "Cid": 4}}, mid_round=False)
    assert r.status_code == 200, r.get_json()
    assert r.get_json()["rounds"][0]["went_out"] == "Ann"


def test_a_correction_keeps_history_and_does_not_move_the_table(client, game):
    game_id, _ = game
    score(client, game_id, 1, {"points": {"Ann": 0, "Bob": 12, "Cid": 30}, "went_out": "Ann"})
    r = score(client, game_id, 1, {"points": {"Ann": 0, "Bob": 21, "Cid": 30}})
    assert r.status_code == 200
    view = r.get_json()
    assert view["round"] == 2 and view["rounds"][0]["points"]["Bob"] == 21
    assert view["rounds"][0]["went_out"] == "Ann"  # kept
    assert table(client)["round"] == 2
    history = client.get(f"/api/games/{game_id}/rounds/1/history").get_json()
    assert [(h["player"], h["old"], h["new"]) for h in history] == [
        ("Ann", None, 0),
        ("Bob", None, 12),
        ("Cid", None, 30),
        ("Bob", 12, 21),
    ]
    assert all(h["by"] == "scorekeeper" and h["at"] for h in history)
    assert client.get(f"/api/games/{game_id}/rounds/2/history").get_json() == []


def test_the_last_round_finishes_the_game_with_a_winner(client):
    game_id, _ = new_game(client, set=6, rounds=3)
    for round_no, bob in [(1, 10), (2, 0), (3, 7)]:
        r = score(client, game_id, round_no, {"points": {"Ann": 5, "Bob": bob, "Cid": 20}})
        assert r.status_code == 200
    view = r.get_json()
    assert view["finished"] and view["winner"] == "Ann" and view["standings"][0] == "Ann"
    assert view["totals"] == {"Ann": 15, "Bob": 17, "Cid": 60}
    assert table(client)["phase"] == "finished"
    # A finished game's rounds can still be corrected; the winner follows.
    r = score(client, game_id, 1, {"points": {"Ann": 5, "Bob": 0, "Cid": 20}})
    assert r.get_json()["winner"] == "Bob"
    assert client.get("/api/games").get_json()[0]["winner"] == "Bob"


def test_token_by_cookie_and_by_bearer(app, client, game):
    game_id, token = game
    assert (
        score(client, game_id, 1, {"points": {"Ann": 0, "Bob": 1, "Cid": 2}}).status_code == 200
    )  # the cookie POST /api/games set
    stranger = app.test_client()
    body = {"points": {"Ann": 0, "Bob": 3, "Cid": 4}}
    assert score(stranger, game_id, 2, body).status_code == 401
    assert score(stranger, game_id, 2, body, token=token).status_code == 200
    stranger.set_cookie(f"mtrain_token_{game_id}", token)
    assert score(stranger, game_id, 3, body).status_code == 200
    assert stranger.get(f"/api/games/{game_id}").status_code == 200  # reads need none


def test_blocked_round_ends_it_on_the_table_and_in_the_store(client, hub, game):
    game_id, token = game
    r = client.post(f"/api/games/{game_id}/rounds/1/blocked", json={}, headers=bearer(token))
    assert r.status_code == 200
    assert r.get_json()["rounds"][0]["blocked"] and not r.get_json()["rounds"][0]["finished"]
    assert table(client)["phase"] == "round-over"
    assert hub.store.get_game(game_id)["rounds"][0]["blocked"]
    r = score(client, game_id, 1, {"points": {"Ann": 3, "Bob": 12, "Cid": 30}})
    assert r.status_code == 200 and r.get_json()["rounds"][0]["blocked"]
    assert table(client)["round"] == 2
    r = client.post(f"/api/games/{game_id}/rounds/1/blocked", json={})
    assert r.status_code == 409 and r.get_json()["error"] == "round_scored"


def test_finish_early_keeps_the_scored_rounds(client, game):
    game_id, _ = game
    assert client.post(f"/api/games/{game_id}/finish", json={}).status_code == 409  # nothing scored
    score(client, game_id, 1, {"points": {"Ann": 9, "Bob": 0, "Cid": 4}})
    r = client.post(f"/api/games/{game_id}/finish", json={})
    assert r.status_code == 200
    view = r.get_json()
    assert view["finished"] and view["winner"] == "Bob" and view["round_count"] == 1
    assert len(view["rounds"]) == 1 and table(client)["phase"] == "finished"
    r = client.post(f"/api/games/{game_id}/finish", json={})
    assert r.status_code == 409 and r.get_json()["error"] == "game_finished"


def test_racing_submissions_advance_the_table_once(app, client, game):
    game_id, token = game
    barrier = threading.Barrier(6)
    answers = []

    def submit():
        own = app.test_client()
        barrier.wait()
        answers.append(
            score(
                own, game_id, 1, {"points": {"Ann": 0, "Bob": 1, "Cid": 2}}, token=token
            ).status_code
        )

    threads = [threading.Thread(target=submit) for _ in range(6)]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    assert answers == [200] * 6
    assert client.get(f"/api/games/{game_id}").get_json()["round"] == 2
    assert table(client)["round"] == 2


def test_exports_are_downloads(client, game):
    game_id, _ = game
    score(client, game_id, 1, {"points": {"Ann": 0, "Bob": 12, "Cid": 30}})
    r = client.get(f"/api/games/{game_id}/export.csv")
    assert r.status_code == 200 and r.mimetype == "text/csv"
    assert r.headers["Content-Disposition"] == f'attachment; filename="mtrain-game-{game_id}.csv"'
    assert r.get_data(as_text=True).splitlines()[:2] == [
        "round,engine,Ann,Bob,Cid,went_out",
        "1,12,0,12,30,",
    ]
    r = client.get(f"/api/games/{game_id}/export.json")
    assert r.mimetype == "application/json" and "attachment" in r.headers["Content-Disposition"]
    assert json.loads(r.get_data()) == client.get(f"/api/games/{game_id}").get_json()


# --- bad input: 4xx, naming the problem, changing nothing ----------------------------

OK_POINTS = {"Ann": 0, "Bob": 12, "Cid": 30}


@pytest.mark.parametrize(
    "round_no, body, status, code",
    [
        (1, {"points": {"Ann": 0, "Bob": 1, "Cid": 2, "Zed": 3}}, 400, "not_a_player"),
        (1, {"points": {"Ann": 0, "Bob": 1}}, 400, "points_missing"),
        (1, {"points": {"Ann": 0, "Bob": -1, "Cid": 2}}, 400, "points_negative"),
        (1, {"points": {"Ann": 0, "Bob": 1.5, "Cid": 2}}, 400, "points_whole"),
        (1, {"points": {"Ann": 0, "Bob": "7", "Cid": 2}}, 400, "points_whole"),
        (1, {"points": {"Ann": 0, "Bob": True, "Cid": 2}}, 400, "points_whole"),
        (
            1,
            {"points": {"Ann": 0, "Bob": 1069, "Cid": 2}},
            400,
            "points_too_many",
        ),
        (
            1,
            {"points": {"Ann": 5, "Bob": 1, "Cid": 2}, "went_out": "Ann"},
            400,
            "out_scores_zero",
        ),
        (1, {"points": {"Ann": 0, "Bob": 1, "Cid": 2}, "went_out": "Zed"}, 400, "out_unknown"),
        (1, {"points": {"Ann": 0, "Bob": 1, "Cid": 2}, "went_out": 3}, 400, "went_out_name"),
        (1, {"points": [0, 1, 2]}, 400, "points_object"),
        (1, {"tiles": {"Ann": [], "Bob": ["13-2"], "Cid": []}}, 400, "tile_not_in_set"),
        (1, {"tiles": {"Ann": [], "Bob": ["6-"], "Cid": []}}, 400, "tile_text"),
        (1, {"tiles": {"Ann": [], "Bob": ["six-five"], "Cid": []}}, 400, "tile_text"),
        (
            1,
            {"tiles": {"Ann": [], "Bob": ["6-5"], "Cid": ["5-6"]}},
            400,
            "tile_two_hands",
        ),
        (1, {"tiles": {"Ann": [], "Bob": ["6-5", "6-5"], "Cid": []}}, 400, "tile_twice"),
        (1, {"tiles": {"Ann": [], "Bob": ["12-12"], "Cid": []}}, 400, "tile_engine"),
        (
            1,
            {"tiles": {"Ann": ["1-0"], "Bob": [], "Cid": []}, "went_out": "Ann"},
            400,
            "out_holds_tiles",
        ),
        (1, {"tiles": {"Ann": [], "Bob": ["6-5"]}}, 400, "points_missing"),
        (1, {"tiles": {"Ann": [], "Bob": ["6-5"], "Cid": [], "Zed": []}}, 400, "not_a_player"),
        (1, {"tiles": {"Ann": [], "Bob": "6-5", "Cid": []}}, 400, "hand_list"),
        (1, {"tiles": {"Ann": [], "Bob": [65], "Cid": []}}, 400, "tile_text"),
        (1, {"tiles": ["6-5"]}, 400, "tiles_object"),
        (
            1,
            {"points": OK_POINTS, "tiles": {"Ann": [], "Bob": [], "Cid": []}},
            400,
            "points_or_tiles",
        ),
        (1, {}, 400, "points_or_tiles"),
        (1, {"points": OK_POINTS, "colour": "red"}, 400, "unknown_field"),
        (2, {"points": OK_POINTS}, 409, "round_not_played"),
        (0, {"points": OK_POINTS}, 404, "round_outside"),
        (14, {"points": OK_POINTS}, 404, "round_outside"),
    ],
)
def test_bad_scores_change_nothing(client, game, round_no, body, status, code):
    game_id, _ = game
    before = client.get(f"/api/games/{game_id}").get_json(), table(client)
    r = score(client, game_id, round_no, body)
    assert r.status_code == status and r.get_json()["error"] == code, r.get_json()
    assert (client.get(f"/api/games/{game_id}").get_json(), table(client)) == before
    assert client.get(f"/api/games/{game_id}/rounds/1/history").get_json() == []


@pytest.mark.parametrize(
    "data, status, code",
    [
        ("{not json", 400, "not_json"),
        ("[1, 2]", 400, "not_an_object"),
        ('{"points": {"Ann": 0}, "x": "' + "y" * 70000 + '"}', 413, "too_large"),
    ],
)
def test_bad_bodies(client, game, data, status, code):
    game_id, _ = game
    r = client.post(
        f"/api/games/{game_id}/rounds/1/scores", data=data, content_type="application/json"
    )
    assert r.status_code == status and r.get_json()["error"] == code
    assert client.get(f"/api/games/{game_id}").get_json()["round"] == 1


def test_missing_wrong_and_foreign_tokens(app, client, game):
    game_id, token = game
    other_id, other_token = new_game(client, players=["Dee", "Eve"])
    stranger = app.test_client()
    body = {"points": OK_POINTS}
    r = score(stranger, game_id, 1, body)
    assert r.status_code == 401 and r.get_json()["error"] == "keeper_missing"
    assert r.get_json()["params"] == {"game": game_id}
    assert r.headers["WWW-Authenticate"].startswith("Bearer")
    for wrong in ("nope", other_token, token[:-1]):
        r = score(stranger, game_id, 1, body, token=wrong)
        assert r.status_code == 403 and r.get_json()["error"] == "keeper_wrong"
    for header in ("Basic abc", "Bearer", "Bearer   "):
        r = stranger.post(
            f"/api/games/{game_id}/rounds/1/scores", json=body, headers={"Authorization": header}
        )
        assert r.status_code == 401 and r.get_json()["error"] == "keeper_missing"
    stranger.set_cookie(f"mtrain_token_{game_id}", other_token)
    assert score(stranger, game_id, 1, body).status_code == 403
    for path in (f"/api/games/{game_id}/rounds/1/blocked", f"/api/games/{game_id}/finish"):
        assert app.test_client().post(path, json={}).status_code == 401
        assert app.test_client().post(path, json={}, headers=bearer("x")).status_code == 403
    assert client.get(f"/api/games/{game_id}").get_json()["rounds"][0]["points"] == {}
    assert table(client)["phase"] == "first-turn" and other_id != game_id


@pytest.mark.parametrize(
    "method, path",
    [
        ("get", "/api/games/99"),
        ("get", "/api/games/99/rounds/1/history"),
        ("get", "/api/games/99/export.csv"),
        ("get", "/api/games/99/export.json"),
        ("post", "/api/games/99/rounds/1/scores"),
        ("post", "/api/games/99/rounds/1/blocked"),
        ("post", "/api/games/99/finish"),
        ("get", f"/api/games/{2**70}"),
        ("post", f"/api/games/{2**70}/rounds/1/scores"),
        ("get", "/api/games/-1"),
        ("get", "/api/games/abc"),
    ],
)
def test_unknown_games_are_404(client, game, method, path):
    _, token = game
    r = getattr(client, method)(path, json={"points": OK_POINTS}, headers=bearer(token))
    assert r.status_code == 404 and r.get_json()["error"] in ("game_missing", "not_found")


@pytest.mark.parametrize(
    "path, status, code",
    [
        ("/rounds/2/history", 409, "round_not_played"),
        ("/rounds/14/history", 404, "round_outside"),
        ("/rounds/2/blocked", 409, "round_not_played"),
        ("/rounds/99/blocked", 404, "round_outside"),
    ],
)
def test_unknown_or_unplayed_rounds(client, game, path, status, code):
    game_id, _ = game
    if path.endswith("blocked"):
        r = client.post(f"/api/games/{game_id}{path}", json={})
    else:
        r = client.get(f"/api/games/{game_id}{path}")
    assert r.status_code == status and r.get_json()["error"] == code
    assert table(client)["phase"] == "first-turn"


def test_blocked_and_finish_take_no_fields(client, game):
    game_id, _ = game
    for path in ("rounds/1/blocked", "finish"):
        r = client.post(f"/api/games/{game_id}/{path}", json={"force": True})
        assert r.status_code == 400 and r.get_json()["error"] == "unknown_field"
        assert r.get_json()["field"] == "force"
    assert table(client)["phase"] == "first-turn"
    assert not client.get(f"/api/games/{game_id}").get_json()["rounds"][0]["blocked"]


@pytest.mark.parametrize(
    "body, field",
    [
        ({"points": {"Ann": 9999, "Bob": 1, "Cid": 0}}, "points.Ann"),
        ({"points": {"Ann": 0, "Bob": -1, "Cid": 0}}, "points.Bob"),
        ({"points": {"Ann": 0, "Bob": 1}}, "points.Cid"),
        ({"points": {"Ann": 4, "Bob": 1, "Cid": 0}, "went_out": "Ann"}, "points.Ann"),
        ({"points": {"Ann": 0, "Bob": 1, "Cid": 0}, "went_out": "Zed"}, "went_out"),
        ({"tiles": {"Ann": ["6-5"], "Bob": ["6-5"], "Cid": []}, "went_out": "Cid"}, "tiles.Bob"),
        ({"tiles": {"Ann": ["6-5", "5-6"], "Bob": [], "Cid": []}, "went_out": "Bob"}, "tiles.Ann"),
        ({"tiles": {"Ann": ["12-12"], "Bob": [], "Cid": []}, "went_out": "Bob"}, "tiles.Ann"),
        ({"tiles": {"Ann": ["13-1"], "Bob": [], "Cid": []}, "went_out": "Bob"}, "tiles.Ann"),
    ],
)
def test_a_refused_score_names_its_field(client, game, body, field):
    """The page puts the message under that player's hand (contracts.md item 1)."""
    r = score(client, game[0], 1, body)
    assert r.status_code == 400 and r.get_json()["field"] == field, r.get_json()
