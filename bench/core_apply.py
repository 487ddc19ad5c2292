"""The pure core's cost per event: ``core.apply`` over a game's presses, markers and
clock ticks, for this tree and, beside it in the same run, other trees (an older
checkout, e.g. ``git archive <commit> hub scorer | tar -x -C /tmp/old``).

Each tree runs in its own subprocess (its own ``hub`` package), the trees taking turns
``--rounds`` times, so a shared machine's load falls on all of them alike.

Usage: python bench/core_apply.py [--events 20000] [--rounds 3] [OTHER_TREE ...]
"""

from __future__ import annotations

import argparse
import statistics
import subprocess
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent

# Runs in the subprocess: import the tree's core, play the events, print µs per apply.
_PROBE = """
import random, sys, time
sys.path.insert(0, sys.argv[1])
from hub import core
from hub.config import load, timings
from hub.core.events import ButtonChanged, ClockTicked, GameStarted, MarkerChanged

table = core.new_table(timings(load(None, {"hub": {"backend": "sim", "state_dir": "."}})))
table, _ = core.apply(table, GameStarted(
    game_id=1, rules="consensus", players=("Ann", "Bob", "Cid", "Dee"), seats=(1, 2, 3, 4),
    mexican_slot=5, set_max=12, rounds=13, at=0.0, first=1, options=()))
rng, at, events = random.Random(1), 0.0, []
for _ in range(int(sys.argv[2])):
    at += 0.2
    slot = rng.choice((1, 2, 3, 4))
    if rng.random() < 0.8:  # a tap: press and release
        events += [ButtonChanged(slot, True, at), ButtonChanged(slot, False, at + 0.08)]
        at += 0.08
    else:
        events.append(MarkerChanged(slot, rng.random() < 0.5, at))
    at += 0.2
    events.append(ClockTicked(at))
start = time.perf_counter()
for event in events:
    table, _ = core.apply(table, event)
print((time.perf_counter() - start) / len(events) * 1e6)
"""


def per_apply(tree: Path, events: int) -> float:
    """Microseconds per ``core.apply`` of ``tree``'s core (one subprocess)."""
    out = subprocess.run([sys.executable, "-c", _PROBE, str(tree), str(events)],
                         capture_output=True, text=True, check=True, cwd=ROOT)
    return float(out.stdout)


def main() -> None:
    """Print each tree's median µs per apply and its ratio to this tree's."""
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("trees", nargs="*", type=Path, help="other source trees")
    parser.add_argument("--events", type=int, default=20000)
    parser.add_argument("--rounds", type=int, default=3)
    args = parser.parse_args()
    trees = [ROOT, *args.trees]
    runs: dict[Path, list[float]] = {tree: [] for tree in trees}
    for _ in range(args.rounds):
        for tree in trees:
            runs[tree].append(per_apply(tree, args.events))
    mine = statistics.median(runs[ROOT])
    for tree in trees:
        median = statistics.median(runs[tree])
        print(f"{str(tree):40} {median:7.2f} µs per apply  ({median / mine:.2f}× this tree)")


if __name__ == "__main__":
    main()
