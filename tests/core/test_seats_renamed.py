"""A forgotten player's seats renamed on the table (hub/core/undo.py, ``rename_seats``):
the game's names, its undo history's too, and nothing else; another game's rename
leaves the table alone."""

from __future__ import annotations

import hub.core as core
from hub.core.events import GameStarted, SeatsRenamed, TurnFixed
from hub.core.state import Table


def _table() -> Table:
    start = GameStarted(
        game_id=4,
        rules="consensus",
        players=("Ann", "Bob", "Cy"),
        seats=(1, 2, 3),
        mexican_slot=4,
        set_max=12,
        rounds=13,
        at=0.0,
        first=1,
    )
    table, _ = core.apply(Table(), start)
    table, _ = core.apply(table, TurnFixed(2, 1.0))  # a fix: a moment in the history
    assert table.history and table.history[-1].game is not None
    return table


def test_the_game_and_its_history_take_the_new_names() -> None:
    before = _table()
    after, effects = core.apply(before, SeatsRenamed(4, (("Ann", "Player 1"),), 2.0))
    assert effects == []
    assert after.game is not None and after.game.players == ("Player 1", "Bob", "Cy")
    assert all(m.game is None or "Ann" not in m.game.players for m in after.history)
    assert (after.turn, after.game.round, len(after.history)) == (
        before.turn,
        before.game.round if before.game else None,
        len(before.history),
    )
    assert core.snapshot(after, "sim")["slots"][0]["owner"] == "Player 1"


def test_another_games_rename_changes_nothing() -> None:
    before = _table()
    after, _ = core.apply(before, SeatsRenamed(5, (("Ann", "Player 1"),), 2.0))
    assert after == before
