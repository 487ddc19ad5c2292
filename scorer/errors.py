"""The one shape of a refusal: a :class:`ValueError` whose message says what and why,
and which may name the request body's field at fault (the web layer's ``field`` key);
and :class:`StorageFault`, the disk's failure rather than the input's."""

from __future__ import annotations


class FieldError(ValueError):
    """Input refused, nothing changed. ``field``, when known, is the request body path
    at fault (``points.Ann``, ``players``); None when the input as a whole is wrong."""

    def __init__(self, message: str, field: str | None = None) -> None:
        super().__init__(message)
        self.field = field


class StorageFault(Exception):
    """The disk, not the input, failed a write (read-only, full, damaged): nothing was
    changed. Not a :class:`StoreError`: an HTTP layer answers 5xx naming the problem."""
