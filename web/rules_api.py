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
from scorer.errors import Refused, clip
from scorer.inputs import MAX_ID, BadInput, query_whole
from scorer.profiles import PROFILES, SETS, rules_view
from web.api import hub_service
from web.errors import abort

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
        raise Refused.because(exc) from None


def _query() -> tuple[str, int, int | None]:
    rules = request.args.get("rules", hub_service().default_rules)
    if rules not in PROFILES:
        allowed = ", ".join(PROFILES)
        why = f"rules: {clip(rules)} is not one of {allowed}"
        abort(400, why, "rules", code="no_such_rules", value=rules, allowed=tuple(PROFILES))
    players = _whole("players")
    if players is None:
        abort(400, "players: missing", "players", code="players_missing")
    fewest, most = PROFILES[rules].players
    if not fewest <= players <= most:
        why = f"players: the hub seats {fewest} to {most} players"
        abort(400, why, "players", code="player_count", fewest=fewest, most=most, given=players)
    set_max = _whole("set")
    if set_max is not None and set_max not in SETS:
        sets = ", ".join(map(str, SETS))
        why = f"set: {set_max} is not a domino set ({sets})"
        abort(400, why, "set", code="not_a_set", value=set_max, sets=sets)
    return rules, players, set_max


@bp.get("/deal")
def deal_helper() -> Response:
    """How many tiles each player draws and how many stay in the boneyard."""
    rules, players, set_max = _query()
    usual = default_set(rules, players)
    chosen = usual if set_max is None else set_max
    try:
        dealt = deal(rules, players, chosen)
    except DealError as exc:  # a set too small for the hands
        raise Refused.because(exc) from None
    return jsonify(
        rules=rules,
        players=players,
        set=chosen,
        default_set=usual,
        rounds=chosen + 1,
        tiles_each=dealt.tiles_each,
        boneyard=dealt.boneyard,
    )
