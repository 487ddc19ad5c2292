"""Forgetting a player leaves the name in none of the places docs/storage.md lists
("Where a name lives"), on a live sim hub (issue 33, item 8): a game played while
``remember_players`` was off, the voice's spellings, the finished game the table
still shows (and after a restart), the event log, the journal, every API answer.
The retained MQTT messages: tests/mqtt/test_mqtt_forget.py."""

from __future__ import annotations

from pathlib import Path

import pytest

from tests.helpers import until

NAME, SPELLING = "Zanzibar", "Zanzeebar"


def _spellings(text: str) -> list[bytes]:
    """Every way the name (or its spelling) could sit in a file or an answer."""
    found = []
    for word in (NAME, SPELLING):
        for spelling in (word, word.lower(), word.upper()):
            for encoding in ("utf-8", "utf-16-le", "utf-16-be"):
                found.append(spelling.encode(encoding))
    return found


def assert_nowhere(data: bytes | str, where: str) -> None:
    """Neither the name nor its spelling, in any case or encoding, in ``data``."""
    raw = data.encode() if isinstance(data, str) else data
    assert raw, f"{where}: nothing was read"
    for needle in _spellings(NAME):
        assert needle not in raw, f"{where} still holds {needle!r}"


def _play(client, players: list[str]) -> int:
    """A one-round game played and scored (the table shows it finished)."""
    r = client.post("/api/games", json={"players": players, "rules": "consensus", "rounds": 1})
    assert r.status_code == 201, r.get_json()
    game_id = r.get_json()["id"]
    points = {name: 5 * i for i, name in enumerate(players)}
    body = {"points": points, "went_out": players[0], "mid_round": True}
    r = client.post(f"/api/games/{game_id}/rounds/1/scores", json=body)
    assert r.status_code == 200 and r.get_json()["finished"], r.get_json()
    return game_id


@pytest.fixture
def forgotten(live_hub, client):
    """Game 1 with the name remembered, then ``remember_players`` off and game 2 (on
    the table, finished) with it too, a spelling for the voice; then the name forgotten."""
    live_hub.apply_settings({"spoken_names": {NAME: SPELLING, "Bob": "Bobby"}})
    first = _play(client, [NAME, "Bob", "Cy"])
    live_hub.apply_settings({"remember_players": False})
    second = _play(client, ["Dee", NAME])
    state = client.get("/api/state").get_json()
    assert state["game"]["id"] == second and state["game"]["phase"] == "finished"
    assert NAME in client.get("/api/state").get_data(as_text=True)  # held before the forget
    person = {p["name"]: p["id"] for p in client.get("/api/players").get_json()}[NAME]
    client.set_cookie("mtrain_table", live_hub.trust.table_token())
    r = client.post(f"/api/players/{person}/forget", json={})
    assert r.status_code == 200, r.get_json()
    live_hub.loop.settled()
    return live_hub, client, (first, second)


def _state_dir(hub) -> Path:
    return Path(hub.config["hub"]["state_dir"])


def test_the_database_files_hold_it_nowhere_even_from_a_game_not_remembered(forgotten):
    hub, client, (first, second) = forgotten
    assert client.get(f"/api/games/{first}").get_json()["players"] == ["Player 1", "Bob", "Cy"]
    assert client.get(f"/api/games/{second}").get_json()["players"] == ["Dee", "Player 2"]
    files = sorted(_state_dir(hub).glob("games.db*"))
    assert_nowhere(b"".join(p.read_bytes() for p in files), "games.db")


def test_no_api_answer_names_it(forgotten):
    hub, client, (first, second) = forgotten
    urls = ["/api/games", "/api/players", "/api/season", "/api/evening"]
    urls += ["/api/evening/export.csv", "/api/evening/export.json", "/api/log?limit=2000"]
    for game in (first, second):
        urls += [f"/api/games/{game}", f"/api/games/{game}/rounds/1/history"]
        urls += [f"/api/games/{game}/export.csv", f"/api/games/{game}/export.json"]
    for url in urls:
        r = client.get(url)
        assert r.status_code == 200, url
        assert_nowhere(r.get_data(), url)


def test_the_voices_spelling_goes_from_the_settings_and_their_file(forgotten):
    hub, client, _ = forgotten
    settings = client.get("/api/settings").get_json()
    assert settings["spoken_names"] == {"Bob": "Bobby"}  # the others' spellings stay
    assert_nowhere(client.get("/api/settings").get_data(), "GET /api/settings")
    assert_nowhere((_state_dir(hub) / "settings.json").read_bytes(), "settings.json")


def test_the_table_shows_the_finished_game_without_it(forgotten):
    hub, client, (_, second) = forgotten
    state = client.get("/api/state").get_json()
    assert state["game"]["id"] == second
    assert [s["owner"] for s in state["slots"] if s["owner"] not in (None, "mexican")] == [
        "Dee",
        "Player 2",
    ]
    assert_nowhere(client.get("/api/state").get_data(), "GET /api/state")


def test_the_event_log_in_memory_names_it_nowhere(forgotten):
    hub, client, (_, second) = forgotten
    log = client.get("/api/log?limit=2000").get_json()
    scores = [e for e in log if e["kind"] == "score" and e["game"] == second]
    assert scores and set(scores[0]["points"]) == {"Dee", "Player 2"}
    assert_nowhere(repr(hub.eventlog.recent(2000)), "the event log")


def test_the_journal_holds_it_nowhere(forgotten):
    hub, _, _ = forgotten
    assert_nowhere((_state_dir(hub) / "table.journal").read_bytes(), "table.journal")


def test_after_a_restart_the_table_still_shows_it_nowhere(forgotten, make_hub):
    hub, _, (_, second) = forgotten
    hub.stop()
    again = make_hub(threaded=True, clock=hub.clock)
    until(lambda: again.loop.snapshot["game"], "the table back after the restart")
    state = again.loop.snapshot
    assert state["game"]["id"] == second and state["game"]["phase"] == "finished"
    assert "Player 2" in [s["owner"] for s in state["slots"]]
    assert_nowhere(repr(state), "GET /api/state after a restart")
