"""The JSON API of DESIGN.md: state, events (SSE), log, sim inputs, games, settings."""

from __future__ import annotations

import json
from collections.abc import Iterator
from typing import Any, cast

from flask import Blueprint, Response, current_app, jsonify, request

from web.errors import abort
from web.inputs import SLOT, BadInput, parse_body, query_whole
from web.service import HubService

bp = Blueprint("api", __name__, url_prefix="/api")

SSE_KINDS = ("state", "sound", "game")
KEEPALIVE_S = 15.0


def hub_service() -> HubService:
    """The hub this app serves, as the narrow interface of :mod:`web.service`."""
    return cast("HubService", current_app.extensions["hub_service"])


def json_body() -> dict[str, Any]:
    """The request's JSON object, or a 400 naming what is wrong with it."""
    try:
        return parse_body(request.get_data(cache=True))
    except BadInput as exc:
        abort(400, str(exc), exc.field)


@bp.get("/state")
def state() -> Response:
    """The hub snapshot."""
    return jsonify(hub_service().snapshot())


@bp.get("/log")
def event_log() -> Response:
    """The newest hub events, oldest first."""
    try:
        limit = query_whole(request.args.get("limit", "100"), "limit", 1, 2000)
    except BadInput as exc:
        abort(400, str(exc), exc.field)
    return jsonify(hub_service().recent_log(limit))


def _sse(kind: str, payload: object) -> str:
    return f"event: {kind}\ndata: {json.dumps(payload, separators=(',', ':'))}\n\n"


@bp.get("/events")
def events() -> Response:
    """Server-Sent Events: the snapshot first, then ``state``, ``sound`` and ``game``."""
    service = hub_service()
    sub = service.subscribe(SSE_KINDS)

    def stream() -> Iterator[str]:
        try:
            yield "retry: 2000\n\n" + _sse("state", service.snapshot())
            while True:
                item = sub.get(timeout=KEEPALIVE_S)
                if item is None:
                    yield ": keepalive\n\n"
                elif item[0] == "closed":  # the hub is stopping: end the stream
                    return
                else:
                    yield _sse(*item)
        finally:
            service.unsubscribe(sub)

    headers = {"Cache-Control": "no-cache", "X-Accel-Buffering": "no"}
    return Response(stream(), mimetype="text/event-stream", headers=headers)


def _only(body: dict[str, Any], allowed: str) -> None:
    unknown = sorted(set(body) - {allowed})
    if unknown:
        abort(400, f"{unknown[0]}: unknown field (allowed: {allowed})", unknown[0])


@bp.post(f"/sim/slots/<{SLOT}:n>/press")
def sim_press(n: int) -> Response:
    """Press a simulated slot button for ``hold_ms``; the snapshot after."""
    body = json_body()
    hold_ms = body.get("hold_ms", 0)
    if not isinstance(hold_ms, int) or isinstance(hold_ms, bool) or not 0 <= hold_ms <= 10000:
        abort(400, "hold_ms: expected a whole number of milliseconds, 0 to 10000", "hold_ms")
    _only(body, "hold_ms")
    return jsonify(hub_service().sim_press(n, hold_ms / 1000))


@bp.post(f"/sim/slots/<{SLOT}:n>/marker")
def sim_marker(n: int) -> Response:
    """Put a simulated marker on or off; the snapshot after."""
    body = json_body()
    present = body.get("present")
    if not isinstance(present, bool):
        abort(400, "present: expected true or false", "present")
    _only(body, "present")
    return jsonify(hub_service().sim_marker(n, present))


@bp.post("/games")
def create_game() -> Response:
    """Start a new game; answers its id and the scorekeeper token (also a cookie)."""
    game_id, token = hub_service().new_game(json_body())
    response = jsonify(id=game_id, token=token)
    response.status_code = 201
    response.set_cookie(f"mtrain_token_{game_id}", token, samesite="Strict", httponly=True,
                        max_age=60 * 60 * 24 * 365)
    return response


def request_token(game_id: int) -> str | None:
    """The scorekeeper token sent with this request: Bearer header, else the game's cookie."""
    scheme, _, credentials = request.headers.get("Authorization", "").partition(" ")
    if scheme.lower() == "bearer":  # scheme names are case-insensitive (RFC 7235)
        return credentials.strip()
    return request.cookies.get(f"mtrain_token_{game_id}")


def authorise(game_id: int, missing: str, wrong: str) -> None:
    """401 with ``missing`` without a token, 403 with ``wrong`` for another game's."""
    token = request_token(game_id)
    if not token:
        abort(401, missing)
    if not hub_service().check_token(game_id, token):
        abort(403, wrong)


@bp.get("/settings")
def get_settings() -> Response:
    """Volume, quiet mode, turn chime, and the sound player's status."""
    return jsonify(hub_service().settings())


@bp.post("/settings")
def change_settings() -> Response:
    """Change volume, quiet mode or the turn chime: while a game runs, its scorekeeper only."""
    service = hub_service()
    game_id = service.running_game()
    if game_id is not None:
        authorise(game_id, "token: the scorekeeper's token is needed while a game runs",
                  "token: not this game's scorekeeper token")
    return jsonify(service.change_settings(json_body()))
