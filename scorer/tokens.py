"""Scorekeeper tokens: made unguessable, kept only as their SHA-256, compared in
constant time (for :mod:`scorer.store` and the hub's short-lived table tokens)."""

from __future__ import annotations

import hashlib
import hmac
import secrets


def new_token() -> str:
    """A fresh unguessable scorekeeper token for a new game."""
    return secrets.token_urlsafe(18)


def hash_token(token: str) -> str:
    """The SHA-256 of ``token`` (hex): what is kept instead of the token."""
    return hashlib.sha256(token.encode("utf-8", "surrogatepass")).hexdigest()


def tokens_match(expected_hash: str | None, given: str | None) -> bool:
    """Whether ``given`` hashes to ``expected_hash``, compared in constant time;
    ``None`` or empty never matches."""
    if not expected_hash or not given:
        return False
    return hmac.compare_digest(expected_hash.encode(), hash_token(given).encode())
