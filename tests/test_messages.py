"""API refusals in words for people (web/messages.py): beside the hub's own ``error``
each refusal has a ``message`` with no field name and no system error, in the language
of the request's ``Accept-Language``, from the catalogs; the ``field`` stays for the
page to point at the input at fault."""

from __future__ import annotations

import pytest

from hub.runtime.clock import SystemClock
from hub.wire import i18n
from scorer.names import MAX_NAME
from web import create_app
from web.messages import MESSAGES, plain, words_for

ES = {"Accept-Language": "es-MX,es;q=0.9,en;q=0.8"}
EN = {"Accept-Language": "en-US,en;q=0.9"}
PLAYERS = ["Ann", "Bob", "Cid"]


@pytest.fixture
def client(make_hub):
    hub = make_hub(threaded=True, clock=SystemClock())
    return create_app(hub.web_service(), {"TESTING": True}).test_client()


def new_game(client, **setup):
    r = client.post("/api/games", json={"players": PLAYERS, "rules": "consensus"} | setup)
    assert r.status_code == 201, r.get_json()
    return r.get_json()["id"], r.get_json()["token"]


def refused(response, status: int) -> dict[str, str]:
    body = response.get_json()
    assert response.status_code == status, body
    assert set(body) <= {"error", "field", "message"} and body["message"], body
    return body


@pytest.mark.parametrize(
    ("body", "field", "key", "params"),
    [
        ({"players": ["Ann", "ann"]}, "players", "error.same_name", {"one": "Ann", "other": "ann"}),
        (
            {"rules": "consensus", "rounds": 40},
            "rounds",
            "error.rounds_range",
            {"value": 40, "low": 1, "high": 13},
        ),
        (
            {"players": ["Ann"]},
            "players",
            "error.player_count",
            {"fewest": 2, "most": 8, "given": 1},
        ),
        ({"players": ["Ann", "Bob"], "seats": [1, 1]}, "seats", "error.seats_twice", {}),
        (
            {"players": ["Ann", "x" * 40]},
            "players",
            "error.name_too_long",
            {"name": "x" * 40, "most": MAX_NAME},
        ),
    ],
)
def test_a_bad_new_game_is_refused_in_spanish_naming_its_field(
    client, body, field, key, params
) -> None:
    answer = refused(client.post("/api/games", json={"players": PLAYERS} | body, headers=ES), 400)
    assert answer["field"] == field
    assert answer["message"] == i18n.text("es", key, **params)
    assert ":" not in answer["message"].split(" ")[0], "no field name in front"


def test_the_same_refusal_in_english_keeps_the_words_the_page_showed(client) -> None:
    body = {"players": ["Ann", "ann"]}
    answer = refused(client.post("/api/games", json=body, headers=EN), 400)
    assert answer["error"] == "players: 'Ann' and 'ann' are the same name"  # the contract
    assert answer["message"] == "'Ann' and 'ann' are the same name"
    no_header = refused(client.post("/api/games", json=body), 400)
    assert no_header["message"] == answer["message"]  # English without Accept-Language


def test_a_round_still_in_play_is_refused_in_spanish(client) -> None:
    game, token = new_game(client)
    points = {"Ann": 0, "Bob": 5, "Cid": 7}
    headers = {**ES, "Authorization": f"Bearer {token}"}
    answer = refused(
        client.post(f"/api/games/{game}/rounds/1/scores", json={"points": points}, headers=headers),
        409,
    )
    assert answer["field"] == "mid_round"
    assert answer["message"] == i18n.text("es", "error.round_in_play", round="1")
    assert answer["message"].startswith("La ronda 1 todavía se está jugando")


def test_points_beyond_a_hand_are_refused_in_spanish_at_the_players_field(client) -> None:
    game, token = new_game(client)
    body = {"points": {"Ann": 9999, "Bob": 5, "Cid": 0}, "went_out": "Cid", "mid_round": True}
    headers = {**ES, "Authorization": f"Bearer {token}"}
    answer = refused(
        client.post(f"/api/games/{game}/rounds/1/scores", json=body, headers=headers), 400
    )
    assert answer["field"] == "points.Ann"
    assert answer["message"].startswith("Los puntos de Ann, 9999, son más de lo que cabe")


def test_no_token_and_a_wrong_token_are_said_plainly(client) -> None:
    game, _ = new_game(client)
    client.delete_cookie(f"mtrain_token_{game}")
    url = f"/api/games/{game}/finish"
    missing = refused(client.post(url, json={}, headers=ES), 401)
    assert missing["message"] == i18n.text("es", "error.keeper_missing", game=str(game))
    wrong = refused(client.post(url, json={}, headers={**ES, "Authorization": "Bearer nope"}), 403)
    assert wrong["message"] == i18n.text("es", "error.keeper_wrong", game=str(game))
    handover = {"game": game, "token": "nope"}
    other = refused(client.post("/api/join/handover", json=handover, headers=EN), 403)
    assert other["error"] == f"token: not the scorekeeper's token of game {game}"
    assert other["message"] == f"This is not the scorekeeper's key of game {game}."


def test_an_unknown_game_and_an_unknown_address(client) -> None:
    game = refused(client.get("/api/games/77", headers=ES), 404)
    assert game["message"] == "No existe la partida 77."
    page = refused(client.get("/api/nowhere", headers=ES), 404)
    assert page["message"] == i18n.text("es", "error.not_found")


def test_a_message_no_pattern_knows_is_plain_english_or_general_spanish() -> None:
    odd = "hold_ms: expected a whole number of milliseconds, 0 to 10000"
    assert words_for("en", 400, odd) == "Expected a whole number of milliseconds, 0 to 10000"
    assert words_for("es", 400, odd) == i18n.text("es", "error.refused")
    assert words_for("es", 403, "Origin x: no") == i18n.text("es", "error.not_allowed")
    assert words_for("es", 500, "boom") == i18n.text("es", "error.failed")


def test_a_storage_fault_never_shows_the_system_error() -> None:
    raw = "storage: disk I/O error: [Errno 28] No space left on device; nothing was changed"
    for lang in i18n.LANGUAGES:
        words = words_for(lang, 503, raw)
        assert "Errno" not in words and "storage" not in words.lower()
        assert words == i18n.text(lang, "error.storage")


def test_plain_drops_a_field_name_only() -> None:
    assert plain("players: player 1 has no name") == "Player 1 has no name"
    assert plain("points.Ann: too many") == "Too many"
    assert plain("game 3 is already finished") == "Game 3 is already finished"


def test_every_pattern_fills_its_words_in_every_language() -> None:
    for pattern, key in MESSAGES:
        groups = {name: "1" for name in pattern.groupindex}
        for lang in i18n.LANGUAGES:
            words = i18n.text(lang, key, **groups)
            assert "{" not in words, (lang, key, words)
            assert set(i18n.placeholders(i18n.catalog(lang)[key])) <= set(groups), key


def test_a_table_fix_the_hub_refused_is_said_in_spanish() -> None:
    """Every reason hub/core/undo.py gives for a refused fix has its words (the page's
    fix panel shows them in its language)."""
    import re
    from pathlib import Path

    from web.messages import words_for

    source = (Path(__file__).resolve().parents[1] / "hub" / "core" / "undo.py").read_text()
    body = source.split("def fix_error", 1)[1].split("\ndef ", 1)[0]
    reasons = re.findall(r'f?"([a-z][^"]+)"', body)  # each reason (not the docstring)
    assert len(reasons) >= 8, reasons
    general = i18n.text("es", "error.refused")
    for reason in reasons:
        said = reason.replace("{fix.slot}", "3").replace("{fix.covers_left}", "5")
        said = said.replace("{fix.responsible}", "4")
        spanish = words_for("es", 409, said)
        assert spanish != general and "slot" not in spanish, (reason, spanish)
    assert words_for("es", 409, "no double is open") == "No hay ninguna mula abierta."


def test_an_undo_of_a_table_that_moved_on_is_said_in_spanish(client) -> None:
    """The hub's refusal of a stale undo (hub/core/undo.py, moved_since) and of a late
    self-test answer (hub/selftest/session.py) have their words in every language."""
    game_id, token = new_game(client)
    answer = client.post(
        f"/api/games/{game_id}/undo",
        json={"undo": 5},
        headers={"Authorization": f"Bearer {token}"} | ES,
    )
    body = refused(answer, 409)
    assert body["field"] == "undo"
    assert body["message"] == i18n.text("es", "error.undo_moved")
    late = "step: the self-test is at step 27 now, not 26 (look again)"
    assert words_for("es", 409, late) == i18n.text("es", "error.selftest_moved", now="27")
    assert "27" in words_for("en", 409, late)
