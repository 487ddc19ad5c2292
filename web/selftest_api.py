"""The self-test on the page: ``GET /api/selftest`` and ``POST /api/selftest``.

``POST {"action": "start" | "yes" | "no" | "skip" | "stop"}`` drives the running hub's
walk-through (hub/selftest/session.py). An answer or a skip may name the ``step`` it is
for: when another step waits, it is refused (409), so a double tap does not answer the
next step unseen. The hub refuses ``start`` while a game is
unfinished, and without the table's proof (a table token from a claim at the hub; 403):
a stranger's phone cannot take the hub's inputs (issue 25, LOW 15), not even with the
token of a game of its own (issue 33, 11). The other actions need the proof or a token
the start was made with. Starting a game ends the test only with the proof too
(``web.api.selftest_yields``). Changing requests must be JSON (415) from the hub's own page (403 for
another origin), as the trust model asks (docs/security.md). ``/selftest`` opens the page's view.
"""

from __future__ import annotations

from typing import Any
from urllib.parse import urlsplit

from flask import Blueprint, Response, jsonify, redirect, request

from scorer.errors import clip
from web.api import TABLE_COOKIE, has_proof, hub_service, json_body, request_token
from web.errors import abort, refuse_unknown

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
        abort(415, "body: send JSON (Content-Type: application/json)", code="json_only")
    origin = request.headers.get("Origin")
    if origin and _netloc(origin) != request.host:
        why = f"Origin {clip(origin)}: only the hub's own page may run its self-test"
        abort(403, why, code="origin_refused", origin=origin)
    body = json_body()
    unknown = sorted(set(body) - {"action", "step"})
    if unknown:
        refuse_unknown(unknown[0], ("action", "step"))
    action = body.get("action")
    if action not in ACTIONS:
        why = f"action: expected one of {', '.join(ACTIONS)}, got {clip(action)}"
        abort(400, why, "action", code="selftest_action", allowed=ACTIONS)
    step = body.get("step")
    if step is not None and (type(step) is not int or step < 1):
        why = f"step: expected a step number (1 or more), got {clip(step)}"
        abort(400, why, "step", code="step_number")
    tokens, proven = _proof()
    return jsonify(hub_service().selftest_action(action, tokens, proven, step))


def _proof() -> tuple[tuple[str, ...], bool]:
    """The tokens this request shows, and whether one proves the table (a live table
    token, from a claim at the hub). A game's token never does: with no game running,
    the newest game may be a stranger's own throwaway one (issue 33, 11)."""
    shown = (request_token(None), request.cookies.get(TABLE_COOKIE))
    return tuple(t for t in shown if t), has_proof(None)
