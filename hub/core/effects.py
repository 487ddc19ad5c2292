"""Effects: orders the core gives; adapters carry them out (sound, log, store, trust).

The ring is drawn from each snapshot (``hub/io/lights.py``); the one order it takes is
:class:`PressRefused`, a short flash that no snapshot shows.
"""

from __future__ import annotations

from dataclasses import dataclass

from hub.core.entries import Entry
from hub.core.news import Kind, Play, Sound


@dataclass(frozen=True)
class PlaySound:
    """Play the named sound (:class:`hub.core.news.Sound`)."""

    name: Sound


@dataclass(frozen=True)
class LogEntry:
    """Append ``what`` (one typed entry of :mod:`hub.core.entries`) to the hub's event
    log, stamped with the monotonic time ``at``."""

    what: Entry
    at: float

    @property
    def kind(self) -> Kind:
        """The entry's kind (``what``'s)."""
        return self.what.KIND

    def as_dict(self) -> dict[str, object]:
        """The entry's fields as a dict, with ``kind`` (``at`` is added by the log)."""
        return {"kind": self.kind, **dict(self.what.items())}


@dataclass(frozen=True)
class RoundEnded:
    """The round ended: ``went_out`` names the player who went out, or None if blocked."""

    game_id: int
    round: int
    went_out: str | None


@dataclass(frozen=True)
class RoundReopened:
    """An undo took back the end of round ``round``: it is being played again, and the
    store forgets who went out (or that it was blocked) while it is unscored."""

    game_id: int
    round: int


@dataclass(frozen=True)
class TablePlayed:
    """A play the players' statistics count, seen on the table: ``kind`` is ``double``
    (a double played: the chicken) or ``last_tile`` (a last-tile call) by ``player`` in
    round ``round`` of game ``game_id``. The store notes it (``plays``); ``undone``: an
    undo took that play back, and the store forgets one such note."""

    game_id: int
    round: int
    player: str
    kind: Play
    undone: bool = False


@dataclass(frozen=True)
class TrainPublic:
    """The core took train ``slot`` for public: its marker went down (the ``choo``
    sounds with it, which the quiet mode may silence). The voice says it; no adapter
    carries it out."""

    slot: int


@dataclass(frozen=True)
class PressRefused:
    """The table refused a press: a tap on someone else's private train, a hold where
    no double may go, a long hold off one's own slot, an engine tap off a seat, the
    centre's undo with nothing to undo. ``slot`` is the train the press was for (a
    centre press standing for the Mexican Train: its slot, or ``CENTRE`` when it has
    none). The ring flashes that slot; the ``nope`` sound, which the quiet mode may
    silence, comes with it as a sound of its own."""

    slot: int


@dataclass(frozen=True)
class ClaimAnswered:
    """Claim ``number`` ended: ``granted`` by a press on its slot in time, or not (it
    expired, or a newer claim replaced it). The runtime turns a grant into a token."""

    number: int
    granted: bool


Effect = (
    PlaySound
    | LogEntry
    | RoundEnded
    | RoundReopened
    | TablePlayed
    | TrainPublic
    | PressRefused
    | ClaimAnswered
)
