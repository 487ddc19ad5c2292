"""``hide_stats`` on a live sim hub (issue 33, item 9; web/privacy.py): a viewer with
no token still sees the game the table shows, whole, and no other game's totals,
standings, winner, round histories, downloads or logged scores; the token holder
sees everything; the news of another game reaches no stream or broker."""

from __future__ import annotations

import pytest

from web import create_app

PAST = ("/rounds/1/history", "/export.csv", "/export.json", "")


def _game(client, players: list[str], finish: bool) -> int:
    r = client.post("/api/games", json={"players": players, "rules": "consensus", "rounds": 1})
    assert r.status_code == 201, r.get_json()
    game_id = r.get_json()["id"]
    if finish:
        body = {"points": {players[0]: 0, players[1]: 12}, "went_out": players[0]}
        r = client.post(f"/api/games/{game_id}/rounds/1/scores", json={**body, "mid_round": True})
        assert r.status_code == 200 and r.get_json()["finished"]
    return game_id


@pytest.fixture
def hidden(live_hub, client):
    """Game 1 finished (Ann won), game 2 on the table, then ``hide_stats`` on. The
    ``client`` holds both games' tokens (their cookies); ``viewer`` holds none."""
    past = _game(client, ["Ann", "Bob"], finish=True)
    table = _game(client, ["Cy", "Dee"], finish=False)
    live_hub.apply_settings({"hide_stats": True})
    viewer = create_app(live_hub.web_service(), {"TESTING": True}).test_client()
    return live_hub, client, viewer, past, table


def test_the_list_keeps_every_game_but_past_winners_from_a_viewer(hidden):
    _, keeper, viewer, past, table = hidden
    listed = {g["id"]: g for g in viewer.get("/api/games").get_json()}
    assert listed[past]["players"] == ["Ann", "Bob"] and listed[past]["finished"]
    assert "winner" not in listed[past] and listed[past]["stats_hidden"] is True
    assert "stats_hidden" not in listed[table]
    full = {g["id"]: g for g in keeper.get("/api/games").get_json()}
    assert full[past]["winner"] == "Ann" and "stats_hidden" not in full[past]


@pytest.mark.parametrize("tail", PAST)
def test_a_past_game_its_history_and_downloads_are_refused_to_a_viewer(hidden, tail):
    _, keeper, viewer, past, _ = hidden
    r = viewer.get(f"/api/games/{past}{tail}")
    assert r.status_code == 401 and r.get_json()["error"] == "stats_hidden"
    assert "Ann" not in r.get_data(as_text=True)
    assert keeper.get(f"/api/games/{past}{tail}").status_code == 200


@pytest.mark.parametrize("tail", PAST)
def test_the_game_on_the_table_stays_whole_for_a_viewer(hidden, tail):
    _, _, viewer, _, table = hidden
    assert viewer.get(f"/api/games/{table}{tail}").status_code in (200, 409)  # 409: unplayed
    game = viewer.get(f"/api/games/{table}").get_json()
    assert game["players"] == ["Cy", "Dee"] and "totals" in game and "standings" in game


def test_a_past_games_own_token_shows_that_game(hidden):
    hub, _, viewer, past, _ = hidden
    hub.store.add_token(past, "p" * 24)  # a phone holding game 1's token, and no other
    r = viewer.get(f"/api/games/{past}", headers={"Authorization": "Bearer " + "p" * 24})
    assert r.status_code == 200 and r.get_json()["winner"] == "Ann"


def test_the_log_keeps_past_scores_from_a_viewer(hidden):
    _, keeper, viewer, past, _ = hidden
    seen = viewer.get("/api/log?limit=2000").get_json()
    scored = [e for e in seen if e["kind"] == "score" and e["game"] == past]
    assert scored and all("points" not in e and "went_out" not in e for e in scored)
    assert not any(e.get("went_out") == "Ann" for e in seen)
    full = keeper.get("/api/log?limit=2000").get_json()
    assert any(e["kind"] == "score" and e["game"] == past and e["points"] for e in full)


def test_a_past_games_news_reaches_no_stream_or_broker(hidden):
    hub, keeper, _, past, table = hidden
    heard: list[tuple[str, object]] = []
    hub.broadcaster.callbacks.append(lambda kind, payload: heard.append((kind, payload)))
    body = {"points": {"Ann": 0, "Bob": 15}, "went_out": "Ann"}
    assert keeper.post(f"/api/games/{past}/rounds/1/scores", json=body).status_code == 200
    hub.loop.settled()
    about = [p for k, p in heard if k in ("game", "event") and isinstance(p, dict)]
    assert not [p for p in about if p.get("id") == past or p.get("game") == past], about
    hub.apply_settings({"hide_stats": False})
    assert keeper.post(f"/api/games/{past}/rounds/1/scores", json=body).status_code == 200
    assert any(k == "game" and p["id"] == past for k, p in heard if isinstance(p, dict))


def test_with_hide_stats_off_a_viewer_sees_everything(hidden):
    hub, _, viewer, past, _ = hidden
    hub.apply_settings({"hide_stats": False})
    for tail in PAST:
        assert viewer.get(f"/api/games/{past}{tail}").status_code == 200
    assert viewer.get("/api/games").get_json()[-1]["winner"] == "Ann"
