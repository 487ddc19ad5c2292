"""The JSON API of DESIGN.md: state, events (SSE), log, sim inputs, games."""

from __future__ import annotations

import json
import time

from flask import Blueprint, Response, current_app, jsonify, request

from hub.core.setup import SetupError, parse_setup

bp = Blueprint("api", __name__, url_prefix="/api")

SSE_KINDS = ("state", "sound", "game")
KEEPALIVE_S = 15.0


class BadRequest(Exception):
    """A request the contract does not allow: answered 4xx with its message."""

    def __init__(self, message: str, status: int = 400) -> None:
        super().__init__(message)
        self.status = status


@bp.errorhandler(BadRequest)
def bad_request(exc: BadRequest):
    return jsonify(error=str(exc)), exc.status


def hub():
    """The hub this app serves."""
    return current_app.extensions["hub"]


def json_body() -> dict:
    """The request's JSON object, or a 400 naming what is wrong with it."""
    raw = request.get_data(cache=True)
    if not raw.strip():
        return {}
    try:
        body = json.loads(raw)
    except (ValueError, UnicodeDecodeError):
        raise BadRequest("body: not valid JSON") from None
    if not isinstance(body, dict):
        raise BadRequest("body: expected a JSON object")
    return body


@bp.get("/state")
def state():
    return jsonify(hub().loop.snapshot)


@bp.get("/log")
def event_log():
    raw = request.args.get("limit", "100")
    try:
        limit = int(raw)
    except ValueError:
        raise BadRequest(f"limit: {raw!r} is not a whole number") from None
    if not 1 <= limit <= 2000:
        raise BadRequest("limit: must be between 1 and 2000")
    return jsonify(hub().eventlog.recent(limit))


def _sse(kind: str, payload: object) -> str:
    return f"event: {kind}\ndata: {json.dumps(payload, separators=(',', ':'))}\n\n"


@bp.get("/events")
def events():
    the_hub = hub()
    sub = the_hub.broadcaster.subscribe()

    def stream():
        try:
            yield "retry: 2000\n\n" + _sse("state", the_hub.loop.snapshot)
            while True:
                item = sub.get(timeout=KEEPALIVE_S)
                if item is None:
                    yield ": keepalive\n\n"
                elif item[0] == "closed":  # the hub is stopping: end the stream
                    return
                elif item[0] in SSE_KINDS:
                    yield _sse(*item)
        finally:
            the_hub.broadcaster.unsubscribe(sub)

    headers = {"Cache-Control": "no-cache", "X-Accel-Buffering": "no"}
    return Response(stream(), mimetype="text/event-stream", headers=headers)


def _sim_slot(n: int):
    the_hub = hub()
    if the_hub.sim is None:
        raise BadRequest(f"the {the_hub.backend} backend has no simulated pins", 404)
    if not 1 <= n <= 8:
        raise BadRequest(f"slot {n}: there are slots 1 to 8", 404)
    return the_hub


@bp.post("/sim/slots/<int(signed=True):n>/press")
def sim_press(n: int):
    the_hub = _sim_slot(n)
    body = json_body()
    hold_ms = body.get("hold_ms", 0)
    if not isinstance(hold_ms, int) or isinstance(hold_ms, bool) or not 0 <= hold_ms <= 10000:
        raise BadRequest("hold_ms: expected a whole number of milliseconds, 0 to 10000")
    unknown = set(body) - {"hold_ms"}
    if unknown:
        raise BadRequest(f"{sorted(unknown)[0]}: unknown field (allowed: hold_ms)")
    the_hub.sim.press(n, hold_ms / 1000)
    bounce = the_hub.loop.table.timings.bounce
    time.sleep(bounce)  # let the debounce window close so the snapshot is settled
    the_hub.loop.drain()
    return jsonify(the_hub.loop.snapshot)


@bp.post("/sim/slots/<int(signed=True):n>/marker")
def sim_marker(n: int):
    the_hub = _sim_slot(n)
    body = json_body()
    present = body.get("present")
    if not isinstance(present, bool):
        raise BadRequest("present: expected true or false")
    unknown = set(body) - {"present"}
    if unknown:
        raise BadRequest(f"{sorted(unknown)[0]}: unknown field (allowed: present)")
    the_hub.sim.marker(n, present)
    time.sleep(the_hub.loop.table.timings.flicker + 0.005)
    the_hub.loop.drain()
    return jsonify(the_hub.loop.snapshot)


@bp.post("/games")
def create_game():
    the_hub = hub()
    try:
        setup = parse_setup(json_body(), the_hub.config["hub"]["default_rules"])
        game_id, token = the_hub.new_game(setup)
    except (SetupError, ValueError) as exc:
        raise BadRequest(str(exc)) from None
    response = jsonify(id=game_id, token=token)
    response.status_code = 201
    response.set_cookie(f"mtrain_token_{game_id}", token, samesite="Strict", httponly=True,
                        max_age=60 * 60 * 24 * 365)
    return response


def request_token(game_id: int) -> str | None:
    """The scorekeeper token sent with this request: Bearer header, else the game's cookie."""
    header = request.headers.get("Authorization", "")
    if header.startswith("Bearer "):
        return header[7:].strip()
    return request.cookies.get(f"mtrain_token_{game_id}")


@bp.get("/settings")
def get_settings():
    the_hub = hub()
    return jsonify({**the_hub.settings.values, "sound": the_hub.sound.status()})


@bp.post("/settings")
def change_settings():
    """Change volume, quiet mode or the turn chime: while a game runs, its scorekeeper only."""
    from hub.settings import SettingsError, check

    the_hub = hub()
    game = the_hub.loop.table.game
    if game is not None and game.phase != "finished":
        token = request_token(game.id)
        if not token:
            raise BadRequest("token: the scorekeeper's token is needed while a game runs", 401)
        if not the_hub.store.check_token(game.id, token):
            raise BadRequest("token: not this game's scorekeeper token", 403)
    try:
        values = the_hub.apply_settings(check(json_body()))
    except SettingsError as exc:
        raise BadRequest(str(exc)) from None
    return jsonify({**values, "sound": the_hub.sound.status()})
