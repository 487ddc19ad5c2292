"""The JSON API of docs/api.md: state, events (SSE), sim inputs, games, settings (the
log: :mod:`web.log_api`)."""

from __future__ import annotations

from concurrent.futures import Future
from typing import Any, cast

from flask import Blueprint, Response, current_app, jsonify, request

from hub.wire.serving import LIVE_SERVER, ServerTakeover
from hub.wire.sse import STREAM_HEADERS
from scorer.errors import Refused
from scorer.inputs import SLOT, BadInput, parse_body
from web.errors import abort, error_response, refuse_unknown
from web.service import HubService

bp = Blueprint("api", __name__, url_prefix="/api")

SSE_KINDS = ("state", "sound", "game")
RETRY_AFTER_S = 10  # a stream refused for capacity: when to try again


def hub_service() -> HubService:
    """The hub this app serves, as the narrow interface of :mod:`web.service`."""
    return cast("HubService", current_app.extensions["hub_service"])


def json_body() -> dict[str, Any]:
    """The request's JSON object, or a 400 naming what is wrong with it."""
    try:
        return parse_body(request.get_data(cache=True))
    except BadInput as exc:
        raise Refused.because(exc) from None


@bp.get("/state")
def state() -> Response:
    """The hub snapshot."""
    return jsonify(hub_service().snapshot())


def live_server() -> ServerTakeover | None:
    """The web server's offer to serve this answer off the worker thread, if it has one."""
    return cast("ServerTakeover | None", request.environ.get(LIVE_SERVER))


@bp.get("/events")
def events() -> Response:
    """Server-Sent Events: the snapshot first, then ``state``, ``sound`` and ``game``.

    The one path of a phone's stream: the hub's server takes it over from the worker
    thread (``ServerTakeover``) and writes it from its loop
    (:class:`hub.http.streams.LiveStreams`). Beyond its capacity the phone gets a 503
    with ``Retry-After`` and its page polls ``GET /api/state`` meanwhile. A server that
    offers no takeover (Flask's test client) gets a 503 as well: no stream holds a
    request thread.
    """
    live = live_server()
    if live is None:
        return _no_stream("no_live_server")  # this server serves none: poll /api/state
    if not live.stream(SSE_KINDS):
        return _no_stream("streams_full")  # all it can: poll, try again in RETRY_AFTER_S
    return Response(iter(()), mimetype="text/event-stream", headers=STREAM_HEADERS)


def _no_stream(code: str) -> Response:
    """A 503 that tells the page to poll and try the stream again later."""
    response = error_response(503, code, {"count": RETRY_AFTER_S})
    response.headers["Retry-After"] = str(RETRY_AFTER_S)
    return response


def answer_when_done(future: Future[dict[str, Any]]) -> Response:
    """The JSON of ``future``'s result, sent once it resolves; the worker does not wait
    for it when the server can take the answer over (else it does)."""
    live = live_server()
    if live is None:
        return jsonify(future.result(timeout=30))
    live.answer_later(future)
    return Response(iter(()), mimetype="application/json")


def _only(body: dict[str, Any], *allowed: str) -> None:
    unknown = sorted(set(body) - set(allowed))
    if unknown:
        refuse_unknown(unknown[0], allowed)


@bp.post(f"/sim/slots/<{SLOT}:n>/press")
def sim_press(n: int) -> Response:
    """Press a simulated slot button for ``hold_ms`` (with ``"centre": true`` the centre
    button is held with it: a claim's chord); the snapshot after."""
    body = json_body()
    hold_ms = body.get("hold_ms", 0)
    if not isinstance(hold_ms, int) or isinstance(hold_ms, bool) or not 0 <= hold_ms <= 10000:
        abort(
            400,
            "hold_ms: expected a whole number of milliseconds, 0 to 10000",
            "hold_ms",
            code="hold_ms",
            most=10000,
        )
    centre = body.get("centre", False)
    if not isinstance(centre, bool):
        abort(400, "centre: expected true or false", "centre", code="true_or_false")
    _only(body, "hold_ms", "centre")
    return answer_when_done(hub_service().sim_press_later(n, hold_ms / 1000, centre))


@bp.post(f"/sim/slots/<{SLOT}:n>/marker")
def sim_marker(n: int) -> Response:
    """Put a simulated marker on or off; the snapshot after."""
    body = json_body()
    present = body.get("present")
    if not isinstance(present, bool):
        abort(400, "present: expected true or false", "present", code="true_or_false")
    _only(body, "present")
    return jsonify(hub_service().sim_marker(n, present))


TOKEN_COOKIE_S = 60 * 60 * 24 * 365
TABLE_COOKIE = "mtrain_table"


def set_token_cookie(
    response: Response, game_id: int | None, token: str, max_age: int = TOKEN_COOKIE_S
) -> None:
    """Give the phone its token as a cookie too (HttpOnly, SameSite=Strict): the game's
    scorekeeper token, or with ``game_id`` None a table token."""
    name = TABLE_COOKIE if game_id is None else f"mtrain_token_{game_id}"
    response.set_cookie(name, token, samesite="Strict", httponly=True, max_age=max_age)


@bp.post("/games")
def create_game() -> Response:
    """Start a new game; answers its id and the scorekeeper token (also a cookie).
    Over an unfinished game: only with its scorekeeper's token or the table's proof."""
    service = hub_service()
    running = service.running_game()
    if running is not None and not has_proof(running):
        abort(
            403,
            f"game {running} is not finished: starting another over it needs its "
            "scorekeeper's token, or the table's proof (claim it at the hub)",
            code="game_unfinished",
            game=running,
        )
    selftest_yields()
    game_id, token = service.new_game(json_body(), replaces=running)
    answer: dict[str, Any] = {"id": game_id, "token": token}
    if running is not None:
        answer["replaced"] = running  # marked abandoned; its scorekeeper may bring it back
    response = jsonify(answer)
    response.status_code = 201
    set_token_cookie(response, game_id, token)
    return response


def selftest_yields() -> None:
    """A game started (or brought back) ends a running self-test, so it needs the
    table's proof then (409 otherwise): a stranger's new game never ends the family's
    test (docs/security.md, "The self-test")."""
    if hub_service().selftest().get("running") and not has_proof(None):
        abort(
            409,
            "the hub is running its self-test: starting a game now needs the table's "
            "proof (claim it at the hub), or wait until the test is over",
            code="selftest_table",
        )


def request_token(game_id: int | None) -> str | None:
    """The scorekeeper token sent with this request: Bearer header, else the game's cookie."""
    scheme, _, credentials = request.headers.get("Authorization", "").partition(" ")
    if scheme.lower() == "bearer":  # scheme names are case-insensitive (RFC 7235)
        return credentials.strip()
    return None if game_id is None else request.cookies.get(f"mtrain_token_{game_id}")


def has_proof(game_id: int | None) -> bool:
    """Whether this request shows game ``game_id``'s scorekeeper token or a live table
    token (the table's proof: the Bearer header or the ``mtrain_table`` cookie)."""
    service = hub_service()
    sent = [request_token(game_id), request.cookies.get(TABLE_COOKIE)]
    if game_id is not None:  # the game's cookie counts even beside another Bearer
        sent.append(request.cookies.get(f"mtrain_token_{game_id}"))
    for token in filter(None, sent):
        if game_id is not None and service.check_token(game_id, token):
            return True
        if service.check_table(token):
            return True
    return False


def authorise(game_id: int, doing: str) -> None:
    """401 without a token, 403 with another game's: ``doing`` (``"editing scores"``)
    needs game ``game_id``'s scorekeeper token."""
    token = request_token(game_id)
    if not token:
        abort(
            401,
            f"game {game_id}: {doing} needs the scorekeeper's token "
            f"(cookie mtrain_token_{game_id} or Authorization: Bearer)",
            code="keeper_missing",
            game=game_id,
        )
    if not hub_service().check_token(game_id, token):
        why = f"game {game_id}: that is not this game's scorekeeper token"
        abort(403, why, code="keeper_wrong", game=game_id)


@bp.get("/settings")
def get_settings() -> Response:
    """Volume, quiet mode, turn chime, and the sound player's status."""
    return jsonify(hub_service().settings())


@bp.post("/settings")
def change_settings() -> Response:
    """Change volume, quiet mode or the turn chime: the running game's scorekeeper, or
    the table's proof (a claim at the hub; the only way while no game runs)."""
    service = hub_service()
    game_id = service.running_game()
    if not has_proof(game_id):
        if game_id is not None:
            abort(
                403 if request_token(game_id) else 401,
                f"token: changing the settings needs game {game_id}'s scorekeeper token "
                "or the table's proof (claim it at the hub)",
                "token",
                code="settings_keeper",
                game=game_id,
            )
        abort(
            403 if request.cookies.get(TABLE_COOKIE) or request_token(None) else 401,
            "token: with no game running, changing the settings needs the table's "
            "proof: claim it at the hub (the slot it lights and the centre, held together)",
            "token",
            code="settings_table",
        )
    return jsonify(service.change_settings(json_body()))
