"""The game store's reads, without the database: the SQL of every query
:mod:`scorer.store` makes (one game's rows, the games newest first, the current game, a
game's token hashes, a round's score edits) and what is made of their rows: one game's
:class:`~scorer.games.GameRecord`, a listed game's summary.

The statements that write are in :mod:`scorer.rows`. Pure, like the rest of
:mod:`scorer`: :mod:`scorer.store` runs every query here inside its own read
transactions, on its own connections.
"""

from __future__ import annotations

import json
from collections.abc import Iterable, Mapping, Sequence
from typing import Any

from scorer.games import GameRecord, RoundRecord
from scorer.rows import GameNotFound

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
GAME_IDS = "SELECT id FROM games ORDER BY id DESC"  # newest first
CURRENT = (  # the newest game still on the table: unfinished, not abandoned
    "SELECT id FROM games WHERE finished_at IS NULL AND abandoned_at IS NULL"
    " ORDER BY id DESC LIMIT 1"
)
TOKEN_HASHES = "SELECT hash FROM tokens WHERE game_id = ?"
HISTORY = (  # a round's score edits, oldest first
    "SELECT player, old_points AS old, new_points AS new, edited_by AS by,"
    " edited_at AS at FROM score_edits WHERE game_id = ? AND round = ? ORDER BY id"
)
SUMMARY = (
    "id",
    "created_at",
    "rules",
    "players",
    "round",
    "round_count",
    "finished",
    "abandoned",
    "winner",
)


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
        raise GameNotFound(f"game {game_id}: no such game", code="game_missing", game=game_id)
    seats = list(seated)
    names = [p["name"] for p in seats]
    played = [RoundRecord(r[0], r[1], r[2], bool(r[3]), bool(r[4])) for r in rounds]
    points = {(r["round"], r["player"]): r["points"] for r in scores}
    for rnd in played:  # in seat order
        rnd.points = {n: points[rnd.round, n] for n in names if (rnd.round, n) in points}
    fields = dict(game) | {"options": json.loads(game["options"])}
    return GameRecord(**fields, players=names, seats=[p["slot"] for p in seats], rounds=played)


def summary(view: Mapping[str, Any]) -> dict[str, Any]:
    """A game as the list of games shows it: the :data:`SUMMARY` keys of its
    :func:`~scorer.games.game_view`."""
    return {key: view[key] for key in SUMMARY}
