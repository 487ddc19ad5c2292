"""One error style for every API answer: ``{"error": "<what and why>", "field": name,
"message": "<the same in plain words>"}``.

Handlers refuse a request with :func:`abort` (or the hub refuses it by raising
:class:`web.service.Refused`); one error handler turns either into the JSON body,
``field`` present only when one field of the request body is at fault. Flask's own
HTTP errors (404 for an unknown address, 405, 413, 415) get the same shape, and a
disk that refuses a write (:class:`scorer.store.StorageFault`) is a 503 naming it.
``message`` is for people, in the request's ``Accept-Language`` (:mod:`web.messages`).

Anything else raised in a handler is a bug: Flask logs its traceback and answers 500.
There is deliberately no catch-all that would dress a bug up as a bad request.
"""

from __future__ import annotations

import json
from typing import NoReturn

from flask import Flask, Response, has_request_context, jsonify, request
from werkzeug.exceptions import HTTPException

from hub.wire import i18n
from scorer.store import StorageFault
from web.messages import words_for
from web.service import Refused

TOO_LARGE = "request body too large (limit {limit} KB)"


def abort(status: int, message: str, field: str | None = None) -> NoReturn:
    """Refuse the request: answer ``status`` with ``message`` (naming ``field``)."""
    raise Refused(status, message, field)


def error_response(status: int, message: str, field: str | None = None) -> Response:
    """The JSON error body with its status (and a Bearer challenge on 401): ``error`` the
    hub's message, ``message`` the same for people in the request's language."""
    header = request.headers.get("Accept-Language") if has_request_context() else None
    body: dict[str, str] = {"error": message}
    if field is not None:
        body["field"] = field
    body["message"] = words_for(i18n.language(header), status, message)
    response = jsonify(body)
    response.status_code = status
    if status == 401:
        response.headers["WWW-Authenticate"] = 'Bearer realm="mtrain-hub"'
    return response


def install(app: Flask, max_body: int) -> None:
    """Register the one error handler (and its HTTP-error twin) on ``app``."""

    def refused(exc: Refused) -> Response:
        response = error_response(exc.status, exc.message, exc.field)
        if exc.extra:
            response.set_data(json.dumps({**exc.extra, **response.get_json()}))
        return response

    def http_error(exc: HTTPException) -> Response:
        status = exc.code or 500
        if status >= 500:  # Flask's InternalServerError: keep its generic words
            return error_response(status, "the hub failed on this request (see its log)")
        message = (
            TOO_LARGE.format(limit=max_body // 1024)
            if status == 413
            else (exc.description or exc.name)
        )
        return error_response(status, f"{exc.name}: {message}")

    def storage_fault(exc: StorageFault) -> Response:
        # The disk, not the request, failed (full, read-only): the store rolled back.
        app.logger.error("storage: %s", exc)
        return error_response(503, f"storage: {exc}; nothing was changed")

    app.register_error_handler(Refused, refused)
    app.register_error_handler(StorageFault, storage_fault)
    app.register_error_handler(HTTPException, http_error)
