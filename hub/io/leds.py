"""The LED port: the ring of slot LEDs (on the microcontroller), and its fake."""

from __future__ import annotations

from typing import Protocol


class LedDriver(Protocol):
    """Shows a state (``off``, ``on``, ``turn``, ``blink``) on a slot's LED."""

    def set(self, slot: int, state: str) -> None:
        """Show ``state`` on ``slot``'s LED."""


class RecordingLeds:
    """Remembers every LED order and the current state of each slot (the fake)."""

    def __init__(self) -> None:
        self.states: dict[int, str] = {slot: "off" for slot in range(1, 9)}
        self.history: list[tuple[int, str]] = []

    def set(self, slot: int, state: str) -> None:
        """Record the order."""
        self.states[slot] = state
        self.history.append((slot, state))
