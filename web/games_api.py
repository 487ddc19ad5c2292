"""The games endpoints of docs/api.md: history, one game, scores and corrections, a
blocked round, ending a game early, and the CSV/JSON downloads.

Reads are open to every phone at the table, but for the statistics ``hide_stats``
hides (:mod:`web.privacy`: another game than the table's, to a viewer). Edits need
the game's scorekeeper token, from the ``mtrain_token_<id>`` cookie that
``POST /api/games`` sets or from an ``Authorization: Bearer <token>`` header:
missing is 401, wrong is 403. Every refusal is a 4xx ``{"error": …}`` and has
changed nothing (the store writes one transaction per edit). ``docs/api.md`` lists
every call, answer and error.
"""

from __future__ import annotations

from typing import Any

from flask import Blueprint, Response, jsonify, request

from scorer import export
from scorer.errors import Refused, clip
from scorer.games import KEEP
from scorer.inputs import ID, MAX_ID, BadInput, query_whole
from scorer.names import BadName, clean
from web import privacy
from web.api import authorise, hub_service, json_body
from web.errors import abort, refuse_unknown

bp = Blueprint("games", __name__, url_prefix="/api/games")

SCORE_FIELDS = ("points", "tiles", "went_out", "mid_round")
PAGE, MAX_PAGE = 20, 100  # games a page of GET /api/games lists by default, and at most


# --- helpers --------------------------------------------------------------------------


def _game(game_id: int) -> dict[str, Any]:
    """The stored game, or a 404."""
    if game_id > MAX_ID:
        abort(404, f"game {game_id}: no such game", code="game_missing", game=game_id)
    return hub_service().get_game(game_id)


def _round(game: dict[str, Any], number: int) -> dict[str, Any]:
    """Round ``number`` of ``game``: 404 outside the game, 409 if not played yet."""
    for rnd in game["rounds"]:
        if rnd["round"] == number:
            return dict(rnd)
    if not 1 <= number <= game["round_count"]:
        last = game["round_count"]
        why = f"round {number}: game {game['id']} has rounds 1 to {last}"
        abort(404, why, code="round_outside", round=number, last=last)
    why = f"round {number}: not played yet (game {game['id']} is at round {game['round']})"
    abort(409, why, code="round_not_played", round=number, now=game["round"])


def _authorise(game_id: int) -> None:
    """401 without a token, 403 with the wrong one (reads need none)."""
    authorise(game_id, "editing scores")


def _no_fields(body: dict[str, Any], allowed: tuple[str, ...] = ()) -> None:
    unknown = sorted(set(body) - set(allowed))
    if unknown:
        refuse_unknown(unknown[0], allowed)


def _name(name: object, field: str) -> str:
    """A player's name as the body gives it, normalised as at the game's start (NFC)."""
    try:
        return clean(name, field)
    except BadName as exc:
        raise Refused.because(exc) from None


def _by_name(values: dict[str, Any], field: str) -> dict[str, Any]:
    """``values`` keyed by normalised names; 400 naming ``field.<name>`` for a bad name or
    two keys that are one name."""
    keyed: dict[str, Any] = {}
    for key, value in values.items():
        name = _name(key, f"{field}.{key}")
        if name in keyed:
            why = f"{field}: {name!r} is given twice"
            abort(400, why, f"{field}.{name}", code="name_twice", name=name)
        keyed[name] = value
    return keyed


def _check_tiles(tiles: object) -> dict[str, Any]:
    """Shape only (an object of lists of text); the store checks the tiles themselves."""
    if not isinstance(tiles, dict):
        abort(
            400,
            'tiles: expected an object like {"Ann": ["6-5", "0-0"]}',
            "tiles",
            code="tiles_object",
        )
    for name, hand in tiles.items():
        if not isinstance(hand, list):
            why = f'tiles: {clip(name)}\'s hand must be a list of tiles like "6-5"'
            abort(400, why, f"tiles.{name}", code="hand_list", name=name)
        for tile in hand:
            if not isinstance(tile, str):
                abort(
                    400,
                    f'tiles: {clip(tile)} in {clip(name)}\'s hand is not a tile like "6-5"',
                    f"tiles.{name}",
                    code="tile_text",
                    tile=tile,
                )
    return _by_name(tiles, "tiles")


def _score_request(body: dict[str, Any], rnd: dict[str, Any]) -> dict[str, Any]:
    """The keyword arguments of ``HubService.score_round`` for a scores body."""
    _no_fields(body, SCORE_FIELDS)
    if ("points" in body) == ("tiles" in body):
        abort(
            400,
            'give either "points" ({name: n}) or "tiles" ({name: ["6-5", …]}), '
            + ("not both" if "points" in body else "one of them"),
            code="points_or_tiles",
        )
    went_out = body.get("went_out", KEEP)
    if went_out is not KEEP and went_out is not None and not isinstance(went_out, str):
        abort(
            400,
            "went_out: expected a player's name, or null for a blocked round",
            "went_out",
            code="went_out_name",
        )
    if isinstance(went_out, str):
        went_out = _name(went_out, "went_out")
    if "points" in body:
        if not isinstance(body["points"], dict):
            why = 'points: expected an object like {"Ann": 12, "Bob": 0}'
            abort(400, why, "points", code="points_object")
        return {"points": _by_name(body["points"], "points"), "went_out": went_out}
    tiles = _check_tiles(body["tiles"])
    out = rnd["went_out"] if went_out is KEEP else went_out
    if isinstance(out, str):
        tiles.setdefault(out, [])  # whoever went out holds nothing: they may be left out
    return {"tiles": tiles, "went_out": went_out}


def _download(text: str, game_id: int, fmt: str, mimetype: str) -> Response:
    name = export.filename(game_id, fmt)
    return Response(
        text, mimetype=mimetype, headers={"Content-Disposition": f'attachment; filename="{name}"'}
    )


# --- reads ----------------------------------------------------------------------------


@bp.get("")
def list_games() -> Response:
    """A page of the games, newest first (``?before=<id>&limit=N``); when more follow,
    the ``Link`` header names the next page (``rel="next"``), whose cursor is the last
    listed game's id: a game added meanwhile is newer, so no page shifts."""
    unknown = sorted(set(request.args) - {"before", "limit"})
    if unknown:
        refuse_unknown(unknown[0], ("before", "limit"))
    try:
        limit = query_whole(request.args.get("limit", str(PAGE)), "limit", 1, MAX_PAGE)
        raw = request.args.get("before")
        before = None if raw is None else query_whole(raw, "before", 1, MAX_ID + 1)
    except BadInput as exc:
        raise Refused.because(exc) from None
    page = hub_service().list_games(before, limit + 1)  # one more: whether a next page is
    response = jsonify(privacy.listed(page[:limit]))
    if len(page) > limit:
        response.headers["Link"] = (
            f'</api/games?before={page[limit - 1]["id"]}&limit={limit}>; rel="next"'
        )
    return response


def _read(game_id: int) -> dict[str, Any]:
    """The stored game, for a request that may see its statistics (else a refusal)."""
    game = _game(game_id)  # a missing game is 404 to everyone
    privacy.guard_game(game_id)
    return game


@bp.get(f"/<{ID}:game_id>")
def get_game(game_id: int) -> Response:
    return jsonify(_read(game_id))


@bp.get(f"/<{ID}:game_id>/rounds/<{ID}:number>/history")
def round_history(game_id: int, number: int) -> Response:
    _round(_read(game_id), number)
    return jsonify(hub_service().round_history(game_id, number))


@bp.get(f"/<{ID}:game_id>/export.csv")
def export_csv(game_id: int) -> Response:
    return _download(export.game_csv(_read(game_id)), game_id, "csv", "text/csv")


@bp.get(f"/<{ID}:game_id>/export.json")
def export_json(game_id: int) -> Response:
    return _download(export.game_json(_read(game_id)), game_id, "json", "application/json")


# --- edits (token) --------------------------------------------------------------------


@bp.post(f"/<{ID}:game_id>/rounds/<{ID}:number>/scores")
def score_round(game_id: int, number: int) -> Response:
    game = _game(game_id)
    _authorise(game_id)
    body = json_body()
    version = body.pop("version", None)  # the game's version this edit is based on
    if version is not None and (
        not isinstance(version, int) or isinstance(version, bool) or not 0 <= version <= 2**62
    ):
        abort(
            400,
            f"version: expected the game's version (a whole number) from GET /api/games/{game_id}",
            "version",
            code="version_number",
        )
    mid_round = body.pop("mid_round", False)  # yes, score the round still in play
    if not isinstance(mid_round, bool):
        abort(400, "mid_round: expected true or false", "mid_round", code="true_or_false")
    request_kwargs = _score_request(body, _round(game, number))
    if mid_round:
        request_kwargs["mid_round"] = True
    if version is not None:
        request_kwargs["based_on"] = version
    return jsonify(hub_service().score_round(game_id, number, **request_kwargs))


@bp.post(f"/<{ID}:game_id>/rounds/<{ID}:number>/blocked")
def block_round(game_id: int, number: int) -> Response:
    game = _game(game_id)
    _authorise(game_id)
    _no_fields(json_body())
    if _round(game, number)["finished"]:
        abort(
            409,
            f"round {number} is already scored: correct its scores instead "
            f'(with "went_out": null for a blocked round)',
            code="round_scored",
            round=number,
        )
    return jsonify(hub_service().block_round(game_id, number))


@bp.post(f"/<{ID}:game_id>/finish")
def finish_game(game_id: int) -> Response:
    game = _game(game_id)
    _authorise(game_id)
    _no_fields(json_body())
    if game["finished"]:
        abort(409, f"game {game_id} is already finished", code="game_finished", game=game_id)
    if not any(rnd["finished"] for rnd in game["rounds"]):
        why = f"game {game_id}: no round has been scored yet, nothing to keep"
        abort(409, why, code="nothing_scored", game=game_id)
    return jsonify(hub_service().end_game(game_id))
