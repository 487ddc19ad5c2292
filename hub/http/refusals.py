"""The hub's refusals as a request gets them: each validator's error
(a :class:`scorer.errors.FieldError`, its code, params and field kept) becomes a
:class:`scorer.errors.Refused` with the HTTP status it is answered with."""

from __future__ import annotations

from collections.abc import Iterator
from contextlib import contextmanager

from hub.games.changes import RoundInPlay
from hub.games.limits import TooFast
from hub.runtime.asks import TableChanged
from hub.runtime.settings import SettingsError
from scorer.errors import FieldError, Refused
from scorer.people import PersonBusy, PersonNotFound
from scorer.setup import SetupError
from scorer.store import GameNotFound, StaleEdit, StoreError

# What each validator's refusal is answered with; anything else raised is a bug (500).
# The first kind that matches wins: the narrower ones come before StoreError.
REFUSALS: tuple[tuple[type[FieldError], int], ...] = (
    (GameNotFound, 404),
    (PersonNotFound, 404),
    (PersonBusy, 409),
    (StaleEdit, 409),
    (RoundInPlay, 409),
    (TableChanged, 409),
    (TooFast, 429),  # with Retry-After: its ``count`` seconds (web/errors.py)
    (StoreError, 400),
    (SetupError, 400),
    (SettingsError, 400),
)


@contextmanager
def refusals() -> Iterator[None]:
    """Turn a validator's error into :class:`Refused` with its status, code and field."""
    try:
        yield
    except tuple(kind for kind, _ in REFUSALS) as exc:
        status = next(code for kind, code in REFUSALS if isinstance(exc, kind))
        refused = Refused.because(exc, status)
        if isinstance(exc, StaleEdit):
            refused.extra = exc.game  # the round as it is now, and the version
        raise refused from exc


def other_game() -> Refused:
    """The running game is not the one the asker saw (409)."""
    return Refused(409, "another game started meanwhile: look again", code="other_game")


def not_simulated(backend: str) -> Refused:
    """No simulated pins on ``backend`` (404)."""
    why = f"the {backend} backend has no simulated pins"
    return Refused(404, why, code="not_simulated", backend=backend)
