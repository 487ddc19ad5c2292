"""The game store's pure part, without the database: the errors it raises and the
checks that raise them (a game's id, a token's text, a stale edit); the queries that
read one game and its rows read into a :class:`~scorer.games.GameRecord`; and the
writes that take working out: a new game's seats and round 1, a round's outcome, a
round's change (its scores, their history, its outcome, the next round, the end).

The writes of one plain statement (a game's own row and its tokens, abandoning and
bringing back, an engine, a reopened round, an early finish, the version and winner)
and the queries that list games stay in :mod:`scorer.store`, beside their transaction.
Pure, like the rest of :mod:`scorer`: :mod:`scorer.store` runs every statement here
inside its own transactions, on its own connections.
"""

from __future__ import annotations

import json
from collections.abc import Iterable, Mapping, Sequence
from typing import Any

from scorer import games
from scorer.errors import FieldError
from scorer.games import GameRecord, RoundChange, RoundRecord
from scorer.setup import GameSetup

Statement = tuple[str, tuple[object, ...]]  # SQL and its parameters

GAME = (
    "SELECT id, created_at, rules, set_max, rounds AS round_count, options, mexican_slot,"
    " first_slot AS first, finished_at, winner, abandoned_at, version FROM games"
    " WHERE id = ?"
)
PLAYERS = "SELECT name, slot FROM players WHERE game_id = ? ORDER BY position"
ROUNDS = (
    "SELECT round, engine, went_out, blocked, finished FROM rounds WHERE game_id = ? ORDER BY round"
)
SCORES = "SELECT round, player, points FROM scores WHERE game_id = ?"


class StoreError(FieldError):
    """Input the store refuses (nothing was changed); the message says what and why.

    ``field``, when given, is the request body path at fault (``points.Ann``).
    """


class GameNotFound(StoreError):
    """No game has the given id (an HTTP layer answers 404)."""


class StaleEdit(StoreError):
    """A score edit based on an older version of the game (an HTTP layer answers 409);
    ``game`` is the game as it is now, so the editor sees what changed."""

    def __init__(self, message: str, game: dict[str, Any]) -> None:
        super().__init__(message, "version")
        self.game = game


def game_number(game_id: object) -> int:
    """``game_id`` as a game's id (an int, not a bool); else :class:`GameNotFound`."""
    if isinstance(game_id, bool) or not isinstance(game_id, int):
        raise GameNotFound(f"game {game_id!r}: no such game")
    return game_id


def game_record(
    game_id: int,
    game: Mapping[str, Any] | None,
    seated: Iterable[Mapping[str, Any]],
    rounds: Iterable[Sequence[Any]],
    scores: Iterable[Mapping[str, Any]],
) -> GameRecord:
    """One game from the rows of :data:`GAME` (None: :class:`GameNotFound`),
    :data:`PLAYERS`, :data:`ROUNDS` and :data:`SCORES`."""
    if game is None:
        raise GameNotFound(f"game {game_id}: no such game")
    seats = list(seated)
    names = [p["name"] for p in seats]
    played = [RoundRecord(r[0], r[1], r[2], bool(r[3]), bool(r[4])) for r in rounds]
    points = {(r["round"], r["player"]): r["points"] for r in scores}
    for rnd in played:  # in seat order
        rnd.points = {n: points[rnd.round, n] for n in names if (rnd.round, n) in points}
    fields = dict(game) | {"options": json.loads(game["options"])}
    return GameRecord(**fields, players=names, seats=[p["slot"] for p in seats], rounds=played)


def token_text(token: object) -> str:
    """``token`` when it is non-empty text (what a scorekeeper token must be)."""
    if not isinstance(token, str) or not token:
        raise StoreError("token: must be non-empty text")
    return token


def seating(game_id: int, setup: GameSetup) -> list[Statement]:
    """A new game's players in their seats, and its round 1 with its engine."""
    seated = enumerate(zip(setup.players, setup.seats, strict=True))
    return [
        (
            "INSERT INTO players (game_id, name, slot, position) VALUES (?, ?, ?, ?)",
            (game_id, name, slot, i),
        )
        for i, (name, slot) in seated
    ] + [
        (
            "INSERT INTO rounds (game_id, round, engine) VALUES (?, 1, ?)",
            (game_id, setup.engines[0]),
        )
    ]


def outcome(game_id: int, round: int, went_out: str | None, finished: bool = False) -> Statement:
    """Who went out of a round (``None``: blocked); ``finished`` also closes it."""
    return (
        "UPDATE rounds SET went_out = ?, blocked = ?, finished = max(finished, ?)"
        " WHERE game_id = ? AND round = ?",
        (went_out, int(went_out is None), int(finished), game_id, round),
    )


def round_change(game_id: int, change: RoundChange, by: str, stamp: str) -> list[Statement]:
    """A round's new scores, each edit for its history (``by``, at ``stamp``), its
    outcome, the next round (if any) and the game's end (if it finishes it)."""
    if not isinstance(by, str) or not by.strip():
        raise StoreError("by: say who edits the scores")
    writes: list[Statement] = []
    for name, old, new in change.edits:
        writes.append(
            (
                "INSERT INTO scores (game_id, round, player, points) VALUES (?, ?, ?, ?)"
                " ON CONFLICT (game_id, round, player) DO UPDATE SET points = excluded.points",
                (game_id, change.round, name, new),
            )
        )
        writes.append(
            (
                "INSERT INTO score_edits (game_id, round, player, old_points, new_points,"
                " edited_by, edited_at) VALUES (?, ?, ?, ?, ?, ?, ?)",
                (game_id, change.round, name, old, new, by, stamp),
            )
        )
    writes.append(outcome(game_id, change.round, change.went_out, finished=True))
    if change.next_engine is not None:
        writes.append(
            (
                "INSERT INTO rounds (game_id, round, engine) VALUES (?, ?, ?)",
                (game_id, change.round + 1, change.next_engine),
            )
        )
    if change.finishes:
        writes.append(("UPDATE games SET finished_at = ? WHERE id = ?", (stamp, game_id)))
    return writes


def check_version(game: GameRecord, based_on: int | None, round: int) -> None:
    """Raise :class:`StaleEdit` when an editor saw version ``based_on`` of ``game``
    and it has moved on since (None: the editor does not say)."""
    if based_on is None or based_on == game.version:
        return
    view = games.game_view(game)
    current = next((r for r in view["rounds"] if r["round"] == round), None)
    raise StaleEdit(
        f"version {based_on}: game {game.id} changed since (now version {game.version}); "
        f"see round {round} as it is now",
        {"version": game.version, "round": current},
    )
