"""The pages phones load, and the join QR codes: everything served by the hub itself
(no CDN, no remote fonts, no internet).

``/`` is the scorepad (one page; its views are ``#/table``, ``#/scores``, …).
``/join.svg`` and ``/api/join`` give the hub's address for other phones;
``/api/join/handover`` checks a scorekeeper token and gives the link (and its QR code)
that hands the scorekeeper role to another phone.
"""

from __future__ import annotations

from typing import Any

from flask import Blueprint, Response, current_app, jsonify, request

from scorer.inputs import ID, MAX_ID
from web import qr, rules_api, static_files
from web.api import hub_service, json_body, request_token, set_token_cookie
from web.errors import abort

bp = Blueprint("pages", __name__)
# The new-game form's rule data (/api/rules) and deal helper (/api/deal) come with
# the pages that use them.
bp.register_blueprint(rules_api.bp)

NO_STORE = {"Cache-Control": "no-store"}


LISTEN = "HUB_LISTEN"  # app.config: the address the server is bound to (config web.host)


def _where() -> tuple[str, bool]:
    """The address other phones open, and whether only this machine can reach it."""
    port = int(request.environ.get("SERVER_PORT") or 80)
    lan = qr.lan_ip()
    local_name = current_app.extensions.setdefault("mtrain_local_name", qr.LocalName())
    listen = current_app.config.get(LISTEN)
    local = listen is not None and qr.is_loopback(listen)
    return qr.advertised(
        listen, request.headers.get("Host"), port, lan, None if local else local_name.get(lan)
    )


def _url() -> str:
    return _where()[0]


@bp.get("/")
def index() -> Any:
    return static_files.send("index.html")


@bp.get("/join.svg")
def join_svg() -> Any:
    """A QR code of the scorepad's address, for phones joining the table."""
    url = _url()
    svg = qr.qr_svg(url, f"Scan to open the scorepad: {url}")
    return Response(svg, mimetype="image/svg+xml", headers=NO_STORE)


@bp.get("/api/join")
def join() -> Any:
    """``{"url": …, "local_only": bool}``: the address other phones open (the one the
    QR code holds); ``local_only`` when the hub listens on a loopback address, which no
    other phone can reach."""
    url, local_only = _where()
    return jsonify(url=url, local_only=local_only), 200, NO_STORE


def _handover_body() -> tuple[int, str]:
    body = json_body()
    game, token = body.get("game"), body.get("token")
    if not isinstance(game, int) or isinstance(game, bool) or not 1 <= game <= MAX_ID:
        abort(400, "game: expected a game id", "game", code="handover_no_game")
    if not isinstance(token, str) or not token.strip():
        abort(400, "token: expected the scorekeeper's token", "token", code="handover_wrong_token")
    return game, token.strip()


@bp.post("/api/join/handover")
def handover() -> Any:
    """``{"game": id, "token": t}`` → ``{"url", "svg"}``: the link that makes another
    phone the scorekeeper. 403 unless ``t`` is the game's token (also a token check)."""
    game, token = _handover_body()
    if not hub_service().check_token(game, token):
        why = f"token: not the scorekeeper's token of game {game}"
        abort(403, why, "token", code="handover_wrong", game=game)
    url = f"{_url()}#claim={game}:{token}"
    svg = qr.qr_svg(url, f"Scan to keep the score of game {game}")
    return jsonify(url=url, svg=svg), 200, NO_STORE


@bp.post("/api/join/take")
def take_over() -> Any:
    """``{"game": id, "token": t}`` (a hand-over link's) → ``{"game", "token"}``: this
    phone keeps the score now, with a token of its own (also a cookie); ``t`` stops
    working, so the phone that handed over is a viewer at once. 403 unless ``t`` is
    the game's (a link used already, or from another game)."""
    game, token = _handover_body()
    fresh = hub_service().hand_over(game, token)
    if fresh is None:
        why = "That hand-over code was used already, or is not this game's."
        abort(403, why, "token", code="handover_used")
    response = jsonify(game=game, token=fresh)
    set_token_cookie(response, game, fresh)
    return response, 200, NO_STORE


@bp.get(f"/api/games/<{ID}:game_id>/keeper")
def keeper(game_id: int) -> Any:
    """``{"keeper": bool}``: whether this request's token keeps game ``game_id``'s
    score (a phone that handed the scorekeeping over learns it here)."""
    token = request_token(game_id)
    return (
        jsonify(keeper=bool(token) and hub_service().check_token(game_id, token or "")),
        200,
        NO_STORE,
    )
