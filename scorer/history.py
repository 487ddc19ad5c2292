"""A round's score history (``score_edits``), kept small: what a correction writes.

Each changed score is an entry: the player, ``old`` (null for the round's first
scoring), ``new``, who (``by``) and when (``at``). Two rules keep a round's history
from growing with every tap (docs/storage.md, "A round's history"):

- **Merged.** A correction of a player's score by the same editor within
  :data:`MERGE_S` of that player's last correction in the round changes that entry
  (its ``new`` and ``at``) instead of adding one; one that puts the score back to the
  entry's ``old`` removes it (nothing changed, in the end). A first scoring is never
  merged into: the history always shows what was first written.
- **Bounded.** A round keeps at most :data:`MOST_ENTRIES` entries: beyond, the oldest
  correction of a player with a later one is folded into that later one (which takes
  its ``old``): the chain of each player's scores stays whole, the steps between are
  dropped.

Pure: ``sql(text, values)`` runs a statement in the caller's write transaction and
returns a cursor (:mod:`scorer.store` hands in its connection's ``execute``).
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from typing import Any

from scorer.games import RoundChange

Sql = Callable[[str, tuple[Any, ...]], Any]  # a DB-API ``execute``: its ``fetchall()``

MERGE_S = 300.0  # corrections this close together, by the same editor, are one entry
MOST_ENTRIES = 64  # a round's history entries (8 players: 8 first scorings, 56 more)

LAST = (  # a player's last entry in a round, and the seconds from it to the stamp given
    "SELECT id, old_points, new_points, edited_by,"
    " (julianday(?) - julianday(edited_at)) * 86400.0 FROM score_edits"
    " WHERE game_id = ? AND round = ? AND player = ? ORDER BY id DESC LIMIT 1"
)
ADD = (
    "INSERT INTO score_edits (game_id, round, player, old_points, new_points,"
    " edited_by, edited_at) VALUES (?, ?, ?, ?, ?, ?, ?)"
)
COUNT = "SELECT count(*) FROM score_edits WHERE game_id = ? AND round = ?"
OLDEST_FOLDABLE = (
    "SELECT e.id, e.player, e.old_points FROM score_edits e WHERE e.game_id = ?"
    " AND e.round = ? AND e.old_points IS NOT NULL AND EXISTS (SELECT 1 FROM score_edits l"
    " WHERE l.game_id = e.game_id AND l.round = e.round AND l.player = e.player"
    " AND l.id > e.id) ORDER BY e.id LIMIT 1"
)
NEXT_OF = (
    "SELECT id, new_points FROM score_edits WHERE game_id = ? AND round = ?"
    " AND player = ? AND id > ? ORDER BY id LIMIT 1"
)


def _merges(last: Sequence[Any], by: str) -> bool:
    """Whether a correction by ``by`` merges into entry ``last`` (its seconds since)."""
    _, old, _, last_by, apart = last
    return old is not None and last_by == by and apart is not None and 0 <= apart <= MERGE_S


def record(sql: Sql, game_id: int, change: RoundChange, by: str, stamp: str) -> None:
    """Write ``change``'s edits into the round's history (merged), then bound it."""
    for name, old, new in change.edits:
        last = sql(LAST, (stamp, game_id, change.round, name)).fetchall()
        if last and _merges(last[0], by):
            entry, first_old = last[0][0], last[0][1]
            if first_old == new:
                sql("DELETE FROM score_edits WHERE id = ?", (entry,))
            else:
                sql(
                    "UPDATE score_edits SET new_points = ?, edited_at = ? WHERE id = ?",
                    (new, stamp, entry),
                )
        else:
            sql(ADD, (game_id, change.round, name, old, new, by, stamp))
    bound(sql, game_id, change.round)


def bound(sql: Sql, game_id: int, round: int) -> None:
    """Fold the oldest corrections into their player's next until the round holds at
    most :data:`MOST_ENTRIES` entries."""
    while sql(COUNT, (game_id, round)).fetchone()[0] > MOST_ENTRIES:
        found = sql(OLDEST_FOLDABLE, (game_id, round)).fetchall()
        if not found:
            return
        entry, player, old = found[0]
        later, later_new = sql(NEXT_OF, (game_id, round, player, entry)).fetchone()
        sql("DELETE FROM score_edits WHERE id = ?", (entry,))
        if later_new == old:  # back where it was: no change left to show
            sql("DELETE FROM score_edits WHERE id = ?", (later,))
        else:
            sql("UPDATE score_edits SET old_points = ? WHERE id = ?", (old, later))
