"""What the web layer needs from the hub: one narrow interface, declared here.

The composition root (:class:`hub.app.Hub`) builds an object with these methods and
hands it to :func:`web.create_app`; request handlers use nothing else, so ``web/``
never imports the hub's runtime and never reaches into the loop or the store.
:class:`tests.fake_service.FakeHubService` is the fake the web tests use.

Refusals are :class:`scorer.errors.Refused`, below both the hub and the web layer; what
a handler may ask of the web server itself is :mod:`hub.wire.serving`.
"""

from __future__ import annotations

from concurrent.futures import Future
from typing import Any, Protocol


class HubService(Protocol):
    """Everything a request may ask of the hub. Refusals raise
    :class:`scorer.errors.Refused`."""

    @property
    def backend(self) -> str:
        """The input backend: ``sim``, ``gpio`` or ``serial``."""

    @property
    def default_rules(self) -> str:
        """The profile a new game plays when its body names none (config ``hub.default_rules``)."""

    def snapshot(self) -> dict[str, Any]:
        """The current hub snapshot (``GET /api/state``); never blocks."""

    def recent_log(self, limit: int) -> list[dict[str, Any]]:
        """The newest ``limit`` hub events, oldest first."""

    def sim_press_later(
        self, slot: int, hold_s: float, centre: bool = False
    ) -> Future[dict[str, Any]]:
        """Press simulated slot ``slot`` for ``hold_s`` seconds (``centre``: the centre
        button held with it, a claim's chord), without waiting: the release is
        scheduled on the hub side and the future resolves with the snapshot once the
        hub has handled it. Refused (404) off the sim backend, at once."""

    def sim_centre_press_later(self, hold_s: float) -> Future[dict[str, Any]]:
        """The simulated centre button, as :meth:`sim_press_later`."""

    def sim_marker(self, slot: int, present: bool) -> dict[str, Any]:
        """Put a marker on (or take it off) simulated slot ``slot``; the snapshot after."""

    def undo(
        self, game_id: int, seen: int | None = None, stamp: int | None = None
    ) -> dict[str, Any]:
        """Undo the last table action of game ``game_id`` (refused 409 unless it is being
        played on the table); the snapshot after. ``seen`` and ``stamp``: the
        snapshot's ``undo`` and ``undo_stamp`` the asker saw; when the table has taken
        or lost an action since, nothing is undone (409 ``undo_moved``)."""

    def fix_table(
        self,
        game_id: int,
        *,
        turn: int | None = None,
        double: tuple[int | None, int, int | None] | None = None,
        public: tuple[int, bool] | None = None,
    ) -> dict[str, Any]:
        """Set one thing right by hand: whose ``turn``; the open ``double`` as
        ``(slot or None to close, covers_left, responsible or None)``; a train's
        ``public`` flag as ``(slot, public)``. Refused 409 when the table cannot take
        it now; the snapshot after."""

    def set_engine(self, game_id: int, number: int, engine: int) -> dict[str, Any]:
        """Name round ``number``'s engine (``aces``); the game after it."""

    def new_game(self, body: object, replaces: int | None = None) -> tuple[int, str]:
        """Check a ``POST /api/games`` body, store the game, start round 1 on the table;
        return ``(id, token)`` once the table shows it. ``replaces``: the unfinished
        game the caller may replace (it is marked abandoned); refused 409 when the
        running game is another one by then."""

    def bring_back(self, game_id: int, replaces: int | None = None) -> dict[str, Any]:
        """Put abandoned game ``game_id`` back on the table, abandoning ``replaces``."""

    def start_claim(self, asker: str = "") -> dict[str, Any]:
        """Ask the table for the scorekeeper role for ``asker`` (the phone's address:
        one waiting claim each): ``{"claim", "slot", "seconds"}``."""

    def claim_status(self, claim: str) -> dict[str, Any]:
        """Where a claim stands (``state``; ``game`` and ``token`` once granted)."""

    def check_table(self, token: str) -> bool:
        """Whether ``token`` is a live table token (the table's proof, no game running)."""

    def running_game(self) -> int | None:
        """The id of the game on the table unless it is finished, else None."""

    def hand_over(self, game_id: int, token: str) -> str | None:
        """A new scorekeeper token for the phone that opened a hand-over link, the
        link's ``token`` no longer valid; None when ``token`` is not the game's."""
        ...

    def check_token(self, game_id: int, token: str) -> bool:
        """Whether ``token`` is game ``game_id``'s scorekeeper token."""

    def settings(self) -> dict[str, Any]:
        """The settings (volume, quiet, turn chime) and ``sound``: the player's status."""

    def change_settings(self, changes: object) -> dict[str, Any]:
        """Check, save and apply a settings change; the settings after it."""

    def list_games(self, before: int | None = None, limit: int = 20) -> list[dict[str, Any]]:
        """A page of the stored games, newest first: those with an id below ``before``
        (None: from the newest), at most ``limit``; its cost is the page's, not the
        store's (``GET /api/games``)."""

    def get_game(self, game_id: int) -> dict[str, Any]:
        """One game (refused 404 when there is none)."""

    def round_history(self, game_id: int, number: int) -> list[dict[str, Any]]:
        """Every edit of one round's scores, oldest first."""

    def score_round(self, game_id: int, number: int, **scores: Any) -> dict[str, Any]:
        """Record or correct a round's ``points`` or ``tiles`` (and ``went_out``); the game."""

    def block_round(self, game_id: int, number: int) -> dict[str, Any]:
        """End round ``number`` as blocked; the game."""

    def end_game(self, game_id: int) -> dict[str, Any]:
        """Finish a game early, after its last scored round; the game."""

    def players(self) -> list[dict[str, Any]]:
        """Every remembered player, most recently seen first: ``id``, ``name``,
        ``games``, ``wins``, ``last_seen``, ``colour``."""

    def player(self, person_id: int) -> dict[str, Any]:
        """One player's statistics (refused 404 when there is none)."""

    def head_to_head(self, a: int, b: int) -> dict[str, Any]:
        """Players ``a`` and ``b`` in the games both played."""

    def season(self, since: str | None) -> dict[str, Any]:
        """The season table since ``since`` (``YYYY-MM-DD``; None: every game)."""

    def evening(self, game: int | None) -> dict[str, Any]:
        """The summary of finished game ``game``'s evening (None: the latest); 404 for
        another game."""

    def rename_player(self, person_id: int, name: str) -> dict[str, Any]:
        """Rename a player in every game (409 at the table or clashing); the player."""

    def merge_players(self, source: int, into: int) -> dict[str, Any]:
        """Merge player ``source`` into ``into`` (409 when both sat at one game)."""

    def forget_player(self, person_id: int) -> None:
        """Forget a player: their games keep an anonymous seat, the name is gone."""

    def selftest(self) -> dict[str, Any]:
        """The page's self-test (hub/selftest/session.py): ``running``, the ``step``
        waiting (prompt, part, pin, whether it wants an answer) and the ``results``."""

    def selftest_action(
        self,
        action: str,
        tokens: tuple[str, ...] = (),
        proven: bool = False,
        step: int | None = None,
    ) -> dict[str, Any]:
        """``start`` (refused 409 while a game is unfinished, 403 unless ``proven``: the
        table's proof or a scorekeeper's token), ``yes``/``no`` (a light or sound step),
        ``skip`` or ``stop`` (403 unless ``proven`` or one of ``tokens`` started it);
        an answer or a skip naming a ``step`` other than the one waiting is a 409;
        the self-test's status after."""
