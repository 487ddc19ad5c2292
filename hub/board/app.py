"""The tournament board's web side: one page, its JSON, and live updates over SSE.

``mtrain-hub board`` hands in the board (anything with ``view`` and
``changes_since``, see :class:`BoardSource`); nothing here imports the hub's runtime.
The page needs no other host (no CDN), works on a phone and updates live. A request
whose ``Host`` is not the board's is refused 421 before any handler runs, by the hub's
own rule (:mod:`hub.wire.hosts`), so a page on a name that re-resolves to the board
(DNS rebinding) reads nothing.
"""

from __future__ import annotations

from collections.abc import Iterable, Iterator
from typing import TYPE_CHECKING, Any, Protocol

from hub.wire.hosts import own_host, own_names
from hub.wire.i18n import CATALOGS, LANGUAGES
from hub.wire.sse import KEEPALIVE, KEEPALIVE_S, RETRY, STREAM_HEADERS, Places, event

if TYPE_CHECKING:
    from flask import Flask, Response

HEADERS = {
    "Content-Security-Policy": "default-src 'self'; img-src 'self' data:; "
    "frame-ancestors 'none'; base-uri 'none'; form-action 'none'",
    "X-Content-Type-Options": "nosniff",
    "X-Frame-Options": "DENY",
    "Referrer-Policy": "no-referrer",
}


class BoardChanges(Protocol):
    """Tables changed since a version (see ``hub.board.model.Changes``)."""

    version: int
    connected: bool
    tables: list[dict[str, Any]]
    standings: list[dict[str, Any]] | None
    whole: bool


class BoardSource(Protocol):
    """What the board page reads."""

    def view(self) -> dict[str, Any]:
        """Every table, the standings and the version."""
        ...

    def changes_since(self, version: int, timeout: float) -> BoardChanges | None:
        """What changed after ``version`` (waits up to ``timeout`` s), or None."""
        ...


BUSY_RETRY_S = 5  # a page refused a live stream fetches the board this often instead
HOST_SHOWN = 60  # a refused Host is named back cut to this many characters


def create_board_app(
    board: BoardSource,
    stopping: Any = None,
    most_streams: int | None = None,
    hosts: Iterable[str] = (),
) -> Flask:
    """The board's Flask app. ``stopping`` (a ``threading.Event``) ends live streams;
    past ``most_streams`` at once (None: no limit) a stream is refused with a 503 and
    the page fetches ``/api/board`` every :data:`BUSY_RETRY_S` instead, so open pages
    never take every web thread and a page load always gets one. It answers to its
    addresses, its machine's names and ``hosts`` (``--hosts``), nothing else."""
    from flask import Flask, jsonify

    app = Flask(__name__, static_folder="static", static_url_path="/static")
    places = Places(most_streams)
    _check_hosts(app, hosts)

    @app.after_request
    def secure(response: Response) -> Response:
        response.headers.update(HEADERS)
        return response

    _add_pages(app)

    @app.get("/api/board")
    def board_json() -> Response:
        return jsonify(board.view())

    @app.get("/api/board/events")
    def events() -> Response:
        if not places.take():
            response = _refusal(503, "board_full", most=places.most, count=BUSY_RETRY_S)
            response.headers["Retry-After"] = str(BUSY_RETRY_S)
            return response
        response = app.response_class(
            _stream(board, stopping), mimetype="text/event-stream", headers=STREAM_HEADERS
        )
        # Given back when the server closes the answer: the phone left (found at the
        # next write), the board stopped, or a HEAD that never ran the stream at all.
        response.call_on_close(places.give_back)
        return response

    return app


def _check_hosts(app: Flask, hosts: Iterable[str]) -> None:
    """Refuse (421) a request whose ``Host`` is none of the board's (hub/wire/hosts.py)."""
    from flask import request

    names = own_names(hosts)

    @app.before_request
    def check_host() -> Response | None:
        if own_host(request.host, names):
            return None
        return _refusal(421, "host_refused", host=request.host[:HOST_SHOWN])


def _refusal(status: int, code: str, **params: Any) -> Response:
    """A refusal shaped as the hub's (``{"error", "params", "message"}``), its words from
    the scorepad's catalogs in the asker's language."""
    from flask import jsonify, request

    from hub.wire.i18n import language, text

    lang = language(request.headers.get("Accept-Language"))
    response = jsonify(
        {"error": code, "params": params, "message": text(lang, f"error.{code}", **params)}
    )
    response.status_code = status
    return response


def _add_pages(app: Flask) -> None:
    """The board's page and the catalogs it says its words by."""
    from flask import abort, send_from_directory

    @app.get("/")
    def page() -> Response:
        response = send_from_directory(app.static_folder or "static", "board.html")
        response.headers["Cache-Control"] = "no-cache"
        return response

    @app.get("/i18n/<lang>.json")
    def catalog(lang: str) -> Response:
        """The scorepad's words in ``lang`` (web/static/i18n/), which the page says by."""
        if lang not in LANGUAGES:
            abort(404)
        response = send_from_directory(CATALOGS, f"{lang}.json")
        response.headers["Cache-Control"] = "no-cache"
        return response


def _stream(board: BoardSource, stopping: Any) -> Iterator[bytes]:
    view = board.view()
    version = int(view["version"])
    yield RETRY + event("board", view)
    quiet = 0.0
    while stopping is None or not stopping.is_set():
        changes = board.changes_since(version, 1.0)
        if changes is None:
            quiet += 1.0
            if quiet >= KEEPALIVE_S:  # tells a proxy (and a dead phone) we are here
                quiet = 0.0
                yield KEEPALIVE
            continue
        quiet = 0.0
        version = changes.version
        if changes.whole:  # a table was forgotten: the page replaces what it shows
            whole = {"version": version, "connected": changes.connected}
            yield event(
                "board", {**whole, "tables": changes.tables, "standings": changes.standings}
            )
            continue
        update: dict[str, Any] = {
            "version": version,
            "tables": changes.tables,
            "connected": changes.connected,
        }
        if changes.standings is not None:
            update["standings"] = changes.standings
        yield event("tables", update)
