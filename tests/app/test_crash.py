"""Crashes in the middle of whole bot games: the real hub (``mtrain-hub run`` on the sim
backend) is SIGKILLed 200 times (``make torture``; in an ordinary run a dozen or more,
until each kind of kill has happened) at random moments while tablesim's bots play game
after game of the four profiles through the HTTP API (presses and markers on the virtual
hub, scores, blocked rounds and engines on the scorepad).

What must survive, precisely. An action is *acknowledged* once its response came back:
a press's or a marker's snapshot, the game after a score. The last acknowledged table
(the snapshot, read again after a score) is the table before the kill. The action in
flight when the hub died may have happened or not, whole:

- after the restart the table (game, round, phase, engine, turn, every slot's owner,
  marker and public train, the open doubles, who went out, the last-tile calls, the
  undo depth) is exactly the one acknowledged last, and the action in flight is done
  again; or the action in flight happened, and the table is the one the simulator
  expects after it (turn, public trains, open double, phase, round, engine);
- every acknowledged score is stored, and a score in flight is stored whole or not.

A new game, and a turn-ending tap with the last-tile call right after it, are not
interrupted (the test's own lock): a game's token comes only in its answer, and a
last-tile call's window does not span a restart (``docs/storage.md``).
"""

from __future__ import annotations

import http.client
import itertools
import random
import signal
import threading
import time
from collections.abc import Iterator
from dataclasses import dataclass, field
from typing import Any

import pytest

from tablesim import (
    Action,
    Blocked,
    EnterScores,
    GameConfig,
    Hold,
    LastTile,
    LongHold,
    MarkerOff,
    MarkerOn,
    NewGame,
    RandomLegal,
    SetEngine,
    Tap,
    Truth,
    iter_actions,
)
from tablesim.actions import DoubleTruth
from tablesim.bot_table import NAMES, setup_body
from tests.helpers import eventually, scaled
from tests.http_client import HubProcess

LONG_KILLS = 200
# At least this many kills; an ordinary run goes on (up to LONG_KILLS) until whole games
# of every profile were played and kills fell both before and after an action in flight.
KILLS = scaled(quick=12, long=LONG_KILLS)
MOST_KILLS = max(KILLS, LONG_KILLS)
ROUNDS = scaled(quick=1, long=2)  # per game
SEED = 2718
PROFILES = ("aces", "mexicantrainfun", "consensus", "triples")
CUT_OFF = (OSError, http.client.HTTPException, ValueError)
# Short gestures, each press 250 ms or more inside its window: the hub reads a press on
# its own clock, so a busy machine (the suite runs in parallel) delays a release by that
# much before a tap reads as a hold.
GESTURES = "[gestures]\ntap_max_ms = 300\nlong_hold_ms = 1000\nlast_tile_ms = 800\n"
HOLD_MS = {Tap: 40, LastTile: 40, Hold: 600, LongHold: 1300}
AFTER_STEPS = (0, 1, 1, 2)  # acknowledged steps after a restart before the next kill
KILL_WITHIN_S = 0.25  # then the kill comes within this (mostly during a step)
CALL_GAP_S = 0.9  # from a player's tap to a tap on their slot that is not a call
CORE = ("game", "turn", "slots", "double", "doubles", "went_out", "one_tile", "undo")
Step = tuple[Action, Truth]


def games(seed: int) -> Iterator[Step]:
    """Whole games, the four profiles in turn, each a new seed: 3 players, double-6."""
    for number in itertools.count():
        config = GameConfig.for_players(
            PROFILES[number % 4], 3, seed=seed + number, set_max=6, rounds=ROUNDS, tiles_each=5
        )
        yield from iter_actions(config, RandomLegal(seed + number))


def steps_to_finish_every_profile(seed: int) -> int:
    """How many steps :func:`games` takes until a game of each profile has finished."""
    finished: set[str] = set()
    rules = ""
    for count, (action, truth) in enumerate(games(seed), 1):
        if isinstance(action, NewGame):
            rules = action.config.rules
        if truth.phase == "finished":
            finished.add(rules)
        if finished == set(PROFILES):
            return count
    raise AssertionError("unreachable: games() never ends")


@dataclass
class Game:
    """What the client knows of the game being played: ids, names, acknowledged scores."""

    id: int
    token: str
    rules: str
    names: dict[int, str]
    scores: dict[int, dict[str, int]] = field(default_factory=dict)


@dataclass
class Client:
    """The bots' side of the table, across restarts of the hub."""

    hub: HubProcess
    steps: Iterator[Step]
    acked: dict[str, Any]  # the last acknowledged snapshot
    acked_truth: Truth | None = None
    game: Game | None = None
    in_flight: Step | None = None
    redo: list[Step] = field(default_factory=list)  # steps to take before the next new one
    last_end: tuple[int, float] | None = None  # who ended a turn with a tap, and when
    unkillable: threading.Lock = field(default_factory=threading.Lock)
    acks: int = 0  # steps acknowledged so far
    stopped: bool = False  # the driver gave up (cut off, or a failure)
    acked_step: threading.Condition = field(default_factory=threading.Condition)
    failures: list[str] = field(default_factory=list)
    finished: list[str] = field(default_factory=list)
    outcomes: dict[str, int] = field(default_factory=lambda: {"again": 0, "done": 0})

    def next_step(self) -> Step:
        return self.redo.pop() if self.redo else next(self.steps)

    def scored(self, action: EnterScores) -> None:
        """A round's scores were stored: the ledger has them."""
        assert self.game is not None
        result = action.result
        self.game.scores[result.round] = {self.game.names[s]: p for s, p in result.points.items()}


def core_of(snapshot: dict[str, Any]) -> dict[str, Any]:
    return {key: snapshot[key] for key in CORE}


def truth_of(snapshot: dict[str, Any], names: dict[int, str]) -> Truth:
    """The snapshot as tablesim's truth (names back to slots)."""
    game = snapshot["game"]
    double = snapshot["double"]
    slot_of = {name: slot for slot, name in names.items()}
    return Truth(
        turn=snapshot["turn"],
        public=frozenset(s["slot"] for s in snapshot["slots"] if s["public"]),
        double=None
        if double is None
        else DoubleTruth(double["slot"], double["covers_left"], double["responsible"]),
        phase=game["phase"],
        round=game["round"],
        engine=game["engine"],
        went_out=slot_of.get(snapshot["went_out"]) if snapshot["went_out"] else None,
        one_tile=frozenset(snapshot["one_tile"]),
    )


def perform(client: Client, step: Step) -> dict[str, Any]:
    """Do the step's action through the API; the snapshot it was acknowledged with
    (after a scorepad request, the snapshot read after its answer)."""
    hub, game, action = client.hub, client.game, step[0]
    if isinstance(action, Tap | LastTile | Hold | LongHold):
        player = client.acked_truth.turn if client.acked_truth else None
        last = client.last_end
        if isinstance(action, Tap) and last is not None and last[0] == action.slot:
            # The player pauses: a tap within the hub's (real-time) window would be a call.
            time.sleep(max(0.0, last[1] + CALL_GAP_S - time.monotonic()))
        status, answer = hub.post(
            f"/api/sim/slots/{action.slot}/press", {"hold_ms": HOLD_MS[type(action)]}
        )
        expect(status, answer, action)
        if isinstance(action, LastTile):
            client.last_end = None
        elif isinstance(action, Tap) and player is not None and answer["turn"] != player:
            client.last_end = (player, time.monotonic())  # as the core keeps it
        return answer
    if isinstance(action, MarkerOn | MarkerOff):
        status, answer = hub.post(
            f"/api/sim/slots/{action.slot}/marker", {"present": isinstance(action, MarkerOn)}
        )
        return expect(status, answer, action)
    if isinstance(action, NewGame):
        names = {s: NAMES[i] for i, s in enumerate(action.config.seats)}
        status, answer = hub.post("/api/games", setup_body(action.config, names))
        expect(status, answer, action, 201)
        client.game = Game(answer["id"], answer["token"], action.config.rules, names)
    else:
        assert game is not None
        status, answer = hub.post(*scorepad(game, action), token=game.token)
        expect(status, answer, action)
        if isinstance(action, EnterScores):
            client.scored(action)
    # Acknowledged: what the table shows next is read, not told.
    client.in_flight, client.acked, client.acked_truth = None, {}, step[1]
    return hub.get("/api/state")[1]


def scorepad(game: Game, action: Action) -> tuple[str, dict[str, Any]]:
    """The scorepad's request for a blocked round, an engine or a round's tiles."""
    base = f"/api/games/{game.id}/rounds"
    if isinstance(action, Blocked):
        return f"{base}/{action.round}/blocked", {}
    if isinstance(action, SetEngine):
        return f"{base}/{action.round}/engine", {"engine": action.engine}
    assert isinstance(action, EnterScores)
    tiles = {game.names[s]: t for s, t in action.result.tile_names().items()}
    return f"{base}/{action.result.round}/scores", {"tiles": tiles}


def expect(status: int, answer: Any, action: Action, want: int = 200) -> Any:
    if status != want:
        raise AssertionError(f"{action}: {status} {answer}")
    return answer


def drive(client: Client) -> None:
    """Play step after step until the hub is cut off (or the hub and bots disagree)."""
    client.stopped = False
    try:
        play_on(client)
    finally:
        with client.acked_step:
            client.stopped = True
            client.acked_step.notify_all()


def play_on(client: Client) -> None:
    while True:
        step = client.next_step()
        pair = isinstance(step[0], NewGame) or (
            isinstance(step[0], Tap) and isinstance(peek(client)[0], LastTile)
        )
        with client.unkillable if pair else _nothing():
            if not play(client, step):
                return
            if pair and not isinstance(step[0], NewGame) and not play(client, client.next_step()):
                return


def play(client: Client, step: Step) -> bool:
    """One step: True when acknowledged and as the simulator expects."""
    client.in_flight = step
    try:
        snapshot = perform(client, step)
    except CUT_OFF:
        return False
    except AssertionError as exc:
        client.failures.append(str(exc))
        return False
    client.in_flight = None
    assert client.game is not None
    seen = truth_of(snapshot, client.game.names)
    if seen != step[1]:
        client.failures.append(f"{step[0]}: expected {step[1]}, hub {seen}")
        return False
    if step[1].phase == "finished":
        client.finished.append(client.game.rules)
    client.acked, client.acked_truth = snapshot, step[1]
    with client.acked_step:
        client.acks += 1
        client.acked_step.notify_all()
    return True


def peek(client: Client) -> Step:
    """The step after the current one (kept for :meth:`Client.next_step`)."""
    step = client.next_step()
    client.redo.append(step)
    return step


class _nothing:
    def __enter__(self) -> None:
        return None

    def __exit__(self, *exc: object) -> None:
        return None


def covered(client: Client) -> bool:
    """Whole games of every profile were played through the kills, and the kills fell
    both before and after the hub took the action in flight."""
    return (
        set(client.finished) == set(PROFILES)
        and client.outcomes["again"] > 0
        and client.outcomes["done"] > 0
    )


def wait_for_steps(client: Client, count: int) -> None:
    """Until ``count`` more steps are acknowledged (or the driver gave up)."""
    target = client.acks + count
    eventually(lambda: client.acks >= target or client.stopped, 30, condition=client.acked_step)


def check_restart(client: Client, kill: int) -> None:
    """The table after the restart is the acknowledged one, or the one after the
    action in flight; the acknowledged scores are all stored."""
    after = client.hub.get("/api/state")[1]
    game, step = client.game, client.in_flight
    client.in_flight = None
    if game is None:
        assert after["game"] is None, f"kill {kill}: a table with no game {after['game']}"
        if step is not None:
            client.redo.append(step)
        return
    if client.acked and core_of(after) == core_of(client.acked):
        if step is not None:
            client.redo.append(step)  # it did not happen: do it again
            client.outcomes["again"] += 1
    elif step is not None and truth_of(after, game.names) == step[1]:
        client.outcomes["done"] += 1
        if isinstance(step[0], EnterScores):
            client.scored(step[0])
        if step[1].phase == "finished":
            client.finished.append(game.rules)
    else:
        assert (
            not client.acked
            and step is None
            and (truth_of(after, game.names) == client.acked_truth)
        ), (
            f"kill {kill}: in flight {step and step[0]}\nacknowledged "
            f"{client.acked and core_of(client.acked)}\nafter {core_of(after)}"
        )
    client.acked, client.acked_truth = after, truth_of(after, game.names)
    client.last_end = None  # the hub forgets it on restart
    check_scores(client, game, kill)


def check_scores(client: Client, game: Game, kill: int) -> None:
    view = client.hub.get(f"/api/games/{game.id}")[1]
    stored = {r["round"]: r["points"] for r in view["rounds"] if r["finished"]}
    assert stored == game.scores, f"kill {kill}: stored {stored}, acknowledged {game.scores}"


@pytest.mark.slow
@pytest.mark.torture
def test_the_table_survives_200_kills_in_whole_bot_games(tmp_path):
    config = tmp_path / "hub.toml"
    config.write_text(GESTURES)
    state = tmp_path / "state"
    rng = random.Random(SEED)

    def start() -> HubProcess:
        return HubProcess(state, "--config", str(config))

    # Fewer kills play more steps between them: the games end within KILLS kills.
    spacing = max(0, steps_to_finish_every_profile(SEED) // KILLS - 1)
    hub = start()
    client = Client(hub, games(SEED), hub.get("/api/state")[1])
    for kill in range(MOST_KILLS):
        if kill >= KILLS and covered(client):
            break
        driver = threading.Thread(target=drive, args=(client,))
        driver.start()
        # Somewhere in the next few steps: a long hold in flight gets its chance too.
        wait_for_steps(client, rng.choice(AFTER_STEPS) + spacing)
        time.sleep(rng.uniform(0.0, KILL_WITHIN_S))  # the kill comes at a random moment
        with client.unkillable:
            assert hub.stop(signal.SIGKILL) == -signal.SIGKILL
        driver.join(timeout=30)
        assert not driver.is_alive() and not client.failures, client.failures
        hub = client.hub = start()
        check_restart(client, kill)
    assert hub.stop() == 0
    # Whole games of every profile were played through the kills, and the kills fell
    # both before and after the hub took the action in flight.
    assert set(client.finished) == set(PROFILES), client.finished
    assert client.outcomes["again"] > 0 and client.outcomes["done"] > 0, client.outcomes
