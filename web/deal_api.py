"""``GET /api/deal?rules=&players=&set=``: the deal helper for the new-game form.

Answers ``{"rules", "players", "set", "default_set", "rounds", "tiles_each",
"boneyard"}`` from :func:`scorer.deal.deal` (the boneyard counts the engine), or a
400 whose error names the query parameter first (``players: …``).
"""

from __future__ import annotations

from flask import Blueprint, Response, jsonify, request

from scorer.deal import PROFILE_IDS, DealError, deal, default_set, player_range
from scorer.profiles import SETS
from web.errors import abort
from web.service import field_of

bp = Blueprint("deal_api", __name__, url_prefix="/api")


def _whole(name: str, required: bool) -> int | None:
    raw = request.args.get(name, "").strip()
    if not raw:
        if required:
            raise DealError(f"{name}: missing")
        return None
    if not raw.isdigit():
        raise DealError(f"{name}: {raw!r} is not a whole number")
    return int(raw)


def _query() -> tuple[str, int, int | None]:
    rules = request.args.get("rules", "consensus")
    if rules not in PROFILE_IDS:
        raise DealError(f"rules: {rules!r} is not one of {', '.join(PROFILE_IDS)}")
    players = _whole("players", required=True)
    assert players is not None  # required: _whole raised without it
    fewest, most = player_range(rules)
    if not fewest <= players <= most:
        raise DealError(f"players: {rules} rules are for {fewest} to {most} players")
    set_max = _whole("set", required=False)
    if set_max is not None and set_max not in SETS:
        raise DealError(f"set: {set_max} is not a domino set ({', '.join(map(str, SETS))})")
    return rules, players, set_max


@bp.get("/deal")
def deal_helper() -> Response:
    """How many tiles each player draws and how many stay in the boneyard."""
    try:
        rules, players, set_max = _query()
    except DealError as exc:
        abort(400, str(exc), field_of(exc))
    usual = default_set(rules, players)
    chosen = usual if set_max is None else set_max
    try:
        dealt = deal(rules, players, chosen)
    except DealError as exc:  # a set too small for the hands
        abort(400, f"set: {exc}", "set")
    return jsonify(rules=rules, players=players, set=chosen, default_set=usual,
                   rounds=chosen + 1, tiles_each=dealt.tiles_each, boneyard=dealt.boneyard)
