"""The game store's writes, without the database: the errors the store raises and the
checks that raise them (a game's id, a token's text, a stale edit), and the statements
of every write: a new game's row, a token, seats and round 1; abandoning a game and
bringing it back; a round's outcome, engine or reopening; a round's change (its scores,
its outcome, the next round, the end: its history is :mod:`scorer.history`'s); an
early finish; the version a write counts and a finished game's winner.

The queries that read are in :mod:`scorer.queries`. Pure, like the rest of
:mod:`scorer`: :mod:`scorer.store` runs every statement here inside its own write
transactions, on its own connection.
"""

from __future__ import annotations

import json
from typing import Any

from scorer import games
from scorer.errors import FieldError, clip
from scorer.games import GameRecord, RoundChange
from scorer.setup import GameSetup

Statement = tuple[str, tuple[object, ...]]  # SQL and its parameters


class StoreError(FieldError):
    """Input the store refuses (nothing was changed); the message says what and why.

    ``field``, when given, is the request body path at fault (``points.Ann``).
    """


class GameNotFound(StoreError):
    """No game has the given id (an HTTP layer answers 404)."""


class StaleEdit(StoreError):
    """A score edit based on an older version of the game (an HTTP layer answers 409);
    ``game`` is the game as it is now, so the editor sees what changed."""

    def __init__(self, message: str, game: dict[str, Any], round: int) -> None:
        super().__init__(message, "version", code="stale", round=round)
        self.game = game


def game_number(game_id: object) -> int:
    """``game_id`` as a game's id (an int, not a bool); else :class:`GameNotFound`."""
    if isinstance(game_id, bool) or not isinstance(game_id, int):
        raise GameNotFound(f"game {clip(game_id)}: no such game", code="game_missing", game=game_id)
    return game_id


def token_text(token: object) -> str:
    """``token`` when it is non-empty text (what a scorekeeper token must be)."""
    if not isinstance(token, str) or not token:
        raise StoreError("token: must be non-empty text", "token", code="token_text")
    return token


def new_game(setup: GameSetup, token_hash: str, stamp: str) -> Statement:
    """A new game's own row, created at ``stamp``, keeping its first token's hash."""
    return (
        "INSERT INTO games (created_at, rules, set_max, rounds, options, token,"
        " mexican_slot, first_slot) VALUES (?, ?, ?, ?, ?, ?, ?, ?)",
        (
            stamp,
            setup.rules,
            setup.set_max,
            setup.rounds,
            json.dumps(dict(setup.options)),
            token_hash,
            setup.mexican_slot,
            setup.first,
        ),
    )


def kept_token(game_id: int, token_hash: str, stamp: str) -> Statement:
    """A scorekeeper token of the game, kept as its hash (one it has already: no change)."""
    return (
        "INSERT OR IGNORE INTO tokens (game_id, hash, created_at) VALUES (?, ?, ?)",
        (game_id, token_hash, stamp),
    )


def dropped_token(game_id: int, token_hash: str) -> Statement:
    """A scorekeeper token the game no longer accepts (handed over to another phone)."""
    return ("DELETE FROM tokens WHERE game_id = ? AND hash = ?", (game_id, token_hash))


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


def abandon(game_id: int, stamp: str) -> Statement:
    """Mark a game abandoned at ``stamp``, if it is unfinished and not abandoned yet."""
    return (
        "UPDATE games SET abandoned_at = ?, version = version + 1"
        " WHERE id = ? AND finished_at IS NULL AND abandoned_at IS NULL",
        (stamp, game_id),
    )


def bring_back(game_id: int) -> Statement:
    """An abandoned game is abandoned no more."""
    return ("UPDATE games SET abandoned_at = NULL WHERE id = ?", (game_id,))


def engine(game_id: int, round: int, engine: int) -> Statement:
    """Name a round's engine."""
    return (
        "UPDATE rounds SET engine = ? WHERE game_id = ? AND round = ?",
        (engine, game_id, round),
    )


def reopen(game_id: int, round: int) -> Statement:
    """Forget an unscored round's outcome (who went out, or that it was blocked)."""
    return (
        "UPDATE rounds SET went_out = NULL, blocked = 0 WHERE game_id = ? AND"
        " round = ? AND finished = 0",
        (game_id, round),
    )


def outcome(game_id: int, round: int, went_out: str | None, finished: bool = False) -> Statement:
    """Who went out of a round (``None``: blocked); ``finished`` also closes it."""
    return (
        "UPDATE rounds SET went_out = ?, blocked = ?, finished = max(finished, ?)"
        " WHERE game_id = ? AND round = ?",
        (went_out, int(went_out is None), int(finished), game_id, round),
    )


def round_change(game_id: int, change: RoundChange, by: str, stamp: str) -> list[Statement]:
    """A round's new scores, its outcome, the next round (if any) and the game's end
    (if it finishes it); ``by`` is checked here, the history written by
    :func:`scorer.history.record`."""
    if not isinstance(by, str) or not by.strip():
        raise StoreError("by: say who edits the scores", "by", code="editor_missing")
    writes: list[Statement] = []
    for name, _, new in change.edits:
        writes.append(
            (
                "INSERT INTO scores (game_id, round, player, points) VALUES (?, ?, ?, ?)"
                " ON CONFLICT (game_id, round, player) DO UPDATE SET points = excluded.points",
                (game_id, change.round, name, new),
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


def finish(game_id: int, played: int, stamp: str) -> list[Statement]:
    """End a game at ``stamp`` after its ``played`` scored rounds: the unscored one is
    dropped."""
    return [
        ("DELETE FROM rounds WHERE game_id = ? AND finished = 0", (game_id,)),
        ("UPDATE games SET rounds = ?, finished_at = ? WHERE id = ?", (played, stamp, game_id)),
    ]


def counted(game_id: int) -> Statement:
    """One more write, counted in the game's version."""
    return ("UPDATE games SET version = version + 1 WHERE id = ?", (game_id,))


def winner(game_id: int, name: str | None) -> Statement:
    """A finished game's winner."""
    return ("UPDATE games SET winner = ? WHERE id = ?", (name, game_id))


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
        round,
    )
