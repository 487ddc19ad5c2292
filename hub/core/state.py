"""The table's state: immutable dataclasses the core replaces, never mutates."""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import TypeVar

from hub.core.events import CENTRE
from hub.core.news import SOME_ACTION, Action
from scorer.profiles import PROFILES, SLOTS

_T = TypeVar("_T")

MEXICAN = "mexican"
# A game's phases, in order (the snapshot's ``game.phase``, docs/api.md): their one home.
# A turn is played only in the first two (the snapshot's ``game.playing``). The page words
# them from its catalogs (``phase.<phase>``) and tests/arch/test_facts.py holds every phase the
# code names to this list.
PHASES = ("first-turn", "play", "round-over", "finished")
PLAYING = PHASES[:2]
HISTORY = 256  # table actions kept per round for undo (a long round has about 150)


def evolve(obj: _T, **changes: object) -> _T:
    """A copy of frozen dataclass ``obj`` with ``changes``: ``dataclasses.replace`` without
    its per-call field introspection, which dominated the press-to-sound path.
    """
    new = object.__new__(type(obj))
    new.__dict__.update(obj.__dict__)
    new.__dict__.update(changes)
    return new


@dataclass(frozen=True)
class Timings:
    """Gesture thresholds and debounce windows, in seconds (from the config).

    These defaults are the thresholds' one home: the config's ``[gestures]`` defaults,
    the simulator's hands (``tablesim/motions.py``) and the tests' drivers read them.
    The long hold is the same on the slots (went out) and the centre (undo), beyond
    any hold a person means as a double, so no ordinary hold reaches it by accident.
    """

    tap_max: float = 1.0
    long_hold: float = 4.0  # went out (slots), undo (centre): the same on both
    bounce: float = 0.03
    flicker: float = 0.08
    centre_long_hold: float = 4.0
    last_tile: float = 0.6
    claim_window: float = 30.0  # the chord on the lit slot grants a claim this long


@dataclass(frozen=True)
class Claim:
    """A phone's claim of the scorekeeper role, lit on ``slot`` at ``at`` and waiting
    for the table's chord there (``hub.core.claim``) until ``until``."""

    number: int
    slot: int
    until: float
    at: float = 0.0


@dataclass(frozen=True)
class ButtonInput:
    """One slot's button as the debouncer sees it.

    ``raw`` is the last level reported; ``pressed`` the accepted one. Edges within
    ``bounce`` of an accepted edge are bounce: they only update ``raw`` and the
    level is reconciled at ``settle_at``.
    """

    raw: bool = False
    pressed: bool = False
    since: float = 0.0
    settle_at: float | None = None
    long_at: float | None = None
    consumed: bool = False


@dataclass(frozen=True)
class MarkerInput:
    """One slot's marker sensor: ``present`` changes once ``raw`` held for the window."""

    raw: bool = False
    raw_at: float = 0.0
    present: bool = False


@dataclass(frozen=True)
class Double:
    """An open double on train ``slot``: ``covers_left`` to go, ``responsible`` must cover.

    ``waiting`` marks a double that ended a first turn under a profile where its
    player satisfies it on their second turn (``triples``). ``queued`` marks a double
    laid after another in the same turn (option ``doubled_doubles``): it waits behind
    the ones before it and binds nobody until they are covered. ``went_round``: the
    responsibility has left its player (option ``continuous_draw``: when it comes back,
    they draw until they can cover).
    """

    slot: int
    covers_left: int
    responsible: int
    covers_done: int = 0
    waiting: bool = False
    player: int | None = None  # who played it (None: set by hand)
    queued: bool = False
    went_round: bool = False


@dataclass(frozen=True)
class Game:
    """The game being played: who sits where, the profile and the round."""

    id: int
    rules: str
    players: tuple[str, ...]
    seats: tuple[int, ...]
    mexican_slot: int | None
    set_max: int
    rounds: int
    round: int
    first: int
    phase: str
    options: tuple[tuple[str, object], ...] = ()
    engine_set: int | None = None  # this round's engine when the table named it

    @property
    def engine(self) -> int:
        """The engine's pips for this round: as set (``aces``: the highest double held),
        else set max counting down a round at a time."""
        if self.engine_set is not None:
            return self.engine_set
        return self.set_max - (self.round - 1)

    @property
    def mexican(self) -> int | None:
        """Where the Mexican Train is: its slot, or the centre when it has none; None
        when the game has no Mexican Train (``triples``)."""
        if not PROFILES[self.rules].mexican_train:
            return None
        return CENTRE if self.mexican_slot is None else self.mexican_slot

    def option(self, name: str, default: object = None) -> object:
        """The value of game option ``name``."""
        return dict(self.options).get(name, default)

    def owner(self, slot: int) -> str | None:
        """Player name, ``"mexican"`` or None for ``slot``."""
        if slot == self.mexican:
            return MEXICAN
        if slot in self.seats:
            return self.players[self.seats.index(slot)]
        return None

    def clockwise(self) -> tuple[int, ...]:
        """Seated slots in clockwise (ascending) order."""
        return tuple(sorted(self.seats))

    def next_seat(self, slot: int) -> int:
        """The next seated slot clockwise from ``slot``."""
        order = self.clockwise()
        later = [s for s in order if s > slot]
        return later[0] if later else order[0]

    def partner(self, slot: int) -> int | None:
        """The partner's slot when playing in partnerships (partners sit opposite)."""
        if not self.option("partnerships"):
            return None
        order = self.clockwise()
        half = len(order) // 2
        return order[(order.index(slot) + half) % len(order)]


@dataclass(frozen=True)
class Table:
    """Everything the hub knows: inputs, the game, whose turn, the open doubles."""

    timings: Timings = field(default_factory=Timings)
    buttons: tuple[ButtonInput, ...] = tuple(ButtonInput() for _ in SLOTS)
    markers: tuple[MarkerInput, ...] = tuple(MarkerInput() for _ in SLOTS)
    game: Game | None = None
    turn: int | None = None
    doubles: tuple[Double, ...] = ()
    first_turns_left: int = 0
    went_out: int | None = None
    out_pending: int | None = None
    due: float | None = None  # the inputs' next deadline, kept by ``hub.core.apply``
    centre: ButtonInput = ButtonInput()
    by_hand: frozenset[int] = frozenset()  # trains set public by hand (marker missing)
    one_tile: frozenset[int] = frozenset()  # players who called their last tile
    last_end: tuple[int, float] | None = None  # (player, at) of the tap that ended a turn
    lifted: int | None = None  # the turn owner lifted their own marker this turn
    history: tuple[Moment, ...] = ()  # this round's earlier moments, for undo
    actions: int = 0  # table actions taken on this table: the newest moment's stamp
    claims: tuple[Claim, ...] = ()  # claims waiting for the chord (see hub.core.claim)

    @property
    def running_game(self) -> Game | None:
        """The game on the table unless it is finished (None: no game is being played)."""
        game = self.game
        return None if game is None or game.phase == "finished" else game

    def marker(self, slot: int) -> bool:
        """True while a marker (debounced) sits on ``slot`` (never on the centre)."""
        return slot != CENTRE and self.markers[slot - 1].present

    def public(self, slot: int) -> bool:
        """True when ``slot``'s train is public: the Mexican Train, a marker on it, or
        set public by hand."""
        if self.game is not None and slot == self.game.mexican:
            return True
        return self.marker(slot) or slot in self.by_hand


@dataclass(frozen=True)
class Moment:
    """The play part of a table (not its inputs) before one table action, and what
    that action was (``what``, as data: the log's ``undid``, the snapshot's
    ``undoes``); undo puts it back."""

    game: Game | None
    turn: int | None
    doubles: tuple[Double, ...]
    first_turns_left: int
    went_out: int | None
    out_pending: int | None
    by_hand: frozenset[int]
    one_tile: frozenset[int]
    last_end: tuple[int, float] | None
    lifted: int | None
    what: Action = SOME_ACTION
    # The action's plays the statistics count (TablePlayed's game, round, player and
    # kind): an undo takes them back.
    plays: tuple[tuple[int, int, str, str], ...] = ()
    # The action's own number (the table's ``actions`` after it; never reused, across
    # undos, rounds and games): what a phone's undo names (the snapshot's ``undo_stamp``).
    stamp: int = 0
