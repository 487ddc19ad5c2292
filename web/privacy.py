"""Who sees what when ``hide_stats`` is on (docs/security.md, "What hide_stats hides"):
the one rule every read of the statistics asks.

A viewer (no proof) keeps what playing needs: the game the table shows (running, or
finished and still shown), in full: its scores, totals, standings, round histories
and downloads, and the log's news of it. Hidden from a viewer: every other game's
totals, standings, winner, round histories and downloads (a typed refusal,
``stats_hidden``), the winners in the list of games (each past game listed with
``"stats_hidden": true``), the log's scores and winners of other games, and the
players' statistics (:mod:`web.players_api`). Proof is the running game's scorekeeper
token or the table's proof (what a settings change needs), or, for one past game,
that game's own scorekeeper token.
"""

from __future__ import annotations

from typing import Any

from flask import request

from web.api import TABLE_COOKIE, has_proof, hub_service, request_token
from web.errors import abort

# What a past game's entry in the list, or a log entry about a past game, may not tell
# a viewer: who won and the points (everything else is needed to find a game or to
# start a new one with the same players).
LIST_HIDDEN = ("winner",)
LOG_HIDDEN = ("points", "went_out", "winner", "text")  # text: a spoken sentence


def stats_hidden() -> bool:
    """Whether the statistics are hidden from this request (``hide_stats`` on, and no
    proof for the running game or the table)."""
    if not hub_service().settings().get("hide_stats"):
        return False
    return not has_proof(hub_service().running_game())


def on_table() -> int | None:
    """The id of the game the table shows (running or finished), or None."""
    game = hub_service().snapshot().get("game")
    return game.get("id") if isinstance(game, dict) else None


def game_hidden(game_id: int) -> bool:
    """Whether game ``game_id``'s statistics are hidden from this request."""
    return game_id != on_table() and stats_hidden() and not has_proof(game_id)


def refuse(doing: str) -> None:
    """401 (no proof sent) or 403 (a wrong one) ``stats_hidden``: ``doing`` needs the proof."""
    game_id = hub_service().running_game()
    sent = request_token(game_id) or request.cookies.get(TABLE_COOKIE)
    who = (
        f"game {game_id}'s scorekeeper token or the table's proof (claim it at the hub)"
        if game_id is not None
        else "the table's proof: claim it at the hub (a press on the slot it lights)"
    )
    abort(403 if sent else 401, f"token: {doing} needs {who}", "token", code="stats_hidden")


def guard_game(game_id: int) -> None:
    """Refuse a read of a game whose statistics are hidden from this request."""
    if game_hidden(game_id):
        refuse(f"reading game {game_id} (hidden from viewers by the settings)")


def listed(games: list[dict[str, Any]]) -> list[dict[str, Any]]:
    """The list of games as this request may see it: a past game without its winner,
    marked ``"stats_hidden": true``, when the statistics are hidden from it."""
    if not stats_hidden():
        return games
    shown = on_table()
    return [
        game
        if game.get("id") == shown
        else {**{k: v for k, v in game.items() if k not in LIST_HIDDEN}, "stats_hidden": True}
        for game in games
    ]


def logged(entries: list[dict[str, Any]]) -> list[dict[str, Any]]:
    """The log (oldest first) as this request may see it: an entry about another game
    than the table's (one naming another game, or one from before the table's game
    was set up) without its points, who went out or won, and spoken words, when the
    statistics are hidden from it."""
    if not stats_hidden():
        return entries
    shown = on_table()
    starts = [
        i for i, e in enumerate(entries) if e.get("kind") == "game" and e.get("game") == shown
    ]
    start = starts[-1] if starts else (0 if shown is not None else len(entries))
    return [
        entry
        if entry.get("game", shown if i >= start else None) == shown and shown is not None
        else _reduced(entry)
        for i, entry in enumerate(entries)
    ]


def _reduced(entry: dict[str, Any]) -> dict[str, Any]:
    """A log entry about another game without what :data:`LOG_HIDDEN` names (an undo's
    ``undid`` included: it may say who went out)."""
    kept = {k: v for k, v in entry.items() if k not in LOG_HIDDEN}
    if isinstance(kept.get("undid"), dict):
        kept["undid"] = {k: v for k, v in kept["undid"].items() if k not in LOG_HIDDEN}
    return kept
