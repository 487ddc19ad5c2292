"""A request's target as the app will route it: one form for the server and the app.

The server hands the app (``PATH_INFO``) the path :func:`routed_path` makes of the
request's target, and every limit the server keeps (the early gate) is keyed on that
same string. So a limit can never be stepped around by writing a path another way
that the app still routes to the same handler: ``//api/claim``, ``/api//claim``,
``/./api/claim``, ``/api/x/../claim``, ``/api/%63laim`` and ``/api/claim?x`` are all
``/api/claim``, for the gate and for Flask alike (issue 33, item 5: Werkzeug drops
leading slashes before it routes, so ``//api/claim`` reached the claim handler while
the gate, comparing the raw path, counted nothing). The case of the path and a
trailing slash are kept: the app routes ``/API/claim`` and ``/api/claim/`` nowhere,
and the gate does not count them either. (The method is upper-cased as it arrives,
:meth:`hub.http.workers.Exchange.headers_received`, for the same reason.)
"""

from __future__ import annotations

import urllib.parse


def split_target(target: str) -> tuple[str, str]:
    """The request target's path (:func:`routed_path`) and its query, undecoded."""
    if not target.startswith("/"):  # the absolute form, "http://host/path?query"
        parts = urllib.parse.urlsplit(target)
        target = (parts.path or "/") + ("?" + parts.query if parts.query else "")
    path, _, query = target.partition("?")
    return routed_path(path), query


def routed_path(raw: str) -> str:
    """``raw`` (a target's path) in its one form: percent-decoded (as WSGI's latin-1
    text), every run of slashes one slash, ``.`` and ``..`` segments resolved as RFC
    3986 (section 5.2.4) says (``..`` never climbs above ``/``); always starting with
    ``/``, ending with one where ``raw`` ended in a directory."""
    text = urllib.parse.unquote_to_bytes(raw).decode("latin-1")
    segments: list[str] = []
    parts = text.split("/")
    for part in parts:
        if part == "..":
            if segments:
                segments.pop()
        elif part not in ("", "."):
            segments.append(part)
    last = parts[-1]
    directory = last in ("", ".", "..") and bool(segments)
    return "/" + "/".join(segments) + ("/" if directory else "")
