"""Bots at the hub: tablesim's actions done the way the people round the table do them.

A gesture is a finger or a marker on the sim backend's simulated pins
(``hub.sim``), edge by edge with human timing, contact bounce and marker flicker
(:mod:`tablesim.motions`); the real pin adapter posts each edge to the real loop
and core. A new game, a blocked round and a round's tiles go in through the hub's
game methods, as the scorepad's requests do. The soak (:mod:`tablesim.soak`) runs this on
a fake clock; the demo (:mod:`tablesim.demo`) on the real one. The hub is read back as a
tablesim ``Truth`` and compared with the simulator's, with the gesture's sounds and,
after a round's tiles, the stored points.
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Callable
from typing import TYPE_CHECKING, Any

from hub.core.events import CENTRE
from hub.core.news import Sound
from scorer.setup import check_setup
from tablesim import (
    Action,
    Blocked,
    DoubleTruth,
    EnterScores,
    GameConfig,
    Hold,
    LastTile,
    LongHold,
    MarkerOn,
    NewGame,
    SetEngine,
    Tap,
    Truth,
)
from tablesim.actions import Gesture
from tablesim.motions import BUTTON, Hand

if TYPE_CHECKING:
    from hub.app import Hub
    from hub.io.pins import SimPins

NAMES = ("Ann", "Bob", "Cid", "Dee", "Eve", "Fay", "Gus", "Hal")
CHECKED_SOUNDS = (
    Sound.CHICKEN,
    Sound.CHOO,
    Sound.OUT,
    Sound.NOPE,
    Sound.LAST_TILE,
    Sound.REMINDER,
    Sound.TURN_BACK,
)
CENTRE_FOR_MEXICAN = 0.25  # how often a player presses the centre for the Mexican slot
SETTLE_S = 0.15  # after a gesture's last edge: past the 30 ms bounce and 80 ms marker windows
# Beyond the hub's last-tile window, before a tap on the slot of the player whose tap just
# ended their turn (a fast demo's next player playing on that train).
CALL_MARGIN_S = 0.1


def setup_body(config: GameConfig, names: dict[int, str]) -> dict[str, Any]:
    """The ``POST /api/games`` body for the simulator's set-up (players named by seat)."""
    options = {
        "chickenfoot": config.chickenfoot,
        "partnerships": config.partnerships,
        "double_blank": config.double_blank,
        "blanks": config.blanks,
        "last_tile_call": config.last_tile_call,
        **{name: True for name in config.variants},
    }
    body = {
        "players": [names[s] for s in config.seats],
        "rules": config.rules,
        "seats": list(config.seats),
        "mexican_slot": config.mexican_slot,
        "set": config.set_max,
        "rounds": config.rounds,
        "options": {k: v for k, v in options.items() if v},
    }
    if config.first is not None:
        body["first"] = config.first
    return body


class BotTable:
    """Does tablesim's actions at ``hub``.

    ``wait(seconds)`` passes the time between edges: the soak advances a fake clock,
    the demo sleeps. It returns the time on the hub's clock the edge is due, and a
    button edge is stamped so, as a real button's edge is stamped when it happens: a
    thread that runs late on a busy machine (measured: up to 165 ms) does not spread a
    bounce burst past the hub's 30 ms bounce window into a second press. With
    ``drain_each_edge`` each edge goes through the loop before the next (the soak
    drains the loop inline); else the loop's thread keeps up and the table only waits
    for it at the end of a gesture.
    """

    def __init__(
        self,
        hub: Hub,
        hand: Hand,
        wait: Callable[[float], float | None],
        drain_each_edge: bool = True,
    ) -> None:
        if hub.sim is None:
            raise ValueError("bots play on the sim backend (its pins are simulated)")
        self.hub = hub
        self.sim: SimPins = hub.sim
        self.hand = hand
        self.wait = wait
        self.drain_each_edge = drain_each_edge
        self.game_id: int | None = None
        self.names: dict[int, str] = {}
        self.mexican: int | None = None
        self.edges = 0
        self._ended: tuple[int, float] | None = None  # (player, when) a tap ended a turn

    def act(self, action: Action) -> dict[str, Any] | None:
        """Do ``action``; after ``Blocked`` and ``EnterScores`` return the stored game."""
        if isinstance(action, NewGame):
            self.names = {s: NAMES[i] for i, s in enumerate(action.config.seats)}
            body = setup_body(action.config, self.names)
            self.game_id, _ = self.hub.games.new_game(check_setup(body))
            self.mexican = action.config.mexican_slot
            self.hand.markers.clear()
            return None
        assert self.game_id is not None, "a game starts with NewGame"
        if isinstance(action, Blocked):
            blocked: dict[str, Any] = self.hub.games.block_round(self.game_id, action.round)
            return blocked
        if isinstance(action, SetEngine):
            named: dict[str, Any] = self.hub.games.set_engine(
                self.game_id, action.round, action.engine, by="tablesim"
            )
            return named
        if isinstance(action, EnterScores):
            result = action.result
            tiles = {self.names[s]: t for s, t in result.tile_names().items()}
            scored: dict[str, Any] = self.hub.games.score_round(
                self.game_id, result.round, tiles=tiles, by="tablesim"
            )
            return scored
        self._gesture(action)
        return None

    def _gesture(self, gesture: Gesture) -> None:
        sim, loop = self.sim, self.hub.loop
        self._clear_of_a_call(gesture)
        turn = loop.snapshot["turn"]
        if (
            isinstance(gesture, Tap | Hold)
            and gesture.slot == self.mexican
            and (self.hand.rng.random() < CENTRE_FOR_MEXICAN)
        ):
            gesture = type(gesture)(CENTRE)  # the centre stands for the Mexican Train
        for edge in self.hand.edges(gesture):
            due = self.wait(edge.wait_s)
            if edge.part == BUTTON:
                sim.button(edge.slot, edge.level, due)
            else:
                sim.marker(edge.slot, edge.level)
            if self.drain_each_edge:
                loop.drain()
            self.edges += 1
        self.wait(SETTLE_S)
        loop.drain()
        ended = isinstance(gesture, Tap) and turn is not None and loop.snapshot["turn"] != turn
        self._ended = (turn, self.hub.clock.now()) if ended else None

    def _clear_of_a_call(self, gesture: Gesture) -> None:
        """Wait out the hub's last-tile window before a tap on the slot of the player
        whose tap just ended their turn: the hub reads a tap there, that soon, as that
        player's last-tile call ("uno"), as it would at a real table. At speed 1 the
        pauses are longer than the window; a fast demo's are not."""
        if not isinstance(gesture, Tap) or self._ended is None or self._ended[0] != gesture.slot:
            return
        window = self.hub.loop.table.timings.last_tile
        gap = self._ended[1] + window + CALL_MARGIN_S - self.hub.clock.now()
        if gap > 0:
            self.wait(gap)

    def release_all(self) -> None:
        """Lift every finger and marker (a demo stopped mid-gesture)."""
        for slot in range(1, 9):
            self.sim.button(slot, False)
            self.sim.marker(slot, False)

    def observed(self) -> Truth:
        """The hub's snapshot read as a :class:`~tablesim.Truth` (names back to slots)."""
        snap = self.hub.loop.snapshot
        game: dict[str, Any] | None = snap["game"]
        assert game is not None, "the table is observed once a game has started"
        d = snap["double"]
        slot_of = {name: slot for slot, name in self.names.items()}
        return Truth(
            turn=snap["turn"],
            public=frozenset(s["slot"] for s in snap["slots"] if s["public"]),
            double=None
            if d is None
            else DoubleTruth(d["slot"], d["covers_left"], d["responsible"]),
            phase=game["phase"],
            round=game["round"],
            engine=game["engine"],
            went_out=slot_of.get(snap["went_out"]) if snap["went_out"] else None,
            one_tile=frozenset(snap.get("one_tile", ())),
            queued=tuple(
                DoubleTruth(q["slot"], q["covers_left"], q["responsible"])
                for q in snap["doubles"]
                if q.get("queued")
            ),
        )


def differences(expected: Truth, actual: Truth) -> list[str]:
    """``field: expected X, hub Y`` for each field of the truth the hub gets wrong."""
    return [
        f"{name}: expected {_show(getattr(expected, name))}, hub {_show(getattr(actual, name))}"
        for name in Truth.__dataclass_fields__
        if getattr(expected, name) != getattr(actual, name)
    ]


def _show(value: object) -> str:
    if isinstance(value, frozenset):
        return "{" + ", ".join(map(str, sorted(value))) + "}"
    return repr(value)


def expected_sounds(
    action: Action, before: Truth | None, mexican: int | None, after: Truth | None = None
) -> Counter[str]:
    """The checked sounds a gesture makes: a chicken for a double played (none for a
    dead double closed), a choo for a marker placed, the fanfare for going out (and
    once more when the round ends ``after`` the first turns, ``aces``), the
    ``last_tile`` sound for a call; never a ``nope``, a reminder (going out without
    having called is noted in the log, not sounded), or an undo's chime."""
    heard: Counter[str] = Counter()
    if isinstance(action, Hold):
        # In a first-turn string (triples) a second double on one's own train is a
        # double played, not the first one closed.
        dead = (
            before is not None
            and before.double is not None
            and before.double.slot == action.slot
            and before.phase != "first-turn"
        )
        heard[Sound.CHICKEN] = 0 if dead else 1
    elif isinstance(action, LongHold):
        heard[Sound.OUT] = 1
    elif isinstance(action, LastTile):
        heard[Sound.LAST_TILE] = 1
    elif isinstance(action, MarkerOn) and action.slot != mexican:
        heard[Sound.CHOO] = 1
    ended = after is not None and after.phase == "round-over" and after.went_out is not None
    if ended and before is not None and before.phase == "first-turn":
        heard[Sound.OUT] = 1  # the round ends with the first turns: the fanfare now
    return heard


def sound_differences(
    action: Action,
    before: Truth | None,
    mexican: int | None,
    played: list[str],
    after: Truth | None = None,
) -> list[str]:
    """How the sounds played during a gesture differ from :func:`expected_sounds`."""
    heard = Counter(name for name in played if name in CHECKED_SOUNDS)
    want = expected_sounds(action, before, mexican, after)
    return [
        f"sound {name}: expected {want[name]}, hub played {heard[name]}"
        for name in CHECKED_SOUNDS
        if heard[name] != want[name]
    ]


def score_differences(
    action: EnterScores, game: dict[str, Any], names: dict[int, str]
) -> list[str]:
    """How the stored round differs from the simulator's result."""
    result = action.result
    stored = next((r for r in game["rounds"] if r["round"] == result.round), None)
    if stored is None:
        return [f"round {result.round}: not in the store"]
    want = {
        "points": {names[s]: p for s, p in result.points.items()},
        "went_out": names[result.went_out] if result.went_out is not None else None,
        "blocked": result.blocked,
    }
    return [
        f"scores {key}: expected {value!r}, store {stored[key]!r}"
        for key, value in want.items()
        if stored[key] != value
    ]
