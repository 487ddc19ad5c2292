"""A game's scores as CSV or JSON: the API's downloads and ``mtrain-hub export``; and
an evening's summary (:mod:`scorer.evening`) the same two ways.

The JSON is the game exactly as ``GET /api/games/<id>`` shows it (never its token),
so it reads back to the same dict. The CSV is a score sheet for a spreadsheet: a
header (``round``, ``engine``, each player, ``went_out``), one row per scored round
(``went_out`` empty: the round was blocked), and a ``total`` row.
"""

from __future__ import annotations

import csv
import io
import json
from typing import Any

FORMATS = ("csv", "json")
# A spreadsheet runs a cell starting with one of these as a formula (CSV injection).
_FORMULA_START = ("=", "+", "-", "@", "\t", "\r")


def _cell(text: str) -> str:
    """A name as a safe CSV cell: a leading formula character is quoted with ``'``."""
    return f"'{text}" if text.startswith(_FORMULA_START) else text


def game_csv(game: dict[str, Any]) -> str:
    """The score sheet of ``game`` (a :meth:`GameStore.get_game` dict) as CSV text."""
    out = io.StringIO()
    writer = csv.writer(out, lineterminator="\r\n")
    players = game["players"]
    writer.writerow(["round", "engine", *map(_cell, players), "went_out"])
    for rnd in game["rounds"]:
        if not rnd["finished"]:
            continue  # the round being played has no scores yet
        points = [rnd["points"].get(name, "") for name in players]
        writer.writerow([rnd["round"], rnd["engine"], *points, _cell(rnd["went_out"] or "")])
    writer.writerow(["total", "", *(game["totals"][name] for name in players), ""])
    return out.getvalue()


def game_json(game: dict[str, Any]) -> str:
    """``game`` as indented JSON text (reads back to the same dict)."""
    return json.dumps(game, indent=2, ensure_ascii=False) + "\n"


def games_json(games: list[dict[str, Any]]) -> str:
    """Several games as one JSON array."""
    return json.dumps(games, indent=2, ensure_ascii=False) + "\n"


def render(game: dict[str, Any], fmt: str) -> str:
    """``game`` in ``fmt`` (``csv`` or ``json``)."""
    return game_csv(game) if fmt == "csv" else game_json(game)


def filename(game_id: int, fmt: str) -> str:
    """The download name of a game's export: ``mtrain-game-7.csv``."""
    return f"mtrain-game-{game_id}.{fmt}"


EVENING_COLUMNS = ("player", "games", "wins", "points", "zero_rounds", "went_out", "doubles")


def evening_csv(summary: dict[str, Any]) -> str:
    """An evening's table as CSV (a row per player, the summary's numbers), then a blank
    row and a row per game (``game``, ``finished_at``, ``winner``, each ``name: total``)."""
    out = io.StringIO()
    writer = csv.writer(out, lineterminator="\r\n")
    writer.writerow(EVENING_COLUMNS)
    for entry in summary["players"]:
        writer.writerow([_cell(entry["name"]), *(entry[k] for k in EVENING_COLUMNS[1:])])
    writer.writerow([])
    writer.writerow(["game", "finished_at", "winner", "totals"])
    for game in summary["games"]:
        totals = "; ".join(f"{p['name']}: {p['total']}" for p in game["players"])
        writer.writerow(
            [game["id"], game["finished_at"], _cell(game["winner"] or ""), _cell(totals)]
        )
    return out.getvalue()
