"""Handing the scorekeeping over from one phone to another, as a part of
:class:`scorer.store.GameStore` (its base class, beside :class:`scorer.roster.Roster`):
the change is pure SQL run through the store's write door (``_change``)."""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from scorer import queries, rows
from scorer.rows import GameNotFound
from scorer.tokens import hash_token, new_token, tokens_match

Sql = Callable[..., list[Any]]


def hand_over(sql: Sql, game_id: object, token: str, stamp: str) -> str | None:
    """In one write: the game's token ``token`` stops being one of its tokens and a new
    one (returned) takes its place; None, and no change, when ``token`` is not the
    game's. Raises :class:`GameNotFound`."""
    number, given = rows.game_number(game_id), rows.token_text(token)
    if not sql(queries.GAME, (number,)):
        raise GameNotFound(f"game {number}: no such game", code="game_missing", game=number)
    hashes = [r["hash"] for r in sql(queries.TOKEN_HASHES, (number,))]
    matched = [h for h in hashes if tokens_match(h, given)]
    if not matched:
        return None
    fresh = new_token()
    for statement in (
        rows.dropped_token(number, matched[0]),
        rows.kept_token(number, hash_token(fresh), stamp),
    ):
        sql(*statement)
    return fresh


class Keepers:
    """The hand-over part of the game store (see the module)."""

    def _change(self, change: Callable[..., Any], *args: Any) -> Any:
        """``change(sql, *args)`` in one write transaction (the store's)."""
        raise NotImplementedError

    def _stamp(self, at: str | None) -> str:
        """``at``, or the store's now (the store's)."""
        raise NotImplementedError

    def hand_over(self, game_id: int, token: str, at: str | None = None) -> str | None:
        """Move the scorekeeping from the phone holding ``token`` to another: that token
        stops being one of the game's and a new one (returned) takes its place; None,
        and no change, when ``token`` is not the game's. Raises :class:`GameNotFound`."""
        fresh: str | None = self._change(hand_over, game_id, token, self._stamp(at))
        return fresh
