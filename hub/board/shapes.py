"""The shapes the tournament board accepts from a hub: each message cut down to the
fields the board reads, every field of its type and within its bounds or left out
(:func:`clean_state`, :func:`clean_game`), so a hub publishing another shape, or a
huge game, cannot break or stall a summary (docs/mqtt.md, "The tournament board")."""

from __future__ import annotations

import math
from collections.abc import Callable
from typing import Any

# A hub's messages are not trusted to have the shape ours publish: each is cut down to
# the fields the board reads, every field of its type and within its bounds or left
# out, before it is kept; what one hub may publish is bounded, so one table can never
# slow every other (the page says so, board.html).
MOST_PLAYERS = 16  # players kept of one table (the hub seats at most 8)
MOST_ROUNDS = 20  # rounds kept of one game (double-15 plays 16)
MOST_NAME = 40  # characters of a player's name or a phase kept
MOST_NUMBER = 1_000_000  # any number beyond ±this is left out (a round scores < 1,000)


def _number(value: object) -> bool:
    """An int or a finite float within ±:data:`MOST_NUMBER` (no bool; JSON's ``1e999``
    is infinite, and a 4,000-digit int is no score)."""
    if isinstance(value, bool) or not isinstance(value, int | float):
        return False
    if isinstance(value, float) and not math.isfinite(value):
        return False
    return -MOST_NUMBER <= value <= MOST_NUMBER


def _text(value: object) -> bool:
    return isinstance(value, str) and len(value) <= MOST_NAME


def _names(value: object) -> list[str]:
    if not isinstance(value, list):
        return []
    return [v for v in value[:MOST_PLAYERS] if _text(v)]


def _points(value: object) -> dict[str, int | float]:
    if not isinstance(value, dict):
        return {}
    kept = [(k, v) for k, v in value.items() if _text(k) and _number(v)]
    return dict(kept[:MOST_PLAYERS])


# The type each field the board reads must have; anything else is left out.
_KINDS: dict[str, Callable[[object], bool]] = {
    "id": _number,
    "round": _number,
    "rounds": _number,
    "round_count": _number,
    "engine": _number,
    "turn": _number,
    "slot": _number,
    "finished": lambda v: isinstance(v, bool),
    "winner": _text,
    "owner": _text,
    "phase": _text,
}


def _scalars(raw: dict[str, Any], keys: tuple[str, ...]) -> dict[str, Any]:
    return {key: raw[key] for key in keys if key in raw and _KINDS[key](raw[key])}


def clean_game(raw: dict[str, Any]) -> dict[str, Any]:
    """The parts of a hub's ``game`` the board uses, each of the type it expects."""
    game = _scalars(raw, ("id", "round", "round_count", "engine", "finished", "winner"))
    game["players"], game["standings"] = _names(raw.get("players")), _names(raw.get("standings"))
    game["totals"] = _points(raw.get("totals"))
    rounds = raw.get("rounds")
    game["rounds"] = [
        {
            "points": _points(r.get("points")),
            "went_out": r.get("went_out") if _text(r.get("went_out")) else None,
        }
        for r in (rounds[:MOST_ROUNDS] if isinstance(rounds, list) else [])
        if isinstance(r, dict)
    ]
    return game


def clean_state(raw: dict[str, Any]) -> dict[str, Any]:
    """The parts of a hub's ``state`` the board uses, each of the type it expects."""
    state = _scalars(raw, ("turn",))
    on_table = raw.get("game")
    if isinstance(on_table, dict):
        state["game"] = {
            **_scalars(on_table, ("id", "round", "rounds", "engine", "phase")),
            "players": _names(on_table.get("players")),
        }
    slots = raw.get("slots")
    state["slots"] = [
        _scalars(entry, ("slot", "owner"))
        for entry in (slots[:MOST_PLAYERS] if isinstance(slots, list) else [])
        if isinstance(entry, dict)
    ]
    return state
