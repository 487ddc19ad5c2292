"""Settings at the table: volume, quiet mode, turn chime; saved, checked, guarded."""

from __future__ import annotations

import json

import pytest

from hub.runtime.settings import Settings, SettingsError, check
from web import create_app


def test_defaults_come_from_the_config(make_hub):
    hub = make_hub(sound={"volume": 0.5, "quiet": "turn-only"})
    assert hub.settings.values == {
        "volume": 0.5,
        "quiet": "turn-only",
        "turn_chime": True,
        "brightness": 0.6,
        "voice": "off",  # the fixture's; the config's default is "turns"
        "voice_language": "en",
        "spoken_names": {},
        "remember_players": True,
        "hide_stats": False,
    }
    assert hub.sound.volume == 0.5 and hub.policy.quiet == "turn-only"


def test_change_is_applied_and_saved(client, live_hub, tmp_path, table_proof):
    r = client.post("/api/settings", json={"volume": 0.3, "quiet": "mute"})
    assert r.status_code == 200
    assert r.get_json()["volume"] == 0.3 and r.get_json()["sound"]["available"]
    assert live_hub.sound.volume == 0.3 and live_hub.policy.quiet == "mute"
    saved = json.loads((live_hub.state_dir / "settings.json").read_text())
    assert saved == {
        "volume": 0.3,
        "quiet": "mute",
        "turn_chime": True,
        "brightness": 0.6,
        "voice": "off",
        "voice_language": "en",
        "spoken_names": {},
        "remember_players": True,
        "hide_stats": False,
    }
    again = Settings(
        live_hub.state_dir / "settings.json", {"volume": 1, "quiet": "off", "turn_chime": True}
    )
    assert again.values["quiet"] == "mute"


def test_turn_chime_off_silences_only_the_chime(client, live_hub, table_proof):
    client.post("/api/settings", json={"turn_chime": False})
    client.post("/api/games", json={"players": ["Ann", "Bob"], "first": 1})
    client.post("/api/sim/slots/1/press", json={})
    client.post("/api/sim/slots/3/press", json={})  # the Mexican slot... in first turn
    assert "turn" not in live_hub.sound.played
    client.post("/api/sim/slots/2/marker", json={"present": True})
    assert "choo" in live_hub.sound.played


def test_a_muted_hub_plays_nothing_and_sends_phones_no_sound_toast(client, live_hub, table_proof):
    news: list[tuple[str, object]] = []  # what a phone's stream hears
    live_hub.broadcaster.callbacks.append(lambda kind, payload: news.append((kind, payload)))
    client.post("/api/settings", json={"quiet": "mute"})
    client.post("/api/games", json={"players": ["Ann", "Bob"], "first": 1})
    client.post("/api/sim/slots/1/press", json={})
    client.post("/api/sim/slots/3/marker", json={"present": True})
    assert live_hub.sound.played == []
    assert "state" in [kind for kind, _ in news]  # the table moved
    assert [p for kind, p in news if kind == "sound"] == []  # nobody heard a sound
    news.clear()
    assert not [e for e in client.get("/api/log").get_json() if e["kind"] == "sound"]
    client.post("/api/settings", json={"quiet": "turn-only"})
    client.post("/api/sim/slots/2/press", json={})
    client.post("/api/sim/slots/4/marker", json={"present": True})
    assert live_hub.sound.played == ["turn"]
    assert [p for kind, p in news if kind == "sound"] == [{"name": "turn"}]


@pytest.mark.parametrize(
    "body, fragment",
    [
        ({"volume": 2}, "volume"),
        ({"volume": "loud"}, "volume"),
        ({"volume": True}, "volume"),
        ({"quiet": "sometimes"}, "quiet"),
        ({"turn_chime": "yes"}, "turn_chime"),
        ({"bass": 3}, "bass"),
        ({}, None),
    ],
)
def test_bad_settings(client, live_hub, body, fragment, table_proof):
    r = client.post("/api/settings", json=body)
    code = (
        "settings_object" if not body else "unknown_setting" if "bass" in body else "setting_value"
    )
    assert r.status_code == 400 and r.get_json()["error"] == code
    assert r.get_json().get("field") == fragment
    assert live_hub.settings.values["volume"] == 0.8


def test_during_a_game_only_the_scorekeeper_changes_settings(client, live_hub):
    token = client.post("/api/games", json={"players": ["Ann", "Bob"]}).get_json()["token"]
    viewer = create_app(live_hub.web_service(), {"TESTING": True}).test_client()  # no cookie
    assert viewer.post("/api/settings", json={"volume": 0.1}).status_code == 401
    r = viewer.post(
        "/api/settings", json={"volume": 0.1}, headers={"Authorization": "Bearer wrong"}
    )
    assert r.status_code == 403
    r = viewer.post(
        "/api/settings", json={"volume": 0.1}, headers={"Authorization": f"Bearer {token}"}
    )
    assert r.status_code == 200
    assert client.post("/api/settings", json={"volume": 0.2}).status_code == 200  # cookie


def test_a_damaged_settings_file_is_ignored(tmp_path):
    path = tmp_path / "settings.json"
    path.write_text('{"volume": 7}')
    assert (
        Settings(path, {"volume": 0.8, "quiet": "off", "turn_chime": True}).values["volume"] == 0.8
    )


def test_check_names_the_key():
    with pytest.raises(SettingsError, match="quiet"):
        check({"quiet": 3})
