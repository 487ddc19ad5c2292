"""The store's questions and changes about players across evenings, as a part of
:class:`scorer.store.GameStore` (its base class): each runs the pure functions of
:mod:`scorer.player_stats` (statistics by SQL), :mod:`scorer.evening` (an evening's
summary) and :mod:`scorer.people` (rename, merge, forget) through the two doors the
store opens, a read snapshot (:meth:`Roster._ask`) and a write transaction
(:meth:`Roster._change`). No connection here: the store holds them.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from scorer import evening, people, player_stats


class Roster:
    """The players-across-evenings part of the game store (see the module)."""

    def _ask(self, question: Callable[..., Any], *args: Any) -> Any:
        """``question(sql, *args)`` on one read snapshot (the store's)."""
        raise NotImplementedError

    def _change(self, change: Callable[..., Any], *args: Any) -> Any:
        """``change(sql, *args)`` in one write transaction (the store's)."""
        raise NotImplementedError

    def scrub(self) -> None:
        """Leave no deleted text in the database's files (the store's)."""
        raise NotImplementedError

    def note_play(self, game_id: int, round: int, name: str, kind: str) -> None:
        """The table saw ``name`` play a double or call their last tile (``kind``)."""
        self._change(people.note_play, game_id, round, name, kind)

    def forget_play(self, game_id: int, round: int, name: str, kind: str) -> None:
        """An undo took back such a play: one note of it goes (the newest)."""
        self._change(people.forget_play, game_id, round, name, kind)

    def players(self) -> list[dict[str, Any]]:
        """Every remembered player, most recently seen first (``GET /api/players``)."""
        return list(self._ask(player_stats.players))

    def player(self, person_id: int) -> dict[str, Any]:
        """One player's statistics (:func:`scorer.player_stats.player_view`)."""
        return dict(self._ask(player_stats.player, person_id))

    def head_to_head(self, a: int, b: int) -> dict[str, Any]:
        """Players ``a`` and ``b`` in the games both played."""
        return dict(self._ask(player_stats.head_to_head, a, b))

    def season(self, since: str | None = None) -> dict[str, Any]:
        """The season table since ``since`` (``YYYY-MM-DD``; None: every game)."""
        return dict(self._ask(player_stats.season, since))

    def evening(self, game: int | None = None) -> dict[str, Any]:
        """The summary of game ``game``'s evening (None: the latest evening)."""
        return dict(self._ask(evening.evening, game))

    def rename_player(self, person_id: int, name: str) -> dict[str, Any]:
        """Rename a remembered player in every game at once; returns the player."""
        self._change(people.rename, person_id, name)
        return self.player(person_id)

    def merge_players(self, source: int, into: int) -> dict[str, Any]:
        """Player ``source`` (a typo) becomes ``into`` in every game; returns ``into``."""
        self._change(people.merge, source, into)
        return self.player(into)

    def forget_player(self, person_id: int) -> people.Forgotten:
        """Forget a player: each of their seats keeps an anonymous name (the seat's
        number), their row goes, and the files keep no trace of it (:meth:`scrub`).
        Returns what changed, for the hub to follow (:class:`scorer.people.Forgotten`)."""
        forgotten: people.Forgotten = self._change(people.forget, person_id)
        self.scrub()
        return forgotten
