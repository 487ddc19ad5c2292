"""Events: facts that happened, each with its timestamp (monotonic seconds).

Adapters post these; the core never reads a clock, so ``at`` is the only time it
knows. Raw inputs (`ButtonChanged`, `MarkerChanged`) are debounced and classified
by :mod:`hub.core.gestures` into gestures (`Tapped`, `Held`, `LongHeld`,
`MarkerPlaced`, `MarkerRemoved`), which the table rules consume.
"""

from __future__ import annotations

from dataclasses import dataclass, field

CENTRE = 0
"""The centre button's number: posted as ``ButtonChanged(slot=CENTRE, ...)`` like a slot's.

Its long hold (the ``centre_long_hold`` timing, 4.0 s by default, as the slots'
long hold) undoes the last table
action; its tap and hold stand for the Mexican Train, which with 8 players has no slot.
"""


@dataclass(frozen=True)
class ButtonChanged:
    """The button of ``slot`` went down (``pressed``) or up, raw and undebounced."""

    slot: int
    pressed: bool
    at: float


@dataclass(frozen=True)
class ButtonLost:
    """Nobody saw how the press of ``slot``'s button ended: the inputs' link went down
    while it was held (a serial hub box that stalled or was unplugged), or the box
    reports the release after a pause in its own scanning. The press ends with no
    gesture, whatever its length: a stall never turns a tap into a hold or a going out."""

    slot: int
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
    engine: int | None = None


@dataclass(frozen=True)
class RoundScored:
    """The scores of the current round were entered; the next round starts (with
    ``engine`` when the store names it, else the next lower double)."""

    at: float
    engine: int | None = None


@dataclass(frozen=True)
class RoundBlocked:
    """Nobody can play and the boneyard is empty: the round is over."""

    at: float


@dataclass(frozen=True)
class PlayerWentOut:
    """``slot``'s player went out: the round is over. The table's own long hold ends a
    round without it; this is the store's record of one, for a table that missed it
    (a journal behind the store after a crash)."""

    slot: int
    at: float


@dataclass(frozen=True)
class GameEnded:
    """The game was stopped (finished early or abandoned)."""

    at: float


@dataclass(frozen=True)
class SeatsRenamed:
    """The store renamed seats of game ``game_id``: a player was forgotten, and each
    ``(old, new)`` pair of ``renamed`` is a seat's old name and its anonymous one. Only
    a game the table no longer plays can lose a player (the store refuses the one in
    play)."""

    game_id: int
    renamed: tuple[tuple[str, str], ...]
    at: float


@dataclass(frozen=True)
class UndoRequested:
    """Someone asked to take back the last table action: ``by`` is ``"centre"`` (the
    centre button's long hold) or who asked on a phone (``"scorekeeper"``)."""

    at: float
    by: str


@dataclass(frozen=True)
class TurnFixed:
    """The scorekeeper set whose turn it is by hand (``slot``: a seated slot)."""

    slot: int
    at: float
    by: str = "scorekeeper"


@dataclass(frozen=True)
class DoubleFixed:
    """The scorekeeper set the open double by hand: ``slot`` None closes it; else a
    double is open on train ``slot`` with ``covers_left`` to go and ``responsible``
    (a seated slot) to cover it."""

    slot: int | None
    at: float
    covers_left: int = 1
    responsible: int | None = None
    by: str = "scorekeeper"


@dataclass(frozen=True)
class PublicFixed:
    """The scorekeeper set train ``slot`` public (or private again) by hand, for a
    marker that is missing; a marker placed or lifted later is the truth again."""

    slot: int
    public: bool
    at: float
    by: str = "scorekeeper"


@dataclass(frozen=True)
class EngineSet:
    """The scorekeeper set the current round's engine (``aces``: the highest double
    anyone held, so known only at the table)."""

    engine: int
    at: float
    by: str = "scorekeeper"


# Gestures: what the debouncer made of the raw inputs.


@dataclass(frozen=True)
class Tapped:
    """Slot ``slot``'s button (``CENTRE``: the centre's) was pressed and released
    within the tap time."""

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


@dataclass(frozen=True)
class ClaimRequested:
    """A phone asked to become the scorekeeper with hands on the hub: the table lights
    ``slot`` and a press there within the claim window grants it (claim ``number``)."""

    number: int
    slot: int
    at: float


Gesture = Tapped | Held | LongHeld | MarkerPlaced | MarkerRemoved
Event = (
    ButtonChanged
    | ButtonLost
    | MarkerChanged
    | MarkersRead
    | ClockTicked
    | GameStarted
    | GameResumed
    | RoundScored
    | RoundBlocked
    | PlayerWentOut
    | GameEnded
    | SeatsRenamed
    | UndoRequested
    | TurnFixed
    | DoubleFixed
    | PublicFixed
    | EngineSet
    | ClaimRequested
)
