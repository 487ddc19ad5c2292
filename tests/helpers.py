"""Helpers shared by the tests: drive the pure core with timestamps."""

from __future__ import annotations

import time
from collections.abc import Callable

from hub.core import apply, new_table
from hub.core.effects import LogEntry, PlaySound
from hub.core.events import ButtonChanged, ClockTicked, GameStarted, MarkerChanged


class CoreDriver:
    """Drives the pure core with raw edges on a virtual timeline and keeps the effects."""

    def __init__(self, table=None):
        self.table = table or new_table()
        self.now = 100.0
        self.effects = []

    def send(self, event):
        self.table, effects = apply(self.table, event)
        self.effects += effects
        return effects

    def advance(self, seconds):
        self.now += seconds
        return self.send(ClockTicked(self.now))

    def start(
        self,
        players,
        rules="consensus",
        seats=None,
        mexican_slot=None,
        first=None,
        set_max=12,
        rounds=None,
        options=(),
    ):
        seats = tuple(seats or range(1, len(players) + 1))
        return self.send(
            GameStarted(
                game_id=1,
                rules=rules,
                players=tuple(players),
                seats=seats,
                mexican_slot=mexican_slot,
                set_max=set_max,
                rounds=rounds or set_max + 1,
                at=self.now,
                first=first,
                options=tuple(options),
            )
        )

    def press(self, slot, hold=0.15):
        self.send(ButtonChanged(slot, True, self.now))
        self.now += hold
        out = self.send(ButtonChanged(slot, False, self.now))
        self.advance(0.2)
        return out

    def tap(self, slot):
        return self.press(slot, 0.15)

    def hold(self, slot):
        return self.press(slot, 1.5)

    def long_hold(self, slot):
        return self.press(slot, 3.5)

    def marker(self, slot, present, settle=0.2):
        self.send(MarkerChanged(slot, present, self.now))
        self.advance(settle)

    def sounds(self):
        return [e.name for e in self.effects if isinstance(e, PlaySound)]

    def logs(self, kind=None):
        return [e for e in self.effects if isinstance(e, LogEntry) and kind in (None, e.kind)]

    @property
    def public(self):
        return {s for s in range(1, 9) if self.table.public(s)}


def eventually(predicate: Callable[[], bool], timeout: float = 10.0) -> bool:
    """Wait for ``predicate``, which other threads make true; False after ``timeout`` s."""
    deadline = time.monotonic() + timeout
    while not predicate():
        if time.monotonic() > deadline:
            return False
        time.sleep(0.005)
    return True
