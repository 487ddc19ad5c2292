"""``GET /api/log``: the hub's recent events, oldest first, as this request may see
them (another game's scores hidden from a viewer while ``hide_stats`` is on:
:func:`web.privacy.logged`)."""

from __future__ import annotations

from flask import Blueprint, Response, jsonify, request

from scorer.errors import Refused
from scorer.inputs import BadInput, query_whole
from web.api import hub_service
from web.privacy import logged

bp = Blueprint("log", __name__, url_prefix="/api")


@bp.get("/log")
def event_log() -> Response:
    """The newest hub events, oldest first."""
    try:
        limit = query_whole(request.args.get("limit", "100"), "limit", 1, 2000)
    except BadInput as exc:
        raise Refused.because(exc) from None
    return jsonify(logged(hub_service().recent_log(limit)))
