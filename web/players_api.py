"""The players across evenings (issue 26): the remembered players, one player's
statistics, two players head to head, the season table, an evening's summary (JSON,
CSV and a PNG drawn on the hub); renaming, merging and forgetting a player.

Reads are open to every phone unless the ``hide_stats`` setting is on: then the
statistics (a player's page, head to head, the season, the evening, the games and
wins in the list) need what a settings change needs, the running game's scorekeeper
token or the table's proof (:mod:`web.privacy`, the one rule). Changes always need
it. ``docs/api.md`` lists every call.
"""

from __future__ import annotations

import re
from concurrent.futures import Future
from datetime import date
from typing import Any

from flask import Blueprint, Response, current_app, jsonify, request

from hub.wire import i18n
from hub.wire.serving import WholeAnswer
from scorer import export
from scorer.errors import Refused, clip
from scorer.inputs import ID, MAX_ID, BadInput, query_whole
from web import privacy
from web.api import TABLE_COOKIE, has_proof, hub_service, json_body, live_server, request_token
from web.errors import abort, error_response, refuse_unknown
from web.evening_pictures import QUEUE, EveningPictures, PicturesBusy
from web.evening_png import DRAW_TIMEOUT_S, key, lines
from web.guard import HEADERS

bp = Blueprint("players", __name__, url_prefix="/api")

_DATE = re.compile(r"\d{4}-\d{2}-\d{2}")
PICTURE_RETRY_S = 5  # a picture not drawn now: ask again in this many seconds
PICTURE_WAIT_S = QUEUE * DRAW_TIMEOUT_S + 5  # at most this long a worker waits for one


def _proof(doing: str) -> None:
    """401/403 unless this request has the scorekeeper's token or the table's proof."""
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
    if game_id is not None:
        abort(status, why, "token", code="keeper_or_table", game=game_id)
    abort(status, why, "token", code="table_proof")


def _statistics() -> None:
    if privacy.stats_hidden():
        privacy.refuse("reading the players' statistics (hidden from viewers by the settings)")


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
    if privacy.stats_hidden():
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
    return hub_service().evening(_evening_game())


def _evening_game() -> int | None:
    """The ``game`` query parameter (None: the latest evening), once the statistics
    may be read."""
    _statistics()
    unknown = sorted(set(request.args) - {"game"})
    if unknown:
        refuse_unknown(unknown[0], ("game",))
    game = request.args.get("game")
    try:
        return None if game is None else query_whole(game, "game", 1, MAX_ID)
    except BadInput as exc:
        raise Refused.because(exc) from None


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
    """The summary as a picture to share, in the phone's language: of bounded size,
    drawn once (one drawing at a time) and kept until the evening changes
    (:mod:`web.evening_pictures`); its ETag names what it shows, so a phone that has
    it gets a 304."""
    pictures: EveningPictures = current_app.extensions["evening_pictures"]
    game, service = _evening_game(), hub_service()
    summary = pictures.shared(("evening", game), lambda: service.evening(game))
    shown = lines(summary, i18n.language(request.headers.get("Accept-Language")))
    name = key(shown)
    tagged = {"ETag": f'"{name}"', "Cache-Control": "private, no-cache", "Vary": "Accept-Language"}
    if request.if_none_match.contains(name):
        return Response(status=304, headers=tagged)
    try:
        drawing = pictures.picture(name, shown)
    except PicturesBusy:
        return _not_drawn(code="picture_busy", count=PICTURE_RETRY_S)
    live = live_server()
    if live is None or drawing.done():  # kept; or a server that cannot answer later
        try:
            png = drawing.result(timeout=PICTURE_WAIT_S)
        except TimeoutError:
            return _not_drawn(code="picture_busy", count=PICTURE_RETRY_S)
        except Exception:  # logged by the drawer
            return _not_drawn(code="picture_failed", count=PICTURE_RETRY_S)
        return Response(png, mimetype="image/png", headers=tagged)
    live.answer_later(
        _answer_when_drawn(
            drawing, tagged, _not_drawn(code="picture_failed", count=PICTURE_RETRY_S)
        )
    )
    return Response(iter(()), mimetype="image/png", headers=tagged)


def _not_drawn(*, code: str, count: int) -> Response:
    """A 503 with ``Retry-After``: the picture is not drawn now (``code`` says why; ask
    again in ``count`` seconds)."""
    response = error_response(503, code, {"count": count})
    response.headers.update({"Retry-After": str(count), "Cache-Control": "no-store"})
    return response


def _answer_when_drawn(
    drawing: Future[bytes], tagged: dict[str, str], failed: Response
) -> Future[WholeAnswer]:
    """The whole answer once ``drawing`` is done: the picture, or ``failed``. The
    server waits for it on its loop; no worker does."""
    answer: Future[WholeAnswer] = Future()
    refusal = [*HEADERS.items(), *failed.headers.items()]

    def drawn(done: Future[bytes]) -> None:
        if done.exception() is None:
            head = [*HEADERS.items(), ("Content-Type", "image/png"), *tagged.items()]
            answer.set_result(WholeAnswer("200 OK", head, done.result()))
        else:
            body = failed.get_data()
            answer.set_result(WholeAnswer("503 Service Unavailable", refusal, body))

    drawing.add_done_callback(drawn)
    return answer
