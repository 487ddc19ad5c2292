"""Soak throughput: actions per second through the whole hub beside the simulator alone.

For each rule profile the same games (the soak's plans: 2 to 8 players, mixed bots,
whole games) are played twice in this run, in one process:

1. the simulator alone: tablesim's actions and truths, plus the hand's pin edges
   for each gesture (all the soak computes before it touches the hub);
2. through the hub, as ``mtrain-hub soak`` plays them: every edge on gpiozero's mock
   pins, the real loop (drained inline on a fake clock), the pure core, the effect
   dispatch, the SQLite store on a tmpfs, the checks after every action, and a
   fresh hub for each game.

The ratio of the two times is the hub's overhead per simulated action; "table
hours per second" is how much play the soak gets through for each real second.

Usage: python bench/soak.py [--games 10] [--seed 1]
"""

from __future__ import annotations

import argparse
import sys
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

from tablesim import PROFILES, Tap, iter_actions  # noqa: E402
from tablesim.actions import Hold, LongHold, MarkerOff, MarkerOn  # noqa: E402
from tablesim.soak import Report, play_plans  # noqa: E402
from tablesim.soak_plans import Spec  # noqa: E402

GESTURES = (Tap, Hold, LongHold, MarkerOn, MarkerOff)


def simulator_alone(spec: Spec) -> tuple[int, float]:
    """(actions, seconds) for the simulator and the hand's edges, no hub."""
    actions, started = 0, time.perf_counter()
    for plan in spec.plans():
        config, bots, hand = plan.game()
        for action, _ in iter_actions(config, bots):
            if isinstance(action, GESTURES):
                hand.edges(action)
            actions += 1
    return actions, time.perf_counter() - started


def through_the_hub(spec: Spec) -> Report:
    """The same games through the hub, checked at every step, as the soak plays them
    (one process, a fresh hub per game)."""
    started = time.perf_counter()
    report = play_plans(spec, list(spec.plans()))
    report.seconds = time.perf_counter() - started
    if report.mismatches:
        raise SystemExit("a mismatch; replay it: " + report.mismatches[0].replay)
    return report


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--games", type=int, default=10, help="games per profile")
    parser.add_argument("--seed", type=int, default=1)
    args = parser.parse_args()
    print(f"soak throughput, {args.games} whole games per profile, 2..8 players, one process")
    print(
        f"{'profile':<17}{'actions':>9}{'edges':>9}{'hub act/s':>11}{'sim act/s':>11}"
        f"{'ratio':>8}{'hub us/act':>12}{'table h/s':>11}"
    )
    totals = [0, 0.0, 0.0, 0.0]
    for rules in PROFILES:
        spec = Spec(rules, args.games, seed=args.seed)
        actions, sim_s = simulator_alone(spec)
        report = through_the_hub(spec)
        assert report.actions == actions, "the hub run played other games"
        hub_rate, sim_rate = actions / report.seconds, actions / sim_s
        print(
            f"{rules:<17}{actions:>9}{report.edges:>9}{hub_rate:>11.0f}{sim_rate:>11.0f}"
            f"{report.seconds / sim_s:>8.1f}{1e6 / hub_rate:>12.0f}"
            f"{report.table_s / 3600 / report.seconds:>11.2f}"
        )
        for i, value in enumerate((actions, report.seconds, sim_s, report.table_s)):
            totals[i] += value
    actions, hub_s, sim_s, table_s = totals
    print(
        f"{'all':<17}{int(actions):>9}{'':>9}{actions / hub_s:>11.0f}{actions / sim_s:>11.0f}"
        f"{hub_s / sim_s:>8.1f}{1e6 * hub_s / actions:>12.0f}{table_s / 3600 / hub_s:>11.2f}"
    )


if __name__ == "__main__":
    main()
