"""The sound port: what the hub needs from a speaker, and its recording fake.

The hub names sounds (``choo``, ``chicken``, ``turn``, ``nope``, ``reminder``,
``out``); an adapter turns a name into audio. The real adapter for ALSA lives in
``hub/alsa_player.py``; tests and the sim backend without a sound card use
:class:`RecordingPlayer`.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Protocol

SOUND_NAMES = ("choo", "chicken", "turn", "nope", "reminder", "out")


class SoundPlayer(Protocol):
    """Plays a named sound without blocking the caller."""

    def play(self, name: str) -> None:
        """Start playing sound ``name``; return at once."""

    def status(self) -> dict:
        """``{"available": bool, "reason": str | None}`` for the snapshot."""

    def close(self) -> None:
        """Release the device."""


@dataclass
class RecordingPlayer:
    """A sound player that remembers what it was asked to play (the fake)."""

    played: list[str] = field(default_factory=list)
    listeners: list = field(default_factory=list)

    def play(self, name: str) -> None:
        """Record ``name`` and tell any listener (benchmarks wait on these)."""
        self.played.append(name)
        for listener in self.listeners:
            listener(name)

    def status(self) -> dict:
        """Always available."""
        return {"available": True, "reason": None}

    def close(self) -> None:
        """Nothing to release."""
