"""The hub's log entries as data: one typed value with named fields per
:class:`~hub.core.news.Kind` (``TapEntry(slot=3)``; ``UndoEntry(by="centre", undid=...)``).

The core and the runtime make them; a :class:`~hub.core.effects.LogEntry` carries one
with its time, the event log keeps its fields, and the page, MQTT and the voice read
them by name. docs/api.md's table of kinds is held to :data:`ENTRIES` by a test.
"""

from __future__ import annotations

from dataclasses import dataclass, fields
from typing import ClassVar

from hub.core.news import Fixed, Kind, Reason, Sound

# Every kind's entry type: a test holds docs/api.md's table of kinds and fields to it.
ENTRIES: dict[Kind, type[Entry]] = {}


class Entry:
    """One kind of log entry: a frozen dataclass per :class:`Kind`, its named fields
    the entry's (``TapEntry(slot=3)`` is ``{"kind": "tap", "slot": 3}`` on the wire, in the
    order the fields are declared). The core and the runtime make these; the log, the
    page, MQTT and the voice read the fields by name, never by position or words."""

    KIND: ClassVar[Kind]

    def __init_subclass__(cls) -> None:
        ENTRIES[cls.KIND] = cls

    def items(self) -> tuple[tuple[str, object], ...]:
        """The entry's fields as (name, value) pairs, in their declared order."""
        return tuple((name, getattr(self, name)) for name in _names(type(self)))


_NAMES: dict[type, tuple[str, ...]] = {}


def _names(cls: type) -> tuple[str, ...]:
    names = _NAMES.get(cls)
    if names is None:
        names = _NAMES[cls] = tuple(f.name for f in fields(cls))
    return names


# What the hands did at the table
@dataclass(frozen=True)
class TapEntry(Entry):
    KIND = Kind.TAP

    slot: int


@dataclass(frozen=True)
class HoldEntry(Entry):
    KIND = Kind.HOLD

    slot: int
    held_s: float


@dataclass(frozen=True)
class LongHoldEntry(Entry):
    KIND = Kind.LONG_HOLD

    slot: int


@dataclass(frozen=True)
class MarkerEntry(Entry):
    KIND = Kind.MARKER

    slot: int
    present: bool


# What the table made of it
@dataclass(frozen=True)
class TurnEntry(Entry):
    KIND = Kind.TURN

    slot: int | None
    player: str | None


@dataclass(frozen=True)
class EngineEntry(Entry):
    """The round's engine was played on the hub at ``slot``."""

    KIND = Kind.ENGINE

    slot: int
    player: str | None


@dataclass(frozen=True)
class RoundEntry(Entry):
    KIND = Kind.ROUND

    round: int
    engine: int | None


@dataclass(frozen=True)
class RoundOverEntry(Entry):
    KIND = Kind.ROUND_OVER

    round: int
    went_out: str | None  # None: the round was blocked


@dataclass(frozen=True)
class GameEntry(Entry):
    KIND = Kind.GAME

    game: int
    rules: str
    players: tuple[str, ...]


@dataclass(frozen=True)
class GameOverEntry(Entry):
    KIND = Kind.GAME_OVER

    game: int


@dataclass(frozen=True)
class StringEndEntry(Entry):
    """A tap ended the string of plays after a double at ``slot``; the double waits."""

    KIND = Kind.STRING_END

    slot: int
    double: str = "waits"


@dataclass(frozen=True)
class DoubleQueuedEntry(Entry):
    KIND = Kind.DOUBLE_QUEUED

    slot: int
    behind: int


@dataclass(frozen=True)
class DoubleDeadEntry(Entry):
    KIND = Kind.DOUBLE_DEAD

    slot: int
    why: str = "last of its number: needs no cover"


@dataclass(frozen=True)
class DoubleFreeEntry(Entry):
    KIND = Kind.DOUBLE_FREE

    slot: int
    why: str = "played to make the train private again: needs no cover"


@dataclass(frozen=True)
class PassEntry(Entry):
    KIND = Kind.PASS

    slot: int
    why: str = "marker down: the tap was a pass, not an answer to their own double"


@dataclass(frozen=True)
class ReminderEntry(Entry):
    """``reason`` says why (the page and the voice word it); ``why`` the same in
    English, for people reading the log."""

    KIND = Kind.REMINDER

    slot: int
    reason: Reason

    @property
    def why(self) -> str:
        return self.reason.why

    def items(self) -> tuple[tuple[str, object], ...]:
        return (("slot", self.slot), ("reason", self.reason), ("why", self.reason.why))


@dataclass(frozen=True)
class UncalledEntry(ReminderEntry):
    """Went out without calling the last tile (``reason`` ``last_tile``)."""

    KIND = Kind.UNCALLED


@dataclass(frozen=True)
class LastTileEntry(Entry):
    KIND = Kind.LAST_TILE

    slot: int
    player: str | None


@dataclass(frozen=True)
class ClaimEntry(Entry):
    KIND = Kind.CLAIM

    slot: int


@dataclass(frozen=True)
class ClaimGrantedEntry(Entry):
    KIND = Kind.CLAIM_GRANTED

    slot: int


@dataclass(frozen=True)
class ClaimExpiredEntry(Entry):
    KIND = Kind.CLAIM_EXPIRED

    slot: int


# Putting mistakes right
@dataclass(frozen=True)
class UndoEntry(Entry):
    """``undid``: the action taken back (:meth:`Action.as_json`), or None with ``why``."""

    KIND = Kind.UNDO

    by: str
    undid: dict[str, object] | None
    why: str | None = None


@dataclass(frozen=True)
class FixEntry(Entry):
    """``what`` was set by hand; the fields it has (the others None)."""

    KIND = Kind.FIX

    what: Fixed
    slot: int | None
    by: str
    public: bool | None = None
    covers_left: int | None = None
    responsible: int | None = None


@dataclass(frozen=True)
class FixRefusedEntry(Entry):
    """A fix the table refused: ``error`` its refusal code, ``why`` in English."""

    KIND = Kind.FIX_REFUSED

    by: str
    error: str
    why: str


@dataclass(frozen=True)
class EngineSetEntry(Entry):
    KIND = Kind.ENGINE_SET

    round: int
    engine: int
    by: str


# What the runtime adds
@dataclass(frozen=True)
class SoundEntry(Entry):
    """A sound played; ``voiced``: the voice said it in the ``turn`` chime's place."""

    KIND = Kind.SOUND

    name: Sound
    voiced: bool = False

    def items(self) -> tuple[tuple[str, object], ...]:
        # ``{"kind": "sound", "name": "chicken"}``: ``voiced`` only when so
        return (("name", self.name), ("voiced", True)) if self.voiced else (("name", self.name),)


@dataclass(frozen=True)
class SayEntry(Entry):
    """What the voice said: ``played`` heard (False: quiet), ``late`` rendered after."""

    KIND = Kind.SAY

    text: str
    lang: str
    played: bool
    late: bool = False

    def items(self) -> tuple[tuple[str, object], ...]:
        said = (("text", self.text), ("lang", self.lang), ("played", self.played))
        return (*said, ("late", True)) if self.late else said


@dataclass(frozen=True)
class ScoreEntry(Entry):
    KIND = Kind.SCORE

    game: int
    round: int
    points: dict[str, int]
    went_out: str | None
    by: str | None


@dataclass(frozen=True)
class BlockedEntry(Entry):
    KIND = Kind.BLOCKED

    game: int
    round: int


@dataclass(frozen=True)
class GameEndedEntry(Entry):
    KIND = Kind.GAME_ENDED

    game: int
    winner: str | None


@dataclass(frozen=True)
class HandedOverEntry(Entry):
    KIND = Kind.HANDED_OVER

    game: int


@dataclass(frozen=True)
class GameBackEntry(Entry):
    KIND = Kind.GAME_BACK

    game: int
    replaces: int | None
