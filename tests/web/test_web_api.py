"""The HTTP API: the contract's shapes, and bad input answered 4xx, never 500."""

from __future__ import annotations

import socket

import pytest

from web import create_app

PLAYERS = ["Ann", "Bob", "Cid"]


def test_state_before_a_game(client):
    state = client.get("/api/state").get_json()
    assert state["backend"] == "sim" and state["game"] is None and state["turn"] is None
    assert [s["slot"] for s in state["slots"]] == list(range(1, 9))
    assert state["double"] is None


def test_create_game_and_play_through_the_sim(client):
    r = client.post("/api/games", json={"players": PLAYERS, "rules": "consensus", "first": 2})
    assert r.status_code == 201
    body = r.get_json()
    assert set(body) == {"id", "token"}
    assert f"mtrain_token_{body['id']}={body['token']}" in r.headers["Set-Cookie"]
    state = client.get("/api/state").get_json()
    assert state["game"]["phase"] == "first-turn" and state["turn"] == 2
    assert state["game"]["engine"] == 12 and state["game"]["round"] == 1
    assert [s["owner"] for s in state["slots"][:4]] == PLAYERS + ["mexican"]
    after = client.post("/api/sim/slots/2/press", json={"hold_ms": 0}).get_json()
    assert after["turn"] == 3
    after = client.post("/api/sim/slots/3/marker", json={"present": True}).get_json()
    assert after["slots"][2]["public"] and after["turn"] == 1
    log = client.get("/api/log?limit=50").get_json()
    kinds = [e["kind"] for e in log]
    assert (
        "tap" in kinds
        and "marker" in kinds
        and {"kind": "sound", "name": "choo"}
        in [{k: e[k] for k in ("kind", "name")} for e in log if e["kind"] == "sound"]
    )
    assert all(e["at"].endswith("+00:00") for e in log)


def test_a_game_that_names_no_rules_plays_the_standard_rules(client):
    """The hub's default (and the page's recommended) profile is ``aces``, the rules
    most families play."""
    assert client.get("/api/rules").get_json()["default_rules"] == "aces"
    r = client.post("/api/games", json={"players": PLAYERS})
    assert r.status_code == 201
    game = client.get(f"/api/games/{r.get_json()['id']}").get_json()
    assert game["rules"] == "aces"
    assert client.get("/api/state").get_json()["game"]["rules"] == "aces"


def test_log_limit(client):
    client.post("/api/sim/slots/1/press", json={})
    client.post("/api/sim/slots/2/press", json={})
    log = client.get("/api/log?limit=1").get_json()
    assert len(log) == 1 and log[0]["slot"] == 2


@pytest.mark.parametrize(
    "body, code, field",
    [
        ({"players": "Ann"}, "names_list", "players"),
        ({"players": ["Ann"]}, "player_count", "players"),
        ({"players": [f"P{i}" for i in range(9)]}, "player_count", "players"),
        ({"players": ["Ann", "ann"]}, "same_name", "players"),
        ({"players": ["Ann", 3]}, "not_a_name", "players"),
        ({"players": PLAYERS, "rules": "poker"}, "no_such_rules", "rules"),
        ({"players": PLAYERS, "seats": [1, 2]}, "seats_count", "seats"),
        ({"players": PLAYERS, "seats": [1, 2, 9]}, "not_a_slot", "seats"),
        ({"players": PLAYERS, "seats": [1, 1, 2]}, "seats_twice", "seats"),
        (
            {"players": PLAYERS, "seats": [1, 2, 3], "mexican_slot": 3},
            "mexican_on_player",
            "mexican_slot",
        ),
        ({"players": PLAYERS, "mexican_slot": "x"}, "whole_number", "mexican_slot"),
        ({"players": PLAYERS, "first": 7}, "first_empty", "first"),
        ({"players": PLAYERS, "set": 13}, "not_a_set", "set"),
        ({"players": PLAYERS, "rounds": 0}, "rounds_range", "rounds"),
        ({"players": PLAYERS, "options": {"turbo": True}}, "unknown_option", "options.turbo"),
        (
            {"players": PLAYERS, "options": {"double_blank": 30}},
            "option_value",
            "options.double_blank",
        ),
        (
            {"players": PLAYERS, "rules": "aces", "options": {"chickenfoot": True}},
            "option_not_offered",
            "options.chickenfoot",
        ),
        (
            {"players": PLAYERS, "options": {"partnerships": True}},
            "option_not_offered",
            "options.partnerships",
        ),
        ({"players": PLAYERS, "colour": "red"}, "unknown_field", "colour"),
        ([1, 2], "not_an_object", None),
    ],
)
def test_bad_game_bodies(client, body, code, field):
    r = client.post("/api/games", json=body)
    assert r.status_code == 400
    assert (r.get_json()["error"], r.get_json().get("field")) == (code, field)
    assert client.get("/api/state").get_json()["game"] is None


def test_malformed_json_and_huge_body(client):
    r = client.post("/api/games", data="{not json", content_type="application/json")
    assert r.status_code == 400 and r.get_json()["error"] == "not_json"
    r = client.post("/api/games", data="x" * 70000, content_type="application/json")
    assert r.status_code == 413 and r.get_json()["error"] == "too_large"
    assert r.get_json()["params"] == {"limit": 64}


@pytest.mark.parametrize(
    "url, body, status",
    [
        ("/api/sim/slots/9/press", {}, 404),
        ("/api/sim/slots/0/marker", {"present": True}, 404),
        ("/api/sim/slots/-1/press", {}, 404),
        ("/api/sim/slots/x/press", {}, 404),
        ("/api/sim/slots/1/press", {"hold_ms": "long"}, 400),
        ("/api/sim/slots/1/press", {"hold_ms": -5}, 400),
        ("/api/sim/slots/1/press", {"hold_ms": True}, 400),
        ("/api/sim/slots/1/press", {"hold": 5}, 400),
        ("/api/sim/slots/1/marker", {"present": "yes"}, 400),
        ("/api/sim/slots/1/marker", {}, 400),
    ],
)
def test_bad_sim_calls(client, url, body, status):
    r = client.post(url, json=body)
    assert r.status_code == status and "error" in r.get_json()


def test_unknown_route_and_method_are_json(client):
    r = client.get("/api/nothing")
    assert r.status_code == 404 and r.get_json()["error"] == "not_found"
    r = client.delete("/api/state")
    assert r.status_code == 405 and r.get_json()["error"] == "method_not_allowed"
    r = client.get("/api/log?limit=abc")
    assert r.status_code == 400 and r.get_json()["field"] == "limit"
    assert r.get_json()["error"] == "whole_number"


def test_sim_calls_refused_on_gpio_backend(make_hub):
    hub = make_hub(threaded=True, backend="gpio")
    client = create_app(hub.web_service(), {"TESTING": True}).test_client()
    r = client.post("/api/sim/slots/1/press", json={})
    assert r.status_code == 404 and r.get_json()["error"] == "not_simulated"
    assert r.get_json()["params"] == {"backend": "gpio"}
    assert client.get("/api/state").get_json()["backend"] == "gpio"


def test_events_stream_starts_with_the_state(live_hub):
    # The one path of a phone's stream is the hub's own server (the test client gets a 503).
    live_hub.serve("127.0.0.1", 0, block=False, on_listening=lambda host, port: None)
    port = live_hub._server.effective_port
    with socket.create_connection(("127.0.0.1", port), timeout=10) as phone:
        phone.sendall(b"GET /api/events HTTP/1.1\r\nHost: 127.0.0.1\r\n\r\n")
        seen = b""
        while b"event: state" not in seen or b"}\n\n" not in seen:  # (chunked: HTTP/1.1)
            seen += phone.recv(65536)
    head, _, chunk = seen.decode().partition("\r\n\r\n")
    assert "Content-Type: text/event-stream" in head
    assert "event: state" in chunk and '"backend":"sim"' in chunk
