"""The trust model's own calls (docs/security.md, "Trust: who may do what"): claiming the
scorekeeper role with hands on the hub, and bringing an abandoned game back.

``POST /api/claim`` asks the table: the hub lights a slot and chimes, and a press there
within the window grants the phone a token (``GET /api/claim/<claim>`` tells it, and
sets the token's cookie): the running game's scorekeeper token, or with no game
running a short-lived table token, which authorises the settings and a new game.
"""

from __future__ import annotations

import json
import threading
import time
from collections import deque
from collections.abc import Callable
from typing import Any

from flask import Blueprint, Flask, Response, current_app, jsonify, request

from hub.wire import i18n
from hub.wire.serving import EARLY_CHECKED, EarlyAnswer, EarlyGate
from scorer.inputs import ID
from web.api import has_proof, hub_service, json_body, selftest_yields, set_token_cookie
from web.errors import abort, refuse_unknown, words
from web.guard import HEADERS

bp = Blueprint("trust", __name__, url_prefix="/api")

TABLE_COOKIE_S = 600  # as long as the hub keeps a table token (hub.trust.TABLE_TOKEN_S)
MAX_CLAIM_ID = 64
CLAIM_SPAN_S = 60.0  # claims are counted over this span
CLAIMS_PER_CLIENT = 3  # claims one address may ask for in a span
CLAIMS_IN_ALL = 10  # claims the addresses past MOST_CLIENTS may ask for, together, in a span
MOST_CLIENTS = 1024  # addresses remembered; the rest share one count


class ClaimLimits:
    """How many claims each address asked for lately: a claim chimes and lights the
    hub, and a phone without a token may ask, so each asker is bounded. No count is
    shared by the remembered addresses (one stranger asking as fast as it may never
    uses up the family's asks); only addresses past :data:`MOST_CLIENTS` share one."""

    def __init__(self, clock: Callable[[], float] = time.monotonic) -> None:
        self._clock = clock
        self._lock = threading.Lock()
        self._all: deque[float] = deque()
        self._by: dict[str, deque[float]] = {}

    def wait(self, client: str) -> float:
        """0 (and counted) if ``client`` may ask now, else the seconds until it may.
        Constant time per ask: only the asker's old asks are dropped (the addresses
        done asking, only when the table of them is full)."""
        now = self._clock()
        with self._lock:
            if client not in self._by and len(self._by) >= MOST_CLIENTS:
                self._by = {k: v for k, v in self._by.items() if v and v[-1] > now - CLAIM_SPAN_S}
            if client in self._by or len(self._by) < MOST_CLIENTS:
                times, most = self._by.setdefault(client, deque()), CLAIMS_PER_CLIENT
            else:  # a crowd of addresses: past the table, they share one count
                times, most = self._all, CLAIMS_IN_ALL
            while times and times[0] <= now - CLAIM_SPAN_S:
                times.popleft()
            if len(times) >= most:
                return times[0] + CLAIM_SPAN_S - now
            times.append(now)
            return 0.0


def _limits(app: Flask | None = None) -> ClaimLimits:
    extensions = (app or current_app).extensions
    limits = extensions.get("claim_limits")
    if limits is None:
        limits = extensions.setdefault("claim_limits", ClaimLimits())
    return limits  # type: ignore[no-any-return]


def _too_many(wait: float, lang: str = i18n.DEFAULT) -> tuple[dict[str, Any], dict[str, str]]:
    """The 429's body (the refusal ``wait``, in ``lang``: the server's early gate
    answers before the request's language is read) and headers: when to ask again."""
    seconds = max(1, round(wait))
    body = {
        "error": "wait",
        "params": {"count": seconds},
        "message": words(lang, "wait", {"count": seconds}),
    }
    return body, {"Retry-After": str(max(1, round(wait))), "Cache-Control": "no-store"}


def early_gate(app: Flask) -> EarlyGate:
    """The server's gate for ``app`` (:class:`hub.wire.serving.EarlyGate`): a claim beyond the
    limits is refused with its 429 before a worker or Flask sees it; one within them
    is counted here and served (``EARLY_CHECKED``: the handler does not count it again)."""
    limits = _limits(app)

    def gate(method: str, path: str, client: str) -> EarlyAnswer | None:
        if method != "POST" or path != "/api/claim":
            return None
        wait = limits.wait(client)
        if not wait:
            return None
        body, headers = _too_many(wait)
        headers |= {"Content-Type": "application/json", **HEADERS}
        return "429 Too Many Requests", list(headers.items()), json.dumps(body).encode()

    return gate


@bp.post("/claim")
def start_claim() -> Response:
    """Ask the table for the scorekeeper role: 202 ``{"claim", "slot", "seconds"}``."""
    body = json_body()
    if body:
        field = sorted(body)[0]
        refuse_unknown(field, ())
    # Counted by the server's early gate already, when it has one (the hub's does).
    wait = 0.0 if request.environ.get(EARLY_CHECKED) else _limits().wait(request.remote_addr or "")
    if wait:
        answer, headers = _too_many(wait, i18n.language(request.headers.get("Accept-Language")))
        response = jsonify(answer)
        response.status_code = 429
        response.headers.update(headers)
        return response
    response = jsonify(hub_service().start_claim(request.remote_addr or ""))
    response.status_code = 202
    response.headers["Cache-Control"] = "no-store"
    return response


@bp.get("/claim/<claim>")
def claim_status(claim: str) -> Response:
    """Where a claim stands; once granted, its token (also set as a cookie)."""
    if len(claim) > MAX_CLAIM_ID:
        abort(404, "claim: no such claim", "claim", code="claim_missing")
    answer = hub_service().claim_status(claim)
    response = jsonify(answer)
    response.headers["Cache-Control"] = "no-store"
    if answer.get("token"):
        game = answer.get("game")
        if game is None:
            set_token_cookie(response, None, answer["token"], TABLE_COOKIE_S)
        else:
            set_token_cookie(response, game, answer["token"])
    return response


@bp.post(f"/games/<{ID}:game_id>/resume")
def resume_game(game_id: int) -> Response:
    """Put an abandoned game back on the table: its scorekeeper's token (or the table's
    proof), and, over another unfinished game, that one's too."""
    body = json_body()
    if body:
        field = sorted(body)[0]
        refuse_unknown(field, ())
    service = hub_service()
    if not has_proof(game_id):
        abort(
            403,
            f"game {game_id}: bringing it back needs its scorekeeper's token or "
            "the table's proof (claim it at the hub)",
            code="bring_back_proof",
            game=game_id,
        )
    running = service.running_game()
    if running is not None and running != game_id and not has_proof(running):
        abort(
            403,
            f"game {running} is not finished: replacing it needs its scorekeeper's "
            "token too, or the table's proof",
            code="game_unfinished",
            game=running,
        )
    if running == game_id:
        abort(409, f"game {game_id} is on the table already", code="on_table_already", game=game_id)
    selftest_yields()
    return jsonify(service.bring_back(game_id, replaces=running))
