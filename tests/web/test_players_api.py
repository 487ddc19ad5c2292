"""The players' API (web/players_api.py) on a live sim hub: reads, the statistics
hidden from viewers, and renaming, merging and forgetting with the table's proof or
the scorekeeper's token (refused without)."""

from __future__ import annotations

import io

import pytest

from scorer.setup import check_setup
from tests import history


@pytest.fixture
def stored(live_hub):
    """Twelve generated games in the live hub's store (the last one unfinished)."""
    games = history.generate(3, 12)
    history.store_history(live_hub.store, games)
    return games


def _ids(client):
    return {p["name"]: p["id"] for p in client.get("/api/players").get_json()}


def test_the_list_gives_each_player_id_name_games_and_wins(client, stored):
    listed = client.get("/api/players").get_json()
    assert listed and {"id", "name", "games", "wins", "colour", "last_seen"} <= set(listed[0])
    for entry in listed:
        expected = history.player_stats(stored, entry["name"])
        assert (entry["games"], entry["wins"]) == (expected["games"], expected["wins"])


def test_a_player_head_to_head_and_the_season(client, stored):
    ids = _ids(client)
    a, b = sorted(ids)[:2]
    page = client.get(f"/api/players/{ids[a]}").get_json()
    assert page["games"] == history.player_stats(stored, a)["games"]
    vs = client.get(f"/api/players/{ids[a]}/vs/{ids[b]}").get_json()
    assert vs["games"] == history.head_to_head(stored, a, b)["games"]
    season = client.get("/api/season?since=2024-01-05").get_json()
    assert season["since"] == "2024-01-05"
    assert {r["name"] for r in season["players"]} == set(history.season(stored, "2024-01-05"))


@pytest.mark.parametrize(
    ("url", "status", "field"),
    [
        ("/api/players/999", 404, None),
        ("/api/players/1/vs/999", 404, None),
        ("/api/players/1/vs/1", 400, "players"),
        ("/api/season?since=2026-13-01", 400, "since"),
        ("/api/season?since=yesterday", 400, "since"),
        ("/api/season?from=2026-01-01", 400, "from"),
    ],
)
def test_bad_reads_are_refused_clearly(client, stored, url, status, field):
    r = client.get(url)
    assert r.status_code == status
    assert r.get_json()["error"] and r.get_json().get("field") == field


@pytest.mark.parametrize(
    ("path", "body"),
    [("rename", {"name": "Annie"}), ("merge", {"into": 2}), ("forget", {})],
)
def test_changes_need_the_tables_proof(client, stored, path, body):
    r = client.post(f"/api/players/1/{path}", json=body)
    assert r.status_code == 401 and r.get_json()["field"] == "token"
    r = client.post(f"/api/players/1/{path}", json=body, headers={"Authorization": "Bearer wrong"})
    assert r.status_code == 403
    assert client.get("/api/players/1").status_code == 200  # nothing changed


def test_the_running_games_scorekeeper_may_change_players(client, live_hub, stored):
    game_id, token = live_hub.games.new_game(
        check_setup({"players": ["Zed", "Yul"], "rules": "consensus"}), replaces=len(stored)
    )
    ids = _ids(client)
    r = client.post(
        f"/api/players/{ids['Eli']}/rename",
        json={"name": "Elias"},
        headers={"Authorization": f"Bearer {token}"},
    )
    assert r.status_code == 200 and r.get_json()["name"] == "Elias"
    r = client.post(
        f"/api/players/{ids['Zed']}/rename",
        json={"name": "Zedd"},
        headers={"Authorization": f"Bearer {token}"},
    )
    assert r.status_code == 409 and r.get_json()["error"] == "player_at_table"
    assert r.get_json()["params"]["name"] == "Zed"


def test_rename_merge_and_forget_with_the_tables_proof(table_proof, stored, live_hub):
    client = table_proof
    ids = _ids(client)
    r = client.post(f"/api/players/{ids['Bob']}/rename", json={"name": "Robert"})
    assert r.status_code == 200 and r.get_json()["name"] == "Robert"
    r = client.post(f"/api/players/{ids['Cy']}/rename", json={"name": "robert"})
    assert r.status_code == 409 and r.get_json()["error"] == "name_taken"
    assert r.get_json()["params"] == {"name": "Robert"}
    for body, field in (({}, "name"), ({"name": 3}, "name"), ({"nom": "x"}, "nom")):
        r = client.post(f"/api/players/{ids['Cy']}/rename", json=body)
        assert r.status_code == 400 and r.get_json()["field"] == field
    r = client.post(f"/api/players/{ids['Cy']}/rename", json={"name": "Mexican"})
    assert r.status_code == 400 and r.get_json()["field"] == "name"
    r = client.post(f"/api/players/{ids['Cy']}/merge", json={"into": "Dee"})
    assert r.status_code == 400 and r.get_json()["field"] == "into"
    r = client.post(f"/api/players/{ids['Hal']}/forget", json={})
    assert r.status_code == 200
    assert client.get(f"/api/players/{ids['Hal']}").status_code == 404
    for game in client.get("/api/games").get_json():
        exported = client.get(f"/api/games/{game['id']}/export.csv").get_data(as_text=True)
        assert "Hal" not in exported and "HAL" not in exported
        assert "Hal" not in client.get(f"/api/games/{game['id']}").get_data(as_text=True)


def test_hidden_statistics_need_the_proof_and_the_list_keeps_only_names(client, live_hub, stored):
    live_hub.apply_settings({"hide_stats": True})
    listed = client.get("/api/players").get_json()
    assert listed and all("games" not in p and "wins" not in p for p in listed)
    for url in ("/api/players/1", "/api/players/1/vs/2", "/api/season", "/api/evening"):
        r = client.get(url)
        assert r.status_code == 401 and r.get_json()["error"] == "stats_hidden"
    client.set_cookie("mtrain_table", live_hub.trust.table_token())
    assert client.get("/api/players/1").status_code == 200
    assert "games" in client.get("/api/players").get_json()[0]


def test_the_evening_as_json_csv_and_a_png_made_on_the_hub(client, stored):
    summary = client.get("/api/evening").get_json()
    assert summary["games"] and summary["players"]
    csv_text = client.get("/api/evening/export.csv").get_data(as_text=True)
    for entry in summary["players"]:
        assert f"{entry['name']},{entry['games']},{entry['wins']},{entry['points']}" in csv_text
    assert client.get("/api/evening/export.json").get_json() == summary
    first = summary["games"][0]["id"]
    assert client.get(f"/api/evening?game={first}").get_json() == summary
    png = client.get("/api/evening.png", headers={"Accept-Language": "es-MX"})
    assert png.status_code == 200 and png.mimetype == "image/png"
    from PIL import Image

    picture = Image.open(io.BytesIO(png.data))
    rows = 1 + len(summary["games"]) + 1 + len(summary["players"]) + 1 + len(summary["highlights"])
    assert picture.size == (720, 64 + 34 * rows + 24)


@pytest.mark.parametrize(
    ("query", "status"), [("?game=x", 400), ("?game=0", 400), ("?day=1", 400), ("?game=999", 404)]
)
def test_bad_evenings_are_refused(client, stored, query, status):
    r = client.get("/api/evening" + query)
    assert r.status_code == status and r.get_json()["error"]


def test_the_pictures_words_are_the_phones_language(client, stored):
    from web.evening_png import lines

    summary = client.get("/api/evening").get_json()
    english = [words for _, words in lines(summary, "en")]
    spanish = [words for _, words in lines(summary, "es")]
    assert english[0].startswith("Evening of") and spanish[0].startswith("Noche del")
    assert any(w.startswith("Most wins") for w in english) == any(
        w.startswith("Más victorias") for w in spanish
    )
