"""The soak: tablesim's bots play whole games through the real hub, on virtual time.

Every action is done at the hub as a table does it (:class:`tablesim.bot_table.BotTable`:
the sim pins with human timing, bounce and flicker; the scorepad's calls for new
games, blocked rounds and scores) on a :class:`~tablesim.virtual.FakeClock`, so a 1.5 s
hold costs no real 1.5 s. After each action the hub must show the simulator's truth
(turn, public trains, the open double and who must cover it, phase, round, engine,
who went out, who called their last tile) and the gesture's sounds (a chicken, a
choo, the fanfare, a last-tile call, a reminder for going out without one, never a
refusal), and after each round's tiles the store must hold the simulator's points.
Now and then a player presses the wrong button; when the hub took it as a table
action, the table undoes it and the hub must be as before (:mod:`tablesim.slips`).
``mtrain-hub soak`` runs it and prints, for each mismatch, the command that replays
its game. ``--jobs`` plays the games in that many processes, one hub each. What a run
and each of its games play (:class:`~tablesim.soak_plans.Spec`,
:class:`~tablesim.soak_plans.Plan`) is :mod:`tablesim.soak_plans`.
"""

from __future__ import annotations

import argparse
import multiprocessing
import random
import shutil
import sys
import tempfile
import time
from collections.abc import Callable
from concurrent.futures import ProcessPoolExecutor, as_completed
from dataclasses import dataclass, field
from pathlib import Path
from typing import TYPE_CHECKING

from hub.core.state import PLAYING
from scorer.profiles import SLOTS
from tablesim import (
    PROFILES,
    Action,
    EnterScores,
    GameConfig,
    Hold,
    LastTile,
    LongHold,
    MarkerOff,
    MarkerOn,
    Tap,
    Truth,
    iter_actions,
)
from tablesim.bot_table import (
    BotTable,
    differences,
    score_differences,
    sound_differences,
)
from tablesim.hubs import fast_dir, quiet_hub
from tablesim.hubs import new_hub as new_hub
from tablesim.motions import Pace
from tablesim.profiles import VARIANTS
from tablesim.slips import mistake
from tablesim.soak_plans import BOTS, MISTAKES, Plan, Spec
from tablesim.virtual import FakeClock, RecordingPlayer

if TYPE_CHECKING:
    from hub.app import Hub

Trace = Callable[[str], None]
GESTURES = (Tap, Hold, LongHold, LastTile, MarkerOn, MarkerOff)


# --- running ------------------------------------------------------------------------------


@dataclass
class Mismatch:
    """The first step of a game where the hub and the simulator disagree."""

    game: int
    replay: str
    step: int
    action: str
    round: int | None
    problems: list[str]

    def lines(self) -> list[str]:
        """The mismatch, then the command that replays its game."""
        return [
            f"MISMATCH game {self.game}, step {self.step} (round {self.round}) "
            f"{self.action}: " + "; ".join(self.problems),
            f"  replay: {self.replay}",
        ]


@dataclass
class Report:
    """What a soak run played and found."""

    spec: Spec
    games: int = 0
    actions: int = 0
    edges: int = 0
    seconds: float = 0.0
    table_s: float = 0.0
    jobs: int = 1
    mismatches: list[Mismatch] = field(default_factory=list)
    undos: int = 0

    def summary(self) -> str:
        """One line: games, actions, pin edges, mismatches, time."""
        s = self.spec
        options = "".join(
            [" chickenfoot"] * s.chickenfoot
            + [" partnerships"] * s.partnerships
            + [" blanks"] * s.blanks
            + [f" {name}" for name in s.variants]
        )
        rounds = f", {s.rounds} rounds each" if s.rounds else ""
        rate = self.actions / self.seconds if self.seconds else 0.0
        return (
            f"soak {s.rules}{options}: {self.games} games ({s.players[0]}..{s.players[1]} "
            f"players{rounds}, seed {s.seed}, bots {s.bots}), {self.actions} actions, "
            f"{self.edges} pin edges, {self.undos} mistakes undone, "
            f"{len(self.mismatches)} mismatches; "
            f"{self.seconds:.1f} s with {self.jobs} job(s) ({rate:.0f} actions/s; "
            f"{self.table_s / 3600:.1f} h of table time)"
        )

    def add(self, other: Report) -> None:
        """Fold in a worker's report."""
        self.games += other.games
        self.actions += other.actions
        self.edges += other.edges
        self.table_s += other.table_s
        self.undos += other.undos
        self.mismatches += other.mismatches


def play_game(
    hub: Hub,
    spec: Spec,
    plan: Plan,
    report: Report,
    trace: Trace | None = None,
    pace: Pace | None = None,
) -> Mismatch | None:
    """Play ``plan``'s game at ``hub``, checking every step; the first mismatch, or None.

    ``pace`` replaces the hand's default timing, bounce and flicker (tests).
    """
    config, bots, hand = plan.game()
    if pace is not None:
        hand.pace = pace
    clock = hub.clock
    assert isinstance(clock, FakeClock), "the soak plays on virtual time"
    table = BotTable(hub, hand, clock.advance)
    before: Truth | None = None
    start = hub.clock.now()
    slips = random.Random(plan.seed ^ 0x5EED)
    for step, (action, truth) in enumerate(iter_actions(config, bots)):
        problems: list[str] = []
        if (
            before is not None
            and before.phase in PLAYING
            and isinstance(action, Tap | Hold | LongHold)
            and slips.random() < plan.mistakes
        ):
            problems, undone = mistake(hub, table, before, slips)
            report.undos += undone
        problems = _act(hub, table, config, action, truth, before, problems)
        report.actions += 1
        if trace is not None:
            trace(f"{step:5d} {action!r}\n      truth {truth}\n      hub   {table.observed()}")
        if problems:
            return Mismatch(
                plan.number, spec.replay(plan), step, repr(action), truth.round, problems
            )
        before = truth
    report.games += 1
    report.edges += table.edges
    report.table_s += hub.clock.now() - start
    return None


def _act(
    hub: Hub,
    table: BotTable,
    config: GameConfig,
    action: Action,
    truth: Truth,
    before: Truth | None,
    problems: list[str],
) -> list[str]:
    """Do ``action`` at the table; ``problems`` (a mistake's, before it) and what the hub
    then shows that differs from ``truth`` (or more than one open double); when nothing
    did, what differs in the gesture's sounds or the round's stored scores."""
    sound = hub.sound
    assert isinstance(sound, RecordingPlayer), "the soak listens through the recording player"
    sound.played.clear()
    try:
        game = table.act(action)
        problems += differences(truth, table.observed())
    except Exception as exc:  # the hub refused what the table did: a finding too
        game, problems = None, [*problems, f"hub raised {exc!r}"]
    bound = [d for d in hub.loop.snapshot["doubles"] if not d.get("queued")]
    if len(bound) > 1:  # (doubled doubles: the queued ones wait, in the truth's queued)
        problems.append(f"doubles: the hub has {len(bound)} open")
    if not problems and isinstance(action, GESTURES):
        problems = sound_differences(action, before, config.mexican_slot, sound.played, truth)
    if not problems and isinstance(action, EnterScores) and game is not None:
        problems = score_differences(action, game, table.names)
    return problems


def play_plans(spec: Spec, plans: list[Plan], trace: Trace | None = None) -> Report:
    """Play ``plans``, each on a fresh hub (a hub costs about 10 ms), so a game plays
    the same in a run and in its replay."""
    report = Report(spec)
    with (
        tempfile.TemporaryDirectory(prefix="mtrain-soak-", dir=fast_dir()) as tmp,
        quiet_hub(trace is not None),
    ):
        for plan in plans:
            state_dir = Path(tmp) / f"game{plan.number}"
            hub = new_hub(state_dir)
            try:
                mismatch = play_game(hub, spec, plan, report, trace)
            finally:
                hub.stop()
                shutil.rmtree(state_dir, ignore_errors=True)
            if mismatch is not None:
                report.mismatches.append(mismatch)
    return report


Progress = Callable[[Report, int], None]


def run(
    spec: Spec, jobs: int = 1, trace: Trace | None = None, progress: Progress | None = None
) -> Report:
    """Play the run's games in ``jobs`` processes (one with ``trace``), a batch of games
    at a time; ``progress(report, total)`` hears after each batch."""
    started = time.perf_counter()
    plans = list(spec.plans())
    jobs = max(1, min(jobs, len(plans))) if trace is None else 1
    size = max(1, min(25, len(plans) // (jobs * 4)))
    batches = [plans[i : i + size] for i in range(0, len(plans), size)]
    report = Report(spec, jobs=jobs)

    def done(part: Report) -> None:
        report.add(part)
        report.seconds = time.perf_counter() - started
        if progress is not None:
            progress(report, len(plans))

    if jobs == 1:
        for batch in batches:
            done(play_plans(spec, batch, trace))
    else:
        spawn = multiprocessing.get_context("spawn")  # no forking a process with threads
        with ProcessPoolExecutor(jobs, mp_context=spawn) as pool:
            for future in as_completed([pool.submit(play_plans, spec, b) for b in batches]):
                done(future.result())
    report.mismatches.sort(key=lambda m: m.game)
    report.seconds = time.perf_counter() - started
    return report


class ProgressLine:
    """Prints a run's progress to stderr at every tenth of its games."""

    def __init__(self) -> None:
        self.shown = 0

    def __call__(self, report: Report, total: int) -> None:
        played = report.games + len(report.mismatches)
        tenth = played * 10 // total
        if tenth > self.shown and played < total:
            self.shown = tenth
            print(
                f"  {report.spec.rules}: {played}/{total} games, {report.actions} actions, "
                f"{len(report.mismatches)} mismatches, {report.seconds:.0f} s",
                file=sys.stderr,
                flush=True,
            )


# --- the command ------------------------------------------------------------------------


def players_range(text: str) -> tuple[int, int]:
    """``"2..8"`` (or ``"5"``) as (low, high), within 2 and the hub's slots."""
    low, _, high = text.partition("..")
    try:
        bounds = (int(low), int(high or low))
    except ValueError:
        raise argparse.ArgumentTypeError(f"{text!r}: expected A..B, e.g. 2..8") from None
    if not 2 <= bounds[0] <= bounds[1] <= len(SLOTS):
        raise argparse.ArgumentTypeError(f"{text!r}: players from 2 to {len(SLOTS)}, low to high")
    return bounds


def add_arguments(parser: argparse.ArgumentParser) -> None:
    """The ``mtrain-hub soak`` options."""
    parser.add_argument("--rules", choices=list(PROFILES), default="consensus")
    parser.add_argument("--games", type=int, default=100)
    parser.add_argument("--players", type=players_range, default=(2, 8), metavar="A..B")
    parser.add_argument("--seed", type=int, default=1, help="the run's seed")
    parser.add_argument("--game-seed", type=int, help="the first game's seed (to replay it)")
    parser.add_argument("--rounds", type=int, help="rounds per game (default: all)")
    parser.add_argument("--chickenfoot", action="store_true")
    parser.add_argument("--partnerships", action="store_true")
    parser.add_argument(
        "--blanks",
        action="store_true",
        help="consensus: every blank half scores 25 (the double blank 50)",
    )
    parser.add_argument(
        "--variant",
        action="append",
        default=[],
        choices=sorted(VARIANTS),
        help="consensus: a variation switched on (" + ", ".join(sorted(VARIANTS)) + ")",
    )
    parser.add_argument(
        "--mistakes",
        type=float,
        default=MISTAKES,
        help="share of gestures a wrong press (then undone) comes before",
    )
    parser.add_argument("--bots", choices=BOTS, default="mixed")
    parser.add_argument("--jobs", type=int, default=1, help="processes to play in")
    parser.add_argument(
        "--trace", action="store_true", help="print every action with the truth and the hub's state"
    )


def spec_of(args: argparse.Namespace) -> Spec:
    """The run the parsed ``mtrain-hub soak`` options ask for."""
    return Spec(
        args.rules,
        args.games,
        args.players,
        args.seed,
        args.game_seed,
        args.rounds,
        args.chickenfoot,
        args.partnerships,
        args.bots,
        args.blanks,
        args.mistakes,
        tuple(args.variant),
    )


def command(args: argparse.Namespace) -> int:
    """Run the soak; print the report; exit 1 on any mismatch (2 on bad options)."""
    spec = spec_of(args)
    try:
        first = next(spec.plans())
        first.game()
    except (ValueError, StopIteration) as exc:
        print(f"mtrain-hub soak: {exc or 'no games to play'}", file=sys.stderr)
        return 2
    report = run(spec, args.jobs, trace=print if args.trace else None, progress=ProgressLine())
    print(report.summary())
    for mismatch in report.mismatches:
        print("\n".join(mismatch.lines()))
    return 1 if report.mismatches else 0
