"""The request guard of the trust model (docs/security.md, "Trust: who may do what").

Every request that changes something (POST, PUT, PATCH, DELETE) must carry a JSON body
(``Content-Type: application/json``, else 415) and must come from the hub's own page:
a request whose ``Origin`` is not the hub itself (the scheme and ``Host`` the request
was sent to), or that has no ``Origin`` but a ``Sec-Fetch-Site`` saying another site
sent it, is refused 403. So a web page a phone at the table happens to open can never
act on the hub: a cross-origin ``fetch`` or form post is refused before any handler
runs, and a form cannot send ``application/json`` at all.

Every request must name the hub in its ``Host``: an address (any IP literal: no DNS
answer is involved), ``localhost``, the machine's own name (and ``<name>.local``), or a
name in ``app.config[HOSTS]`` (config ``web.hosts``); anything else is refused 421
before any handler runs, so a page on a name an attacker controls that re-resolves to
the hub (DNS rebinding) can neither read nor change anything. The rule is
:mod:`hub.wire.hosts`'s, which the tournament board keeps too. While the hub runs its own
Wi-Fi (``app.config[PORTAL]``, config ``[network] portal``), where every name resolves
to the hub, a read (GET, HEAD) of a page on a foreign ``Host`` is the captive portal:
302 to the hub's own address, which makes a phone's connectivity check (Android's
``generate_204``, Apple's ``hotspot-detect.html``, Windows' ``connecttest.txt``,
Firefox's ``success.txt``) open its portal window on the scorepad. ``/api/`` and every
change on a foreign ``Host`` are still 421.

Every answer carries the security headers: a Content Security Policy that loads
nothing from elsewhere and allows no framing, ``nosniff``, ``X-Frame-Options: DENY``
and no referrer.
"""

from __future__ import annotations

from urllib.parse import urlsplit

from flask import Flask, Response, request

from hub.wire.hosts import own_host, own_names
from scorer.errors import clip
from web.errors import abort

CHANGING = frozenset({"POST", "PUT", "PATCH", "DELETE"})
# The scorepad needs nothing from elsewhere; its favicon is a data: URI.
CSP = (
    "default-src 'self'; img-src 'self' data:; frame-ancestors 'none'; "
    "base-uri 'none'; form-action 'self'; object-src 'none'"
)
HEADERS = {
    "Content-Security-Policy": CSP,
    "X-Content-Type-Options": "nosniff",
    "X-Frame-Options": "DENY",
    "Referrer-Policy": "no-referrer",
}
# Sec-Fetch-Site values a browser sends for a request the hub's own page did not make.
FOREIGN_SITES = frozenset({"cross-site", "same-site"})


def same_origin(origin: str, host: str | None, scheme: str) -> bool:
    """Whether ``origin`` (an ``Origin`` header) names the hub at ``host`` over ``scheme``."""
    if not host or origin == "null":
        return False
    try:
        parts = urlsplit(origin)
    except ValueError:  # "http://[" and the like: not the hub
        return False
    if parts.scheme != scheme or not parts.netloc or parts.path not in ("", "/"):
        return False
    default = {"http": "80", "https": "443"}.get(scheme, "")

    def norm(netloc: str) -> str:
        netloc = netloc.lower()
        return netloc if netloc.rsplit("]", 1)[-1].count(":") else f"{netloc}:{default}"

    return norm(parts.netloc) == norm(host)


HOSTS = "HUB_HOSTS"  # app.config: more names the hub answers to (config web.hosts)
# app.config: the hub's address on its own Wi-Fi ("http://10.42.0.1/") while the hotspot
# is up (config [network] portal); absent or "" otherwise.
PORTAL = "HUB_PORTAL"
PORTAL_READS = frozenset({"GET", "HEAD"})


def check_host(names: frozenset[str], portal: str = "") -> Response | None:
    """Refuse a request whose ``Host`` is not one of the hub's (421); with a ``portal``
    (the hub's own URL on its Wi-Fi), send a read of a page there instead (302)."""
    if own_host(request.host, names):
        return None
    api = request.path == "/api" or request.path.startswith("/api/")
    if portal and request.method in PORTAL_READS and not api:
        # Not remembered (no-store): the same name answers for real once back home.
        return Response(status=302, headers={"Location": portal, "Cache-Control": "no-store"})
    abort(
        421,
        f"Host {clip(request.host)}: not a name of this hub (use its address, or add "
        "the name to [web] hosts)",
        code="host_refused",
        host=request.host,
    )


def check_request() -> None:
    """Refuse a changing request from elsewhere (403) or without a JSON body (415)."""
    if request.method not in CHANGING or request.routing_exception is not None:
        return  # a read, or no such address or method: nothing would change
    origin = request.headers.get("Origin")
    if origin is not None:
        if not same_origin(origin, request.host, request.scheme):
            abort(
                403,
                f"Origin {clip(origin)}: only the hub's own page may change anything "
                f"(this hub is {request.scheme}://{clip(request.host)})",
                code="origin_refused",
                origin=origin,
            )
    elif request.headers.get("Sec-Fetch-Site", "").lower() in FOREIGN_SITES:
        why = "Sec-Fetch-Site: only the hub's own page may change anything"
        abort(403, why, code="foreign_site")
    if request.mimetype != "application/json":
        sent = request.mimetype or "no Content-Type"
        why = f"Content-Type: expected application/json, got {clip(sent)}"
        abort(415, why, code="json_only")


def add_headers(response: Response) -> Response:
    """Put the security headers on every answer (a handler's own take precedence)."""
    for name, value in HEADERS.items():
        response.headers.setdefault(name, value)
    return response


def install(app: Flask) -> None:
    """Check every request of ``app`` before its handler and mark every answer."""
    names = own_names(app.config.get(HOSTS))
    portal = str(app.config.get(PORTAL) or "")
    app.before_request(lambda: check_host(names, portal))
    app.before_request(check_request)
    app.after_request(add_headers)
