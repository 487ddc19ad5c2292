"""The game store's reads, without the database: the SQL of every query
:mod:`scorer.store` makes (one game's rows, a page of the games newest first, the
current game, a game's token hashes, a round's score edits) and what is made
of their rows: one game's :class:`~scorer.games.GameRecord`, a page's summaries.

The statements that write are in :mod:`scorer.rows`. Pure, like the rest of
:mod:`scorer`: :mod:`scorer.store` runs every query here inside its own read
transactions, on its own connections.
"""

from __future__ import annotations

import json
from collections.abc import Callable, Iterable, Mapping, Sequence
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
# A page of the games list, newest first: the games before a cursor (an id), each from
# its own row and its last round's number; the id is the rowid, so the page walks the
# table's own b-tree backwards and reads ``limit`` rows, however many games there are.
LAST_ID = 2**63 - 1  # above every rowid SQLite gives: the cursor of the first page
GAMES_PAGE = (
    "SELECT g.id, g.created_at, g.rules, g.rounds AS round_count,"
    " g.finished_at IS NOT NULL AS finished, g.abandoned_at IS NOT NULL AS abandoned,"
    " CASE WHEN g.finished_at IS NOT NULL THEN g.winner END AS winner,"
    " (SELECT max(r.round) FROM rounds r WHERE r.game_id = g.id) AS round"
    " FROM games g WHERE g.id < ? ORDER BY g.id DESC LIMIT ?"
)
# The seats of the games from one id to another, in seat order (the players' key).
PAGE_PLAYERS = (
    "SELECT game_id, name FROM players WHERE game_id BETWEEN ? AND ? ORDER BY game_id, position"
)
CURRENT = (  # the newest game still on the table: unfinished, not abandoned
    "SELECT id FROM games WHERE finished_at IS NULL AND abandoned_at IS NULL"
    " ORDER BY id DESC LIMIT 1"
)
TOKEN_HASHES = "SELECT hash FROM tokens WHERE game_id = ?"
HISTORY = (  # a round's score edits, oldest first
    "SELECT player, old_points AS old, new_points AS new, edited_by AS by,"
    " edited_at AS at FROM score_edits WHERE game_id = ? AND round = ? ORDER BY id"
)
Sql = Callable[..., list[Any]]  # sql(text, parameters) -> the rows, on one read snapshot
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


def games_page(sql: Sql, before: int | None, limit: int | None) -> list[dict[str, Any]]:
    """The games with an id below ``before`` (None: from the newest), newest first, at
    most ``limit`` (None: all), as the list of games shows them: the :data:`SUMMARY`
    keys, as :func:`~scorer.games.game_view` has them. Each game costs its own row, its
    last round and its seats, read by their keys: a page of 20 costs the same with 10
    games stored or 10,000."""
    start = LAST_ID if before is None else before
    page = sql(GAMES_PAGE, (start, -1 if limit is None else limit))
    ids = (page[-1]["id"], page[0]["id"]) if page else (0, -1)
    names: dict[int, list[str]] = {}
    for seat in sql(PAGE_PLAYERS, ids):
        names.setdefault(seat["game_id"], []).append(seat["name"])
    listed = []
    for game in page:
        row = dict(game) | {"players": names.get(game["id"], [])}
        row["finished"], row["abandoned"] = bool(row["finished"]), bool(row["abandoned"])
        listed.append({key: row[key] for key in SUMMARY})
    return listed
