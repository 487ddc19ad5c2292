"""The players across evenings as the web layer sees them: a part of
:class:`hub.http.adapter.HubWebService` (its base class), over the store's
:class:`PlayerReads` (:class:`scorer.roster.Roster`, a part of the game store).

Reads and changes run on the requesting thread, after the store writer has written
everything the loop ordered (``flush``). A change to a player at the unfinished game
on the table is refused (409): the table holds their name until it ends.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any, Protocol

from hub.http.answers import Answers
from hub.http.refusals import refusals
from scorer.people import Forgotten


class PlayerReads(Protocol):
    """What the store answers and changes about players (:class:`scorer.roster.Roster`)."""

    changes: int  # the store's count of writes: a kept statistic is valid while it holds

    def players(self) -> list[dict[str, Any]]:
        """Every remembered player, most recently seen first."""
        ...

    def player(self, person_id: int) -> dict[str, Any]:
        """One player's statistics."""
        ...

    def head_to_head(self, a: int, b: int) -> dict[str, Any]:
        """Two players in the games both played."""
        ...

    def season(self, since: str | None = None) -> dict[str, Any]:
        """The season table since a date."""
        ...

    def evening(self, game: int | None = None) -> dict[str, Any]:
        """An evening's summary."""
        ...

    def rename_player(self, person_id: int, name: str) -> dict[str, Any]:
        """Rename a player everywhere."""
        ...

    def merge_players(self, source: int, into: int) -> dict[str, Any]:
        """Merge a typo into the right player."""
        ...

    def forget_player(self, person_id: int) -> Forgotten:
        """Forget a player (their seats stay, anonymous); what changed."""
        ...


class PlayerRequests:
    """The players' calls of :class:`web.service.HubService` (see the module)."""

    _players_store: PlayerReads
    _players_flush: Callable[[], None]
    _players_forgotten: Callable[[Forgotten], None]  # the hub follows a forget
    _players_answers: Answers

    def _players_ask(self, question: Callable[..., Any], *args: Any) -> Any:
        self._players_flush()
        with refusals():
            return question(*args)

    def _players_read(self, question: Callable[..., Any], *args: Any) -> Any:
        """A statistic, computed once per change of the store (hub/http/answers.py)."""
        self._players_flush()
        with refusals():
            return self._players_answers.ask((question.__name__, args), lambda: question(*args))

    def players(self) -> list[dict[str, Any]]:
        """Every remembered player, most recently seen first."""
        return list(self._players_read(self._players_store.players))

    def player(self, person_id: int) -> dict[str, Any]:
        """One player's statistics (404 when there is none)."""
        return dict(self._players_read(self._players_store.player, person_id))

    def head_to_head(self, a: int, b: int) -> dict[str, Any]:
        """Two players side by side."""
        return dict(self._players_read(self._players_store.head_to_head, a, b))

    def season(self, since: str | None) -> dict[str, Any]:
        """The season table since ``since``."""
        return dict(self._players_read(self._players_store.season, since))

    def evening(self, game: int | None) -> dict[str, Any]:
        """The summary of a game's evening (404: no such finished game)."""
        return dict(self._players_read(self._players_store.evening, game))

    def rename_player(self, person_id: int, name: str) -> dict[str, Any]:
        """Rename a player in every game at once."""
        return dict(self._players_ask(self._players_store.rename_player, person_id, name))

    def merge_players(self, source: int, into: int) -> dict[str, Any]:
        """Merge player ``source`` into ``into``."""
        return dict(self._players_ask(self._players_store.merge_players, source, into))

    def forget_player(self, person_id: int) -> None:
        """Forget a player; their games keep an anonymous seat, the hub forgets the
        name wherever else it holds it (:mod:`hub.games.forget`), and no kept statistic
        holds it."""
        self._players_forgotten(self._players_ask(self._players_store.forget_player, person_id))
        self._players_answers.clear()
