"""The web side: Flask app factory, JSON API, Server-Sent Events, the pages.

Flask stays in this package. Request handlers talk to the hub only through the
:class:`web.service.HubService` handed to :func:`create_app`: they read its snapshot,
submit requests and wait for the result; they never change the table themselves.
Flask is imported when an app is built, so the hub may import :mod:`web.service`
without loading it.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    from flask import Flask

    from hub.wire.serving import EarlyGate
    from web.service import HubService

MAX_BODY = 64 * 1024


def create_app(service: HubService, test_config: dict[str, Any] | None = None) -> Flask:
    """Build the app serving ``service`` (the composition root hands in the hub's)."""
    from flask import Flask

    from web import (
        api,
        errors,
        evening_pictures,
        evening_png,
        games_api,
        guard,
        log_api,
        pages,
        players_api,
        selftest_api,
        static_files,
        table_api,
        trust_api,
        wifi_api,
    )

    app = Flask(__name__, static_folder=None)
    app.config.update(MAX_CONTENT_LENGTH=MAX_BODY, JSON_SORT_KEYS=False)
    if test_config:
        app.config.update(test_config)
    app.extensions["hub_service"] = service
    app.extensions["evening_pictures"] = evening_pictures.EveningPictures(evening_png.render)
    app.register_blueprint(api.bp)
    app.register_blueprint(log_api.bp)
    app.register_blueprint(games_api.bp)
    app.register_blueprint(table_api.bp)
    app.register_blueprint(trust_api.bp)
    app.register_blueprint(players_api.bp)
    app.register_blueprint(pages.bp)
    app.register_blueprint(selftest_api.bp)
    app.register_blueprint(wifi_api.bp)
    static_files.install(app)
    guard.install(app)
    errors.install(app, MAX_BODY)
    return app


def early_gate(app: Flask) -> EarlyGate:
    """The gate the hub's server runs before ``app`` (:func:`web.trust_api.early_gate`):
    a claim beyond the limits is refused there, costing no worker and no request."""
    from web.trust_api import early_gate as gate

    return gate(app)
