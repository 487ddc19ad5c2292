"""Wrong presses at the table, and the undo that puts them right (the soak's mistakes).

A player presses the wrong button now and then: a tap, a hold or a long hold on a
random slot, or on the centre. When the hub took it as a table action (its undo depth
grew), the table takes it back: the centre button's long hold or the scorekeeper's
phone. The hub must then show exactly what it showed before, and the store must have
forgotten a round's end the mistake recorded.
"""

from __future__ import annotations

import random
from typing import TYPE_CHECKING

from hub.core.news import Sound
from tablesim import Hold, LongHold, Tap, Truth
from tablesim.bot_table import BotTable, differences
from tablesim.virtual import RecordingPlayer

if TYPE_CHECKING:
    from hub.app import Hub


def mistake(hub: Hub, table: BotTable, before: Truth, rng: random.Random) -> tuple[list[str], bool]:
    """A wrong press (a tap, hold or long hold on a random slot or, but for the long
    hold, the centre); if the hub took it as a table action, the table undoes it with
    the centre's long hold or from the scorekeeper's phone. The hub (and the store's
    round) must then be exactly as before. Returns what differs, and whether it was
    undone."""
    seats = sorted(table.names)
    depth = hub.loop.snapshot["undo"]
    kind = rng.choice((Tap, Tap, Hold, LongHold))
    slot = rng.choice(seats if kind is LongHold else [*seats, 0])
    table.act(kind(slot))
    undone = hub.loop.snapshot["undo"] > depth
    sound = hub.sound
    assert isinstance(sound, RecordingPlayer), "the soak listens through the recording player"
    if undone:
        sound.played.clear()
        if rng.random() < 0.5:
            table.act(LongHold(0))  # the centre's long hold
        else:
            hub.games.undo(by="scorekeeper")
        if sound.played.count(Sound.TURN_BACK) != 1:
            return [
                f"undo of {kind.__name__}({slot}): turn_back played "
                f"{sound.played.count(Sound.TURN_BACK)} times"
            ], undone
    problems = [
        f"after {kind.__name__}({slot}) undone: {p}" for p in differences(before, table.observed())
    ]
    if hub.loop.snapshot["undo"] != depth:
        problems.append(f"undo depth {hub.loop.snapshot['undo']}, expected {depth}")
    assert table.game_id is not None
    hub.writer.flush()  # round ends are written off the loop thread
    current = hub.store.get_game(table.game_id)["rounds"][-1]
    if current["went_out"] is not None or current["blocked"]:
        problems.append(f"the store keeps round {current['round']}'s end after the undo")
    return problems, undone
