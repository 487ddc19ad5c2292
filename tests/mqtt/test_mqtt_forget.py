"""Forgetting a player on a hub publishing to a real mosquitto: the broker's retained
``state``, ``game`` and ``settings`` are published again without the name (issue 33,
item 8; docs/storage.md, "Where a name lives")."""

from __future__ import annotations

from hub.runtime.clock import SystemClock
from tests.mqtt_helpers import Listener
from tests.web.test_forget_everywhere import NAME, SPELLING, _play, assert_nowhere
from web import create_app

ROOT = "mtrain/t1"
RETAINED = (f"{ROOT}/state", f"{ROOT}/game", f"{ROOT}/settings")


def _retained(port: int) -> dict[str, bytes]:
    """What a newcomer hears at once: the broker's retained messages."""
    listener = Listener(port, RETAINED)
    try:
        listener.wait_connected()
        listener.wait_for(lambda: all(listener.latest.get(t) for t in RETAINED))
        return {topic: listener.latest[topic] for topic in RETAINED}
    finally:
        listener.close()


def test_the_retained_messages_are_published_again_without_the_name(make_hub, mosquitto):
    hub = make_hub(
        threaded=True, clock=SystemClock(), hub={"hub_id": "t1"}, mqtt={"url": mosquitto.url}
    )
    client = create_app(hub.web_service(), {"TESTING": True}).test_client()
    hub.apply_settings({"spoken_names": {NAME: SPELLING}})
    game_id = _play(client, [NAME, "Bob"])
    before = _retained(mosquitto.port)
    assert all(NAME.encode() in before[t] for t in RETAINED), before  # each held it
    person = {p["name"]: p["id"] for p in client.get("/api/players").get_json()}[NAME]
    client.set_cookie("mtrain_table", hub.trust.table_token())
    assert client.post(f"/api/players/{person}/forget", json={}).status_code == 200
    listener = Listener(mosquitto.port, RETAINED)
    try:
        listener.wait_connected()
        listener.wait_for(
            lambda: all(
                listener.latest.get(t) and NAME.encode() not in listener.latest[t] for t in RETAINED
            )
        )
        game = listener.json(f"{ROOT}/game")
        assert isinstance(game, dict) and game["id"] == game_id
        assert game["players"] == ["Player 1", "Bob"]
        for topic in RETAINED:
            assert_nowhere(listener.latest[topic], topic)
    finally:
        listener.close()
