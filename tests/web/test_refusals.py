"""Refusals are typed data (issue 32): a stable ``code``, its ``params``, the ``field``
at fault, and words made from the code in the asker's language. Nothing in the product
reads refusal text back with a regular expression.

- The API's shape: ``{"error": code, "field"?, "params", "message"}``, in en and es.
- Every code the product raises has its words in every catalog, and the words need no
  param the raise site does not give (read from the code, statically).
- No regex over refusal text: only the modules listed here may use ``re``, each for a
  reason that is not a refusal, and none of them on an exception or a message.
"""

from __future__ import annotations

import ast
import re
from pathlib import Path

import pytest

from hub.runtime.clock import SystemClock
from hub.wire import i18n
from scorer.errors import MOST, FieldError, Refused, clip
from web import create_app
from web.errors import HTTP_CODES

ROOT = Path(__file__).resolve().parents[2]
PRODUCT = ("hub", "web", "scorer", "firmware_bridge")
ES = {"Accept-Language": "es-MX,es;q=0.9,en;q=0.8"}
EN = {"Accept-Language": "en-US,en;q=0.9"}
PLAYERS = ["Ann", "Bob", "Cid"]

# The product modules that may use ``re``, and why: none reads a refusal's words.
REGEX_MODULES = {
    "hub/mqtt/settings.py": "checks a configured MQTT topic level",
    "web/qr.py": "checks a Host header's shape before it goes into a QR code",
    "web/players_api.py": "checks ?since= is a date YYYY-MM-DD (linear, bounded)",
    "scorer/inputs.py": "counts a JSON body's nesting before it is parsed (bytes)",
}
# Codes answered without a raise site's ``code=`` (web/errors.py, web/api.py, the board).
ANSWERED = {*HTTP_CODES.values(), "http_error", "failed", "storage", "too_large", "wait"}
ANSWERED |= {"no_live_server", "streams_full", "board_full", "storage_problem"}
ANSWERED |= {"head_too_large"}  # the server's own 431 (hub/http/connections.py)


def product_files() -> list[Path]:
    return [p for folder in PRODUCT for p in sorted((ROOT / folder).rglob("*.py"))]


def raise_sites() -> list[tuple[str, str, set[str] | None]]:
    """Every refusal the product makes: (where, code, the params it names; None when it
    spreads a mapping). A ``code=`` keyword, ``scorer/setup.py``'s ``_refuse(field,
    why, code, ...)`` or ``hub/selftest/session.py``'s ``_refused(code, ...)``."""
    sites = []
    for path in product_files():
        for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
            if not isinstance(node, ast.Call):
                continue
            keywords = {k.arg: k.value for k in node.keywords}
            code = keywords.get("code")
            name = getattr(node.func, "id", None)
            if code is None and name == "_refuse" and len(node.args) >= 3:
                code = node.args[2]
            if code is None and name == "_refused" and node.args:
                code = node.args[0]
            if not (isinstance(code, ast.Constant) and isinstance(code.value, str)):
                continue
            spread = any(k.arg is None for k in node.keywords)
            params = None if spread else {k for k in keywords if k not in (None, "code")}
            sites.append((f"{path.relative_to(ROOT)}:{node.lineno}", code.value, params))
    return sites


@pytest.fixture
def client(make_hub):
    hub = make_hub(threaded=True, clock=SystemClock())
    return create_app(hub.web_service(), {"TESTING": True}).test_client()


def refused(response, status: int) -> dict:
    body = response.get_json()
    assert response.status_code == status, body
    assert {"error", "params", "message"} <= set(body), body
    assert re.fullmatch(r"[a-z][a-z0-9_]*", body["error"]), body  # a code, not words
    assert body["message"], body
    return body


def new_game(client, **setup):
    r = client.post("/api/games", json={"players": PLAYERS, "rules": "consensus"} | setup)
    assert r.status_code == 201, r.get_json()
    return r.get_json()["id"], r.get_json()["token"]


# --- the catalogs hold every code ---------------------------------------------------


def test_the_scan_finds_the_refusals() -> None:
    codes = {code for _, code, _ in raise_sites()}
    assert {"game_missing", "unknown_field", "origin_refused", "undo_moved"} <= codes
    assert {"fix_no_double", "same_name", "seats_twice", "key_twice"} <= codes
    assert len(codes) > 100


@pytest.mark.parametrize("lang", i18n.LANGUAGES)
def test_every_code_has_words_needing_only_the_params_given(lang: str) -> None:
    catalog = i18n.catalog(lang)
    for where, code, params in raise_sites():
        key = f"error.{code}"
        assert key in catalog, f"{where}: {key} is in no {lang} catalog"
        if params is not None:
            needs = i18n.placeholders(catalog[key])
            assert needs <= params, f"{where}: {key} needs {needs - params}"
    for code in ANSWERED:
        assert f"error.{code}" in catalog, code


def test_the_api_doc_lists_every_code() -> None:
    """docs/api.md, "Refusal codes": one row per code the hub answers with."""
    doc = (ROOT / "docs" / "api.md").read_text(encoding="utf-8")
    listed = set(re.findall(r"^\| `([a-z0-9_]+)` \|", doc.split("## Refusal codes", 1)[1], re.M))
    assert listed == {code for _, code, _ in raise_sites()} | ANSWERED


# --- no regex over refusal text ---------------------------------------------------


def test_only_the_listed_modules_use_re() -> None:
    users = set()
    for path in product_files():
        tree = ast.parse(path.read_text(encoding="utf-8"))
        for node in ast.walk(tree):
            names = (
                [a.name for a in node.names]
                if isinstance(node, ast.Import)
                else [node.module or ""]
                if isinstance(node, ast.ImportFrom)
                else []
            )
            if any(name == "re" or name.startswith("re.") for name in names):
                users.add(str(path.relative_to(ROOT)))
    assert users <= set(REGEX_MODULES), f"regex in {sorted(users - set(REGEX_MODULES))}"
    assert not (ROOT / "web" / "messages.py").exists()


def test_no_regex_reads_an_exception_or_a_message() -> None:
    words = re.compile(r"\b(exc|error|err|message|why|refus\w*|words)\b|str\(")
    for module in REGEX_MODULES:
        tree = ast.parse((ROOT / module).read_text(encoding="utf-8"))
        for node in ast.walk(tree):
            if isinstance(node, ast.Call) and isinstance(node.func, ast.Attribute):
                owner = ast.unparse(node.func.value)
                if owner == "re" or owner.isupper() or owner.startswith("_"):
                    for arg in node.args:
                        text = ast.unparse(arg)
                        assert not words.search(text), f"{module}: {ast.unparse(node)}"


def test_the_page_reads_codes_not_words() -> None:
    """The page words a refusal from its code (core.js), and decides by code."""
    core = (ROOT / "web" / "static" / "core.js").read_text(encoding="utf-8")
    assert "error.${code}" in core and "function plain" not in core
    for path in sorted((ROOT / "web" / "static").glob("*.js")):
        source = path.read_text(encoding="utf-8")
        # A regex literal applied to a refusal's words (data.error, .message, .detail).
        applied = re.findall(r"/[^/\n]+/[gimsuy]*\.(?:exec|test)\(([^)]*)\)", source)
        assert not [a for a in applied if re.search(r"error|message|detail", a)], path
        assert not re.search(r"(error|message|detail)\)?\.(match|replace)\(/", source), path
        assert 'data.field === "' not in source, f"{path.name} decides by field, not code"


# --- the API's shape, in English and Spanish ----------------------------------------


def test_a_refusal_is_a_code_with_params_and_words(client) -> None:
    body = refused(client.post("/api/games", json={"players": ["Ann", "ann"]}, headers=EN), 400)
    assert body == {
        "error": "same_name",
        "field": "players",
        "params": {"one": "Ann", "other": "ann"},
        "message": "'Ann' and 'ann' are the same name.",
    }
    spanish = refused(client.post("/api/games", json={"players": ["Ann", "ann"]}, headers=ES), 400)
    assert spanish["message"] == "«Ann» y «ann» son el mismo nombre."
    plain = refused(client.post("/api/games", json={"players": ["Ann", "ann"]}), 400)
    assert plain["message"] == body["message"]  # English without Accept-Language


@pytest.mark.parametrize(
    ("body", "field", "code", "params"),
    [
        ({"players": ["Ann"]}, "players", "player_count", {"fewest": 2, "most": 8, "given": 1}),
        ({"players": ["Ann", "Bob"], "seats": [1, 1]}, "seats", "seats_twice", {}),
        (
            {"rules": "consensus", "rounds": 40},
            "rounds",
            "rounds_range",
            {"value": 40, "low": 1, "high": 13},
        ),
        ({"colour": 1}, "colour", "unknown_field", {"name": "colour"}),
        ({"options": {"nope": True}}, "options.nope", "unknown_option", {"name": "nope"}),
    ],
)
def test_a_bad_new_game_names_its_code_field_and_params(client, body, field, code, params):
    answer = refused(client.post("/api/games", json={"players": PLAYERS} | body, headers=ES), 400)
    assert (answer["error"], answer["field"]) == (code, field)
    assert params.items() <= answer["params"].items()
    assert answer["message"] == i18n.text("es", f"error.{code}", **answer["params"])


def test_spanish_words_for_a_round_still_in_play_and_too_many_points(client) -> None:
    game, token = new_game(client)
    headers = {**ES, "Authorization": f"Bearer {token}"}
    url = f"/api/games/{game}/rounds/1/scores"
    busy = refused(
        client.post(url, json={"points": {"Ann": 0, "Bob": 5, "Cid": 7}}, headers=headers), 409
    )
    assert (busy["error"], busy["field"], busy["params"]) == (
        "round_in_play",
        "mid_round",
        {"round": 1},
    )
    assert busy["message"].startswith("La ronda 1 todavía se está jugando")
    body = {"points": {"Ann": 9999, "Bob": 5, "Cid": 0}, "went_out": "Cid", "mid_round": True}
    many = refused(client.post(url, json=body, headers=headers), 400)
    assert (many["error"], many["field"]) == ("points_too_many", "points.Ann")
    assert many["params"]["value"] == 9999 and many["params"]["name"] == "Ann"
    assert many["message"].startswith("Los puntos de Ann, 9999, son más de lo que cabe")


def test_tokens_unknown_games_and_addresses(client) -> None:
    game, _ = new_game(client)
    client.delete_cookie(f"mtrain_token_{game}")
    url = f"/api/games/{game}/finish"
    missing = refused(client.post(url, json={}, headers=ES), 401)
    assert (missing["error"], missing["params"]) == ("keeper_missing", {"game": game})
    wrong = refused(client.post(url, json={}, headers={**ES, "Authorization": "Bearer x"}), 403)
    assert wrong["error"] == "keeper_wrong"
    assert (
        wrong["message"]
        == f"Este teléfono no es el de quien lleva los puntos de la partida {game}."
    )
    other = refused(client.post("/api/join/handover", json={"game": game, "token": "x"}), 403)
    assert (other["error"], other["field"]) == ("handover_wrong", "token")
    assert other["message"] == f"This is not the scorekeeper's key of game {game}."
    assert (
        refused(client.get("/api/games/77", headers=ES), 404)["message"]
        == "No existe la partida 77."
    )
    page = refused(client.get("/api/nowhere", headers=ES), 404)
    assert (page["error"], page["message"]) == ("not_found", i18n.text("es", "error.not_found"))
    assert refused(client.put("/api/state", json={}), 405)["error"] == "method_not_allowed"


def test_an_undo_of_a_table_that_moved_on(client) -> None:
    game, token = new_game(client)
    headers = {"Authorization": f"Bearer {token}"} | ES
    body = refused(client.post(f"/api/games/{game}/undo", json={"undo": 5}, headers=headers), 409)
    assert (body["error"], body["field"], body["params"]) == (
        "undo_moved",
        "undo",
        {"then": 5, "now": 0},
    )
    assert body["message"] == i18n.text("es", "error.undo_moved")


def test_a_refused_table_fix_names_its_code(client) -> None:
    game, token = new_game(client)
    headers = {"Authorization": f"Bearer {token}"}
    url = f"/api/games/{game}/fix"
    body = refused(client.post(url, json={"turn": 7}, headers=headers), 409)
    assert (body["error"], body["field"], body["params"]) == ("fix_no_player", "turn", {"slot": 7})
    closed = refused(client.post(url, json={"double": {"slot": None}}, headers=ES | headers), 409)
    assert (closed["error"], closed["message"]) == ("fix_no_double", "No hay ninguna mula abierta.")


def test_a_storage_fault_never_shows_the_system_error() -> None:
    from scorer.store import StorageFault
    from tests.fake_service import FakeHubService

    fake = FakeHubService()
    fake.fail["get_game"] = StorageFault("/var/lib/x.db: database or disk is full [Errno 28]")
    client = create_app(fake, {"TESTING": True}).test_client()
    for lang, headers in (("en", EN), ("es", ES)):
        body = refused(client.get("/api/games/1", headers=headers), 503)
        assert body["error"] == "storage" and "Errno" not in body["message"]
        assert body["message"] == i18n.text(lang, "error.storage")


def test_words_that_need_a_param_not_given_are_logged_not_a_500(caplog) -> None:
    from tests.fake_service import FakeHubService

    fake = FakeHubService()
    fake.fail["get_game"] = Refused(409, "round 2: not yet", code="round_not_played")
    answer = create_app(fake, {"TESTING": True}).test_client().get("/api/games/1")
    body = refused(answer, 409)
    assert (body["error"], body["message"]) == ("round_not_played", i18n.text("en", "error.failed"))
    assert "no words for the refusal round_not_played" in caplog.text


# --- attacker text stays small -------------------------------------------------------


def test_params_and_fields_are_cut_to_a_small_size() -> None:
    huge = "x" * 100_000
    error = FieldError("words", huge, code="unknown_field", name=huge, count=3)
    assert error.params["name"] == clip(huge) and len(error.params["name"]) == MOST
    assert error.params["name"].endswith("…") and error.params["count"] == 3
    assert len(error.field or "") <= 100
    assert FieldError("x", code="whole_number", value=10**5000).params == {"value": "…"}
    assert FieldError("x", code="whole_number", value=float("nan")).params == {"value": "nan"}
    refusal = Refused.because(error, 400)
    assert (refusal.code, refusal.params, refusal.status) == ("unknown_field", error.params, 400)


def test_a_huge_unknown_field_is_answered_with_a_short_body(client) -> None:
    key = "'s points " * 6000
    answer = refused(client.post("/api/games", json={"players": PLAYERS, key: 1}), 400)
    assert answer["error"] == "unknown_field"
    assert len(answer["params"]["name"]) == MOST and len(answer["field"]) <= 100
    assert len(answer["message"]) < 400


def test_a_huge_origin_is_refused_with_a_short_body(client) -> None:
    origin = "http://" + "a" * 100_000
    answer = refused(client.post("/api/games", json={}, headers={"Origin": origin}), 403)
    assert answer["error"] == "origin_refused" and len(answer["params"]["origin"]) == MOST
    spanish = refused(client.post("/api/games", json={}, headers={"Origin": origin} | ES), 403)
    assert spanish["message"] == "Solo la página del propio hub puede cambiar algo."
