"""Players' statistics as SQL (pure text; :mod:`scorer.store` runs the queries).

Every figure counts a player's *finished* games (``games.finished_at`` set; an
abandoned or unfinished game counts nowhere) and is computed by SQLite over the
indexes of schema 3 (``players_by_person``, ``rounds_went_out``, ``plays_by_player``,
``games_by_finish``), never by loading games into Python. Places and wins are the
ones each game's standings gave when it finished (:func:`scorer.people.placing`):
lowest total, then the tie-breaks (most zero rounds, lowest non-zero round); a true
tie for first has no winner. A round's points are as entered (best is the lowest).
"""

from __future__ import annotations

from collections.abc import Callable, Mapping, Sequence
from typing import Any

from scorer.people import person
from scorer.profiles import SLOTS

Sql = Callable[..., list[Any]]  # runs one query (text, parameters): its rows
# A colour for each seat (hub/io/lights.py, PLAYER_COLOURS; app.css --c0 …): a player's
# is their seat's. tests/arch/test_facts.py holds there to be as many colours as slots.
COLOURS = len(SLOTS)

SEATS_OF = (  # a person's seats in finished games: the FROM and WHERE of most queries
    " FROM players p JOIN games g ON g.id = p.game_id"
    " WHERE p.person = :person AND g.finished_at IS NOT NULL"
)
PLAYERS = (  # every remembered player, most recently seen first
    "SELECT pe.id, pe.name, pe.seen_at AS last_seen,"
    " (SELECT position FROM players WHERE person = pe.id ORDER BY game_id DESC LIMIT 1)"
    " AS seat, count(g.id) AS games, coalesce(sum(g.id IS NOT NULL AND p.won), 0) AS wins"
    " FROM people pe LEFT JOIN players p ON p.person = pe.id"
    " LEFT JOIN games g ON g.id = p.game_id AND g.finished_at IS NOT NULL"
    " GROUP BY pe.id ORDER BY pe.seen_at DESC, pe.id"
)
GAMES = "SELECT count(*) AS games, coalesce(sum(p.won), 0) AS wins" + SEATS_OF
ROUNDS = (
    "SELECT count(s.points) AS rounds, avg(s.points) AS average, min(s.points) AS best,"
    " max(s.points) AS worst, coalesce(sum(s.points = 0), 0) AS zero_rounds"
    " FROM players p JOIN games g ON g.id = p.game_id"
    " JOIN scores s ON s.game_id = p.game_id AND s.player = p.name"
    " WHERE p.person = :person AND g.finished_at IS NOT NULL"
)
WENT_OUT = (
    "SELECT count(r.round) AS went_out FROM players p JOIN games g ON g.id = p.game_id"
    " JOIN rounds r ON r.game_id = p.game_id AND r.went_out = p.name AND r.finished = 1"
    " WHERE p.person = :person AND g.finished_at IS NOT NULL"
)
PLAYS = (
    "SELECT coalesce(sum(pl.kind = 'double'), 0) AS doubles,"
    " coalesce(sum(pl.kind = 'last_tile'), 0) AS last_tiles"
    " FROM players p JOIN games g ON g.id = p.game_id"
    " JOIN plays pl ON pl.game_id = p.game_id AND pl.player = p.name"
    " WHERE p.person = :person AND g.finished_at IS NOT NULL"
)
MONTHS = (  # the chart over time: one point per month played
    "SELECT substr(g.finished_at, 1, 7) AS month, count(*) AS games,"
    " sum(p.won) AS wins, avg(p.place) AS average_place"
    + SEATS_OF
    + " GROUP BY month ORDER BY month"
)
RECENT = (  # the newest finished games, with the place and total
    "SELECT g.id AS game, g.finished_at, p.place, p.won,"
    " (SELECT sum(points) FROM scores s WHERE s.game_id = g.id AND s.player = p.name)"
    # By the seat's game: players_by_person walked backwards, ten rows read and summed
    # (by g.id, every seat was summed, then sorted: 5,000 totals for ten).
    " AS total" + SEATS_OF + " ORDER BY p.game_id DESC LIMIT 10"
)
HEAD_TO_HEAD = (
    "SELECT count(*) AS games, coalesce(sum(pa.won), 0) AS a_wins,"
    " coalesce(sum(pb.won), 0) AS b_wins, coalesce(sum(pa.place < pb.place), 0) AS a_ahead,"
    " coalesce(sum(pb.place < pa.place), 0) AS b_ahead,"
    " coalesce(sum(pa.place = pb.place), 0) AS level"
    " FROM players pa JOIN players pb ON pb.game_id = pa.game_id"
    " JOIN games g ON g.id = pa.game_id"
    " WHERE pa.person = :a AND pb.person = :b AND g.finished_at IS NOT NULL"
)
SHARED = (  # the newest games both played
    "SELECT g.id AS game, g.finished_at, pa.place AS a_place, pb.place AS b_place"
    " FROM players pa JOIN players pb ON pb.game_id = pa.game_id"
    " JOIN games g ON g.id = pa.game_id"
    " WHERE pa.person = :a AND pb.person = :b AND g.finished_at IS NOT NULL"
    " ORDER BY g.id DESC LIMIT 10"
)
SEASON = (  # the season table: most wins first, then win rate, then the better places
    "SELECT pe.id, pe.name, count(*) AS games, sum(p.won) AS wins,"
    " avg(p.place) AS average_place"
    # People first, their seats by players_by_person: grouped as read, in no temp
    # b-tree (one over every seat cost the hub 4 MB of heap; docs/performance.md).
    " FROM people pe CROSS JOIN players p ON p.person = pe.id"
    " CROSS JOIN games g ON g.id = p.game_id"
    " WHERE g.finished_at IS NOT NULL AND g.finished_at >= :since"
    " GROUP BY pe.id ORDER BY wins DESC, 1.0 * wins / count(*) DESC, average_place,"
    " games DESC, pe.name"
)
ONE_ROW = (GAMES, ROUNDS, WENT_OUT, PLAYS)  # one row each, in player_view's order
SEASON_GAMES = "SELECT count(*) FROM games WHERE finished_at IS NOT NULL AND finished_at >= ?"


def _rounded(value: float | None) -> float | None:
    return None if value is None else round(value, 2)


def player_view(
    person: Mapping[str, Any],
    one: Sequence[Mapping[str, Any]],
    months: Sequence[Mapping[str, Any]],
    recent: Sequence[Mapping[str, Any]],
) -> dict[str, Any]:
    """One player's page (``GET /api/players/<id>``) from the rows of :data:`PERSON`,
    :data:`GAMES`, :data:`ROUNDS`, :data:`WENT_OUT`, :data:`PLAYS`, :data:`MONTHS`
    and :data:`RECENT` (``one``: the rows of the four queries of :data:`ONE_ROW`)."""
    games, rounds, went_out, plays = one
    played = games["games"]
    return {
        "id": person["id"],
        "name": person["name"],
        "last_seen": person["last_seen"],
        "games": played,
        "wins": games["wins"],
        "win_rate": _rounded(games["wins"] / played) if played else None,
        "rounds": rounds["rounds"],
        "average_round": _rounded(rounds["average"]),
        "best_round": rounds["best"],
        "worst_round": rounds["worst"],
        "zero_rounds": rounds["zero_rounds"],
        "went_out": went_out["went_out"],
        "doubles": plays["doubles"],
        "last_tiles": plays["last_tiles"],
        "months": [
            {
                "month": m["month"],
                "games": m["games"],
                "wins": m["wins"],
                "average_place": _rounded(m["average_place"]),
            }
            for m in months
        ],
        "recent": [
            {
                "game": r["game"],
                "finished_at": r["finished_at"],
                "place": r["place"],
                "won": bool(r["won"]),
                "total": r["total"],
            }
            for r in recent
        ],
    }


def head_to_head_view(
    a: Mapping[str, Any],
    b: Mapping[str, Any],
    totals: Mapping[str, Any],
    shared: Sequence[Mapping[str, Any]],
) -> dict[str, Any]:
    """Two players side by side (``GET /api/players/<a>/vs/<b>``)."""
    return {
        "a": {
            "id": a["id"],
            "name": a["name"],
            "wins": totals["a_wins"],
            "ahead": totals["a_ahead"],
        },
        "b": {
            "id": b["id"],
            "name": b["name"],
            "wins": totals["b_wins"],
            "ahead": totals["b_ahead"],
        },
        "games": totals["games"],
        "level": totals["level"],
        "recent": [dict(row) for row in shared],
    }


def season_view(since: str | None, games: int, rows: Sequence[Mapping[str, Any]]) -> dict[str, Any]:
    """The season table (``GET /api/season``): each player's games, wins, win rate and
    average place since ``since`` (None: all games), best first."""
    return {
        "since": since,
        "games": games,
        "players": [
            {
                "id": r["id"],
                "name": r["name"],
                "games": r["games"],
                "wins": r["wins"],
                "win_rate": _rounded(r["wins"] / r["games"]),
                "average_place": _rounded(r["average_place"]),
            }
            for r in rows
        ],
    }


def players_view(rows: Sequence[Mapping[str, Any]], colours: int) -> list[dict[str, Any]]:
    """Every remembered player (``GET /api/players``), most recent first; ``colour`` is
    the page's colour number (the seat of their newest game, modulo ``colours``)."""
    return [
        {
            "id": r["id"],
            "name": r["name"],
            "games": r["games"],
            "wins": r["wins"],
            "last_seen": r["last_seen"],
            "colour": (r["seat"] or 0) % colours,
        }
        for r in rows
    ]


def players(sql: Sql) -> list[dict[str, Any]]:
    """Every remembered player, most recently seen first."""
    return players_view(sql(PLAYERS), COLOURS)


def player(sql: Sql, person_id: object) -> dict[str, Any]:
    """One player's page (:func:`player_view`); :class:`~scorer.people.PersonNotFound`."""
    found = person(sql, person_id)
    key = {"person": found["id"]}
    one = [dict(sql(q, key)[0]) for q in ONE_ROW]
    return player_view(found, one, sql(MONTHS, key), sql(RECENT, key))


def head_to_head(sql: Sql, a: object, b: object) -> dict[str, Any]:
    """Two players in the games both played (:func:`head_to_head_view`)."""
    one, other = person(sql, a), person(sql, b)
    key = {"a": one["id"], "b": other["id"]}
    return head_to_head_view(one, other, sql(HEAD_TO_HEAD, key)[0], sql(SHARED, key))


def season(sql: Sql, since: str | None) -> dict[str, Any]:
    """The season table since ``since`` (an ISO date; None: every game)."""
    start = "" if since is None else since
    count = sql(SEASON_GAMES, (start,))[0][0]
    return season_view(since, count, sql(SEASON, {"since": start}))
