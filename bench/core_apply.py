"""The pure core's cost per event: ``core.apply`` over a game's presses, markers and
clock ticks, for this tree and, beside it in the same run, other trees (an older
checkout, e.g. ``git archive <commit> hub scorer | tar -x -C /tmp/old``).

Each tree runs in its own subprocess (its own ``hub`` package), the trees taking turns
``--rounds`` times, so a shared machine's load falls on all of them alike.

``--cold``: one release (a tap that passes the turn) applied again and again in this
tree, timed three ways: warm (right after the same call), after the caches were evicted
(32 MB touched), and after a 10 ms sleep, as the loop thread meets a press.

Usage: python bench/core_apply.py [--events 20000] [--rounds 3] [--cold] [OTHER_TREE ...]
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
try:
    from hub.runtime.config import load, timings
except ImportError:  # a tree from before the rooms: hub/config.py
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


# Runs in the subprocess: one release's apply, warm, after evicting caches, after a sleep.
_COLD = """
import statistics, sys, time
sys.path.insert(0, sys.argv[1])
from hub import core
from hub.runtime.config import load, timings
from hub.core.events import ButtonChanged, GameStarted

table = core.new_table(timings(load(None, {"hub": {"backend": "sim", "state_dir": "."}})))
table, _ = core.apply(table, GameStarted(
    game_id=1, rules="consensus", players=("Ann", "Bob"), seats=(1, 2), mexican_slot=5,
    set_max=12, rounds=13, at=0.0, first=1, options=()))
for at in range(1, 40, 2):  # some play, so the round has a history
    table, _ = core.apply(table, ButtonChanged(table.turn, True, float(at)))
    table, _ = core.apply(table, ButtonChanged(table.turn, False, at + 0.1))
down, _ = core.apply(table, ButtonChanged(table.turn, True, 50.0))
release = ButtonChanged(table.turn, False, 50.1)
junk = bytearray(32 << 20)
times = {"warm": [], "evicted": [], "slept": []}
for _ in range(int(sys.argv[2])):
    for how in times:
        if how == "warm":
            core.apply(down, release)
        elif how == "evicted":
            junk[::4096] = bytes(len(junk[::4096]))
            sum(memoryview(junk)[::64])
        else:
            time.sleep(0.01)
        t = time.perf_counter_ns()
        core.apply(down, release)
        times[how].append((time.perf_counter_ns() - t) / 1000)
print(" ".join(f"{k}={statistics.median(v):.1f}" for k, v in times.items()))
"""


def cold(runs: int) -> None:
    """Print this tree's release apply warm, evicted and after a sleep (medians, µs)."""
    out = subprocess.run(
        [sys.executable, "-c", _COLD, str(ROOT), str(runs)],
        capture_output=True,
        text=True,
        check=True,
        cwd=ROOT,
    )
    figures = dict(item.split("=") for item in out.stdout.split())
    warm = float(figures["warm"])
    print("one release (a tap passing the turn), median µs per core.apply:")
    for how, label in (
        ("warm", "warm (just ran)"),
        ("evicted", "after evicting the caches"),
        ("slept", "after sleeping 10 ms"),
    ):
        value = float(figures[how])
        print(f"  {label:30} {value:7.1f} µs  ({value / warm:.1f}× warm)")


def per_apply(tree: Path, events: int) -> float:
    """Microseconds per ``core.apply`` of ``tree``'s core (one subprocess)."""
    out = subprocess.run(
        [sys.executable, "-c", _PROBE, str(tree), str(events)],
        capture_output=True,
        text=True,
        check=True,
        cwd=ROOT,
    )
    return float(out.stdout)


def main() -> None:
    """Print each tree's median µs per apply and its ratio to this tree's."""
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("trees", nargs="*", type=Path, help="other source trees")
    parser.add_argument("--events", type=int, default=20000)
    parser.add_argument("--rounds", type=int, default=3)
    parser.add_argument(
        "--cold",
        action="store_true",
        help="also time one release warm, with caches evicted, after a sleep",
    )
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
    if args.cold:
        cold(300)


if __name__ == "__main__":
    main()
