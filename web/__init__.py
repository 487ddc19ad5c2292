"""The web side: Flask app factory, JSON API, Server-Sent Events, the pages.

Flask stays in this package. Request handlers only read the hub's snapshot or
post events to its loop; they never change the table themselves.
"""

from __future__ import annotations

from flask import Flask, jsonify
from werkzeug.exceptions import HTTPException

MAX_BODY = 64 * 1024


def create_app(hub, test_config: dict | None = None) -> Flask:
    """Build the app for ``hub`` (the composition root's :class:`hub.app.Hub`)."""
    app = Flask(__name__, static_folder="static", static_url_path="/static")
    app.config.update(MAX_CONTENT_LENGTH=MAX_BODY, JSON_SORT_KEYS=False)
    if test_config:
        app.config.update(test_config)
    app.extensions["hub"] = hub

    from web import api, games_api, pages

    app.register_blueprint(api.bp)
    app.register_blueprint(games_api.bp)
    app.register_blueprint(pages.bp)

    @app.errorhandler(HTTPException)
    def http_error(exc: HTTPException):
        message = {413: f"request body too large (limit {MAX_BODY // 1024} KB)"}.get(
            exc.code or 0, exc.description or exc.name)
        return jsonify(error=f"{exc.name}: {message}"), exc.code

    @app.errorhandler(Exception)
    def unexpected(exc: Exception):
        app.logger.exception("unexpected error")
        return jsonify(error=f"the hub could not handle this request: {exc}"), 400

    return app
