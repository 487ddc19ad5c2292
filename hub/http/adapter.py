"""The hub as the web layer sees it: :class:`HubWebService` implements
:class:`web.service.HubService` on top of the composition root's parts.

Every method runs on the requesting thread (a web server worker). It may wait (for the
loop to apply an event, for the store writer to finish) or write to SQLite; a held
simulated press is released by a timer (``*_later`` answer with a future). None of
that happens on the loop thread. The validators' errors become
:class:`scorer.errors.Refused` here (their code, params and field kept), so the web
layer needs to know no hub type.
"""

from __future__ import annotations

import time
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from typing import Any, Protocol

from hub.core.events import DoubleFixed, PublicFixed, TurnFixed
from hub.games import forget
from hub.games.changes import Games
from hub.games.limits import WriteLimits
from hub.games.trust import TableTrust
from hub.http.answers import Answers
from hub.http.players import PlayerReads, PlayerRequests
from hub.http.refusals import other_game, refusals
from hub.http.sim import Later, SimRequests, SimulatedPins, WebLoop
from hub.runtime.eventlog import EventLog
from hub.runtime.settings import check, settings_view
from hub.runtime.timers import Timers
from hub.selftest.session import SelftestSession
from scorer.errors import FieldError, Refused
from scorer.setup import check_setup


class StoreReads(PlayerReads, Protocol):
    """The store's queries a request answers from (:class:`scorer.store.GameStore`)."""

    def check_token(self, game_id: int, token: str) -> bool:
        """Whether ``token`` is the game's scorekeeper token."""

    def list_games(
        self, before: int | None = None, limit: int | None = None
    ) -> list[dict[str, Any]]:
        """A page of the stored games, newest first: below id ``before``, ``limit`` of them."""

    def round_history(self, game_id: int, number: int) -> list[dict[str, Any]]:
        """The edits of one round's scores."""


@dataclass(frozen=True)
class WebParts:
    """The parts of the hub a request may reach, handed in by the composition root:
    ``store`` is read after ``flush()`` (the writes the loop ordered so far);
    ``apply_settings`` checks, saves and applies a change and returns the settings;
    ``limits`` bound the new games and corrections a phone may ask for."""

    backend: str
    default_rules: str
    loop: WebLoop
    games: Games
    limits: WriteLimits
    trust: TableTrust
    store: StoreReads
    flush: Callable[[], None]
    now: Callable[[], float]
    eventlog: EventLog
    settings_now: Callable[[], dict[str, Any]]
    apply_settings: Callable[[dict[str, Any]], dict[str, Any]]
    sound_status: Callable[[], dict[str, Any]]
    selftest: SelftestSession
    sim: SimulatedPins | None
    # refuses (FieldError) a new game whose player's name the voice takes too long to say
    check_players: Callable[[Sequence[str]], None] = lambda players: None


class HubWebService(PlayerRequests, SimRequests):
    """What a request may ask of the hub's ``parts`` (see :class:`web.service.HubService`):
    ``sleep`` None (the composition root): real time; a held press is released by a
    timer thread, not by a sleeping request thread, and a press the loop has not
    answered in ``LOOP_TIMEOUT_S`` fails. A ``sleep`` given (a test's virtual clock):
    every wait advances it, ``timers`` run the calls (a test's inline fake), and
    nothing gives up."""

    def __init__(
        self,
        parts: WebParts,
        sleep: Callable[[float], None] | None = None,
        timers: Later | None = None,
    ) -> None:
        self._parts = parts
        self._players_store, self._players_flush = parts.store, parts.flush
        follow = forget.ForgetParts(
            parts.games.loop,
            parts.eventlog.rewrite,
            parts.games.broadcaster.publish,
            parts.games.get_game,
            parts.settings_now,
            parts.apply_settings,
            parts.now,
        )
        self._players_forgotten = lambda forgotten: forget.follow(follow, forgotten)
        self._players_answers = Answers(lambda: parts.store.changes)
        self._loop = parts.loop
        self._sim_pins, self._sim_backend = parts.sim, parts.backend
        self._sleep = sleep or time.sleep
        self._times_out = sleep is None
        self._timers: Later = timers if timers is not None else Timers()

    @property
    def backend(self) -> str:
        """The input backend."""
        return self._parts.backend

    @property
    def default_rules(self) -> str:
        """The configured profile of a new game that names none."""
        return self._parts.default_rules

    def snapshot(self) -> dict[str, Any]:
        """The current snapshot (swapped atomically by the loop: no lock, no wait)."""
        return self._loop.snapshot

    def recent_log(self, limit: int) -> list[dict[str, Any]]:
        """The newest ``limit`` log entries, oldest first."""
        return self._parts.eventlog.recent(limit)

    # --- putting the table right ------------------------------------------------------
    def _on_table(self, game_id: int) -> None:
        if self.running_game() != game_id:
            why = f"game {game_id} is not being played on the table"
            raise Refused(409, why, code="not_on_table", game=game_id)

    def undo(
        self, game_id: int, seen: int | None = None, stamp: int | None = None
    ) -> dict[str, Any]:
        """Undo the game's last table action (the snapshot after it); ``seen`` and
        ``stamp``: the snapshot's ``undo`` and ``undo_stamp`` the phone saw (409 when
        the table moved since)."""
        self._on_table(game_id)
        with refusals():
            return self._parts.games.undo(seen=seen, stamp=stamp)

    def fix_table(
        self,
        game_id: int,
        *,
        turn: int | None = None,
        double: tuple[int | None, int, int | None] | None = None,
        public: tuple[int, bool] | None = None,
    ) -> dict[str, Any]:
        """Set whose turn, the open double or a public flag right by hand."""
        self._on_table(game_id)
        now = self._parts.now()
        fix: TurnFixed | DoubleFixed | PublicFixed
        if turn is not None:
            fix = TurnFixed(turn, now)
        elif public is not None:
            fix = PublicFixed(public[0], public[1], now)
        else:
            assert double is not None
            fix = DoubleFixed(double[0], now, covers_left=double[1], responsible=double[2])
        try:
            return self._parts.games.fix_table(fix)
        except FieldError as exc:
            raise Refused.because(exc, 409) from exc

    def set_engine(self, game_id: int, number: int, engine: int) -> dict[str, Any]:
        """Name a round's engine (``aces``)."""
        with refusals():
            return self._parts.games.set_engine(game_id, number, engine)

    # --- games ----------------------------------------------------------------------

    def new_game(self, body: object, replaces: int | None = None) -> tuple[int, str]:
        """Check the body, store the game and start it, abandoning ``replaces`` (proved)."""
        with refusals():
            setup = check_setup(body, self.default_rules)
            if self.running_game() != replaces:
                raise other_game()
            self._parts.limits.new_game()  # TooFast: 429, nothing stored
            try:  # last: it may run the engine (the names measured once each)
                self._parts.check_players(setup.players)
            except FieldError as exc:
                raise Refused.because(exc) from exc
            started = self._parts.games.new_game(setup, replaces)
        self._parts.selftest.game_started()  # the table's presses are the game's now
        return started

    def bring_back(self, game_id: int, replaces: int | None = None) -> dict[str, Any]:
        """Put an abandoned game back on the table."""
        with refusals():
            if self.running_game() != replaces:
                raise other_game()
            game = self._parts.games.bring_back(game_id, replaces)
        self._parts.selftest.game_started()
        return game

    def start_claim(self, asker: str = "") -> dict[str, Any]:
        """Light a slot for ``asker`` and wait for its chord (see :mod:`hub.games.trust`)."""
        return self._parts.trust.start(asker)

    def claim_status(self, claim: str) -> dict[str, Any]:
        """Where a claim stands."""
        return self._parts.trust.status(claim)

    def check_table(self, token: str) -> bool:
        """Whether ``token`` is a live table token."""
        return self._parts.trust.check_table(token)

    def running_game(self) -> int | None:
        """The game on the table, unless it is finished."""
        game = self._loop.table.running_game
        return None if game is None else game.id

    def check_token(self, game_id: int, token: str) -> bool:
        """Whether ``token`` is the game's scorekeeper token."""
        return self._parts.store.check_token(game_id, token)

    def hand_over(self, game_id: int, token: str) -> str | None:
        """The scorekeeping to the phone that opened a hand-over link."""
        with refusals():
            return self._parts.games.hand_over(game_id, token)

    def list_games(self, before: int | None = None, limit: int = 20) -> list[dict[str, Any]]:
        """A page of the stored games (after the writes the loop ordered so far)."""
        self._parts.flush()
        return self._parts.store.list_games(before, limit)

    def get_game(self, game_id: int) -> dict[str, Any]:
        """One stored game (404 when there is none)."""
        with refusals():
            return self._parts.games.get_game(game_id)

    def round_history(self, game_id: int, number: int) -> list[dict[str, Any]]:
        """The edits of one round's scores."""
        self._parts.flush()
        with refusals():
            return self._parts.store.round_history(game_id, number)

    def score_round(self, game_id: int, number: int, **scores: Any) -> dict[str, Any]:
        """Record or correct a round's scores; the table follows. A correction (of a
        round scored already) beyond its budget is refused (429) and writes nothing."""
        with refusals():
            rounds = self._parts.games.get_game(game_id)["rounds"]
            if any(r["round"] == number and r["finished"] for r in rounds):
                self._parts.limits.correction(game_id)
            return self._parts.games.score_round(game_id, number, **scores)

    def block_round(self, game_id: int, number: int) -> dict[str, Any]:
        """End a round as blocked."""
        with refusals():
            return self._parts.games.block_round(game_id, number)

    def end_game(self, game_id: int) -> dict[str, Any]:
        """Finish a game early."""
        with refusals():
            return self._parts.games.end_game(game_id)

    # --- settings -------------------------------------------------------------------

    def settings(self) -> dict[str, Any]:
        """The settings, each menu's ``choices`` and the sound player's status."""
        return settings_view(self._parts.settings_now(), self._parts.sound_status())

    def change_settings(self, changes: object) -> dict[str, Any]:
        """Check, save (fsync, on this thread) and apply a settings change."""
        with refusals():
            values = self._parts.apply_settings(check(changes))
        return settings_view(values, self._parts.sound_status())

    # --- the self-test on the page -------------------------------------------------------

    def selftest(self) -> dict[str, Any]:
        """The page's self-test: running or not, the step waiting, the results."""
        return self._parts.selftest.status()

    def selftest_action(
        self,
        action: str,
        tokens: tuple[str, ...] = (),
        proven: bool = False,
        step: int | None = None,
    ) -> dict[str, Any]:
        """Start, answer, skip or stop the self-test; its status after."""
        return self._parts.selftest.act(action, tokens, proven, step)
