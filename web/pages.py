"""The pages phones load: everything served by the hub itself (no CDN, no remote fonts)."""

from __future__ import annotations

from flask import Blueprint, current_app

bp = Blueprint("pages", __name__)


@bp.get("/")
def index():
    return current_app.send_static_file("index.html")
