"""The games the hub keeps: each change is stored and the table follows it.

A request (a web server worker, the bot table) starts, scores, blocks, ends or brings
back a game here: it writes to the store on its own thread, then posts the matching
core event and waits for the loop, never the other way round. What the table itself
ends (a long hold, a blocked round, an undo that reopens one) comes back as a
:class:`~hub.core.effects.RoundEnded` / ``RoundReopened`` effect, which
:meth:`Games.record` records on the store writer thread, as it does a
:class:`~hub.core.effects.TablePlayed` (a double, a last-tile call) for the players'
statistics. A new game's players are remembered unless ``remember_players`` is off
(the privacy setting of that name). What a phone asks for is bounded in rate before
it gets here (:mod:`hub.games.limits`, by the web adapter).
"""

from __future__ import annotations

import logging
import threading
from collections.abc import Mapping, Sequence
from typing import Any

from hub.core import entries, follow
from hub.core.effects import RoundEnded, RoundReopened, TablePlayed
from hub.core.events import (
    DoubleFixed,
    EngineSet,
    GameEnded,
    GameResumed,
    GameStarted,
    PublicFixed,
    RoundBlocked,
    TurnFixed,
    UndoRequested,
)
from hub.core.state import PLAYING, Table
from hub.core.undo import fix_refusal, moved_since
from hub.io.clock import Clock
from hub.persist.storage import BackupService
from hub.persist.store_writer import StoreWriter
from hub.runtime.broadcast import Broadcaster
from hub.runtime.eventlog import EventLog
from hub.runtime.loop import HubLoop
from scorer.errors import FieldError
from scorer.games import KEEP, WentOut
from scorer.setup import GameSetup
from scorer.store import GameStore, new_token

# The log entries of a game's score edits, each naming its ``game``.
GameNews = (
    entries.ScoreEntry
    | entries.BlockedEntry
    | entries.GameEndedEntry
    | entries.HandedOverEntry
    | entries.GameBackEntry
)
log = logging.getLogger("hub")


class RoundInPlay(FieldError):
    """Scores for the round the table is still playing, without ``mid_round``: the
    API answers 409 (a round is saved by accident no more)."""

    def __init__(self, round: int) -> None:
        super().__init__(
            f"Round {round} is still being played on the table. Save its scores once "
            "someone has gone out or the round is blocked, or confirm that you want to "
            "save them now.",
            "mid_round",
            code="round_in_play",
            round=round,
        )
        self.round = round


class Games:
    """The store and the table kept in step (thread-safe: any request thread).

    ``backups`` (None in tests on a store of their own) backs the database up when
    a game finishes.
    """

    def __init__(
        self,
        store: GameStore,
        writer: StoreWriter,
        loop: HubLoop,
        clock: Clock,
        broadcaster: Broadcaster,
        eventlog: EventLog,
        backups: BackupService | None,
    ) -> None:
        self.store, self.writer, self.loop, self.clock = store, writer, loop, clock
        self.broadcaster, self.eventlog, self.backups = broadcaster, eventlog, backups
        self.remember_players = True  # the privacy setting: new games' players remembered
        self.hide_stats = False  # the other: another game's news reaches no viewer
        # Keeps the table in step with the store when score requests race each other.
        self._rounds_lock = threading.Lock()

    def new_game(self, setup: GameSetup, replaces: int | None = None) -> tuple[int, str]:
        """Store a new game and start its round 1 on the table; returns (id, token).
        ``replaces``: the unfinished game it replaces, marked abandoned."""
        token = new_token()
        game_id = self.store.create_game(
            setup, token=token, replaces=replaces, remember=self.remember_players
        )
        self.loop.submit(
            GameStarted(
                game_id=game_id,
                rules=setup.rules,
                players=setup.players,
                seats=setup.seats,
                mexican_slot=setup.mexican_slot,
                set_max=setup.set_max,
                rounds=setup.rounds,
                at=self.clock.now(),
                first=setup.first,
                options=setup.options,
            )
        ).result(5.0)
        return game_id, token

    def round_scored(self, game: dict[str, Any]) -> None:
        """A score change was stored: tell phones, and the table follows the store
        (:func:`hub.core.follow.steps`: the next round begins, or the game finished).

        The store is read again under a lock, so racing requests can neither advance
        the table twice nor publish an older game after a newer one.
        """
        with self._rounds_lock:
            stored = self.store.get_game(game["id"])
            events = follow.steps(self.loop.table, stored, self.clock.now(), restart=False)
            if events is not None:  # the rounds scored, the game finished
                for event in events:
                    self.loop.post(event)
                self.loop.drain()
            self._news(stored)
        if stored["finished"]:
            self._backup(f"game{stored['id']}")

    def score_round(
        self,
        game_id: int,
        round: int,
        *,
        points: Mapping[str, int] | None = None,
        tiles: Mapping[str, Sequence[str]] | None = None,
        went_out: WentOut = KEEP,
        by: str = "scorekeeper",
        based_on: int | None = None,
        mid_round: bool = False,
    ) -> dict[str, Any]:
        """Record (or correct) a round's scores; the table follows. Returns the game.
        ``based_on``: the game's version the editor saw (``StaleEdit`` if it moved on).
        ``mid_round``: the caller means to score the round the table is still playing
        (else that raises ``RoundInPlay``).

        Raises the store's ``StoreError`` (``GameNotFound``) and then changes nothing.
        """
        self.writer.flush()  # a round the table just ended is in the store first
        table = self.loop.table.game
        if (
            not mid_round
            and table is not None
            and table.id == game_id
            and table.round == round
            and table.phase in PLAYING
        ):
            raise RoundInPlay(round)
        game = self.store.record_round(
            game_id, round, points, tiles=tiles, went_out=went_out, by=by, based_on=based_on
        )
        scored = next(r for r in game["rounds"] if r["round"] == round)
        self._log(entries.ScoreEntry(game_id, round, scored["points"], scored["went_out"], by))
        self.round_scored(game)
        return game

    def block_round(self, game_id: int, round: int) -> dict[str, Any]:
        """Nobody can play: end ``round`` as blocked (on the table too, if it is being
        played there). Returns the game; raises the store's ``StoreError``."""
        self.writer.flush()
        with self._rounds_lock:
            self.store.get_game(game_id)  # GameNotFound before touching the table
            table = self.loop.table
            if (
                table.game is not None
                and table.game.id == game_id
                and table.game.round == round
                and table.game.phase in PLAYING
            ):
                # The loop ends the round; its RoundEnded effect records it (record).
                self.loop.submit(RoundBlocked(self.clock.now())).result(5.0)
                self.writer.flush()
            game = self.store.get_game(game_id)
            if not any(r["round"] == round and r["blocked"] for r in game["rounds"]):
                game = self.store.set_blocked(game_id, round)
            self._log(entries.BlockedEntry(game_id, round))
            self._news(game)
        return game

    def end_game(self, game_id: int) -> dict[str, Any]:
        """Stop a game early (after its last scored round); the table shows it finished."""
        self.writer.flush()
        with self._rounds_lock:
            game = self.store.finish_game(game_id)
            table = self.loop.table
            if table.game is not None and table.game.id == game_id:
                self.loop.submit(GameEnded(self.clock.now())).result(5.0)
            self._log(entries.GameEndedEntry(game_id, game["winner"]))
            self._news(game)
        self._backup(f"game{game_id}")
        return game

    def get_game(self, game_id: int) -> dict[str, Any]:
        """A stored game as the API shows it, after every write the loop ordered so far
        (a round the table just ended is in it); raises the store's ``GameNotFound``."""
        self.writer.flush()
        return self.store.get_game(game_id)

    def _backup(self, reason: str) -> None:
        """A game finished: back the database up, on the backup thread."""
        if self.backups is not None:
            self.backups.request(reason)

    def _shown(self, game_id: object) -> bool:
        """Whether a game's news may reach everyone: ``hide_stats`` is off, or it is
        the game on the table (the phones' streams and the broker reach viewers too)."""
        shown = self.loop.table.game
        return not self.hide_stats or (shown is not None and shown.id == game_id)

    def _news(self, game: dict[str, Any]) -> None:
        """A game's news to the phones and MQTT (unless hidden: :meth:`_shown`)."""
        if self._shown(game["id"]):
            self.broadcaster.publish("game", game)

    def _log(self, entry: GameNews) -> None:
        """A score edit for ``GET /api/log`` and the ``event`` subscribers (MQTT),
        unless another game's while ``hide_stats`` is on (:meth:`_shown`)."""
        kept = self.eventlog.append(entry)
        if self._shown(entry.game):
            self.broadcaster.publish("event", kept)

    def hand_over(self, game_id: int, token: str) -> str | None:
        """The phone that opened a hand-over link takes the scorekeeping: ``token`` (the
        link's) stops working and the new token is returned (None: not the game's).
        The game's news goes out, so the phone that handed over learns it at once."""
        self.writer.flush()
        fresh = self.store.hand_over(game_id, token)
        if fresh is not None:
            self._log(entries.HandedOverEntry(game_id))
            self._news(self.store.get_game(game_id))
        return fresh

    def bring_back(self, game_id: int, replaces: int | None = None) -> dict[str, Any]:
        """Put an abandoned game back on the table; ``replaces``, the unfinished game
        there, is abandoned instead. Returns the game; raises the store's errors."""
        self.writer.flush()
        with self._rounds_lock:
            game = self.store.bring_back(game_id, replaces)
            self.resume(game)
            self.loop.drain()
            self._log(entries.GameBackEntry(game_id, replaces))
            self._news(game)
        return game

    def resume(self, game: dict[str, Any] | None = None) -> None:
        """Post ``game`` (default: the store's unfinished one, if any) to the table as
        it stands: its round, that round's engine, and whether it is over."""
        game = game or self.store.current_game()
        if game is None:
            return
        current = game["rounds"][-1] if game["rounds"] else None
        over = bool(current and (current.get("went_out") or current.get("blocked")))
        options = tuple(sorted((game.get("options") or {}).items()))
        self.loop.post(
            GameResumed(
                game_id=game["id"],
                rules=game["rules"],
                players=tuple(game["players"]),
                seats=tuple(game["seats"]),
                mexican_slot=game["mexican_slot"],
                set_max=game["set"],
                rounds=game["round_count"],
                round=game["round"],
                at=self.clock.now(),
                first=game["first"],
                options=options,
                round_over=over,
                engine=current["engine"] if current else None,
            )
        )
        log.info("resumed game %s at round %s", game["id"], game["round"])

    # --- putting mistakes right -------------------------------------------------------

    def undo(
        self, by: str = "scorekeeper", seen: int | None = None, stamp: int | None = None
    ) -> dict[str, Any]:
        """Take back the last table action (as the centre's long hold does); returns
        the snapshot after it (an undo with nothing to take back plays ``nope``).

        ``seen`` and ``stamp``: the snapshot's ``undo`` and ``undo_stamp`` the asker
        saw. When the table has since taken or lost an action (a second tap of a double
        tap, another phone's undo, a press at the hub) nothing is undone and
        :class:`TableChanged` says so."""
        event = UndoRequested(self.clock.now(), by)
        if seen is None and stamp is None:
            self.loop.post(event)
        else:

            def moved(table: Table) -> FieldError | None:
                return moved_since(table, seen, stamp)

            self.loop.submit(event, unless=moved).result(5.0)
        # The drain waits for the journal, written on the store writer's thread after
        # the reopened round it was handed first: that is out of the store when we answer.
        self.loop.drain()
        return self.loop.snapshot

    def fix_table(self, fix: TurnFixed | DoubleFixed | PublicFixed) -> dict[str, Any]:
        """Set the table right by hand; raises a :class:`scorer.errors.FieldError` saying
        why it cannot be done now (and then changes nothing). Returns the snapshot after."""
        error = self.loop.call(lambda table: fix_refusal(table, fix))
        if isinstance(error, FieldError):
            raise error
        self.loop.post(fix)
        self.loop.drain()
        return self.loop.snapshot

    def set_engine(
        self, game_id: int, round: int, engine: int, by: str = "scorekeeper"
    ) -> dict[str, Any]:
        """Name round ``round``'s engine (``aces``); the table follows when it plays that
        round. Returns the game; raises the store's ``StoreError``."""
        with self._rounds_lock:
            game = self.store.set_engine(game_id, round, engine)
            table = self.loop.table
            if table.game is not None and table.game.id == game_id and table.game.round == round:
                self.loop.post(EngineSet(engine, self.clock.now(), by))
                self.loop.drain()
            self._news(game)
        return game

    def record(self, effect: RoundEnded | RoundReopened | TablePlayed) -> None:
        """The table ended (or an undo reopened) a round, or saw a play the statistics
        count (loop thread): record it on the writer thread, never the loop's."""
        if isinstance(effect, TablePlayed):
            play = (effect.game_id, effect.round, effect.player, effect.kind)
            note = self.store.forget_play if effect.undone else self.store.note_play
            self.writer.submit(lambda: note(*play))
        else:
            self.writer.submit(lambda: self._record_round_end(effect))

    def _record_round_end(self, effect: RoundEnded | RoundReopened) -> None:
        if isinstance(effect, RoundReopened):
            game = self.store.reopen_round(effect.game_id, effect.round)
        elif effect.went_out is not None:
            game = self.store.set_went_out(effect.game_id, effect.round, effect.went_out)
        else:
            game = self.store.set_blocked(effect.game_id, effect.round)
        self._news(game)  # phones ask for the hands
