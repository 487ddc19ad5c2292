"""What happened, as data: the one home of the hub's vocabulary.

Every kind of entry in the hub's event log (:class:`Kind`: ``GET /api/log``, the live
stream's and MQTT's ``event``), every sound the core may order (:class:`Sound`), the
reasons of a reminder (:class:`Reason`) and what an undo takes back (:class:`Action`).
Each is str-valued, so the wire keeps its words (``{"kind": "tap", "slot": 3}``),
while the code compares typed values and never parses words back into meaning: the
page, the voice and MQTT read kinds and codes, and make words at the edge, in the
reader's language.
"""

from __future__ import annotations

from dataclasses import dataclass
from enum import StrEnum


class Kind(StrEnum):
    """The kind of an entry in the hub's event log."""

    # What the hands did at the table (``hub/core/reading.py``'s ``gesture_log``)
    TAP = "tap"
    HOLD = "hold"
    LONG_HOLD = "long-hold"
    MARKER = "marker"
    # What the table made of it
    TURN = "turn"
    ENGINE = "engine"
    ROUND = "round"
    ROUND_OVER = "round-over"
    GAME = "game"
    GAME_OVER = "game-over"
    STRING_END = "string-end"
    DOUBLE_QUEUED = "double-queued"
    DOUBLE_DEAD = "double-dead"
    DOUBLE_FREE = "double-free"
    PASS = "pass"
    REMINDER = "reminder"
    UNCALLED = "uncalled"
    LAST_TILE = "last-tile"
    CLAIM = "claim"
    CLAIM_GRANTED = "claim-granted"
    CLAIM_EXPIRED = "claim-expired"
    # Putting mistakes right (``hub/core/undo.py``)
    UNDO = "undo"
    FIX = "fix"
    FIX_REFUSED = "fix-refused"
    ENGINE_SET = "engine-set"
    # What the runtime adds: the sounds and the voice (``hub/runtime/dispatch.py``) and
    # the score edits (``hub/games/changes.py``)
    SOUND = "sound"
    SAY = "say"
    SCORE = "score"
    BLOCKED = "blocked"
    GAME_ENDED = "game-ended"
    HANDED_OVER = "handed-over"
    GAME_BACK = "game-back"


# The gestures, as the log names them (MQTT's device triggers follow these).
GESTURES = frozenset({Kind.TAP, Kind.HOLD, Kind.LONG_HOLD})
# The table actions an undo can take back, by the log entry that names each.
ACTIONS = frozenset({Kind.TAP, Kind.HOLD, Kind.LONG_HOLD, Kind.MARKER, Kind.FIX, Kind.ROUND_OVER})


class Sound(StrEnum):
    """The sounds the hub plays (``hub/sounds/<name>.wav``)."""

    CHOO = "choo"  # a train went public
    CHICKEN = "chicken"  # a double was played
    TURN = "turn"  # the turn passed
    TURN_BACK = "turn_back"  # an undo
    NOPE = "nope"  # a refused press
    REMINDER = "reminder"
    OUT = "out"  # someone went out
    LAST_TILE = "last_tile"


class Play(StrEnum):
    """A play the players' statistics count (a ``TablePlayed`` effect's ``kind``)."""

    DOUBLE = "double"  # a double played: the chicken
    LAST_TILE = "last_tile"  # a last-tile call


class Reason(StrEnum):
    """Why the table reminds a player (a ``reminder`` entry's ``reason``; its ``why``
    says it in English for people reading the log)."""

    NO_MARKER = "no_marker"  # failed to cover: the marker goes down
    OWN_DOUBLE = "own_double"  # could not answer their own double: the marker goes down
    LAST_TILE = "last_tile"  # went out without calling the last tile
    PRIVATE = "private"  # only a train's owner makes it private, in their own turn
    LIFTED = "lifted"  # lifted the marker without playing on the train
    DRAW = "draw"  # continuous draw: keep drawing until the double is covered

    @property
    def why(self) -> str:
        """The reason in English words (the log's ``why``)."""
        return WHY[self]


WHY = {
    Reason.NO_MARKER: "failed to cover without a marker",
    Reason.OWN_DOUBLE: "could not answer their own double: marker down",
    Reason.LAST_TILE: "went out without calling the last tile",
    Reason.PRIVATE: "only the marker's owner makes a train private, in their own turn",
    Reason.LIFTED: "lifted their marker without playing on their train: put it back",
    Reason.DRAW: "continuous draw: keep drawing until you can cover the double",
}


class Fixed(StrEnum):
    """What a scorekeeper's fix set by hand (a ``fix`` entry's ``what``)."""

    TURN = "turn"
    PUBLIC = "public"
    DOUBLE = "double"


@dataclass(frozen=True)
class Action:
    """A table action, as an undo names what it takes back (the ``undid`` of an
    ``undo`` entry; the snapshot's ``undoes``).

    ``kind`` is the action's log entry (:data:`ACTIONS`), or None for a change no entry
    names; ``slot`` the slot it was made on (0: the centre); ``present`` a marker put
    on (True) or taken off; ``fixed`` what a fix set, with its ``public`` flag;
    ``went_out`` who went out when the action ended the round (None: blocked)."""

    kind: Kind | None
    slot: int | None = None
    present: bool | None = None
    fixed: Fixed | None = None
    public: bool | None = None
    went_out: str | None = None

    def __post_init__(self) -> None:
        # Read back from the journal, the enums come as their words.
        if self.kind is not None and type(self.kind) is not Kind:
            object.__setattr__(self, "kind", Kind(self.kind))
        if self.fixed is not None and type(self.fixed) is not Fixed:
            object.__setattr__(self, "fixed", Fixed(self.fixed))

    def as_json(self) -> dict[str, object]:
        """The action as the API shows it: ``kind`` and the fields it has. Made once
        (every snapshot names the next undo's action): the dict is shared, never to
        be changed."""
        made = self.__dict__.get("_json")
        if made is not None:
            return made  # type: ignore[no-any-return]
        found: dict[str, object] = {"kind": None if self.kind is None else str(self.kind)}
        for name in ("slot", "present", "fixed", "public", "went_out"):
            value = getattr(self, name)
            if value is not None:
                found[name] = str(value) if name == "fixed" else value
        self.__dict__["_json"] = found  # frozen: a cache, not a field
        return found


SOME_ACTION = Action(None)
