"""The hub's own Wi-Fi for the phones that may see its passphrase: the scorekeeper of
the running game, or a phone with the table's proof (docs/security.md, "The hub's own
Wi-Fi"). Every other phone is refused: the passphrase lets anyone who has it onto the
table's network.

``GET /api/wifi`` gives the network's name, passphrase, the Wi-Fi QR code's text and
its SVG; ``GET /api/wifi/card.png`` and ``/api/wifi/card.pdf`` the printable card
(:mod:`web.wifi_card`). The hotspot is read from the state folder at each request
(``app.config[HOTSPOT]``), so a new passphrase shows at once.
"""

from __future__ import annotations

from typing import Any

from flask import Blueprint, Response, current_app, jsonify, request

from hub.wire import i18n
from hub.wire.wifi import Hotspot, read_hotspot, wifi_code
from web import qr
from web.api import TABLE_COOKIE, has_proof, hub_service, request_token
from web.errors import abort

bp = Blueprint("wifi", __name__, url_prefix="/api/wifi")

# app.config: {"state_dir": the hub's state folder, "url": the page on the hotspot}
HOTSPOT = "HUB_HOTSPOT"
NO_STORE = {"Cache-Control": "no-store", "Referrer-Policy": "no-referrer"}


def _hotspot() -> tuple[Hotspot, str]:
    """The hotspot and the page's address on it, for a phone with the proof; else refused."""
    game = hub_service().running_game()
    if not has_proof(game):
        sent = request_token(game) or request.cookies.get(TABLE_COOKIE)
        abort(
            403 if sent else 401,
            "the Wi-Fi's passphrase is for the scorekeeper's phone or a phone the table "
            "trusts (claim it at the hub)",
            code="wifi_proof",
        )
    where: dict[str, Any] = current_app.config.get(HOTSPOT) or {}
    found = read_hotspot(where["state_dir"]) if where.get("state_dir") else None
    if found is None:
        abort(
            404,
            "this hub has no Wi-Fi of its own (systemd/install.sh makes it)",
            code="wifi_none",
        )
    return found, str(where["url"])


@bp.get("")
def wifi() -> Any:
    """``{"ssid", "passphrase", "code", "svg", "url"}``: the hotspot and its QR code."""
    hotspot, url = _hotspot()
    code = wifi_code(hotspot)
    svg = qr.qr_svg(code, f"Scan to join the Wi-Fi {hotspot.ssid}")
    body = {"ssid": hotspot.ssid, "passphrase": hotspot.passphrase, "code": code}
    return jsonify(**body, svg=svg, url=url), 200, NO_STORE


@bp.get("/card.<any(png, pdf):kind>")
def card(kind: str) -> Response:
    """The printable card, in the phone's language."""
    from web.wifi_card import KINDS, render

    hotspot, url = _hotspot()
    lang = i18n.language(request.headers.get("Accept-Language"))
    name = f"mtrain-wifi-card.{kind}"
    headers = {**NO_STORE, "Content-Disposition": f'inline; filename="{name}"'}
    return Response(render(hotspot, url, lang, kind), mimetype=KINDS[kind], headers=headers)
