"""The request guard of the trust model (DESIGN.md, "Who may do what").

Every request that changes something (POST, PUT, PATCH, DELETE) must carry a JSON body
(``Content-Type: application/json``, else 415) and must come from the hub's own page:
a request whose ``Origin`` is not the hub itself (the scheme and ``Host`` the request
was sent to), or that has no ``Origin`` but a ``Sec-Fetch-Site`` saying another site
sent it, is refused 403. So a web page a phone at the table happens to open can never
act on the hub: a cross-origin ``fetch`` or form post is refused before any handler
runs, and a form cannot send ``application/json`` at all.

Every answer carries the security headers: a Content Security Policy that loads
nothing from elsewhere and allows no framing, ``nosniff``, ``X-Frame-Options: DENY``
and no referrer.
"""

from __future__ import annotations

from urllib.parse import urlsplit

from flask import Flask, Response, request

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


def check_request() -> None:
    """Refuse a changing request from elsewhere (403) or without a JSON body (415)."""
    if request.method not in CHANGING or request.routing_exception is not None:
        return  # a read, or no such address or method: nothing would change
    origin = request.headers.get("Origin")
    if origin is not None:
        if not same_origin(origin, request.host, request.scheme):
            abort(
                403,
                f"Origin {origin}: only the hub's own page may change anything "
                f"(this hub is {request.scheme}://{request.host})",
            )
    elif request.headers.get("Sec-Fetch-Site", "").lower() in FOREIGN_SITES:
        abort(403, "Sec-Fetch-Site: only the hub's own page may change anything")
    if request.mimetype != "application/json":
        sent = request.mimetype or "no Content-Type"
        abort(415, f"Content-Type: expected application/json, got {sent}")


def add_headers(response: Response) -> Response:
    """Put the security headers on every answer (a handler's own take precedence)."""
    for name, value in HEADERS.items():
        response.headers.setdefault(name, value)
    return response


def install(app: Flask) -> None:
    """Check every request of ``app`` before its handler and mark every answer."""
    app.before_request(check_request)
    app.after_request(add_headers)
