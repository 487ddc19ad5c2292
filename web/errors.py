"""One error style for every API answer: ``{"error": "<code>", "field": name,
"params": {…}, "message": "<plain words in the asker's language>"}``.

Handlers refuse a request with :func:`abort` (or the hub refuses it by raising
:class:`scorer.errors.Refused`); one error handler turns either into the JSON body,
``field`` present only when one field of the request body is at fault. Flask's own
HTTP errors (404 for an unknown address, 405, 413, 415) get the same shape, and a
disk that refuses a write (:class:`scorer.store.StorageFault`) is a 503 naming it.
A 429 says when to ask again in ``Retry-After``: its ``count`` param (seconds).
``message`` is the catalogs' ``error.<code>`` (``web/static/i18n/<lang>.json``) filled
with the params, in the request's ``Accept-Language``: words are made here, from the
code, never read back from words.

Anything else raised in a handler is a bug: Flask logs its traceback and answers 500.
There is deliberately no catch-all that would dress a bug up as a bad request.
"""

from __future__ import annotations

import logging
from collections.abc import Mapping, Sequence
from typing import Any, NoReturn

from flask import Flask, Response, has_request_context, jsonify, request
from werkzeug.exceptions import HTTPException

from hub.wire import i18n
from scorer.errors import Param, Refused, clip
from scorer.store import StorageFault

log = logging.getLogger("hub")

# Flask's own HTTP errors: their code (the rest are ``http_error`` with their status).
HTTP_CODES = {
    400: "bad_request",
    404: "not_found",
    405: "method_not_allowed",
    413: "too_large",
    415: "json_only",
}


def abort(
    status: int, message: str, field: str | None = None, *, code: str, **params: object
) -> NoReturn:
    """Refuse the request: answer ``status`` with ``code`` and ``params`` (naming
    ``field``); ``message`` is the English for the log."""
    raise Refused(status, message, field, code=code, **params)


def refuse_unknown(name: str, allowed: Sequence[str], where: str = "") -> NoReturn:
    """Refuse a body or query field ``name`` the request may not carry (400);
    ``allowed`` lists the ones it may. ``where``: the object it sits in."""
    field = f"{where}.{name}" if where else name
    abort(
        400,
        f"{clip(field)}: unknown field (allowed: {', '.join(allowed) or 'none'})",
        field,
        code="unknown_field",
        name=name,
        allowed=allowed,
    )


def words(lang: str, code: str, params: Mapping[str, Param]) -> str:
    """The refusal ``code`` in plain words in ``lang``, filled from ``params``."""
    values: dict[str, Any] = {
        k: ", ".join(v) if isinstance(v, tuple | list) else v
        for k, v in params.items()
        if k != "count"
    }
    count = params.get("count")
    given = set(values) | ({"count"} if isinstance(count, int) else set())
    entry = i18n.catalog(i18n.DEFAULT).get(f"error.{code}")
    if entry is None or i18n.placeholders(entry) - given:  # a bug: logged, said generally
        log.error("no words for the refusal %s with params %s", code, sorted(params))
        return i18n.text(lang, "error.failed")
    if isinstance(count, int):
        return i18n.text(lang, f"error.{code}", count=count, **values)
    return i18n.text(lang, f"error.{code}", **values)


def error_response(
    status: int,
    code: str,
    params: Mapping[str, Param] | None = None,
    field: str | None = None,
) -> Response:
    """The JSON error body with its status (and a Bearer challenge on 401)."""
    header = request.headers.get("Accept-Language") if has_request_context() else None
    given = dict(params or {})
    body: dict[str, Any] = {"error": code}
    if field is not None:
        body["field"] = field
    body["params"] = given
    body["message"] = words(i18n.language(header), code, given)
    response = jsonify(body)
    response.status_code = status
    if status == 401:
        response.headers["WWW-Authenticate"] = 'Bearer realm="mtrain-hub"'
    wait = given.get("count")
    if status == 429 and isinstance(wait, int) and not isinstance(wait, bool):
        response.headers["Retry-After"] = str(max(1, wait))
        response.headers["Cache-Control"] = "no-store"
    return response


def install(app: Flask, max_body: int) -> None:
    """Register the one error handler (and its HTTP-error twin) on ``app``."""

    def refused(exc: Refused) -> Response:
        response = error_response(exc.status, exc.code, exc.params, exc.field)
        if exc.extra:
            response.set_data(app.json.dumps({**exc.extra, **response.get_json()}))
        return response

    def http_error(exc: HTTPException) -> Response:
        status = exc.code or 500
        if status >= 500:  # Flask's InternalServerError: keep its generic words
            return error_response(status, "failed")
        if status == 413:
            return error_response(413, "too_large", {"limit": max_body // 1024})
        code = HTTP_CODES.get(status, "http_error")
        return error_response(status, code, {"status": status} if code == "http_error" else {})

    def storage_fault(exc: StorageFault) -> Response:
        # The disk, not the request, failed (full, read-only): the store rolled back.
        app.logger.error("storage: %s", exc)
        return error_response(503, "storage", {"reason": clip(str(exc), 300)})  # not a client's

    app.register_error_handler(Refused, refused)
    app.register_error_handler(StorageFault, storage_fault)
    app.register_error_handler(HTTPException, http_error)
