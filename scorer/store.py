"""The game store: games, players, rounds, scores and every score edit, in SQLite.

Durability: WAL journal, ``synchronous=FULL``, one ``BEGIN IMMEDIATE`` transaction per
write: nothing acknowledged is lost, refused input changes nothing. The schema version
is ``PRAGMA user_version``; opening a store runs the missing :data:`MIGRATIONS`.

Threads: one writer (the hub loop; a lock serialises writes anyway) and any number of
readers, each on a connection no other read is using, in a read transaction (a snapshot
that never blocks the writer); idle reader connections are kept. ``path``: a file.

Time: every write takes ``at`` (ISO 8601, the caller's event time), else ``now()``.
The rules and SQL are the pure :mod:`scorer`'s (:mod:`scorer.games`; the errors, here
re-exported; the writes :mod:`scorer.rows`; the queries :mod:`scorer.queries`)."""

from __future__ import annotations

import sqlite3
import threading
from collections.abc import Callable, Iterator, Mapping, Sequence
from contextlib import contextmanager
from datetime import UTC, datetime
from pathlib import Path
from typing import Any

from scorer import games, history, people, queries, rows
from scorer.errors import FieldError
from scorer.errors import StorageFault as StorageFault
from scorer.games import KEEP, GameRecord, WentOut
from scorer.keepers import Keepers
from scorer.names import skeleton
from scorer.roster import Roster
from scorer.rows import GameNotFound as GameNotFound
from scorer.rows import StaleEdit as StaleEdit
from scorer.rows import StoreError as StoreError
from scorer.schema import MIGRATIONS
from scorer.setup import GameSetup
from scorer.tokens import hash_token as hash_token
from scorer.tokens import new_token as new_token
from scorer.tokens import tokens_match


def utc_now() -> str:
    """The current UTC time as ISO 8601 text: the default ``now`` of :class:`GameStore`."""
    return datetime.now(UTC).isoformat(timespec="seconds")


def _load(conn: sqlite3.Connection, game_id: object) -> GameRecord:
    """Read one game's rows into a :class:`GameRecord` (raises :class:`GameNotFound`)."""
    number = rows.game_number(game_id)
    game = conn.execute(queries.GAME, (number,)).fetchone()
    details = (queries.PLAYERS, queries.ROUNDS, queries.SCORES)
    rows_of = (conn.execute(q, (number,)).fetchall() for q in details)
    return queries.game_record(number, game, *rows_of)


def _run(conn: sqlite3.Connection, statements: list[rows.Statement]) -> None:
    """Execute ``statements`` in order inside the caller's transaction."""
    for sql, parameters in statements:
        conn.execute(sql, parameters)


@contextmanager
def _as_store_error(path: str) -> Iterator[None]:
    """Re-raise the scorer's ValueErrors as :class:`StoreError` and the disk's failures
    (SQLite's operational and damage errors) as :class:`StorageFault`."""
    try:
        yield
    except (StoreError, sqlite3.IntegrityError, sqlite3.ProgrammingError):
        raise  # refused input, or a bug: the log shows its traceback
    except FieldError as error:  # the scorer's refusal, its code and field kept
        raise StoreError(str(error), error.field, code=error.code, **error.params) from error
    except sqlite3.DatabaseError as error:  # read-only, full, I/O error, malformed
        raise StorageFault(f"{path}: {error}") from error


class GameStore(Roster, Keepers):
    """The SQLite game store at ``path`` (created, or migrated, on open).

    ``now`` returns ISO 8601 text; it is used only when a write is given no ``at``.
    Every method raising :class:`StoreError` (a ``ValueError``) has changed nothing.
    """

    def __init__(self, path: str | Path, now: Callable[[], str] = utc_now) -> None:
        self._path = str(path)
        self._now = now
        self._write_lock = threading.Lock()
        self.changes = 0  # writes committed since open: what answers kept are valid for
        self._readers_lock = threading.Lock()
        self._readers: list[sqlite3.Connection] = []  # every reader connection opened
        self._idle: list[sqlite3.Connection] = []  # the readers no read is using now
        self._writer = self._connect()
        try:
            self._migrate()
        except BaseException:  # a newer schema, a damaged file: nothing left open
            self._writer.close()
            raise

    def _connect(self) -> sqlite3.Connection:
        conn = sqlite3.connect(
            self._path, timeout=30, isolation_level=None, check_same_thread=False
        )
        conn.row_factory = sqlite3.Row
        mode = conn.execute("PRAGMA journal_mode = WAL").fetchone()[0]
        if mode != "wal":
            conn.close()
            why = f"{self._path}: cannot use the WAL journal (got {mode})"
            raise StoreError(why, code="storage_mode")
        conn.execute("PRAGMA synchronous = FULL")
        conn.execute("PRAGMA foreign_keys = ON")
        conn.create_function("token_hash", 1, hash_token, deterministic=True)
        conn.create_function("name_skeleton", 1, skeleton, deterministic=True)
        # A forgotten name is overwritten in the file, not left in a free page.
        conn.execute("PRAGMA secure_delete = ON")
        return conn

    @contextmanager
    def _write(self) -> Iterator[sqlite3.Connection]:
        """One write transaction: committed whole, or rolled back on any error."""
        with self._write_lock, _as_store_error(self._path):
            self._writer.execute("BEGIN IMMEDIATE")
            try:
                yield self._writer
                self._writer.execute("COMMIT")
                self.changes += 1
            except BaseException:
                if self._writer.in_transaction:  # SQLite may have rolled back already
                    self._writer.execute("ROLLBACK")
                raise

    @contextmanager
    def _read(self) -> Iterator[sqlite3.Connection]:
        """A consistent read snapshot on a reader connection no other read is using.

        Readers are pooled, not one per thread: a hub opens as many as reads ever ran at
        once (one, mostly), not one per web worker that ever read (each connection holds
        its own page cache and schema; docs/performance.md, "Footprint")."""
        with self._readers_lock:
            conn = self._idle.pop() if self._idle else None
        if conn is None:
            conn = self._connect()
            with self._readers_lock:
                self._readers.append(conn)
        conn.execute("BEGIN")
        try:
            yield conn
        finally:
            conn.execute("COMMIT")
            with self._readers_lock:
                self._idle.append(conn)

    def _migrate(self) -> None:
        with self._write() as conn:
            version = conn.execute("PRAGMA user_version").fetchone()[0]
            if version > len(MIGRATIONS):
                why = f"{self._path}: schema {version} is newer than this program's"
                raise StoreError(why, code="schema_newer")
            for number in range(version + 1, len(MIGRATIONS) + 1):
                for statement in MIGRATIONS[number - 1]:
                    conn.execute(statement)
                conn.execute(f"PRAGMA user_version = {number}")
            if version < 3:  # schema 3: the finished games' places, by their standings
                for (game_id,) in conn.execute(people.FINISHED_UNPLACED).fetchall():
                    view = games.game_view(_load(conn, game_id))
                    _run(conn, people.placing(game_id, view))

    def _stamp(self, at: str | None) -> str:
        stamp = self._now() if at is None else at
        try:
            datetime.fromisoformat(stamp)
        except (TypeError, ValueError):
            why = f"at {stamp!r}: not an ISO 8601 time"
            raise StoreError(why, "at", code="not_a_time") from None
        return stamp

    def close(self) -> None:
        """Close the writer and every reader connection."""
        with self._readers_lock:
            readers, self._readers, self._idle = self._readers, [], []
        for conn in readers:
            conn.close()
        with self._write_lock:
            self._writer.close()

    def settings(self) -> dict[str, Any]:
        """The writer's pragmas: ``journal_mode``, ``synchronous`` (2 = FULL),
        ``foreign_keys``, ``user_version`` (the schema version)."""
        with self._write_lock:
            return {
                name: self._writer.execute(f"PRAGMA {name}").fetchone()[0]
                for name in ("journal_mode", "synchronous", "foreign_keys", "user_version")
            }

    def integrity_ok(self) -> bool:
        """True when SQLite's integrity check and foreign key check find nothing wrong."""
        with self._read() as conn:
            check = conn.execute("PRAGMA integrity_check").fetchall()
            broken = conn.execute("PRAGMA foreign_key_check").fetchall()
        return [tuple(r) for r in check] == [("ok",)] and not broken

    def create_game(
        self,
        setup: GameSetup,
        *,
        token: str,
        at: str | None = None,
        replaces: int | None = None,
        remember: bool = True,
    ) -> int:
        """Store a checked new game (:func:`scorer.setup.check_setup`), start its round 1,
        and return its id. ``token`` (see :func:`new_token`) authorises score edits
        (:meth:`check_token`); only its hash is stored. ``replaces``: the unfinished
        game this one replaces on the table, marked abandoned in the same transaction.
        ``remember``: the players are remembered across evenings (:mod:`scorer.people`).
        """
        stamp, token = self._stamp(at), rows.token_text(token)
        game_row = rows.new_game(setup, hash_token(token), stamp)
        with self._write() as conn:
            game_id = conn.execute(*game_row).lastrowid
            assert isinstance(game_id, int)
            writes = [rows.kept_token(game_id, hash_token(token), stamp)]
            if replaces is not None:
                writes.append(rows.abandon(replaces, stamp))
            _run(conn, writes + rows.seating(game_id, setup))
            if remember:
                _run(conn, people.remember(game_id, setup.players, stamp))
        return game_id

    def get_game(self, game_id: int) -> dict[str, Any]:
        """The game as ``GET /api/games/<id>`` shows it, never with its token (the keys:
        :func:`scorer.games.game_view`). Raises :class:`GameNotFound`."""
        with self._read() as conn:
            return games.game_view(_load(conn, game_id))

    def list_games(
        self, before: int | None = None, limit: int | None = None
    ) -> list[dict[str, Any]]:
        """A page of the games, newest first (:func:`scorer.queries.games_page`)."""
        return list(self._ask(queries.games_page, before, limit))

    def current_game(self) -> dict[str, Any] | None:
        """The newest unfinished game that was not abandoned (to resume after a
        restart), or ``None``."""
        with self._read() as conn:
            row = conn.execute(queries.CURRENT).fetchone()
            return None if row is None else games.game_view(_load(conn, row[0]))

    def check_token(self, game_id: int, token: str | None) -> bool:
        """True when ``token`` is one of the game's scorekeeper tokens (their hashes
        compared in constant time, every one of them)."""
        with self._read() as conn:
            hashes = conn.execute(queries.TOKEN_HASHES, (game_id,)).fetchall()
        return sum(tokens_match(row["hash"], token) for row in hashes) > 0

    def add_token(self, game_id: int, token: str, at: str | None = None) -> None:
        """Give game ``game_id`` another scorekeeper token (a claim at the table); the
        ones it had stay valid. Raises :class:`GameNotFound`."""
        stamp, token = self._stamp(at), rows.token_text(token)
        with self._write() as conn:
            _load(conn, game_id)
            _run(conn, [rows.kept_token(game_id, hash_token(token), stamp)])

    def bring_back(
        self, game_id: int, replaces: int | None = None, at: str | None = None
    ) -> dict[str, Any]:
        """Take an abandoned game back (it is no longer abandoned); ``replaces``, the
        unfinished game on the table, is abandoned instead. Returns the game."""
        stamp = self._stamp(at)
        with self._write() as conn:
            game = _load(conn, game_id)
            if game.finished_at is not None:
                raise StoreError(f"game {game_id} is finished", code="game_finished", game=game_id)
            if replaces is not None and replaces != game_id:
                _run(conn, [rows.abandon(replaces, stamp)])
            _run(conn, [rows.bring_back(game_id)])
            return self._settled(conn, game_id)

    def record_round(
        self,
        game_id: int,
        round: int,
        points: Mapping[str, int] | None = None,
        *,
        tiles: Mapping[str, Sequence[str]] | None = None,
        went_out: WentOut = KEEP,
        by: str = "scorekeeper",
        at: str | None = None,
        based_on: int | None = None,
    ) -> dict[str, Any]:
        """Record (or correct) a round's scores and return the game (:meth:`get_game`).

        Give ``points`` ({name: n}: every player, whole, non-negative, at most what a
        hand can hold this round) or ``tiles`` ({name: ["6-5", …]}: checked against
        the set, for duplicates and for the engine; pips counted with the game's
        double-blank option; whoever went out holds none). ``went_out``: the player
        who went out (scores 0), ``None`` for a blocked round, or :data:`KEEP` for
        what :meth:`set_went_out` / :meth:`set_blocked` recorded (nothing: blocked).
        Scoring the current round finishes it and starts the next (the last one
        finishes the game and records its winner); scoring an earlier round corrects
        it. Each changed score goes into :meth:`round_history` (:mod:`scorer.history`).
        ``based_on``: the game's ``version`` the editor saw; another one raises
        :class:`StaleEdit` (someone else wrote since) and changes nothing.
        Raises :class:`StoreError` (unknown game or player, missing player, bad
        points or tiles, a round not yet played) and then changes nothing.
        """
        stamp = self._stamp(at)
        if (points is None) == (tiles is None):
            raise StoreError("scores: give either points or tiles", code="points_or_tiles")
        with self._write() as conn:
            game = _load(conn, game_id)
            rows.check_version(game, based_on, round)
            if tiles is not None:
                points = games.tile_scores(game, round, tiles, went_out)
            assert points is not None
            change = games.plan_round(game, round, points, went_out)
            _run(conn, rows.round_change(game.id, change, by, stamp))
            history.record(conn.execute, game.id, change, by, stamp)
            return self._settled(conn, game_id)

    @staticmethod
    def _settled(conn: sqlite3.Connection, game_id: int) -> dict[str, Any]:
        """Count the write in the game's version, record a finished game's winner from
        its standings now; return the game."""
        _run(conn, [rows.counted(game_id)])
        game = _load(conn, game_id)
        if game.finished_at is not None:
            game.winner = games.winner_of(game)
            _run(conn, [rows.winner(game_id, game.winner)])
            view = games.game_view(game)
            _run(conn, people.placing(game_id, view))
            return view
        return games.game_view(game)

    def set_went_out(self, game_id: int, round: int, name: str) -> dict[str, Any]:
        """Record who went out of a round (the hub saw the long hold); returns the game.
        :meth:`record_round` finishes the round, with the points. On a round already
        scored, ``name`` must have scored 0."""
        with self._write() as conn:
            games.check_went_out(_load(conn, game_id), round, name)
            _run(conn, [rows.outcome(game_id, round, name)])
            return self._settled(conn, game_id)

    def reopen_round(self, game_id: int, round: int) -> dict[str, Any]:
        """An undo took back an unscored round's end: forget its outcome. Returns the game."""
        with self._write() as conn:
            _load(conn, game_id).round_at(round)
            _run(conn, [rows.reopen(game_id, round)])
            return self._settled(conn, game_id)

    def set_engine(self, game_id: int, round: int, engine: int) -> dict[str, Any]:
        """Name an unscored round's engine (``aces``); returns the game."""
        with self._write() as conn:
            games.check_engine(_load(conn, game_id), round, engine)
            _run(conn, [rows.engine(game_id, round, engine)])
            return self._settled(conn, game_id)

    def set_blocked(self, game_id: int, round: int) -> dict[str, Any]:
        """Record that nobody went out of a round (it was blocked); returns the game."""
        with self._write() as conn:
            _load(conn, game_id).round_at(round)
            _run(conn, [rows.outcome(game_id, round, None)])
            return self._settled(conn, game_id)

    def finish_game(self, game_id: int, at: str | None = None) -> dict[str, Any]:
        """Stop a game early (a shorter series): the unscored current round is dropped,
        the series ends with the last scored round, and the winner is recorded."""
        stamp = self._stamp(at)
        with self._write() as conn:
            played = games.plan_finish(_load(conn, game_id))
            _run(conn, rows.finish(game_id, played, stamp))
            return self._settled(conn, game_id)

    def round_history(self, game_id: int, round: int) -> list[dict[str, Any]]:
        """A round's score history, oldest first: ``player old new by at`` (history.py)."""
        with self._read() as conn, _as_store_error(self._path):
            _load(conn, game_id).round_at(round)
            edits = conn.execute(queries.HISTORY, (game_id, round)).fetchall()
        return [dict(r) for r in edits]

    # --- players across evenings (scorer.people, scorer.player_stats) ------------------

    def _ask(self, question: Callable[..., Any], *args: Any) -> Any:
        """``question(sql, *args)`` on one read snapshot (``sql(text, parameters)``
        returns the rows)."""
        with self._read() as conn, _as_store_error(self._path):
            return question(lambda text, values=(): conn.execute(text, values).fetchall(), *args)

    def _change(self, change: Callable[..., Any], *args: Any) -> Any:
        """``change(sql, *args)`` in one write transaction, foreign keys checked at its
        end (a seat's name changes in every table that holds it)."""
        with self._write() as conn:
            conn.execute("PRAGMA defer_foreign_keys = ON")
            return change(lambda text, values=(): conn.execute(text, values).fetchall(), *args)

    def scrub(self) -> None:
        """Leave no deleted text in the files: checkpoint the WAL into the database and
        truncate it, rebuild the database (VACUUM), and checkpoint again."""
        with self._write_lock, _as_store_error(self._path):
            for statement in ("PRAGMA wal_checkpoint(TRUNCATE)", "VACUUM"):
                self._writer.execute(statement)
            self._writer.execute("PRAGMA wal_checkpoint(TRUNCATE)")
