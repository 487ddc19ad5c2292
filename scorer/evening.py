"""An evening's summary: the games finished one after another at the table (no six
hours without a finished game between them), their winners, the evening's table and
its highlights; by SQL over the few games of that evening (pure text and shaping:
:mod:`scorer.roster` runs it on the store).

The evening is found by the games' finishing times, not by the calendar date, so an
evening that goes past midnight (or past midnight UTC, at a table in Mexico) is one.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping, Sequence
from typing import Any

from scorer.rows import GameNotFound

Sql = Callable[..., list[Any]]  # runs one query (text, parameters): its rows
GAP_DAYS = 0.25  # six hours without a finished game end an evening
LATEST = (
    "SELECT id FROM games WHERE finished_at IS NOT NULL ORDER BY finished_at DESC, id DESC LIMIT 1"
)
AROUND = (  # the finished games within a day of game :game, in the order they finished
    "WITH one AS (SELECT julianday(finished_at) AS day FROM games"
    " WHERE id = :game AND finished_at IS NOT NULL)"
    " SELECT g.id, julianday(g.finished_at) AS day FROM games g, one"
    " WHERE g.finished_at IS NOT NULL AND g.finished_at >= date(one.day - 1)"
    " AND g.finished_at < date(one.day + 2) ORDER BY day, g.id"
)
SEATS = (  # each seat of the evening's games with its game's figures
    "SELECT g.id AS game, g.rules, g.finished_at, g.winner, p.name, p.place, p.won,"
    " coalesce(pe.name, p.name) AS player,"
    " (SELECT coalesce(sum(points), 0) FROM scores s"
    "  WHERE s.game_id = g.id AND s.player = p.name) AS total,"
    " (SELECT count(*) FROM scores s"
    "  WHERE s.game_id = g.id AND s.player = p.name AND s.points = 0) AS zero_rounds,"
    " (SELECT count(*) FROM rounds r"
    "  WHERE r.game_id = g.id AND r.went_out = p.name AND r.finished = 1) AS went_out,"
    " (SELECT count(*) FROM plays pl"
    "  WHERE pl.game_id = g.id AND pl.player = p.name AND pl.kind = 'double') AS doubles"
    " FROM games g JOIN players p ON p.game_id = g.id LEFT JOIN people pe ON pe.id = p.person"
    " WHERE g.id IN ({ids}) ORDER BY g.id, p.place, p.position"
)
HIGHLIGHTS = ("wins", "zero_rounds", "went_out", "doubles")  # most of each, and best_game


def evening_of(rows: Sequence[Mapping[str, Any]], game_id: int) -> list[int]:
    """The ids of game ``game_id``'s evening among ``rows`` (``id``, ``day``, in order)."""
    runs: list[list[int]] = []
    last: float | None = None
    for row in rows:
        if last is None or row["day"] - last > GAP_DAYS:
            runs.append([])
        runs[-1].append(row["id"])
        last = row["day"]
    return next((run for run in runs if game_id in run), [])


def evening(sql: Sql, game: int | None = None) -> dict[str, Any]:
    """The evening of finished game ``game`` (None: the latest evening); an evening
    with no game when none has finished. :class:`GameNotFound` for another game."""
    if game is None:
        latest = sql(LATEST)
        if not latest:
            return evening_view([])
        game = int(latest[0]["id"])
    ids = evening_of(sql(AROUND, {"game": game}), game)
    if not ids:
        raise GameNotFound(
            f"game {game}: no such finished game", code="no_finished_game", game=game
        )
    marks = ", ".join("?" for _ in ids)
    return evening_view(sql(SEATS.format(ids=marks), ids))


def _games(seats: Sequence[Mapping[str, Any]]) -> list[dict[str, Any]]:
    games: dict[int, dict[str, Any]] = {}
    for seat in seats:
        game = games.setdefault(
            seat["game"],
            {
                "id": seat["game"],
                "rules": seat["rules"],
                "finished_at": seat["finished_at"],
                "winner": seat["winner"],
                "players": [],
            },
        )
        game["players"].append(
            {"name": seat["name"], "place": seat["place"], "total": seat["total"]}
        )
    return list(games.values())


def _table(seats: Sequence[Mapping[str, Any]]) -> list[dict[str, Any]]:
    table: dict[str, dict[str, Any]] = {}
    for seat in seats:
        entry = table.setdefault(
            seat["player"],
            {"name": seat["player"], "games": 0, "points": 0} | dict.fromkeys(HIGHLIGHTS, 0),
        )
        entry["games"] += 1
        entry["points"] += seat["total"]
        entry["wins"] += seat["won"]
        for key in ("zero_rounds", "went_out", "doubles"):
            entry[key] += seat[key]
    return sorted(table.values(), key=lambda e: (-e["wins"], e["points"] / e["games"], e["name"]))


def _highlights(
    seats: Sequence[Mapping[str, Any]], table: list[dict[str, Any]]
) -> list[dict[str, Any]]:
    found = []
    for kind in HIGHLIGHTS:
        best = max((entry[kind] for entry in table), default=0)
        if best > 0:
            names = [entry["name"] for entry in table if entry[kind] == best]
            found.append({"kind": kind, "names": names, "value": best})
    if seats:
        low = min(seats, key=lambda s: (s["total"], s["game"]))
        found.append(
            {
                "kind": "best_game",
                "names": [low["player"]],
                "value": low["total"],
                "game": low["game"],
            }
        )
    return found


def evening_view(seats: Sequence[Mapping[str, Any]]) -> dict[str, Any]:
    """The summary (``GET /api/evening``): ``started`` and ``ended`` (the first and last
    game's finishing times), ``games`` (each with its winner and players' places and
    totals), ``players`` (the evening's table: most wins, then fewest points a game)
    and ``highlights`` (who had the most wins, zero rounds, went out, doubles, and the
    lowest game total; each ``{"kind", "names", "value"}``)."""
    games, table = _games(seats), _table(seats)
    return {
        "started": games[0]["finished_at"] if games else None,
        "ended": games[-1]["finished_at"] if games else None,
        "games": games,
        "players": table,
        "highlights": _highlights(seats, table),
    }
