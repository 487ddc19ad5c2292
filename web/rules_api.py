"""The rule data the new-game form is built from, and its deal helper.

``GET /api/rules``: the profiles, sets, options and deal tables of
:mod:`scorer.profiles` (:func:`scorer.profiles.rules_view`; ``docs/api.md`` shows the
shape), with the hub's configured default rules. The page keeps no rule data of its own.

``GET /api/deal?rules=&players=&set=``: answers ``{"rules", "players", "set",
"default_set", "rounds", "tiles_each", "boneyard"}`` from :func:`scorer.deal.deal` (the
boneyard counts the engine), or a 400 whose error names the query parameter first
(``players: …``).
"""

from __future__ import annotations

from flask import Blueprint, Response, jsonify, request

from scorer.deal import DealError, deal, default_set
from scorer.inputs import MAX_ID, BadInput, query_whole
from scorer.profiles import PROFILES, SETS, rules_view
from web.api import hub_service
from web.errors import abort
from web.service import field_of

bp = Blueprint("rules_api", __name__, url_prefix="/api")


@bp.get("/rules")
def rules() -> Response:
    """Every profile, set and option a new game may choose, with the deal tables.

    The data only changes with the hub's version or config: it carries an ETag, and a
    phone that asks again with it gets an empty 304."""
    response = jsonify(rules_view(hub_service().default_rules))
    response.headers["Cache-Control"] = "no-cache"
    response.add_etag()
    response.make_conditional(request)  # in place: 304 and no body on a match
    return response


def _whole(name: str) -> int | None:
    raw = request.args.get(name, "")
    if not raw.strip():
        return None
    try:
        return query_whole(raw, name, 0, MAX_ID)
    except BadInput as exc:
        raise DealError(str(exc)) from None


def _query() -> tuple[str, int, int | None]:
    rules = request.args.get("rules", hub_service().default_rules)
    if rules not in PROFILES:
        raise DealError(f"rules: {rules!r} is not one of {', '.join(PROFILES)}")
    players = _whole("players")
    if players is None:
        raise DealError("players: missing")
    fewest, most = PROFILES[rules].players
    if not fewest <= players <= most:
        raise DealError(f"players: the hub seats {fewest} to {most} players")
    set_max = _whole("set")
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
    return jsonify(
        rules=rules,
        players=players,
        set=chosen,
        default_set=usual,
        rounds=chosen + 1,
        tiles_each=dealt.tiles_each,
        boneyard=dealt.boneyard,
    )
