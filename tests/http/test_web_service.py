"""The web layer against its narrow interface: the fake hub, the one error style, and
bugs answered 500 with their traceback in the log (never a 400 that hides them)."""

from __future__ import annotations

import ast
import inspect
import logging
from pathlib import Path

import pytest

from hub.http.adapter import HubWebService
from hub.wire import i18n
from scorer.errors import Refused
from tests.fake_service import FakeHubService
from web import create_app
from web.service import HubService

ROOT = Path(__file__).resolve().parents[2]
PLAYERS = ["Ann", "Bob", "Cid"]


@pytest.fixture
def fake():
    return FakeHubService()


@pytest.fixture
def fake_client(fake):
    client = create_app(fake, {"TESTING": True}).test_client()
    fake.table_tokens.add("table")  # the table's proof: settings may change
    client.set_cookie("mtrain_table", "table")
    return client


def _public(cls: type) -> set[str]:
    return {n for n, _ in inspect.getmembers(cls) if not n.startswith("_")}


def test_the_hub_and_the_fake_offer_exactly_the_interface():
    wanted = _public(HubService)
    assert wanted <= _public(HubWebService)
    assert wanted <= _public(FakeHubService)


RUNTIME = {
    "hub.app",
    "hub.runtime.loop",
    "hub.http.adapter",
    "hub.runtime.dispatch",
    "hub.runtime.broadcast",
}


def _imported(node: ast.AST) -> list[str]:
    if isinstance(node, ast.Import):
        return [alias.name for alias in node.names]
    if isinstance(node, ast.ImportFrom) and node.module:
        return [node.module] + [f"{node.module}.{alias.name}" for alias in node.names]
    return []


def test_nothing_in_web_imports_the_hub_runtime():
    for path in sorted((ROOT / "web").rglob("*.py")):
        for node in ast.walk(ast.parse(path.read_text())):
            assert not RUNTIME & set(_imported(node)), path


def test_handlers_ask_the_service(fake, fake_client):
    assert fake_client.get("/api/state").get_json()["backend"] == "sim"
    r = fake_client.post("/api/sim/slots/3/press", json={"hold_ms": 1500})
    assert r.status_code == 200
    assert ("sim_press", (3, 1.5)) in fake.calls
    r = fake_client.post("/api/games", json={"players": PLAYERS})
    assert r.status_code == 201 and r.get_json() == {"id": 1, "token": "token-1"}


@pytest.mark.parametrize(
    "path, body, status, error",
    [
        (
            "/api/sim/slots/1/press",
            {"hold_ms": -1},
            400,
            {"error": "hold_ms", "field": "hold_ms", "params": {"most": 10000}},
        ),
        (
            "/api/sim/slots/1/press",
            {"hold_ms": 0, "colour": "red"},
            400,
            {
                "error": "unknown_field",
                "field": "colour",
                "params": {"name": "colour", "allowed": ["hold_ms", "centre"]},
            },
        ),
        (
            "/api/sim/slots/9/press",
            {},
            404,
            {"error": "no_such_slot", "params": {"slot": 9, "last": 8}},
        ),
        (
            "/api/games",
            {"players": "Ann"},
            400,
            {"error": "names_list", "field": "players", "params": {}},
        ),
        (
            "/api/settings",
            {"loudness": 3},
            400,
            {"error": "unknown_setting", "field": "loudness", "params": {"name": "loudness"}},
        ),
    ],
)
def test_one_error_style(fake_client, path, body, status, error):
    r = fake_client.post(path, json=body)
    got = r.get_json()
    # Beside the code, words for people: no field name in front.
    message = got.pop("message")
    assert message and not message.startswith(f"{error.get('field')}:")
    assert message == i18n.text("en", f"error.{error['error']}", **error["params"])
    assert (r.status_code, got) == (status, error)


def test_errors_without_a_field_have_no_field_key(fake_client):
    r = fake_client.post("/api/games", data="{oops", content_type="application/json")
    assert r.get_json() == {
        "error": "not_json",
        "params": {},
        "message": "That is not JSON the hub can read.",
    }
    r = fake_client.get("/api/nowhere")
    assert r.status_code == 404 and set(r.get_json()) == {"error", "params", "message"}


def test_a_refusal_from_the_hub_keeps_its_status_and_field(fake, fake_client):
    fake.fail["get_game"] = Refused(
        409, "round 2: not yet", "rounds", code="round_not_played", round=2, now=1
    )
    r = fake_client.get("/api/games/1", headers={"Accept-Language": "es"})
    assert (r.status_code, r.get_json()) == (
        409,
        {
            "error": "round_not_played",
            "field": "rounds",
            "params": {"round": 2, "now": 1},
            "message": "La ronda 2 todavía no se juega (la partida va en la ronda 1).",
        },
    )


def test_auth_goes_through_the_service(fake, fake_client):
    game_id, token = fake.new_game({"players": PLAYERS})
    fake_client.delete_cookie("mtrain_table")
    r = fake_client.post("/api/settings", json={"volume": 0.5})
    assert r.status_code == 401 and r.headers["WWW-Authenticate"].startswith("Bearer")
    r = fake_client.post(
        "/api/settings", json={"volume": 0.5}, headers={"Authorization": "Bearer nope"}
    )
    assert r.status_code == 403
    r = fake_client.post(
        "/api/settings", json={"volume": 0.5}, headers={"Authorization": f"Bearer {token}"}
    )
    assert r.status_code == 200 and fake.values["volume"] == 0.5


@pytest.mark.parametrize("path, method", [("/api/state", "get"), ("/api/games", "post")])
def test_a_bug_in_a_handler_is_a_500_with_its_traceback_in_the_log(fake, caplog, path, method):
    app = create_app(fake)  # not TESTING: the production error path
    fake.fail["snapshot"] = fake.fail["new_game"] = ZeroDivisionError("injected bug")
    with caplog.at_level(logging.ERROR):
        r = getattr(app.test_client(), method)(path, json={"players": PLAYERS})
    assert r.status_code == 500
    assert r.get_json()["error"] == "failed"
    assert "injected bug" not in r.get_json()["message"]  # the log explains, not the phone
    logged = [rec for rec in caplog.records if rec.exc_info]
    assert logged and logged[0].exc_info[0] is ZeroDivisionError
    assert "Traceback" in caplog.text and "injected bug" in caplog.text


def test_a_bug_in_the_real_hub_is_a_500_too(live_hub, caplog, monkeypatch):
    app = create_app(live_hub.web_service())

    def broken(*args, **kwargs):
        raise KeyError("injected")

    monkeypatch.setattr(live_hub.eventlog, "recent", broken)
    with caplog.at_level(logging.ERROR):
        r = app.test_client().get("/api/log")
    assert r.status_code == 500 and "KeyError" in caplog.text


@pytest.mark.parametrize(
    "body, field",
    [
        ({"players": PLAYERS, "seats": [1, 2]}, "seats"),
        ({"players": PLAYERS, "options": {"turbo": True}}, "options.turbo"),
        (
            {"players": PLAYERS, "rules": "aces", "options": {"chickenfoot": True}},
            "options.chickenfoot",
        ),
        ({"players": PLAYERS, "set": 13}, "set"),
        ({"players": PLAYERS, "colour": "red"}, "colour"),
    ],
)
def test_the_real_validators_name_the_field(client, body, field):
    r = client.post("/api/games", json=body)
    assert r.status_code == 400 and r.get_json()["field"] == field


@pytest.mark.parametrize(
    "body, field", [({"volume": 2}, "volume"), ({"quiet": "loud"}, "quiet"), ({"bass": 1}, "bass")]
)
def test_the_settings_check_names_the_field(client, body, field, table_proof):
    r = client.post("/api/settings", json=body)
    assert r.status_code == 400 and r.get_json()["field"] == field


def test_a_whole_bad_settings_body_names_no_field(client, table_proof):
    r = client.post("/api/settings", json={})
    assert r.status_code == 400 and "field" not in r.get_json()


def test_the_settings_menus_offer_what_the_check_accepts(client, table_proof):
    """GET /api/settings serves each menu's values (the page builds its menus from
    them): the same as the hub's own lists, each accepted by POST, nothing else."""
    from hub.io.sound import QUIET_MODES
    from hub.voice.engine import VOICES
    from hub.voice.phrases import VOICE_MODES

    choices = client.get("/api/settings").get_json()["choices"]
    assert choices == {
        "quiet": list(QUIET_MODES),
        "voice": list(VOICE_MODES),
        "voice_language": list(VOICES),
    }
    for field, values in choices.items():
        for value in values:
            r = client.post("/api/settings", json={field: value})
            assert r.status_code == 200, (field, value, r.get_json())
            assert r.get_json()[field] == value and r.get_json()["choices"] == choices
        r = client.post("/api/settings", json={field: "loud"})
        assert r.status_code == 400 and r.get_json()["field"] == field
