"""How the table follows the store: the core events that bring a table to what the
store says of its game, in one place for the two paths that need them.

Pure: the table and the stored game (``GameStore.get_game``'s dict) in, events out;
the store is never read here. :meth:`hub.games.changes.Games.round_scored` posts them to the
loop when a score was stored; after a crash :func:`hub.persist.replay.catch_up`
applies them with ``core.apply`` to the table the journal rebuilt.

The store leads the table in scoring: each round it is ahead was scored (the next
begins, with the store's engine), and a finished game either played its series
(``round_count`` is still the table's ``rounds``: the last round was scored, which
finishes the game as a ``RoundScored`` does) or was stopped early (``finish_game``
cut ``round_count`` to the rounds scored: ``GameEnded``), whatever phase the table's
round was in. A round's end (went out, blocked, reopened by an undo) and its engine
the live table leads: a long hold, a blocked round, an undo and a named engine reach
the store from the table or with their own event, and a store read a moment before
the table's own record arrives must not take it back. Only at a restart
(``restart=True``), when the journal is never ahead of the store, do the store's
round end and engine lead too.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

import hub.core as core
from hub.core.events import (
    EngineSet,
    Event,
    GameEnded,
    PlayerWentOut,
    RoundBlocked,
    RoundScored,
    UndoRequested,
)
from hub.core.state import Table

BY = "journal"  # who asked, for the restart's undo and engine log entries


def steps(
    table: Table, stored: Mapping[str, Any], now: float, *, restart: bool
) -> list[Event] | None:
    """The events, in order and timed ``now``, that bring ``table`` to ``stored``:
    the rounds scored and the game's end; at a ``restart`` also its current round's
    end and engine (see the module).

    None when the table cannot follow: no game running on it or another game than
    ``stored``; at a ``restart`` also a game abandoned, a store behind the table's
    round, or a round end the store forgot that an undo cannot take back.
    """
    game = table.running_game
    if game is None or game.id != stored["id"]:
        return None
    events: list[Event] = [
        RoundScored(now, engine=stored["engine"]) for _ in range(stored["round"] - game.round)
    ]
    if stored["finished"]:  # the last round scored, or stopped early
        full = stored["round_count"] == game.rounds
        return [*events, RoundScored(now) if full else GameEnded(now)]
    if not restart:
        return events
    if stored["abandoned"]:
        return None  # never resumed on its own
    in_round = _in_round(_applied(table, events), stored, now)
    return None if in_round is None else [*events, *in_round]


def _in_round(table: Table, stored: Mapping[str, Any], now: float) -> list[Event] | None:
    """The current round as the store has it: its end recorded (went out, blocked) or
    reopened by an undo, and its engine; None when the table is on another round."""
    game = table.game
    if game is None or game.round != stored["round"]:
        return None
    rounds = stored["rounds"]
    last = rounds[-1] if rounds else {}
    went_out, blocked = last.get("went_out"), last.get("blocked")
    over = game.phase == "round-over"
    events: list[Event] = []
    if (went_out or blocked) and not over:
        if went_out in game.players:
            events.append(PlayerWentOut(game.seats[game.players.index(went_out)], now))
        else:
            events.append(RoundBlocked(now))
    elif over and not (went_out or blocked):  # an undo reopened it
        events.append(UndoRequested(now, BY))
        reopened = _applied(table, events).game
        if reopened is None or reopened.phase == "round-over":
            return None
    engine = stored["engine"]
    if engine not in (None, game.engine):
        events.append(EngineSet(engine, now, BY))
    return events


def _applied(table: Table, events: list[Event]) -> Table:
    for event in events:
        table = core.apply(table, event)[0]
    return table
