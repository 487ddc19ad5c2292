"""The one shape of a refusal, below every layer that refuses (the scorer's validators,
the hub's rooms, the web layer, MQTT commands): typed data, never English to be read
back.

A refusal carries a stable ``code`` (snake_case: ``game_missing``, ``unknown_field``),
its ``params`` (named, small: every one that can carry a client's text is cut to
:data:`MOST` characters, so no client text is ever large), the request ``field`` at
fault, and an English message for developers, logs and scripts. People read the
catalogs' words for the code (``error.<code>``, ``{param}`` placeholders), made at the
edge in the reader's language. :class:`FieldError` is the validators' refusal,
:class:`Refused` the hub's answer to a request (with its HTTP status), and
:class:`StorageFault` the disk's failure rather than the input's."""

from __future__ import annotations

import math
from typing import Any

Param = str | int | float | bool | None | tuple[str, ...]
MOST = 60  # characters of a client's text a refusal carries (then an ellipsis)
MOST_FIELD = 100  # characters of a field's path (points.<name>, an unknown key)
MOST_ITEMS = 32  # items of a list param (the allowed values)


def clip(text: object, most: int = MOST) -> str:
    """``text`` as a string of at most ``most`` characters, an ellipsis marking a cut."""
    try:
        words = text if isinstance(text, str) else repr(text)
    except ValueError:  # an int past Python's digit limit: no text to show of it
        words = "…"
    return words if len(words) <= most else words[: most - 1] + "…"


def small(value: object) -> Param:
    """``value`` as a refusal's param: numbers (JSON's), truth values and None as they
    are; text cut to :data:`MOST`; a list of text item by item (at most
    :data:`MOST_ITEMS`); anything else as its cut ``repr``."""
    if value is None or isinstance(value, bool):
        return value
    if isinstance(value, int) and abs(value) <= 2**53:
        return value
    if isinstance(value, float) and math.isfinite(value):
        return value
    if isinstance(value, str):
        return clip(value)
    if isinstance(value, tuple | list) and all(isinstance(item, str) for item in value):
        return tuple(clip(item) for item in value[:MOST_ITEMS])
    return clip(value)


class FieldError(ValueError):
    """Input refused, nothing changed. ``code`` says which refusal (stable, for programs
    and the catalogs), ``params`` its particulars; ``field``, when known, is the request
    body path at fault (``points.Ann``, ``players``), None when the input as a whole is
    wrong. The message (``str(exc)``) is English for developers."""

    def __init__(
        self, message: str, field: str | None = None, *, code: str, **params: object
    ) -> None:
        super().__init__(message)
        self.field = None if field is None else clip(field, MOST_FIELD)
        self.code = code
        self.params: dict[str, Param] = {name: small(v) for name, v in params.items()}


class Refused(FieldError):
    """The hub refuses a request: bad input, a conflict, no such thing, no right to it.

    ``status`` is the HTTP status to answer with; ``extra`` more keys for the answer's
    body (a stale edit's current round). The web layer answers ``{"error": code,
    "field": field, "params": params, "message": <words>}`` (``web/errors.py``); an
    MQTT command's refusal is published with its code (``hub/mqtt/commands.py``)."""

    def __init__(
        self,
        status: int,
        message: str,
        field: str | None = None,
        *,
        code: str,
        **params: object,
    ) -> None:
        super().__init__(message, field, code=code, **params)
        self.status = status
        self.message = message
        self.extra: dict[str, Any] = {}

    @classmethod
    def because(cls, exc: FieldError, status: int = 400) -> Refused:
        """A refusal carrying a validator's error: its code, params, field and words."""
        refused = cls(status, str(exc), exc.field, code=exc.code)
        refused.params = dict(exc.params)
        return refused


class StorageFault(Exception):
    """The disk, not the input, failed a write (read-only, full, damaged): nothing was
    changed. Not a :class:`StoreError`: an HTTP layer answers 5xx naming the problem."""
