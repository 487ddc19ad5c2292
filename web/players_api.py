"""The players across evenings (issue 26): the remembered players, one player's
statistics, two players head to head, the season table, an evening's summary (JSON,
CSV and a PNG drawn on the hub); renaming, merging and forgetting a player.

Reads are open to every phone unless the ``hide_stats`` setting is on: then the
statistics (a player's page, head to head, the season, the games and wins in the
list) need what a settings change needs, the running game's scorekeeper token or
the table's proof. Changes always need it. ``docs/api.md`` lists every call.
"""

from __future__ import annotations

import re
from datetime import date
from typing import Any

from flask import Blueprint, Response, jsonify, request

from hub.wire import i18n
from scorer import export
from scorer.errors import Refused, clip
from scorer.inputs import ID, MAX_ID, BadInput, query_whole
from web.api import TABLE_COOKIE, has_proof, hub_service, json_body, request_token
from web.errors import abort, refuse_unknown

bp = Blueprint("players", __name__, url_prefix="/api")

_DATE = re.compile(r"\d{4}-\d{2}-\d{2}")


def _proof(doing: str, hidden: bool = False) -> None:
    """401/403 unless this request has the scorekeeper's token or the table's proof
    (``hidden``: the statistics are hidden from viewers, and the refusal says so)."""
    game_id = hub_service().running_game()
    if has_proof(game_id):
        return
    sent = request_token(game_id) or request.cookies.get(TABLE_COOKIE)
    who = (
        f"game {game_id}'s scorekeeper token or the table's proof (claim it at the hub)"
        if game_id is not None
        else "the table's proof: claim it at the hub (the slot it lights and the centre together)"
    )
    status, why = 403 if sent else 401, f"token: {doing} needs {who}"
    if hidden:
        abort(status, why, "token", code="stats_hidden")
    if game_id is not None:
        abort(status, why, "token", code="keeper_or_table", game=game_id)
    abort(status, why, "token", code="table_proof")


def _hidden() -> bool:
    """Whether the statistics are hidden from this request (``hide_stats``, no proof)."""
    if not hub_service().settings().get("hide_stats"):
        return False
    return not has_proof(hub_service().running_game())


def _statistics() -> None:
    if _hidden():
        _proof("reading the players' statistics (hidden from viewers by the settings)", True)


def _body(allowed: tuple[str, ...]) -> dict[str, Any]:
    body = json_body()
    unknown = sorted(set(body) - set(allowed))
    if unknown:
        refuse_unknown(unknown[0], allowed)
    return body


def _since() -> str | None:
    """The ``since`` query parameter, a date ``YYYY-MM-DD``, or None."""
    unknown = sorted(set(request.args) - {"since"})
    if unknown:
        refuse_unknown(unknown[0], ("since",))
    since = request.args.get("since")
    if since is None:
        return None
    try:
        if not _DATE.fullmatch(since):
            raise ValueError
        date.fromisoformat(since)
    except ValueError:
        why = f"since: {clip(since)!r} is not a date like 2026-01-31"
        abort(400, why, "since", code="not_a_date", value=since)
    return since


@bp.get("/players")
def players() -> Response:
    """Every remembered player, most recently seen first (games and wins unless hidden)."""
    listed = hub_service().players()
    if _hidden():
        listed = [{k: v for k, v in p.items() if k not in ("games", "wins")} for p in listed]
    return jsonify(listed)


@bp.get(f"/players/<{ID}:person_id>")
def player(person_id: int) -> Response:
    _statistics()
    return jsonify(hub_service().player(person_id))


@bp.get(f"/players/<{ID}:a>/vs/<{ID}:b>")
def head_to_head(a: int, b: int) -> Response:
    _statistics()
    if a == b:
        why = f"players: head to head needs two players, not player {a} twice"
        abort(400, why, "players", code="versus_self")
    return jsonify(hub_service().head_to_head(a, b))


@bp.get("/season")
def season() -> Response:
    _statistics()
    return jsonify(hub_service().season(_since()))


@bp.post(f"/players/<{ID}:person_id>/rename")
def rename(person_id: int) -> Response:
    _proof("renaming a player")
    name = _body(("name",)).get("name")
    if not isinstance(name, str):
        abort(400, 'name: expected the new name, like {"name": "Ann"}', "name", code="name_text")
    return jsonify(hub_service().rename_player(person_id, name))


@bp.post(f"/players/<{ID}:person_id>/merge")
def merge(person_id: int) -> Response:
    _proof("merging players")
    into = _body(("into",)).get("into")
    if isinstance(into, bool) or not isinstance(into, int) or not 0 < into <= MAX_ID:
        why = 'into: expected the id of the player to merge into, like {"into": 3}'
        abort(400, why, "into", code="merge_into")
    return jsonify(hub_service().merge_players(person_id, into))


@bp.post(f"/players/<{ID}:person_id>/forget")
def forget(person_id: int) -> Response:
    _proof("forgetting a player")
    _body(())
    hub_service().forget_player(person_id)
    return jsonify({"forgotten": person_id})


def _evening() -> dict[str, Any]:
    """The evening of the ``game`` query parameter (none: the latest evening)."""
    _statistics()
    unknown = sorted(set(request.args) - {"game"})
    if unknown:
        refuse_unknown(unknown[0], ("game",))
    game = request.args.get("game")
    try:
        number = None if game is None else query_whole(game, "game", 1, MAX_ID)
    except BadInput as exc:
        raise Refused.because(exc) from None
    return hub_service().evening(number)


def _download(body: str | bytes, name: str, mimetype: str) -> Response:
    disposition = {"Content-Disposition": f'attachment; filename="{name}"'}
    return Response(body, mimetype=mimetype, headers=disposition)


@bp.get("/evening")
def evening() -> Response:
    return jsonify(_evening())


@bp.get("/evening/export.csv")
def evening_csv() -> Response:
    return _download(export.evening_csv(_evening()), "mtrain-evening.csv", "text/csv")


@bp.get("/evening/export.json")
def evening_json() -> Response:
    body = export.game_json(_evening())
    return _download(body, "mtrain-evening.json", "application/json")


@bp.get("/evening.png")
def evening_png() -> Response:
    """The summary as a picture to share, in the phone's language."""
    from web.evening_png import render

    summary = _evening()
    lang = i18n.language(request.headers.get("Accept-Language"))
    return Response(render(summary, lang), mimetype="image/png")
