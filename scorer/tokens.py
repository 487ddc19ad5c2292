"""Scorekeeper tokens: made unguessable, compared in constant time (for :mod:`scorer.store`)."""

from __future__ import annotations

import hmac
import secrets


def new_token() -> str:
    """A fresh unguessable scorekeeper token for a new game."""
    return secrets.token_urlsafe(18)


def tokens_match(expected: str | None, given: str | None) -> bool:
    """Compare tokens in constant time; ``None`` or empty never matches."""
    if not expected or not given:
        return False
    return hmac.compare_digest(expected.encode(), given.encode())
