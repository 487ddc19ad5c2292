"""What the table does at the hub, and the truth the hub must show after each step.

Gestures (``Tap``, ``Hold``, ``LongHold``, ``MarkerOn``, ``MarkerOff``) are what a
player does with a slot's button or marker (``docs/rules.md``'s gesture table).
``NewGame``, ``Blocked`` and ``EnterScores`` are what the table says on the scorepad:
the game's set-up, "nobody can play", and a round's tiles and points.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, field
from typing import NamedTuple

from tablesim.config import GameConfig
from tablesim.tiles import Tile, tile_name


@dataclass(frozen=True)
class Tap:
    """Press and release slot ``slot``'s button in under 1 s."""

    slot: int


@dataclass(frozen=True)
class Hold:
    """Hold slot ``slot``'s button 1-4 s: a double was played on that train."""

    slot: int


@dataclass(frozen=True)
class LongHold:
    """Hold one's own slot's button 4 s or more: went out."""

    slot: int


@dataclass(frozen=True)
class LastTile:
    """Tap one's own slot again right after the tap that ended one's turn: the
    last-tile call ("uno")."""

    slot: int


@dataclass(frozen=True)
class MarkerOn:
    """Put a marker on slot ``slot``."""

    slot: int


@dataclass(frozen=True)
class MarkerOff:
    """Take the marker off slot ``slot``."""

    slot: int


@dataclass(frozen=True)
class NewGame:
    """The game is created on the scorepad (``POST /api/games``); round 1 starts."""

    config: GameConfig


@dataclass(frozen=True)
class SetEngine:
    """The scorekeeper names round ``round``'s engine on the scorepad (``aces``: the
    highest double anyone held)."""

    round: int
    engine: int


@dataclass(frozen=True)
class Blocked:
    """Nobody can play and the boneyard is empty: the table ends the round."""

    round: int


@dataclass(frozen=True)
class RoundResult:
    """A finished round: what each seat still holds and the points it scores.

    ``hands`` and ``points`` are keyed by slot. ``points`` applies the double-blank
    option and, with partnerships, the rule that the partner of the player who went
    out scores 0. ``went_out`` is None for a blocked round.
    """

    round: int
    engine: int
    went_out: int | None
    blocked: bool
    hands: Mapping[int, tuple[Tile, ...]] = field(hash=False)
    points: Mapping[int, int] = field(hash=False)

    def tile_names(self) -> dict[int, list[str]]:
        """Each slot's hand in the scorepad's notation: ``{1: ["6-5", "0-0"]}``."""
        return {slot: [tile_name(t) for t in hand] for slot, hand in self.hands.items()}


@dataclass(frozen=True)
class EnterScores:
    """The round's tiles are entered on the scorepad; the next round (or the end) starts."""

    result: RoundResult


Gesture = Tap | Hold | LongHold | LastTile | MarkerOn | MarkerOff
Action = Gesture | NewGame | SetEngine | Blocked | EnterScores


class DoubleTruth(NamedTuple):
    """The open double as the hub shows it: its slot, covers to go, who must cover."""

    slot: int
    covers_left: int
    responsible: int


@dataclass(frozen=True)
class Truth:
    """What the hub must show after an action.

    ``public``: slots whose train is public, the Mexican slot included. ``double``:
    the open double (never in ``aces``). ``phase``: ``first-turn``, ``play``,
    ``round-over`` or ``finished``. ``went_out``: set once the round is over (and
    kept when the game is finished). ``one_tile``: the players who called their last
    tile and have not ended a turn since.
    """

    turn: int | None
    public: frozenset[int]
    double: DoubleTruth | None
    phase: str
    round: int
    engine: int
    went_out: int | None
    one_tile: frozenset[int] = frozenset()
    queued: tuple[DoubleTruth, ...] = ()  # doubled doubles: the ones waiting, in order
