"""The demo: bots play Mexican Train at a human pace through a running hub.

``mtrain-hub demo`` starts the real hub (real clock, the loop on its thread, the web
server, the sound player as configured) on the ``sim`` backend, and seats tablesim's
bots round it. They press the simulated buttons and put markers on the simulated
sensors (:class:`tablesim.bot_table.BotTable`), so the scorepad fills live, sounds and all;
at each round's end the scorekeeper bot enters the hands (through the store and
``round_scored``, as the scorepad does), and phones see the scores. Game after game
until Ctrl-C. The one command that shows the product without hardware.

Games go to a temporary state directory unless ``--state-dir`` names one: bot games
stay out of the table's real score history.
"""

from __future__ import annotations

import argparse
import logging
import random
import signal
import sys
import tempfile
import threading
import time
from collections.abc import Callable
from typing import TYPE_CHECKING, Any

from hub.runtime.config import ConfigError, load
from hub.runtime.logs import VERBOSE
from tablesim import (
    PROFILES,
    Blocked,
    Bot,
    EnterScores,
    FirstLegal,
    GameConfig,
    LargestPips,
    NewGame,
    RandomLegal,
    iter_actions,
)
from tablesim.actions import Action
from tablesim.bot_table import BotTable
from tablesim.motions import Hand, Pace

if TYPE_CHECKING:
    from hub.app import Hub

log = logging.getLogger("tablesim.demo")

# Pauses at speed 1 (seconds) where the table talks rather than plays.
COUNT_TILES_S = 6.0  # a round is over: hands are counted before the scores go in
BLOCKED_S = 3.0  # everyone looks round before agreeing nobody can play
NEXT_GAME_S = 15.0  # the winner is cheered, the tiles are shuffled
LATE_S = 0.05  # behind the table's rhythm by more than this: catch up no further
# Gaps shorter than this (a bounce burst's, 0.2-2 ms) are not slept: a real sleep that
# short overshoots by a thread switch or more on a busy machine, and a burst spread past
# the hub's 30 ms bounce window reads as two presses (a double turn, a false "uno").
BURST_S = 0.005


class Demo:
    """Bots playing game after game at ``hub`` (started, on the ``sim`` backend).

    ``sleep`` passes real time (a test passes a fake clock's ``advance``); ``stop``
    ends the demo at the next action. ``rounds`` shortens each game.
    """

    def __init__(
        self,
        hub: Hub,
        rules: str = "consensus",
        players: int = 4,
        speed: float = 1.0,
        seed: int = 1,
        rounds: int | None = None,
        sleep: Callable[[float], None] = time.sleep,
        stop: threading.Event | None = None,
    ) -> None:
        if hub.sim is None:
            raise ValueError("the demo needs the sim backend (its buttons are simulated)")
        self.hub = hub
        self.rules = rules
        self.players = players
        self.speed = speed
        self.rounds = rounds
        self.sleep = sleep
        self.stop = stop or threading.Event()
        self.rng = random.Random(seed)
        self.disagreements = 0
        self._due = hub.clock.now()

    def game_config(self) -> tuple[GameConfig, dict[int, Bot]]:
        """The next game: seats 1..players, a fresh deal, a mix of bots."""
        config = GameConfig.for_players(
            self.rules, self.players, seed=self.rng.getrandbits(32), rounds=self.rounds
        )
        kinds = (FirstLegal, LargestPips, lambda: RandomLegal(self.rng.getrandbits(32)))
        return config, {s: self.rng.choice(kinds)() for s in config.seats}

    def run(self, games: int | None = None) -> int:
        """Play ``games`` games (None: until stopped); return how many were finished."""
        played = 0
        while not self.stop.is_set() and (games is None or played < games):
            played += self.play_game()
            if games is None or played < games:
                self._pause(NEXT_GAME_S)
        return played

    def play_game(self) -> bool:
        """Play one game; True if it was played to its end.

        Someone at the scorepad may join in (press a virtual button, score a round,
        start a game): when the hub and the bots no longer agree, or the hub refuses
        what the bots do, the bots say so and deal a new game.
        """
        config, bots = self.game_config()
        hand = Hand(random.Random(self.rng.getrandbits(64)), Pace(speed=self.speed))
        table = BotTable(self.hub, hand, self.wait, drain_each_edge=False)
        try:
            for action, truth in iter_actions(config, bots):
                if self.stop.is_set():
                    return False
                self._before(action)
                log.debug("%r", action)
                try:
                    game = table.act(action)
                except Exception as exc:  # the store refused (a round scored from the page)
                    log.warning("the hub refused %r (%s); dealing a new game", action, exc)
                    return False
                self._after(action, game, table)
                if table.observed() != truth:
                    self.disagreements += 1
                    log.warning(
                        "the hub shows %s after %r, the bots expected %s; dealing a new game",
                        table.observed(),
                        action,
                        truth,
                    )
                    return False
        finally:
            table.release_all()
        return True

    def _before(self, action: Action) -> None:
        if isinstance(action, EnterScores):
            self._pause(COUNT_TILES_S)
        elif isinstance(action, Blocked):
            self._pause(BLOCKED_S)

    def _after(self, action: Action, game: dict[str, Any] | None, table: BotTable) -> None:
        if isinstance(action, NewGame):
            names = ", ".join(f"{n} (slot {s})" for s, n in table.names.items())
            log.info("game %s: %s, %s", table.game_id, action.config.rules, names)
        elif isinstance(action, EnterScores) and game is not None:
            result = action.result
            who = table.names[result.went_out] if result.went_out else "nobody (blocked)"
            points = ", ".join(f"{n} {p}" for n, p in game["totals"].items())
            log.info("round %s: %s went out; totals: %s", result.round, who, points)
            if game["finished"]:
                log.info("game %s won by %s", table.game_id, game["winner"])

    def _pause(self, seconds: float) -> None:
        self.sleep(seconds / self.speed)

    def wait(self, seconds: float) -> float:
        """Wait until ``seconds`` after the previous edge was due, not after it was done,
        and return that time (the bot table stamps a button edge with it): the sleeps'
        overshoot does not add up, and a bounce burst stays a few ms long however late
        this thread runs."""
        now = self.hub.clock.now()
        due = self._due + seconds
        if due < now - LATE_S and seconds >= BURST_S:  # far behind: start afresh
            due = now + seconds
        if due > now and seconds >= BURST_S:
            self.sleep(due - now)
        self._due = due
        return due


def add_arguments(parser: argparse.ArgumentParser) -> None:
    """The ``mtrain-hub demo`` options."""
    parser.add_argument("--rules", choices=list(PROFILES), default="consensus")
    parser.add_argument("--players", type=int, default=4, choices=range(2, 9), metavar="N")
    parser.add_argument(
        "--speed", type=float, default=1.0, help="1: about 1-2 s per action; 10: ten times faster"
    )
    parser.add_argument("--seed", type=int, help="the demo's seed (default: random)")
    parser.add_argument("--games", type=int, help="stop after N games (default: play on)")
    parser.add_argument("--rounds", type=int, help="rounds per game (default: all)")
    parser.add_argument("--config", help="TOML config file")
    parser.add_argument("--host")
    parser.add_argument("--port", type=int)
    parser.add_argument("--state-dir", help="keep the demo's games here (default: a temp dir)")
    parser.add_argument(*VERBOSE, action="store_true")


def command(args: argparse.Namespace) -> int:
    """Run the hub with bots at the table until Ctrl-C (or ``--games``)."""
    if not 0.05 <= args.speed <= 100:
        print("mtrain-hub demo: --speed must be from 0.05 to 100", file=sys.stderr)
        return 2
    seed = args.seed if args.seed is not None else random.randrange(2**32)
    with tempfile.TemporaryDirectory(prefix="mtrain-demo-") as tmp:
        web = {k: v for k, v in (("host", args.host), ("port", args.port)) if v is not None}
        overrides = {"hub": {"backend": "sim", "state_dir": args.state_dir or tmp}, "web": web}
        try:
            config = load(args.config, overrides)
        except ConfigError as exc:
            print(f"mtrain-hub demo: config error: {exc}", file=sys.stderr)
            return 2
        return _serve_demo(config, args, seed)


def _serve_demo(config: dict[str, Any], args: argparse.Namespace, seed: int) -> int:
    from hub.app import Hub

    hub = Hub(config)
    previous = signal.getsignal(signal.SIGINT), signal.getsignal(signal.SIGTERM)
    # Ctrl-C stops the demo even when a shell started it in the background (which
    # ignores SIGINT for its children); SIGTERM unwinds the same way, through
    # ``finally`` and ``hub.stop()``.
    signal.signal(signal.SIGINT, signal.default_int_handler)
    signal.signal(signal.SIGTERM, lambda *_: sys.exit(0))
    try:
        hub.start()
        hub.serve(config["web"]["host"], config["web"]["port"], block=False)
        log.info(
            "demo: %s, %d players, speed %g, seed %d (Ctrl-C stops)",
            args.rules,
            args.players,
            args.speed,
            seed,
        )
        demo = Demo(hub, args.rules, args.players, args.speed, seed, args.rounds)
        demo.run(args.games)
    except (KeyboardInterrupt, SystemExit):
        pass
    except OSError as exc:  # the port is taken, most likely
        print(f"mtrain-hub demo: {exc}", file=sys.stderr)
        return 2
    finally:
        signal.signal(signal.SIGINT, signal.SIG_IGN)  # a second Ctrl-C: let it stop
        try:
            hub.stop()
            log.info("demo stopped")
        finally:  # called in-process (tests): leave the caller's handlers as they were
            for signum, handler in zip((signal.SIGINT, signal.SIGTERM), previous, strict=True):
                if handler is not None:
                    signal.signal(signum, handler)
    return 0
