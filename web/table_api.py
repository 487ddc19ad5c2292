"""Putting the table right from the scorekeeper's phone, and the centre button on the sim.

- ``POST /api/sim/centre/press`` ``{"hold_ms": N}``: the centre button, like a slot
  press (sim backend only). A hold as long as the centre's long hold (4 s by default,
  ``[gestures] centre_long_hold_ms``) undoes the last table action.
- ``POST /api/games/<id>/undo`` ``{}`` or ``{"undo": n, "stamp": s}``: undo the last
  table action (``turn_back``); ``n`` and ``s``, the snapshot's ``undo`` and
  ``undo_stamp`` the phone saw, make it the undo of that table: when an action was
  taken or undone since, 409 ``undo_moved``.
- ``POST /api/games/<id>/fix``: set the table right by hand, one thing per request:
  ``{"turn": slot}``, ``{"double": {"slot": n, "covers_left": k, "responsible": s}}``
  (``"slot": null`` closes the open double) or ``{"public": {"slot": n, "public": b}}``.
- ``POST /api/games/<id>/rounds/<r>/engine`` ``{"engine": n}``: name a round's engine
  (``aces``: the highest double anyone held).

The game routes need the game's scorekeeper token and a JSON body (415 otherwise);
the table answers with the snapshot (the engine route with the game). Every undo and
fix is in ``GET /api/log``. ``docs/api.md`` lists the answers and errors.
"""

from __future__ import annotations

from typing import Any

from flask import Blueprint, Response, jsonify, request

from hub.core.events import CENTRE
from scorer.errors import clip
from scorer.inputs import ID
from scorer.profiles import SLOTS
from web.api import answer_when_done, authorise, hub_service, json_body
from web.errors import abort, refuse_unknown

bp = Blueprint("table", __name__, url_prefix="/api")

FIXES = ("turn", "double", "public")


def _json_only() -> dict[str, Any]:
    """The body of a state-changing request, which must be JSON."""
    if request.mimetype != "application/json":
        abort(415, "send the request as JSON (Content-Type: application/json)", code="json_only")
    return json_body()


def _scorekeeper(game_id: int) -> dict[str, Any]:
    body = _json_only()
    authorise(game_id, "putting the table right")
    return body


def _slot(value: object, field: str, low: int = SLOTS[0]) -> int:
    """A slot number from ``low`` (0: the centre too) to the last slot, else a 400."""
    last = SLOTS[-1]
    if not isinstance(value, int) or isinstance(value, bool) or not low <= value <= last:
        why = f"{field}: expected a slot number, {low} to {last}"
        abort(400, why, field, code="slot_number", low=low, last=last)
    return value


@bp.post("/sim/centre/press")
def sim_centre_press() -> Response:
    """Press the simulated centre button for ``hold_ms``; the snapshot after."""
    body = json_body()
    hold_ms = body.get("hold_ms", 0)
    if not isinstance(hold_ms, int) or isinstance(hold_ms, bool) or not 0 <= hold_ms <= 10000:
        why = "hold_ms: expected a whole number of milliseconds, 0 to 10000"
        abort(400, why, "hold_ms", code="hold_ms", most=10000)
    unknown = sorted(set(body) - {"hold_ms"})
    if unknown:
        refuse_unknown(unknown[0], ("hold_ms",))
    return answer_when_done(hub_service().sim_centre_press_later(hold_ms / 1000))


@bp.post(f"/games/<{ID}:game_id>/undo")
def undo(game_id: int) -> Response:
    """Undo the last table action of the game on the table."""
    body = _scorekeeper(game_id)
    unknown = sorted(set(body) - {"undo", "stamp"})
    if unknown:
        refuse_unknown(unknown[0], ("undo", "stamp"))
    seen = body.get("undo")
    if seen is not None and (type(seen) is not int or seen < 0):
        why = f"undo: expected the snapshot's undo count (0 or more), got {clip(seen)}"
        abort(400, why, "undo", code="undo_count")
    stamp = body.get("stamp")
    if stamp is not None and (type(stamp) is not int or stamp < 0):
        why = f"stamp: expected the snapshot's undo_stamp (0 or more), got {clip(stamp)}"
        abort(400, why, "stamp", code="undo_stamp")
    return jsonify(hub_service().undo(game_id, seen, stamp))


@bp.post(f"/games/<{ID}:game_id>/fix")
def fix(game_id: int) -> Response:
    """Set whose turn it is, the open double or a train's public flag by hand."""
    body = _scorekeeper(game_id)
    given = [key for key in FIXES if key in body]
    unknown = sorted(set(body) - set(FIXES))
    if unknown:
        refuse_unknown(unknown[0], FIXES)
    if len(given) != 1:
        why = f"give exactly one of: {', '.join(FIXES)}"
        abort(400, why, code="fix_one", allowed=FIXES)
    what = given[0]
    if what == "turn":
        return jsonify(hub_service().fix_table(game_id, turn=_slot(body["turn"], "turn")))
    part = body[what]
    if not isinstance(part, dict):
        abort(400, f"{what}: expected an object", what, code="fix_object")
    if what == "public":
        return jsonify(hub_service().fix_table(game_id, public=_public(part)))
    return jsonify(hub_service().fix_table(game_id, double=_double(part)))


def _public(part: dict[str, Any]) -> tuple[int, bool]:
    extra = sorted(set(part) - {"slot", "public"})
    if extra:
        refuse_unknown(extra[0], ("slot", "public"), "public")
    if not isinstance(part.get("public"), bool):
        abort(400, "public.public: expected true or false", "public.public", code="true_or_false")
    return _slot(part.get("slot"), "public.slot"), bool(part["public"])


def _double(part: dict[str, Any]) -> tuple[int | None, int, int | None]:
    extra = sorted(set(part) - {"slot", "covers_left", "responsible"})
    if extra:
        refuse_unknown(extra[0], ("slot", "covers_left", "responsible"), "double")
    if "slot" not in part:
        why = "double.slot: the double's train, or null to close it"
        abort(400, why, "double.slot", code="double_slot")
    if part["slot"] is None:
        return None, 1, None
    slot = _slot(part["slot"], "double.slot", low=CENTRE)  # the Mexican without a slot
    covers = part.get("covers_left", 1)
    if not isinstance(covers, int) or isinstance(covers, bool) or not 1 <= covers <= 3:
        abort(400, "double.covers_left: 1 to 3", "double.covers_left", code="covers_range")
    responsible = part.get("responsible")
    if responsible is not None:
        responsible = _slot(responsible, "double.responsible")
    return slot, covers, responsible


@bp.post(f"/games/<{ID}:game_id>/rounds/<{ID}:number>/engine")
def set_engine(game_id: int, number: int) -> Response:
    """Name round ``number``'s engine (``aces``); the game after it."""
    body = _scorekeeper(game_id)
    engine = body.get("engine")
    unknown = sorted(set(body) - {"engine"})
    if unknown:
        refuse_unknown(unknown[0], ("engine",))
    if not isinstance(engine, int) or isinstance(engine, bool) or not 0 <= engine <= 18:
        why = "engine: expected the engine double's pips, a whole number"
        abort(400, why, "engine", code="engine_number")
    return jsonify(hub_service().set_engine(game_id, number, engine))
