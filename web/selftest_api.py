"""The self-test on the page: ``GET /api/selftest`` and ``POST /api/selftest``.

``POST {"action": "start" | "yes" | "no" | "skip" | "stop"}`` drives the running hub's
walk-through (hub/selftest/session.py); the hub refuses ``start`` while a game is
unfinished. Changing requests must be JSON (415) from the hub's own page (403 for
another origin), as DESIGN.md's trust model asks. ``/selftest`` opens the page's view.
"""

from __future__ import annotations

from typing import Any
from urllib.parse import urlsplit

from flask import Blueprint, Response, jsonify, redirect, request

from web.api import hub_service, json_body
from web.errors import abort

bp = Blueprint("selftest", __name__)
ACTIONS = ("start", "yes", "no", "skip", "stop")


def _netloc(origin: str) -> str | None:
    """The host:port of an ``Origin`` header; None for one that is not a URL."""
    try:
        return urlsplit(origin).netloc
    except ValueError:  # "http://[" and the like
        return None


@bp.get("/selftest")
def page() -> Any:
    return redirect("/#/selftest")


@bp.get("/api/selftest")
def status() -> Response:
    return jsonify(hub_service().selftest())


@bp.post("/api/selftest")
def act() -> Response:
    if not request.is_json:
        abort(415, "body: send JSON (Content-Type: application/json)")
    origin = request.headers.get("Origin")
    if origin and _netloc(origin) != request.host:
        abort(403, f"Origin {origin}: only the hub's own page may run its self-test")
    body = json_body()
    unknown = sorted(set(body) - {"action"})
    if unknown:
        abort(400, f"{unknown[0]}: unknown field (allowed: action)", field=unknown[0])
    action = body.get("action")
    if action not in ACTIONS:
        abort(400, f"action: expected one of {', '.join(ACTIONS)}, got {action!r}", field="action")
    return jsonify(hub_service().selftest_action(action))
