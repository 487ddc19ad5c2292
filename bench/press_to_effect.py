"""Press-to-effect latency and idle CPU of the hub.

1. Latency: time from a gpiozero mock pin edge (a button release, which completes a
   tap) to the ``turn`` sound reaching the sound port, over N presses, through the
   real path: gpiozero callback -> queue -> hub loop thread -> pure core -> effect
   dispatch -> sound port. Beside it, in the same run, the floor: a bare
   cross-thread ``queue.Queue`` hand-off between the same two kinds of thread.
   Debounce is set to 1 ms so 10,000 presses take seconds, not minutes; the path
   is the same. Hub presses and floor hand-offs alternate in batches (``--batch``),
   so on a shared machine both meet the same load. The release's ``core.apply`` is
   timed on the loop thread too, and the path without it is set beside the floor:
   the core's share of the latency, measured where it runs (cold, between presses).
2. Idle CPU: ``mtrain-hub run`` as a subprocess with a game set up and one SSE
   client connected, CPU seconds over an idle window read from /proc, beside a
   sleeping Python process over the same window.

With the voice on (``--voice turns``, the hub's default) the turn is said in the
chime's place and the port is reached by the sentence; ``--voice off`` times the chime,
the path before the voice existed.

Usage: python bench/press_to_effect.py [--presses 10000] [--idle 30] [--batch 250]
       [--voice turns|off|all]
"""

from __future__ import annotations

import argparse
import gc
import itertools
import os
import statistics
import subprocess
import sys
import tempfile
import threading
import time
import urllib.request
from collections.abc import Iterator
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))


from bench.benchstats import floor_handoffs, percentile, stamping_hub  # noqa: E402
from hub import core  # noqa: E402
from hub.voice.phrases import VOICE_MODES  # noqa: E402
from scorer.setup import check_setup  # noqa: E402
from tests.ports import os_port  # noqa: E402


def hub_presses(
    state_dir: str,
    cpu: list[float],
    pauses: list[float] | None = None,
    cores: list[float] | None = None,
    voice: str = "turns",
) -> Iterator[float]:
    """Microseconds from a release edge to the sound port, one per press, for as long
    as the caller asks (closing the generator stops the hub and appends the loop
    thread's CPU seconds to ``cpu``: a figure the machine's load hardly moves).
    ``pauses`` gets the microseconds of each cyclic collection on the loop thread, and
    ``cores`` those of ``core.apply`` on each release (timed around the call)."""
    hub, arrived, stamp = stamping_hub("sim", state_dir, sound={"voice": voice})
    apply, last = core.apply, [0.0]

    def timed(table: Any, event: Any) -> Any:
        t = time.perf_counter_ns()
        try:
            return apply(table, event)
        finally:
            last[0] = (time.perf_counter_ns() - t) / 1000

    if cores is not None:
        core.apply = timed  # the loop calls core.apply through the module
    hub.games.new_game(check_setup({"players": ["Ann", "Bob"], "first": 1}))
    (loop,) = [t for t in threading.enumerate() if t.name == "hub-loop"]
    assert loop.ident is not None
    clock = time.pthread_getcpuclockid(loop.ident)
    start = time.clock_gettime(clock)
    began = [0]

    def collecting(phase: str, info: dict[str, int]) -> None:
        if pauses is not None and threading.get_ident() == loop.ident:
            if phase == "start":
                began[0] = time.perf_counter_ns()
            else:
                pauses.append((time.perf_counter_ns() - began[0]) / 1000)

    gc.callbacks.append(collecting)
    try:
        for i in itertools.count():
            slot = 1 + i % 2
            hub.sim.button(slot, True)
            time.sleep(0.0015)
            arrived.clear()
            t0 = time.perf_counter_ns()
            hub.sim.button(slot, False)
            if not arrived.wait(5):
                raise RuntimeError(f"press {i}: no sound reached the port")
            if cores is not None:
                cores.append(last[0])
            yield (stamp[0] - t0) / 1000
            time.sleep(0.0015)
    finally:
        core.apply = apply
        hub.loop.drain()
        cpu.append(time.clock_gettime(clock) - start)
        gc.callbacks.remove(collecting)
        hub.stop()


def interleaved(
    presses: int,
    batch: int,
    state_dir: str,
    pauses: list[float],
    cores: list[float],
    cpu: list[float],
    voice: str = "turns",
) -> tuple[list[float], list[float]]:
    """Hub presses and floor hand-offs in alternating batches, so both meet the same
    load on a shared machine; (hub, floor) microseconds."""
    hub, floor = hub_presses(state_dir, cpu, pauses, cores, voice), floor_handoffs()
    ours: list[float] = []
    bare: list[float] = []
    try:
        for done in range(0, presses, batch):
            n = min(batch, presses - done)
            bare += itertools.islice(floor, n)
            ours += itertools.islice(hub, n)
    finally:
        hub.close()
        floor.close()
    return ours, bare


def cpu_seconds(pid: int) -> float:
    """User + system CPU seconds of process ``pid`` (from /proc)."""
    fields = Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()
    return (int(fields[11]) + int(fields[12])) / os.sysconf("SC_CLK_TCK")


def idle_cpu(seconds: float, state_dir: str) -> tuple[float, float]:
    """CPU % of one core: the hub subprocess idle, and a sleeping Python beside it."""
    port = os_port()
    hub = subprocess.Popen(
        [
            sys.executable,
            "-m",
            "hub.cli",
            "run",
            "--backend",
            "sim",
            "--host",
            "127.0.0.1",
            "--port",
            str(port),
            "--state-dir",
            state_dir,
        ],
        cwd=ROOT,
        stdout=subprocess.DEVNULL,
        stderr=subprocess.DEVNULL,
    )
    sleeper = subprocess.Popen([sys.executable, "-c", "import time; time.sleep(1e6)"])
    base = f"http://127.0.0.1:{port}"
    try:
        for _ in range(200):
            try:
                urllib.request.urlopen(base + "/api/state", timeout=1).read()
                break
            except OSError:
                time.sleep(0.05)
        request = urllib.request.Request(
            base + "/api/games",
            method="POST",
            data=b'{"players": ["Ann", "Bob", "Cid"], "rules": "consensus"}',
            headers={"Content-Type": "application/json"},
        )
        urllib.request.urlopen(request, timeout=5).read()
        sse = urllib.request.urlopen(base + "/api/events", timeout=60)
        sse.readline()
        time.sleep(2)
        start = (cpu_seconds(hub.pid), cpu_seconds(sleeper.pid), time.monotonic())
        time.sleep(seconds)
        wall = time.monotonic() - start[2]
        hub_cpu = (cpu_seconds(hub.pid) - start[0]) / wall * 100
        sleeper_cpu = (cpu_seconds(sleeper.pid) - start[1]) / wall * 100
        sse.close()
        return hub_cpu, sleeper_cpu
    finally:
        hub.terminate()
        sleeper.terminate()
        hub.wait(10)
        sleeper.wait(10)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--presses", type=int, default=10_000)
    parser.add_argument("--idle", type=float, default=30.0)
    parser.add_argument(
        "--batch", type=int, default=250, help="presses per batch; hub and floor batches alternate"
    )
    parser.add_argument(
        "--voice",
        choices=VOICE_MODES,
        default="turns",
        help="the voice setting (turns, the default: the turn is said in the chime's "
        "place; off: the chime, the path before the voice)",
    )
    args = parser.parse_args()
    with tempfile.TemporaryDirectory() as tmp:
        cpu: list[float] = []
        pauses: list[float] = []
        cores: list[float] = []
        ours, floor = interleaved(
            args.presses, args.batch, os.path.join(tmp, "latency"), pauses, cores, cpu, args.voice
        )
        hub_cpu, sleeper_cpu = idle_cpu(args.idle, os.path.join(tmp, "idle"))
    heard = 'the turn said ("Bob\'s turn")' if args.voice != "off" else "the turn chime"
    print(f"press to effect, {args.presses} presses, voice {args.voice}: {heard} (microseconds)")
    print(f"{'figure':<28}{'hub':>10}{'floor':>10}{'ratio':>8}")
    for name, p in (("median", 50), ("p99", 99)):
        a, b = percentile(ours, p), percentile(floor, p)
        print(f"{name:<28}{a:>10.1f}{b:>10.1f}{a / b:>8.2f}")
    rest = [a - b for a, b in zip(ours, cores, strict=True)]
    for name, p in (("  of it core.apply, median", 50), ("  of it core.apply, p99", 99)):
        print(f"{name:<28}{percentile(cores, p):>10.1f}")
    for name, p in (("  without it, median", 50), ("  without it, p99", 99)):
        a, b = percentile(rest, p), percentile(floor, p)
        print(f"{name:<28}{a:>10.1f}{b:>10.1f}{a / b:>8.2f}")
    print(f"{'max':<28}{max(ours):>10.1f}{max(floor):>10.1f}")
    print(f"mean{'':<24}{statistics.mean(ours):>10.1f}{statistics.mean(floor):>10.1f}")
    print(f"hub loop thread CPU per press (down and up): {cpu[0] / args.presses * 1e6:.1f} us")
    print(
        f"cyclic collections on the loop thread: {len(pauses)}, longest "
        f"{max(pauses, default=0):.1f} us"
    )
    print()
    print(f"idle CPU over {args.idle:.0f} s (% of one core)")
    print(f"{'figure':<28}{'hub':>10}{'sleeper':>10}")
    print(f"{'cpu':<28}{hub_cpu:>10.3f}{sleeper_cpu:>10.3f}")
    p99_ratio = percentile(ours, 99) / percentile(floor, 99)
    print()
    print(
        f"goal p99 within 2x floor: {'met' if p99_ratio <= 2 else 'NOT met'} "
        f"({p99_ratio:.2f}x); idle under 1%: {'met' if hub_cpu < 1 else 'NOT met'}"
    )


if __name__ == "__main__":
    main()
