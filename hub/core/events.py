"""Events: facts that happened, each with its timestamp (monotonic seconds).

Adapters post these; the core never reads a clock, so ``at`` is the only time it
knows. Raw inputs (`ButtonChanged`, `MarkerChanged`) are debounced and classified
by :mod:`hub.core.gestures` into gestures (`Tapped`, `Held`, `LongHeld`,
`MarkerPlaced`, `MarkerRemoved`), which the table rules consume.
"""

from __future__ import annotations

from dataclasses import dataclass, field


@dataclass(frozen=True)
class ButtonChanged:
    """The button of ``slot`` went down (``pressed``) or up, raw and undebounced."""

    slot: int
    pressed: bool
    at: float


@dataclass(frozen=True)
class MarkerChanged:
    """The marker sensor of ``slot`` closed (``present``) or opened, raw."""

    slot: int
    present: bool
    at: float


@dataclass(frozen=True)
class MarkersRead:
    """All marker sensors were read at once (start-up, resume, serial reconnect)."""

    present: tuple[bool, ...]
    at: float


@dataclass(frozen=True)
class ClockTicked:
    """Time reached ``at``; due debounce and long-hold deadlines fire."""

    at: float


@dataclass(frozen=True)
class GameStarted:
    """A game was set up; round 1 starts."""

    game_id: int
    rules: str
    players: tuple[str, ...]
    seats: tuple[int, ...]
    mexican_slot: int | None
    set_max: int
    rounds: int
    at: float
    first: int | None = None
    options: tuple[tuple[str, object], ...] = field(default=())


@dataclass(frozen=True)
class GameResumed(GameStarted):
    """A game in progress was reloaded after a restart, at ``round`` (``round_over``:
    its end was recorded but not yet scored)."""

    round: int = 1
    round_over: bool = False


@dataclass(frozen=True)
class RoundScored:
    """The scores of the current round were entered; the next round starts."""

    at: float


@dataclass(frozen=True)
class RoundBlocked:
    """Nobody can play and the boneyard is empty: the round is over."""

    at: float


@dataclass(frozen=True)
class GameEnded:
    """The game was stopped (finished early or abandoned)."""

    at: float


# Gestures: what the debouncer made of the raw inputs.


@dataclass(frozen=True)
class Tapped:
    """Slot ``slot``'s button was pressed and released within the tap time."""

    slot: int
    at: float


@dataclass(frozen=True)
class Held:
    """Slot ``slot``'s button was held between the tap and long-hold times."""

    slot: int
    held_s: float
    at: float


@dataclass(frozen=True)
class LongHeld:
    """Slot ``slot``'s button has been held for the long-hold time (fires while held)."""

    slot: int
    at: float


@dataclass(frozen=True)
class MarkerPlaced:
    """A marker has sat on ``slot`` for the flicker window."""

    slot: int
    at: float


@dataclass(frozen=True)
class MarkerRemoved:
    """The marker has been off ``slot`` for the flicker window."""

    slot: int
    at: float


Gesture = Tapped | Held | LongHeld | MarkerPlaced | MarkerRemoved
Event = (
    ButtonChanged
    | MarkerChanged
    | MarkersRead
    | ClockTicked
    | GameStarted
    | GameResumed
    | RoundScored
    | RoundBlocked
    | GameEnded
)
